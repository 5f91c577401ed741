"""How much data a notebook of a planned run will judge, read before the run from what it names: the
demo files' sizes, a count given as a parameter, or a published size; and the typical length of what
goes into a prompt. Nothing is downloaded: a hub dataset counts by its published size."""
from __future__ import annotations

import functools
import json
import statistics

from lib.paths import DEMO

# RAG-RewardBench's published size (the paper's Table 4, lib.rewardbench.categories)
from lib.rewardbench.categories import PUBLISHED_COUNTS

# characters of a real dataset's text (DPR's NQ passages are 100 words; MS MARCO's are shorter;
# RAG-RewardBench prompts carry several retrieved documents), used where no file is read
REAL_PASSAGE_CHARS = 600
REAL_QUESTION_CHARS = 60
REAL_ANSWER_CHARS = 15
REAL_RM_PROMPT_CHARS = 6000
REAL_RM_SYSTEM_CHARS = 500  # the pair's system turn, which a reward model scores and a judge is not shown
REAL_RM_RESPONSE_CHARS = 900


@functools.lru_cache(maxsize=None)
def demo_records(source: str) -> tuple:
    """The demo file of one source, as records (read once)."""
    path = DEMO / f"{source}.jsonl"
    if not path.exists():
        return ()
    return tuple(json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip())


def demo_size(source: str) -> int:
    """Questions in the demo file of one source (0 when there is none)."""
    return len(demo_records(source))


@functools.lru_cache(maxsize=None)
def demo_text_chars() -> dict:
    """Mean characters of the demo data's passages, questions and answers, and of the demo reward
    pairs' prompts (the user turn), system turns and responses (chosen and rejected alike)."""
    recs = [r for s in ("nq", "marco", "triviaqa", "hotpotqa") for r in demo_records(s)]
    pairs = demo_records("rag_rewardbench_pairs")
    mean = lambda xs: int(statistics.mean(xs)) if xs else 0  # noqa: E731
    return {"passage": mean([len(r.get("human_passage") or "") for r in recs]),
            "question": mean([len(r.get("question") or "") for r in recs]),
            "answer": mean([len(str(r.get("answer") or "")) for r in recs]),
            "rm_prompt": mean([len(r.get("prompt") or "") for r in pairs]),
            "rm_system": mean([len(r.get("system") or "") for r in pairs]),
            # a pair shows both responses: their mean, not the chosen one's (chosen runs longer in the data)
            # (the file's field is RAG-RewardBench's `reject`, which the loader reads as `rejected`)
            "rm_response": mean([len(r.get(k) or "") for r in pairs for k in ("chosen", "reject")])}


def text_chars(real: bool) -> dict:
    """Typical characters of each kind of text: the demo data's means, or a real dataset's."""
    if not real:
        return demo_text_chars()
    return {"passage": REAL_PASSAGE_CHARS, "question": REAL_QUESTION_CHARS, "answer": REAL_ANSWER_CHARS,
            "rm_prompt": REAL_RM_PROMPT_CHARS, "rm_system": REAL_RM_SYSTEM_CHARS,
            "rm_response": REAL_RM_RESPONSE_CHARS}


@functools.lru_cache(maxsize=None)
def demo_pair_counts() -> dict:
    """Demo reward pairs per category (the subset's prefix, as lib.rewardbench.categories reads it)."""
    out: dict = {}
    for r in demo_records("rag_rewardbench_pairs"):
        cat = str(r.get("subset") or "").split("-", 1)[0].lower()
        out[cat] = out.get(cat, 0) + 1
    return out


def reward_pairs(pairs_path: str, n_per_category: int) -> int:
    """Pairs a reward-model notebook judges: the demo file's or the published benchmark's, at most
    `n_per_category` per category (0: all)."""
    counts = demo_pair_counts() if not pairs_path else dict(PUBLISHED_COUNTS)
    return sum(min(n, n_per_category) if n_per_category else n for n in counts.values())


def items_per_dataset(source: str, n_items: int, real: bool) -> int:
    """Items of one source a notebook draws: `n_items` (0: all), at most the demo file's size when the
    demo data is used."""
    if real:
        return n_items
    size = demo_size(source)
    return size if not n_items else min(n_items, size)


@functools.lru_cache(maxsize=None)
def _corpus_texts(source: str) -> frozenset:
    seen = set()
    for r in demo_records(source):
        negatives = [n.get("text", "") for n in r.get("negatives") or [] if isinstance(n, dict)]
        truths = [str(p) for p in r.get("supporting_passages") or []] or [r.get("human_passage") or ""]
        seen.update(t for t in truths + negatives if t)
    return frozenset(seen)


def demo_corpus(source: str) -> int:
    """Distinct passages of a demo file (ground truths and negatives): notebook 09's retrieval corpus."""
    return len(_corpus_texts(source))


def demo_corpus_chars(source: str) -> int:
    """Mean characters of a demo file's corpus passages, which 09's candidate sets are drawn from
    (shorter than its human passages: 424 against 656 in a known-truth run's candidate sets)."""
    texts = _corpus_texts(source)
    return int(statistics.mean(len(t) for t in texts)) if texts else 0


@functools.lru_cache(maxsize=None)
def demo_claims(questions: int, n: int, seed: int, replace: bool) -> tuple:
    """The false claims notebook 09 asks counterfactual evidence for on the demo MS MARCO file: its own
    seeded draw of `questions` (with replacement past the file when `replace`), up to n distinct
    claims each by lib.utility.counterfactual's seeded procedure (an answer with no capitalised or
    numeric span outside the question gets none). No model is asked."""
    from lib.utility.build import items_as_dicts, seeded_sample
    from lib.utility.counterfactual import claim_jobs, entity_corpora
    from lib.utility.items import loaders

    pool = loaders(["marco"])["marco"]()
    items = items_as_dicts(seeded_sample(pool, questions, seed, replace))
    jobs, _ = claim_jobs(items, entity_corpora(items, items_as_dicts(pool)), n, seed)
    return tuple(claim for _, (claim, _) in jobs)


@functools.lru_cache(maxsize=None)
def demo_truths(source: str, max_words: int = 0) -> tuple[float, float]:
    """(ground-truth passages per question, their mean characters) of a demo file: the human passage,
    or HotpotQA's supporting passages, clipped to `max_words` as notebook 09 clips them."""
    from lib.utility.benchmark import clip, ground_truths

    recs = demo_records(source)
    texts = [[clip(t, max_words, [str(r.get("answer") or ""), *(r.get("aliases") or [])]) for t in ground_truths(r)]
             for r in recs]
    if not texts:
        return 0.0, 0.0
    return (statistics.mean(len(t) for t in texts),
            statistics.mean(len(p) for t in texts for p in t))


@functools.lru_cache(maxsize=None)
def demo_question_chars(source: str) -> int:
    """Mean characters of a demo file's questions."""
    recs = demo_records(source)
    return int(statistics.mean(len(r.get("question") or "") for r in recs)) if recs else 0
