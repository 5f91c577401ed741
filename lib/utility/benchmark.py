"""GTI and GTU candidate sets (section 2.2) and the file layout they are stored in.

One JSON object per line, the layout of the authors' release: `question`, `passage` (list of
strings), `ground_truth_label` (list of 0/1), optionally `passages_types`; we add `id`, `source`,
`answer`, `aliases`, `query_type` and `ground_truth_passages` (the ground-truth evidence: one human
passage, or HotpotQA's two or more supporting paragraphs, for the "ground-truth" evidence condition of
Table 4). `load_benchmark` reads both the release and ours; the dataset is a parameter, and a file
without answers needs `answers_path` (answers are joined on the question).
"""
from __future__ import annotations

import random
import zlib
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from lib.records import DataError, read_records, write_records
from lib.textmatch import matches

GT, CP, HRNP, WRNP, RETRIEVED = ("ground_truth", "counterfactual", "highly_relevant",
                                 "weakly_relevant", "retrieved")
NOISE_KINDS = (CP, HRNP, WRNP)


@dataclass
class Candidates:
    """One question with its candidate passages and binary ground-truth labels."""

    id: str
    question: str
    passage: list[str]
    ground_truth_label: list[int]
    passages_types: list[str] = field(default_factory=list)
    source: str = ""
    answer: str = ""
    aliases: list[str] = field(default_factory=list)
    query_type: str = ""
    ground_truth_passages: list[str] = field(default_factory=list)

    @property
    def factoid(self) -> bool:
        """True for nq / hotpotqa / triviaqa (EM / F1), False for marco (ROUGE-L / BLEU)."""
        return self.source != "marco"


def ground_truths(item: dict) -> list[str]:
    """An item's ground-truth evidence: its supporting passages (HotpotQA), else its human passage."""
    sup = item.get("supporting_passages")
    if isinstance(sup, (list, tuple)) and len(sup):
        return [str(p) for p in sup]
    return [item["human_passage"]]


def item_seed(seed: int, key: str) -> int:
    """Stable per-item seed (Python's hash() is salted per process)."""
    return (zlib.crc32(key.encode()) + 7919 * int(seed)) % (2 ** 32)


def contains_answer(text: str, answers: list[str]) -> bool:
    """True when any answer occurs as whole words in the text (rule "whole_word", case ignored)."""
    return any(matches(text, a, rule="whole_word") for a in answers if a)


def pooled_corpus(items: list[dict]) -> list[str]:
    """All ground-truth passages and negatives of the items, de-duplicated, in file order."""
    seen: dict[str, None] = {}
    for it in items:
        negs = it.get("negatives")
        negs = list(negs) if isinstance(negs, (list, tuple)) or hasattr(negs, "tolist") else []
        for text in ground_truths(it) + [n.get("text", "") for n in negs]:
            if text and text not in seen:
                seen[text] = None
    return list(seen)


def clip(text: str, max_words: int, answers: list[str] | None = None) -> str:
    """At most max_words words (0: unchanged); the window keeps the first answer mention when there
    is one, so clipping never removes the evidence from the ground-truth passage."""
    words = text.split()
    if not max_words or len(words) <= max_words:
        return text
    start = 0
    for i in range(len(words)):
        if contains_answer(" ".join(words[i:i + 12]), answers or []):
            start = max(0, min(i - max_words // 3, len(words) - max_words))
            break
    return " ".join(words[start:start + max_words])


def clipped(row: Candidates, max_words: int) -> Candidates:
    """The same candidate set with every passage clipped (demo runs on small CPUs)."""
    if not max_words:
        return row
    answers = [row.answer] + list(row.aliases)
    return replace(row, passage=[clip(p, max_words, answers) for p in row.passage],
                   ground_truth_passages=[clip(p, max_words, answers) for p in row.ground_truth_passages])


def allocate(n_slots: int, available: dict[str, int], rng: random.Random) -> dict[str, int]:
    """Spread slots over kinds as evenly as availability allows (water-filling); when the last
    slots cannot go evenly, random kinds get them (section 2.2.4)."""
    counts = {k: 0 for k in available}
    left = n_slots
    while left > 0:
        spare = [k for k in counts if counts[k] < available[k]]
        if not spare:
            break
        low = min(counts[k] for k in spare)
        tied = [k for k in spare if counts[k] == low]
        for k in (tied if len(tied) <= left else rng.sample(tied, left)):
            counts[k] += 1
            left -= 1
    return counts


def noisy_passages(ranked: list[str], truths: list[str], answers: list[str], depth: int = 100
                   ) -> tuple[list[str], list[str]]:
    """(HRNP top-down, WRNP bottom-up) from a ranking: answer-free passages within the top `depth`."""
    pool = [p for p in ranked[:depth] if p not in truths and not contains_answer(p, answers)]
    return pool, pool[::-1]


def _meta(item: dict) -> dict:
    """The item fields every candidate set carries."""
    aliases = item.get("aliases")
    return dict(id=str(item["id"]), question=item["question"], source=item.get("source", ""),
                answer=item["answer"], aliases=list(aliases) if aliases is not None else [],
                query_type=item.get("query_type", "") or "", ground_truth_passages=ground_truths(item))


def build_gti(item: dict, counterfactuals: list[str], ranked: list[str], n: int = 10,
              seed: int = 0) -> Candidates:
    """GTI set (2.2.4): the ground-truth evidence (1, or 2+ for HotpotQA) plus CP / HRNP / WRNP spread
    evenly over the remaining slots, seeded shuffle."""
    rng = random.Random(item_seed(seed, str(item["id"])))
    meta = _meta(item)
    truths = meta["ground_truth_passages"]
    answers = [meta["answer"]] + meta["aliases"]
    hrnp_all, wrnp_all = noisy_passages(ranked, truths, answers)
    cps = list(dict.fromkeys(c for c in counterfactuals if c and c not in truths))
    # HRNP and WRNP come from one pool: split it so no passage appears twice.
    half = (len(hrnp_all) + 1) // 2
    pools = {CP: cps, HRNP: hrnp_all[:half], WRNP: wrnp_all[:len(hrnp_all) - half]}
    counts = allocate(max(0, n - len(truths)), {k: len(v) for k, v in pools.items()}, rng)
    chosen = [(t, GT) for t in truths]
    for kind in NOISE_KINDS:
        # The paper samples CP at random but takes noisy passages from the top of their lists.
        picks = rng.sample(pools[kind], counts[kind]) if kind == CP else pools[kind][:counts[kind]]
        chosen += [(p, kind) for p in picks]
    rng.shuffle(chosen)
    return Candidates(passage=[p for p, _ in chosen], ground_truth_label=[int(k == GT) for _, k in chosen],
                      passages_types=[k for _, k in chosen], **meta)


def build_gtu(item: dict, ranked: list[str], n: int = 10) -> Candidates:
    """GTU set (2.2.3): the top-n retrieved passages as they come; label 1 marks ground-truth evidence."""
    meta = _meta(item)
    top = ranked[:n]
    truth = set(meta["ground_truth_passages"])
    return Candidates(passage=top, ground_truth_label=[int(p in truth) for p in top],
                      passages_types=[GT if p in truth else RETRIEVED for p in top], **meta)


def save_benchmark(rows: list[Candidates], path: str | Path) -> Path:
    """Write candidate sets as JSON lines."""
    return write_records(path, [asdict(row) for row in rows])


ANSWER_FIX = ("each line needs an answer: add an 'answer' / 'answers' field, or pass answers_path= a "
              "JSON / JSONL file of {question, answer (or answers)} records to join on the question")


def _answers_by_question(path) -> dict[str, list[str]]:
    """Answers keyed by question text from an answers file (JSON list or JSON lines)."""
    recs = read_records(path)
    recs = recs if isinstance(recs, list) else [recs]
    out = {}
    for k, rec in enumerate(recs):
        got = rec.get("answers", rec.get("answer")) if isinstance(rec, dict) else None
        if not isinstance(rec, dict) or "question" not in rec or not got:
            raise DataError(f"{path}, item {k}: an answers file needs 'question' and 'answer' (or 'answers').")
        out[str(rec["question"]).strip()] = list(got) if isinstance(got, list) else [str(got)]
    return out


def _row_from_json(obj: dict, where: str, source: str, answers: dict[str, list[str]] | None) -> Candidates:
    """Check one line of a candidate file and turn it into Candidates."""
    for key in ("question", "passage", "ground_truth_label"):
        if key not in obj:
            raise DataError(f"{where}: missing field {key!r}; each line needs question, passage "
                            "(list of strings) and ground_truth_label (list of 0/1).")
    passages, labels = obj["passage"], obj["ground_truth_label"]
    if not isinstance(passages, list) or not all(isinstance(p, str) for p in passages):
        raise DataError(f"{where}: 'passage' must be a list of strings.")
    if len(labels) != len(passages) or any(y not in (0, 1) for y in labels):
        raise DataError(f"{where}: 'ground_truth_label' must hold one 0/1 per passage "
                        f"({len(passages)} passages, labels {labels}).")
    types = obj.get("passages_types") or []
    if types and len(types) != len(passages):
        raise DataError(f"{where}: 'passages_types' has {len(types)} entries for "
                        f"{len(passages)} passages; fix or drop it.")
    got = obj.get("answers", obj.get("answer"))
    if not got and answers is not None:
        got = answers.get(str(obj["question"]).strip())
    if not got:
        raise DataError(f"{where}: no answer for question {obj['question']!r}; {ANSWER_FIX}. "
                        "Without one every EM / F1 would silently be 0.")
    got = list(got) if isinstance(got, list) else [str(got)]
    truths = obj.get("ground_truth_passages") or [p for p, y in zip(passages, labels) if y]
    return Candidates(id=str(obj.get("id", where)), question=obj["question"], passage=passages,
                      ground_truth_label=[int(y) for y in labels], passages_types=list(types),
                      source=obj.get("source") or source, answer=got[0],
                      aliases=list(obj.get("aliases", got[1:])), query_type=obj.get("query_type", "") or "",
                      ground_truth_passages=list(truths))


def load_benchmark(path: str | Path, source: str = "", answers_path: str | Path | None = None,
                   limit: int | None = None) -> list[Candidates]:
    """Read candidate sets (ours, or the authors' release with `source` naming its dataset)."""
    path = Path(path)
    if not path.exists():
        raise DataError(f"No benchmark file at {path}: run notebook 09 for this run first, "
                        "or pass the path of the authors' candidate-passage file.")
    answers = _answers_by_question(answers_path) if answers_path else None
    rows = []
    for n, obj in enumerate(read_records(path), 1):
        where = f"{path.name} item {n}"
        if not isinstance(obj, dict):
            raise DataError(f"{where}: expected a JSON object.")
        if not (obj.get("source") or source):
            raise DataError(f"{where}: no 'source' field; pass source= ('nq', 'hotpotqa', 'marco' or "
                            "'triviaqa'): the dataset is never guessed from the file name.")
        obj.setdefault("id", f"{obj.get('source') or source}-{n:05d}")
        rows.append(_row_from_json(obj, where, source, answers))
        if limit and len(rows) >= limit:
            break
    return rows


def select(rows: list[Candidates], datasets: list[str] | None = None, n_items: int = 0
           ) -> list[Candidates]:
    """The first n_items rows of each dataset (0 = all), datasets in the order given (all if empty)."""
    names = list(datasets) if datasets else list(dict.fromkeys(r.source for r in rows))
    out = []
    for name in names:
        mine = [r for r in rows if r.source == name]
        out += mine[:n_items] if n_items else mine
    if not out:
        raise ValueError(f"No candidate sets for datasets {names}; the file holds "
                         f"{sorted({r.source for r in rows})}.")
    return out
