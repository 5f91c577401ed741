"""Judgments -> per-question metric rows -> summary tables with intervals and failure rates.

Section 2.4 as the paper computes it: P and R are averaged over questions and the set F1 is the
harmonic mean of the averaged P and R (Tables 2 and 3: NQ utility P 57.19, R 73.00, F1 64.14); the
mean of per-question F1 is kept as the labelled extra column "F1 per question". A failed judgment
(nothing readable) has no metric: by default summaries average the readable replies and show the
failure count and rate beside them (`failures="zero"` scores failures 0 instead).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from lib.stats import bootstrap_ci, shown_interval, wilson_ci
from lib.utility.benchmark import Candidates
from lib.utility.judging import Judgment
from lib.utility.judgment_metrics import rank_metrics, set_prf

SET_METRICS = ["P", "R", "F1"]
SET_EXTRA = "F1 per question"
RANK_METRICS = ["NDCG@1", "NDCG@5", "MRR@5"]
HEADLINE = {"pointwise": SET_EXTRA, "listwise-set": SET_EXTRA, "pairwise": "NDCG@1", "listwise-rank": "NDCG@1"}
# passage kinds of a GTI set (lib.utility.benchmark) -> the group whose selected share a row keeps: the
# highly and weakly relevant noisy passages form one group (beyond the paper, which reports none of these)
KIND_GROUP = {"ground_truth": "ground_truth", "counterfactual": "counterfactual",
              "highly_relevant": "noisy", "weakly_relevant": "noisy"}
GROUPS = ("ground_truth", "counterfactual", "noisy")


def selected_shares(selected: list[int] | None, types: list[str]) -> dict[str, float]:
    """Per passage group, the share of its passages a readable set selects (`selected ground_truth`,
    ...); NaN for a group the question lacks or a failed judgment."""
    out = {}
    for group in GROUPS:
        mine = [i for i, t in enumerate(types) if KIND_GROUP.get(t) == group]
        out[f"selected {group}"] = (np.nan if selected is None or not mine
                                    else len(set(mine) & set(selected)) / len(mine))
    return out


def judgment_rows(rows: list[Candidates], judgments: list[Judgment], **tags) -> pd.DataFrame:
    """One row per question: set or ranking metrics (NaN when the judgment failed) plus parse counts."""
    records = []
    for r, j in zip(rows, judgments):
        rec = {"id": r.id, "source": r.source, "form": j.form, "judgment": j.judgment, **tags,
               "n_ok": j.counts.get("ok", 0), "n_repaired": j.counts.get("repaired", 0),
               "n_failed": j.counts.get("failed", 0), "n_asked_again": j.counts.get("asked_again", 0),
               "failed": j.failed,
               "notes": " | ".join(j.notes)}
        if j.form in ("pointwise", "listwise-set"):
            prf = set_prf(j.selected, r.ground_truth_label) if j.selected is not None else \
                {"P": np.nan, "R": np.nan, "F1": np.nan}
            rec.update({"P": prf["P"], "R": prf["R"], SET_EXTRA: prf["F1"],
                        "n_selected": np.nan if j.selected is None else len(j.selected)})
            if r.passages_types:
                rec.update(selected_shares(j.selected, r.passages_types))
        else:
            rec.update(rank_metrics(j.ranking, r.ground_truth_label) if j.ranking is not None
                       else {m: np.nan for m in RANK_METRICS})
        records.append(rec)
    return pd.DataFrame(records)


def harmonic_f1(p: float, r: float) -> float:
    """F1 of an averaged precision and recall (the paper's set F1)."""
    return 2 * p * r / (p + r) if p + r else 0.0


def _interval(vals: np.ndarray, n_boot: int, seed: int) -> tuple[float, float]:
    if len(vals) < 2 or np.all(vals == vals[0]):
        return float(np.mean(vals)), float(np.mean(vals))
    return bootstrap_ci(vals, np.mean, n_boot=n_boot, seed=seed)


def _f1_interval(p: np.ndarray, r: np.ndarray, n_boot: int, seed: int) -> tuple[float, float]:
    """Percentile bootstrap of the harmonic mean of averaged P and R, resampling questions."""
    if len(p) < 2:
        v = harmonic_f1(float(np.mean(p)), float(np.mean(r))) if len(p) else np.nan
        return v, v
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(p), size=(n_boot, len(p)))
    mp, mr = p[idx].mean(axis=1), r[idx].mean(axis=1)
    f1 = np.where(mp + mr > 0, 2 * mp * mr / np.where(mp + mr > 0, mp + mr, 1), 0.0)
    return float(np.percentile(f1, 2.5)), float(np.percentile(f1, 97.5))


def summarize(df: pd.DataFrame, by: list[str], metrics: list[str], n_boot: int = 1000,
              seed: int = 0, scale: float = 100.0, failures: str = "exclude") -> pd.DataFrame:
    """Per group: n, failures (count, rate and Wilson interval), each metric's mean over readable
    replies with a bootstrap 95% interval (beyond the paper), x `scale`; set F1 as the paper's."""
    if failures not in ("exclude", "zero"):
        raise ValueError(f"failures={failures!r}: 'exclude' (average readable replies) or 'zero'.")
    out = []
    for keys, g in df.groupby(by, sort=False, dropna=False):
        keys = keys if isinstance(keys, tuple) else (keys,)
        rec = dict(zip(by, keys))
        failed = g["failed"].astype(bool) if "failed" in g else pd.Series(False, index=g.index)
        rec["n"], rec["n_failed_questions"] = len(g), int(failed.sum())
        lo, hi, _ = shown_interval(rec["n"], *wilson_ci(rec["n_failed_questions"], rec["n"]))
        rec["failure rate"], rec["failure lo"], rec["failure hi"] = (
            scale * rec["n_failed_questions"] / max(rec["n"], 1), scale * lo, scale * hi)
        use = g if failures == "zero" else g[~failed]
        set_f1 = "F1" in metrics and "P" in df and "R" in df
        for m in [m for m in metrics if not (set_f1 and m == "F1")] + ([SET_EXTRA] if set_f1 else []):
            if m not in g:
                continue
            vals = use[m].fillna(0.0) if failures == "zero" else use[m].dropna()
            vals = vals.to_numpy(dtype=float)
            if not len(vals):
                continue
            lo, hi, _ = shown_interval(len(vals), *_interval(vals, n_boot, seed))  # as findings shows it
            rec[m], rec[f"{m} lo"], rec[f"{m} hi"] = scale * float(vals.mean()), scale * lo, scale * hi
        if set_f1:
            pr = use[["P", "R"]].fillna(0.0) if failures == "zero" else use[["P", "R"]].dropna()
            if len(pr):
                p, r = pr["P"].to_numpy(float), pr["R"].to_numpy(float)
                lo, hi, _ = shown_interval(len(p), *_f1_interval(p, r, n_boot, seed))
                rec["F1"] = scale * harmonic_f1(p.mean(), r.mean())
                rec["F1 lo"], rec["F1 hi"] = scale * lo, scale * hi
        for c in ("n_ok", "n_repaired", "n_failed", "n_asked_again"):
            if c in g:
                rec[c] = int(g[c].sum())
        out.append(rec)
    return pd.DataFrame(out)


def with_intervals(summary: pd.DataFrame, metrics: list[str], digits: int = 1) -> pd.DataFrame:
    """Display form: 'mean [lo, hi]' strings per metric (for the paper-shaped tables); the mean alone
    where the interval is withheld."""
    from lib.report.latex_table import interval_text

    shown = summary.copy()
    for m in metrics:
        if m in shown and f"{m} lo" in shown:
            shown[m] = [interval_text(v, lo, hi, digits) if pd.notna(v) else ""
                        for v, lo, hi in zip(shown[m], shown[f"{m} lo"], shown[f"{m} hi"])]
            shown = shown.drop(columns=[f"{m} lo", f"{m} hi"])
    return shown


def side_by_side(summary: pd.DataFrame, keys: list[str], set_form: str = "listwise-set",
                 rank_form: str = "listwise-rank") -> pd.DataFrame:
    """Paper layout: set metrics of `set_form` beside ranking metrics of `rank_form`, per key, each
    with its own n and failure count."""
    def part(form, metrics, tag):
        """Key columns, counts and the metrics (and intervals) of one form."""
        cols = [c for m in metrics for c in (m, f"{m} lo", f"{m} hi") if c in summary]
        got = summary[summary["form"] == form][keys + ["n", "n_failed_questions"] + cols]
        return got.rename(columns={"n": f"n {tag}", "n_failed_questions": f"failed {tag}"})
    return part(set_form, SET_METRICS + [SET_EXTRA], "set").merge(
        part(rank_form, RANK_METRICS, "rank"), on=keys, how="outer")


def failure_table(per_q: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """Failed questions and replies per group (form, position, ...), with the Wilson interval."""
    recs = []
    for keys, g in per_q.groupby(by, sort=False):
        keys = keys if isinstance(keys, tuple) else (keys,)
        k, n = int(g["failed"].sum()), len(g)
        lo, hi = wilson_ci(k, n)
        recs.append({**dict(zip(by, keys)), "questions": n, "failed questions": k,
                     "failure rate": 100 * k / n, "lo": 100 * lo, "hi": 100 * hi,
                     "replies ok": int(g["n_ok"].sum()), "replies repaired": int(g["n_repaired"].sum()),
                     "replies failed": int(g["n_failed"].sum()),
                     "asked again": int(g["n_asked_again"].sum()) if "n_asked_again" in g else 0})
    return pd.DataFrame(recs)


def cost_per_question(ledger_table: pd.DataFrame, n_questions: dict | int) -> pd.DataFrame:
    """Requests and tokens per question of each (model, method) ledger row; `n_questions` maps a
    (model, method) key to the questions it judged (or one count for all)."""
    df = ledger_table.copy()
    nq = [n_questions.get((m, k), np.nan) if isinstance(n_questions, dict) else n_questions
          for m, k in zip(df["model"], df["method"])]
    for c in ("requests", "tokens_in", "tokens_out"):
        df[f"{c} / question"] = df[c] / np.asarray(nq, dtype=float)
    return df
