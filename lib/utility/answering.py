"""Answer generation from selected evidence (section 5, Table 4) and its scores."""
from __future__ import annotations

import pandas as pd

from lib.prompts.utility import qa_prompt
from lib.utility.answer_metrics import clean_answer, score_answer
from lib.utility.benchmark import Candidates
from lib.utility.calls import Ledger, ask
from lib.utility.judging import Judgment

FACTOID_TOKENS, NON_FACTOID_TOKENS = 12, 40


def evidence_from_judgment(row: Candidates, j: Judgment, m: int | None = None) -> list[str]:
    """Passages a judgment selects: its set, or the top m of its ranking (m = the matching set size,
    so set and ranking methods hand the same number of passages to the answerer, as in the paper).
    A failed judgment selects nothing: the answer is then written without evidence (and counted)."""
    if j.failed:
        return []
    if j.selected is not None and j.ranking is None:
        return [row.passage[i] for i in j.selected]
    top = j.ranking[: max(1, m if m is not None else len(j.ranking))]
    # Keep retrieval order inside the chosen few so only the choice differs between methods.
    return [row.passage[i] for i in sorted(top)]


def evidence_by_condition(row: Candidates, condition: str) -> list[str]:
    """Evidence of the judgment-free conditions: none, dense (all retrieved), ground-truth."""
    if condition == "none":
        return []
    if condition == "dense":
        return list(row.passage)
    if condition == "ground-truth":
        return list(row.ground_truth_passages) or [p for p, y in zip(row.passage, row.ground_truth_label) if y]
    raise ValueError(f"Unknown evidence condition {condition!r}: none, dense or ground-truth.")


def answer_all(model, rows: list[Candidates], evidence: list[list[str]], condition: str,
               ledger: Ledger | None = None, key: tuple | None = None) -> pd.DataFrame:
    """Generate and score one answer per row; one DataFrame row per question."""
    prompts = [qa_prompt(r.question, ev, factoid=r.factoid) for r, ev in zip(rows, evidence)]
    # Factoid and non-factoid answers need different lengths: one batch each.
    replies = [""] * len(rows)
    for factoid, tokens in ((True, FACTOID_TOKENS), (False, NON_FACTOID_TOKENS)):
        idx = [i for i, r in enumerate(rows) if r.factoid == factoid]
        got = ask(model, [prompts[i] for i in idx], tokens, desc=f"answer {condition}", ledger=ledger,
                  key=key)
        for i, text in zip(idx, got):
            replies[i] = text
    records = []
    for r, ev, text in zip(rows, evidence, replies):
        pred = clean_answer(text)
        records.append({"id": r.id, "source": r.source, "condition": condition,
                        "n_evidence": len(ev), "prediction": pred, "answer": r.answer,
                        "references": [r.answer, *(r.aliases or [])], "raw": text,
                        **score_answer(pred, r.answer, r.aliases, r.factoid)})
    return pd.DataFrame(records)
