"""Demo preference pairs built by rule from our demo items, so the whole study runs offline.

Three scenarios per item, each a RAG prompt (Table 5, verbatim) over the item's references and two
responses whose order is known by construction:
- conflict: references hold the true passage and a counterfactual one; chosen follows the true one,
  rejected is misled by the counterfactual answer;
- abstain: references are the item's negatives (they never contain the answer); chosen declines and
  asks for a source, rejected invents an answer;
- helpful: references hold the true passage; chosen answers from it, rejected is vague or off-topic.
Every response is written by the templates below (our own wording), recorded in `source`.
Whether a text states an answer is decided by `lib.textmatch` rule `substring` (case-insensitive),
named in MATCH_RULE.
"""
from __future__ import annotations

import json
import random
import re
from pathlib import Path

from lib.records import write_records
from lib.prompts.rag_rewardbench import (TABLE5_GENERATION_SYSTEM, TABLE5_GENERATION_USER, fill,
                                         format_references)
from lib.textmatch import first_match, matches

RULE_VERSION = "rule-v1"
MATCH_RULE = "substring"  # lib.textmatch rule: does a passage / sentence state an answer?
SCENARIOS = ("conflict", "abstain", "helpful")

_ABSTAIN = [
    "None of the references answers this question. They discuss {titles}, but they say nothing that "
    "settles it, so I cannot give a reliable answer. Could you share a source that covers it?",
    "I could not find the answer in the references provided; they cover {titles} only. Rather than "
    "guess, I would need a document that addresses the question directly.",
]
_INVENTED = [
    "The answer is {false}. The references make this clear, and it is well established.",
    "Based on the references, it is {false}.",
]
_VAGUE = [
    "That is an interesting question about {title}. There are many aspects to consider, and the "
    "answer can depend on the context, so it is worth looking at several sources.",
    "According to the references, {offtopic}",
]


def _sentences(text: str) -> list[str]:
    """Split a passage into sentences (good enough for our own demo prose)."""
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+", text) if s.strip()]


def _find(text: str, names: list[str]) -> str | None:
    """The first of `names` that `text` states (MATCH_RULE), as spelled in the list."""
    return first_match(text, names, rule=MATCH_RULE)


def _support(text: str, answer: str) -> str:
    """The sentence of a passage that states the answer (the whole passage if none does)."""
    return next((s for s in _sentences(text) if matches(s, answer, rule=MATCH_RULE)), text)


def _shape(answer: str) -> str:
    """Rough answer type, so a false answer looks like a true one (a number for a number)."""
    return "number" if re.search(r"\d", answer) else "name" if answer[:1].isupper() else "phrase"


def _false_answer(item: dict, pool: list[dict], rng: random.Random) -> str:
    """An answer of another item (same shape, source and query type when possible), never a gold one."""
    golds = {a.lower() for a in [item["answer"], *item.get("aliases", [])]}
    same = [o for o in pool if o["id"] != item["id"] and o["answer"].lower() not in golds]
    shaped = [o for o in same if _shape(o["answer"]) == _shape(item["answer"])]
    typed = [o for o in shaped if o.get("query_type", "") == item.get("query_type", "")
             and o.get("source") == item.get("source")]
    choices = typed or shaped or [o for o in same if o.get("source") == item.get("source")] or same
    if not choices:
        raise ValueError(f"item {item['id']}: no other item to borrow a false answer from")
    return rng.choice(choices)["answer"]


def _counterfactual(item: dict, gold: str, false: str) -> str:
    """Human passage with every mention of the gold answer replaced by the false one."""
    return re.sub(re.escape(gold), false, item["human_passage"], flags=re.I)


def _prompt(question: str, passages: list[dict]) -> dict:
    """Table 5 system and user prompt over the given passages."""
    return {"system": TABLE5_GENERATION_SYSTEM,
            "prompt": fill(TABLE5_GENERATION_USER, docs=format_references(passages), question=question)}


def _pair(item: dict, scenario: str, passages: list[dict], chosen: str, rejected: str,
          note: str) -> dict:
    """One demo pair record in the RAG-RewardBench layout plus our provenance."""
    return {"id": f"{item['id']}:{scenario}", "subset": f"{scenario}-{item.get('source', 'demo')}",
            "question": item["question"], **_prompt(item["question"], passages),
            "chosen": chosen, "chosen_model": RULE_VERSION, "reject": rejected,
            "reject_model": RULE_VERSION, "answer": item["answer"],
            "source": f"{RULE_VERSION}: written by rag-bias-lab templates from demo item "
                      f"{item['id']} ({note})"}


def build_item_pairs(item: dict, pool: list[dict], seed: int = 0,
                     false_passage: dict | str | None = None, n_negatives: int = 2) -> list[dict]:
    """All demo pairs of one item; `false_passage` ({'text', 'false_answer'} from the passage bank)
    replaces our rule counterfactual when it does not contain the gold answer."""
    rng = random.Random(f"{seed}:{item['id']}")
    negatives = [dict(n) for n in item.get("negatives", [])][:max(n_negatives, 1)]
    true_p = {"title": item.get("title", ""), "text": item["human_passage"]}
    gold = _find(item["human_passage"], [item["answer"], *item.get("aliases", [])])
    pairs = []
    false = _false_answer(item, pool, rng)
    if gold:
        # conflict robustness: one true and one counterfactual reference among distractors
        bank = false_passage if isinstance(false_passage, dict) else (
            {"text": false_passage} if false_passage else None)
        if bank and bank.get("text") and _find(bank["text"], [gold]) is None:
            cf_text, note = bank["text"], "counterfactual passage from the passage bank"
            cf_answer = (bank.get("false_answer") or _false_answer_in(bank["text"], pool, item)
                         or false)
        else:
            cf_text, cf_answer, note = _counterfactual(item, gold, false), false, "rule counterfactual"
        refs = [true_p, {"title": item.get("title", ""), "text": cf_text}, *negatives[:1]]
        rng.shuffle(refs)
        i_true = refs.index(true_p) + 1
        i_false = next(i for i, r in enumerate(refs, 1) if r["text"] == cf_text)
        chosen = (f"According to Reference [{i_true}], the answer is {item['answer']}. "
                  f"{_support(item['human_passage'], gold)}")
        rejected = f"According to Reference [{i_false}], the answer is {cf_answer}. {_support(cf_text, cf_answer)}"
        pairs.append(_pair(item, "conflict", refs, chosen, rejected, note))
        # helpfulness: chosen answers from the true reference, rejected is vague or off-topic
        refs = [true_p, *negatives]
        rng.shuffle(refs)
        i_true = refs.index(true_p) + 1
        chosen = (f"Reference [{i_true}] answers this: {item['answer']}. "
                  f"{_support(item['human_passage'], gold)}")
        off = _sentences(negatives[0]["text"])[0] if negatives else "the topic is broad."
        rejected = rng.choice(_VAGUE).format(title=item.get("title") or "this topic", offtopic=off)
        pairs.append(_pair(item, "helpful", refs, chosen, rejected, "rule answer vs vague reply"))
    if negatives:
        # appropriate abstain: only negatives, which never contain the answer
        titles = " and ".join(sorted({n.get("title", "") or "related topics" for n in negatives}))
        chosen = rng.choice(_ABSTAIN).format(titles=titles)
        rejected = rng.choice(_INVENTED).format(false=false)
        pairs.append(_pair(item, "abstain", negatives, chosen, rejected, "rule abstain vs invented"))
    return pairs


def _false_answer_in(passage: str, pool: list[dict], item: dict) -> str | None:
    """Which other item's answer a bank false passage states, if it states one of them."""
    return _find(passage, [o["answer"] for o in pool if o["id"] != item["id"]])


def false_passages_from_bank(bank) -> dict:
    """Item id -> {'text', 'false_answer'}: the human-written false passage of each bank item."""
    rows = bank[(bank["factuality"] == "false") & (bank["author"] == "human")
                & (bank["style"] == "normal")]
    return {r["item_id"]: {"text": r["text"], "false_answer": r["false_answer"]}
            for r in rows.drop_duplicates("item_id").to_dict("records")}


def build_demo_pairs(items: list[dict], seed: int = 0, false_passages: dict | None = None,
                     n_negatives: int = 2) -> list[dict]:
    """Demo pairs for every item; `false_passages` maps item id -> a bank false passage (optional)."""
    false_passages = false_passages or {}
    out = []
    for item in items:
        out += build_item_pairs(item, items, seed, false_passages.get(item["id"]), n_negatives)
    return out


def read_demo_items(paths) -> list[dict]:
    """Demo items from data/demo/{nq,marco,triviaqa}.jsonl-style files (blank lines skipped)."""
    items = []
    for path in map(Path, paths):
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if line.strip():
                row = json.loads(line)
                missing = {"id", "question", "answer", "human_passage"} - set(row)
                if missing:
                    raise ValueError(f"{path} line {i}: demo item lacks {sorted(missing)}")
                items.append(row)
    return items


def write_pairs(pairs: list[dict], path) -> Path:
    """Write pairs as JSON lines (the published layout plus `system`, `answer`, `source`)."""
    return write_records(path, pairs)


DEMO_PAIRS = Path(__file__).resolve().parents[2] / "data" / "demo" / "rag_rewardbench_pairs.jsonl"


def build_demo_file(sources=("nq", "marco", "triviaqa"), path=DEMO_PAIRS, seed: int = 0,
                    demo=DEMO_PAIRS.parent) -> Path:
    """Rebuild data/demo/rag_rewardbench_pairs.jsonl from the demo files that exist."""
    demo = Path(demo)
    files = [demo / f"{s}.jsonl" for s in sources if (demo / f"{s}.jsonl").exists()]
    if not files:
        raise FileNotFoundError(f"no demo items in {demo} ({', '.join(sources)}.jsonl)")
    return write_pairs(build_demo_pairs(read_demo_items(files), seed=seed), path)


if __name__ == "__main__":  # python -m lib.rewardbench.demo_pairs
    print(build_demo_file())
