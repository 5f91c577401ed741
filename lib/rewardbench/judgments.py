"""The judgments behind notebook 13's findings rows, laid out for the inspector (lib.inspect; columns
`lib.report.measures.JUDGMENT_COLUMNS`): every generative judge's two verdicts per pair (chosen
response shown first, rejected shown first), re-read from `rewardbench_raw.jsonl` with today's parser.
The raw file keeps no prompt (the pairs' texts stay with the benchmark), so the page shows none."""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from lib.report.measures import JUDGMENT_COLUMNS

ORDERS = (("cr", "chosen shown first", ("chosen", "rejected")), ("rc", "rejected shown first", ("rejected", "chosen")))


def verdict_judgments(folder: Path, measure_ids, params: dict) -> pd.DataFrame:
    """13's verdicts behind each measure_id: accuracy counts every pair (unparsed = wrong) under its
    question, as the findings row's unit; position consistency counts the pairs decided in both orders,
    under their question too."""
    from lib.models.specs import parse_reward_spec
    from lib.report.findings import slug

    from .accuracy_tables import question_units
    from .judge import judge_method
    from .replies import RAW_FILE, reparse

    path = Path(folder) / RAW_FILE
    if not path.exists():
        return pd.DataFrame(columns=JUDGMENT_COLUMNS)
    results = reparse(path)
    wanted = set(measure_ids)
    parts = []
    for _, res in results[results["kind"] == "judge"].groupby("rm", sort=False):
        method, model = slug(judge_method(res)), parse_reward_spec(res["spec"].iloc[0]).target
        questions = question_units(res)
        by_question = questions.nunique() < len(res)  # the findings row's unit: the question where pairs share one
        for kind in ("judge_overall_accuracy", "judge_position_consistency", "judge_unparsed_share"):
            mid = f"{kind}.{method}"
            if mid not in wanted:
                continue
            accuracy = kind == "judge_overall_accuracy"
            # the unparsed share's and the position consistency's unit is the pairs' question
            # (lib.rewardbench.findings_rows; a pair alone in its question counts as itself either way)
            unit = questions if by_question or not accuracy else res["id"].astype(str)
            counted = pd.Series(True, res.index) if kind != "judge_position_consistency" else res["consistent"].notna()
            for key, label, (first, second) in ORDERS:
                choice = pd.to_numeric(res[f"choice_{key}"], errors="coerce")
                picked = choice.map({1: first, 2: second})
                parts.append(pd.DataFrame({
                    "measure_id": mid, "model": model, "unit_id": unit, "stratum": res["category"].astype(str),
                    "counted": counted, "pair_id": res["rm"] + "|" + res["id"].astype(str), "order": label,
                    "prompt": "", "reply": res[f"raw_{key}"].fillna("").astype(str), "attempts": pd.NA,
                    "parsed": [f"response {int(c)} ({p})" if pd.notna(c) else "" for c, p in zip(choice, picked)],
                    "reason": ["" if pd.notna(c) else "no verdict read" for c in choice],
                    "author_1": first, "fact_1": "", "author_2": second, "fact_2": "", "own_chosen": pd.NA,
                    "false_chosen": pd.NA, "flipped": (res["consistent"] == 0).to_numpy()}))
    return pd.concat(parts, ignore_index=True)[JUDGMENT_COLUMNS] if parts else pd.DataFrame(columns=JUDGMENT_COLUMNS)
