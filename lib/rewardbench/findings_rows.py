"""Every row the RAG-RewardBench study writes to the run's findings table (lib.report.findings):
notebook 13's judge accuracy (`judge_findings`) and position consistency (`consistency_finding`).
Each row's measure is declared in `measures.py`."""
from __future__ import annotations

import pandas as pd

from lib.models.specs import parse_reward_spec
from lib.report.findings import slug
from lib.report.measures import declared_finding
from lib.stats import wilson_ci

from .accuracy_tables import weighted_accuracy
from .measures import judge_method


def judge_findings(results: pd.DataFrame, notebook: str = "13_rewardbench",
                   paper_values: dict | None = None) -> list[dict]:
    """Headline rows (lib.report.findings): each judge's overall accuracy (orders averaged, unparsed = wrong),
    categories weighted by the paper's counts as its Overall is (`accuracy_tables.weighted_accuracy`), n =
    units (a pair's two orders are one unit; pairs built from one question share it, so the
    question is the unit where questions repeat), n_judgments = verdicts, 95% bootstrap interval over
    units within categories (`lib.stats.cluster_bootstrap`: the Wilson interval over units where
    every unit gives the same accuracy, none below 10 units). The measure says when categories are
    missing and the weights renormalise over those present."""
    rows = []
    for rm, res in results[results["kind"] == "judge"].groupby("rm", sort=False):
        parsed = parse_reward_spec(res["spec"].iloc[0])
        method = judge_method(res)
        w = weighted_accuracy(res)
        lo, hi = w["ci_low"], w["ci_high"]
        note = f"; {w['categories_note']}" if w["categories_note"] else ""
        unit = "pair" if w["n_items"] == len(res) else "question"
        rows.append(declared_finding("rewardbench", notebook,
                            f"judge overall accuracy, paper's category weights ({method}{note})", parsed.target,
                            w["n_items"], w["estimate"], None if pd.isna(lo) else lo, None if pd.isna(hi) else hi,
                            None, (paper_values or {}).get(res["spec"].iloc[0]), n_judgments=2 * len(res),
                             unit=unit, measure_id=f"judge_overall_accuracy.{slug(method)}", ci_note=w["ci_note"],
                             scale="share 0-1",
                             direction="higher = prefers the chosen response more (0.5 = chance; unparsed = wrong)",
                             no_interval="" if len(res) else "no pair judged"))
        rows.append(consistency_finding(res, parsed.target, method, notebook))
    return rows


def consistency_finding(res: pd.DataFrame, model: str, method: str, notebook: str = "13_rewardbench") -> dict:
    """Position consistency of one judge (beyond the paper): the share of pairs, among those whose
    two orders both gave a verdict, where both orders chose the same response; one 0/1 per pair, so a
    Wilson interval over pairs. No test: a judge blind to content and position would be consistent
    half the time, one that always names position 1 never, so no single null fits."""
    both = res["consistent"].dropna().astype(bool) if "consistent" in res else pd.Series(dtype=bool)
    n, k = len(both), int(both.sum())
    lo, hi = wilson_ci(k, n)
    return declared_finding("rewardbench", notebook, f"judge position consistency, pairs with both orders decided ({method})",
                   model, n, k / n if n else float("nan"), None if n == 0 else lo, None if n == 0 else hi,
                   None, n_judgments=2 * n, unit="pair", measure_id=f"judge_position_consistency.{slug(method)}",
                   n_attempted=max(len(res), n), scale="share 0-1",
                   direction="higher = the same response whichever position it is in",
                   no_interval="" if n else "no pair got a verdict in both orders")
