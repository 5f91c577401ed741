"""The utility study's headline quantities for the run's findings table (lib.report.findings)."""
from __future__ import annotations

import pandas as pd

from lib.report.findings import slug
from lib.report.findings import declared_finding
from lib.stats import cluster_bootstrap, wilson_ci
from lib.utility.evaluate import HEADLINE

from lib.paper_check.published import UTILITY_TABLE2 as TABLE2

# Our dataset names -> the row names of the paper's Table 2.
PAPER_DATASETS = {"nq": "NQ", "hotpotqa": "HotpotQA", "marco": "MSMARCO-QA"}
# The model behind the paper's Table 2 cells (its section 3 names the API version).
TABLE2_MODEL = "ChatGPT (gpt-3.5-turbo-1106)"
NB11, NB12 = "11_utility_factors", "12_utility_for_answering"
# 11: the passage kinds whose selected shares are compared (lib.utility.evaluate.selected_shares)
KIND_GAPS = (("ground_truth", "counterfactual"), ("counterfactual", "noisy"))
SET_FORMS = ("pointwise", "listwise-set")
# 12: Table 4's ordering (utility > relevance > dense), tested on the listwise-set form both judgments share
GAINS = {"utility_minus_dense": ("utility listwise-set", "dense"),
         "utility_minus_relevance": ("utility listwise-set", "relevance listwise-set")}


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
                            measure_id=f"unreadable_share.{slug(judgment)}.{slug(form)}", kind="diagnostic",
                            scale="% of questions", direction="higher = more replies the parser could not read",
                            no_interval="" if n else "no question asked"))
    return rows


def _paired_row(notebook: str, measure: str, model: str, diffs: pd.Series, measure_id: str, scale: str,
                direction: str, n_boot: int, seed: int) -> dict | None:
    """A row of per-question differences: their mean, a bootstrap interval that resamples the question
    and the sign-flip test against 0 (lib.stats.cluster_bootstrap); None without a question."""
    d = diffs.dropna().to_numpy(dtype=float)
    if not len(d):
        return None
    res = cluster_bootstrap(d, null=0.0, rate=False, n_boot=n_boot, seed=seed)
    return declared_finding("utility", notebook, measure, model, res["n_items"], res["estimate"], res["ci_low"],
                            res["ci_high"], res["p"], measure_id=measure_id, ci_note=res["ci_note"],
                            scale=scale, direction=direction)


def factor_findings(form_q: pd.DataFrame, pos_q: pd.DataFrame, notebook: str = NB11, n_boot: int = 2000,
                    seed: int = 0) -> list[dict]:
    """Notebook 11: does the passage kind change selection (Table 3's set forms: the share of a kind's
    passages selected, ground truth minus counterfactual and counterfactual minus noisy, per readable
    question holding both kinds), and does the ground truth's position (Figure 5: the per-question
    headline, F1 for sets and NDCG@1 for rankings, with the ground truth at the first asked position
    minus at the last, per question readable at both). Each a mean of per-question differences (0-1)
    with a question bootstrap and the sign-flip test against 0, per model and form."""
    rows = []
    sets = form_q[form_q["form"].isin(SET_FORMS)]
    for (model, form), g in sets.groupby(["model", "form"], sort=False):
        for a, b in KIND_GAPS:
            if f"selected {a}" not in g or f"selected {b}" not in g:
                continue
            kinds = a.replace("_", " "), b.replace("_", " ")  # "ground truth", as a reader writes it
            row = _paired_row(notebook, f"selected share, {kinds[0]} minus {kinds[1]} passages ({form})", model,
                              g[f"selected {a}"] - g[f"selected {b}"], f"role_selection_gap.{slug(form)}.{a}_minus_{b}",
                              "share 0-1 (difference)", f"higher = {kinds[0]} passages selected more often than {kinds[1]}",
                              n_boot, seed)
            rows += [row] if row else []
    for (model, form), g in pos_q.groupby(["model", "form"], sort=False):
        first, last = int(g["position"].min()), int(g["position"].max())
        if first == last:
            continue
        wide = g[~g["failed"].astype(bool)].pivot_table(index="id", columns="position", values=HEADLINE[form])
        if first not in wide or last not in wide:
            continue
        row = _paired_row(notebook, f"per-question {'F1' if form in SET_FORMS else 'NDCG@1'}, ground truth at "
                          f"{first} minus at {last} ({form})", model, wide[first] - wide[last],
                          f"position_effect.{slug(form)}", "0-1 (difference)",
                          "higher = better judgments with the ground truth first", n_boot, seed)
        rows += [row] if row else []
    return rows


def answer_metric(source: str) -> str:
    """Table 4's per-question score: F1 for factoid datasets, ROUGE-L (beta 1.2) for MS MARCO."""
    return "ROUGE-L" if source == "marco" else "F1"


def condition_id(condition: str) -> str:
    """An evidence condition as a measure_id part ('utility listwise-set' -> 'utility_listwise_set')."""
    return slug(condition)


def answering_findings(answers: pd.DataFrame, summary: pd.DataFrame, notebook: str = NB12, n_boot: int = 2000,
                       seed: int = 0) -> list[dict]:
    """Notebook 12 (Table 4): the answer score (F1 % for factoid datasets, ROUGE-L % for MS MARCO, the
    paper's) per model, dataset and evidence condition of `summary` (`answer_summary`, bootstrap over
    questions), and the paper's ordering as paired tests per question: utility-selected (listwise-set)
    minus all retrieved passages, and minus relevance-selected (listwise-set), in score 0-1."""
    rows = []
    for r in summary.to_dict("records"):
        metric = answer_metric(r["source"])
        if pd.isna(r.get(metric, float("nan"))):
            continue
        rows.append(declared_finding("utility", notebook, f"answer {metric} % ({r['source']}, {r['condition']} evidence)",
                                     r["model"], int(r["n"]), r[metric], r[f"{metric} lo"], r[f"{metric} hi"],
                                     measure_id=f"answer_score.{slug(r['source'])}.{condition_id(r['condition'])}",
                                     scale=f"% ({metric}{', beta 1.2' if metric == 'ROUGE-L' else ''})",
                                     direction="higher = better answers"))
    for (model, source), g in answers.groupby(["model", "source"], sort=False):
        metric = answer_metric(source)
        wide = g.pivot_table(index="id", columns="condition", values=metric)
        for name, (a, b) in GAINS.items():
            if a in wide and b in wide:
                row = _paired_row(notebook, f"answer {metric}, {a} minus {b} evidence ({source})", model,
                                  wide[a] - wide[b], f"answer_gain.{slug(source)}.{name}", f"{metric} 0-1 (difference)",
                                  f"higher = {a} evidence gives better answers", n_boot, seed)
                rows += [row] if row else []
    return rows
