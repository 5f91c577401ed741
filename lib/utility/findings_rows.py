"""The utility study's headline quantities for the run's findings table (lib.report.findings)."""
from __future__ import annotations

import pandas as pd

from lib.report.measures import declared_finding
from lib.stats import wilson_ci

from lib.paper_check.published import UTILITY_TABLE2 as TABLE2

# Our dataset names -> the row names of the paper's Table 2.
PAPER_DATASETS = {"nq": "NQ", "hotpotqa": "HotpotQA", "marco": "MSMARCO-QA"}
# The model behind the paper's Table 2 cells (its section 3 names the API version).
TABLE2_MODEL = "ChatGPT (gpt-3.5-turbo-1106)"


def table2_findings(summary: pd.DataFrame, model: str, notebook: str = "10_relevance_vs_utility",
                    failures: str = "exclude") -> list[dict]:
    """Listwise-set F1 (the paper's: harmonic mean of averaged P and R, in %) per dataset and
    judgment over readable replies, and the share of unreadable replies per judgment and form.

    `summary` is `evaluate.summarize(per_q, ["source", "judgment", "form"], ...)`. The paper's value
    is ChatGPT's Table 2 cell: a reference point, not the same model, so `paper_model` names it.
    One listwise reply per question and (judgment, form): the question is the unit, resampled by
    the bootstrap of `evaluate.summarize`; the unreadable share has one reply per question (Wilson).
    `failures` as `summarize` was given it: with "zero" F1 averages over every question (failed ones
    score 0), so n counts them all; with "exclude" only the readable ones."""
    rows = []
    sets = summary[summary["form"] == "listwise-set"]
    for r in sets.to_dict("records"):
        if pd.isna(r.get("F1", float("nan"))):
            continue
        paper = TABLE2.get((PAPER_DATASETS.get(r["source"], r["source"]), str(r["judgment"]).capitalize()))
        rows.append(declared_finding("utility", notebook, f"set F1 % ({r['source']}, {r['judgment']} prompts)", model,
                            r["n"] if failures == "zero" else r["n"] - r["n_failed_questions"],
                            r["F1"], r["F1 lo"], r["F1 hi"],
                            paper_value=paper[2] if paper else None, unit="question",
                            paper_model=TABLE2_MODEL if paper else None,
                            measure_id=f"set_f1.{r['source']}.{r['judgment']}", n_attempted=int(r["n"]),
                            scale="% (F1)", direction="higher = judgments closer to the gold utility set"))
    for (judgment, form), g in summary.groupby(["judgment", "form"], sort=False):
        n, failed = int(g["n"].sum()), int(g["n_failed_questions"].sum())
        lo, hi = wilson_ci(failed, n)
        rows.append(declared_finding("utility", notebook, f"unreadable replies % ({judgment}, {form})", model, n,
                            100.0 * failed / max(n, 1), 100.0 * lo, 100.0 * hi, unit="question",
                            measure_id=f"unreadable_share.{judgment}.{form}", kind="diagnostic",
                            scale="% of questions", direction="higher = more replies the parser could not read",
                            no_interval="" if n else "no question asked"))
    return rows
