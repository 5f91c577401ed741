"""Validation rows of notebooks 04 and 07, which write no findings rows: read from their own outputs
(04's knowledge.jsonl, 07's v1 Table 5) and set beside the planted truth (likelihood_truth)."""
from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from lib.stats import clustered_mean, wilson_ci

from ..core.truth import on_truths_side
from ..core.truth_file import Truth
from .likelihood_truth import LEVELS, KnowledgeDesign, knowledge_truths, likelihood_pair_truths, stratified_factual

SMOKE = 30  # fewer units than this: a smoke test, covered is reported but detection is not judged
TABLE5 = Path("07_knowledge_stratified") / "07_v1_table5_knowledge.csv"
# the same table under the likelihood choice (07 writes it when its evaluator gives likelihoods: a base LM)
TABLE5_LIKELIHOOD = Path("07_knowledge_stratified") / "07_v1_table5_knowledge_likelihood.csv"


def _row(measure_id, notebook, truth, estimate, lo, hi, n, null=math.nan, p_adjusted=math.nan) -> dict:
    ok = not (pd.isna(lo) or pd.isna(hi))
    covered = float(lo - 1e-9 <= truth <= hi + 1e-9) if ok else math.nan
    if math.isnan(null) or n < SMOKE:
        found = math.nan
    elif not pd.isna(p_adjusted):
        found = float(p_adjusted < 0.05 and on_truths_side(estimate, truth, null))
    else:
        found = float(ok and not lo <= null <= hi and on_truths_side(estimate, truth, null))
    return {"measure_id": measure_id, "notebook": notebook, "truth": truth, "null": null, "estimate": estimate,
            "ci_low": lo, "ci_high": hi, "n_items": n, "covered": covered, "p_adjusted": p_adjusted,
            "detected": found}


def knowledge_probe_rows(run_dir: Path, truth: Truth, design: KnowledgeDesign) -> list[dict]:
    """04: per dataset, the share of right replies (interval over questions: a question's 5 replies
    share its effect) and the share of questions at each knowledge level (Wilson over questions)."""
    f = run_dir / "knowledge.jsonl"
    if not f.exists():
        return []
    know = pd.read_json(f, lines=True, dtype={"item_id": str})
    rows, nb = [], "04_knowledge_probe"
    for dataset, g in know.groupby("dataset", sort=False):
        want = knowledge_truths(truth, dataset, design.n_samples)
        replies = [(item, float(c)) for item, cs in zip(g["item_id"], g["correct"]) for c in cs]
        c = clustered_mean([v for _, v in replies], [i for i, _ in replies])
        rows.append(_row(f"knowledge_accuracy.{dataset}", nb, want["accuracy"], c["estimate"], c["ci_low"],
                         c["ci_high"], len(g)))
        for level in LEVELS:
            k = int((g["level"] == level).sum())
            lo, hi = wilson_ci(k, len(g))
            rows.append(_row(f"knowledge_level_share.{dataset}.{level}", nb, want[level], k / len(g), lo, hi, len(g)))
    return rows


def stratified_rows(run_dir: Path, truth: Truth, design: KnowledgeDesign, likelihood: bool = False) -> list[dict]:
    """07: the factual preference rate per dataset and knowledge level (v1 Table 5), null 0.5;
    detection judged on levels with at least SMOKE questions (Holm over the table's levels, as the
    notebook adjusts them; the overall row by its interval). With `likelihood`, the same table under
    the summed-likelihood choice (TF / FT pairs only), against that reading's truth."""
    f = run_dir / (TABLE5_LIKELIHOOD if likelihood else TABLE5)
    if not f.exists():
        return []
    table = pd.read_csv(f)
    want = (likelihood_pair_truths(truth, design.combos).get("factual", math.nan) if likelihood
            else stratified_factual(truth, design.combos))
    name = "knowledge_stratified_factual" + ("_likelihood" if likelihood else "")
    rows = []
    for r in table.to_dict("records"):
        if r["level"] == "unknown" or pd.isna(r.get("fact_rate")):
            continue
        rows.append(_row(f"{name}.{r['dataset']}.{r['level']}", "07_knowledge_stratified",
                         want, r["fact_rate"], r["fact_ci_low"], r["fact_ci_high"], int(r["n_items"]), 0.5,
                         r.get("fact_p_holm", math.nan)))
    return rows


def knowledge_rows(run_dir: Path, truth: Truth, cfg: dict) -> pd.DataFrame:
    """Every validation row of 04 and 07 this run wrote (none when they did not run)."""
    per = cfg.get("per_notebook", {})
    design = KnowledgeDesign(
        datasets=tuple(per.get("01_dataset", {}).get("datasets", KnowledgeDesign.datasets)),
        n_samples=int(per.get("04_knowledge_probe", {}).get("n_samples", 5)),
        combos=tuple(per.get("07_knowledge_stratified", {}).get("combos", KnowledgeDesign.combos)))
    return pd.DataFrame(knowledge_probe_rows(run_dir, truth, design) + stratified_rows(run_dir, truth, design)
                        + stratified_rows(run_dir, truth, design, likelihood=True))
