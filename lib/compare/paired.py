"""Differences between two compared entries on the same units, paired by unit: per measure, the
mean of (entry A's value - entry B's value) over the units both measured, with the interval and
test of lib.stats (units resampled, sign flips over units). The per-unit values come from the
measures that declare a `units` reader (lib.report.measures: each study says where its records are
and how a unit is keyed); strata weights, where a measure declares them, weigh the resampling.
"""
from __future__ import annotations

import itertools

import numpy as np
import pandas as pd

from lib import stats
from lib.report import findings, measures
from lib.report.measures import run_units


def difference(a: pd.DataFrame, b: pd.DataFrame, measure: measures.Measure, seed: int = 0,
               n_boot: int = 2000) -> dict:
    """Mean paired difference a - b over the units both have (the units of one measure), strata
    weighted as the measure declares; intervals resample the `cluster` (the unit itself, or the
    question several pairs were built from); `n_boot` resamples (the p-value does not use them)."""
    both = a.merge(b, on=["unit_id", "stratum"], suffixes=("_a", "_b")).dropna(subset=["value_a", "value_b"])
    d = (both["value_a"] - both["value_b"]).to_numpy(float)
    clusters = both["cluster_a"].fillna(both["unit_id"])  # run_units gives every reader's frame the column
    if measure.strata_weights is not None and len(both):
        weights = measure.strata_weights(both["stratum"].value_counts().to_dict())
        res = stats.cluster_bootstrap(d, clusters, null=0.0, strata=both["stratum"], weights=weights,
                                      seed=seed, rate=False, n_boot=n_boot)
    else:
        res = stats.clustered_mean(d, clusters, null=0.0, method="bootstrap", seed=seed, rate=False, n_boot=n_boot)
    return res


def paired_differences(long: pd.DataFrame, folders: dict) -> pd.DataFrame:
    """Every pair of entries (in the order given) on every paired measure both measured: estimate
    (first minus second), 95% interval, sign-flip p, n units; Holm over each study's paired rows
    that are tested, primary, not smoke and not `pooled` (`family` names the study for those).
    `folders` maps run name -> run folder."""
    units = {run: run_units(folder) for run, folder in folders.items()}
    keyed = long.drop_duplicates(["entry"])[["entry", "run", "model"]].to_dict("records")
    shown = long.drop_duplicates(["study", "notebook", "measure_id"]).set_index("measure_id")
    rows = []
    for ea, eb in itertools.combinations(keyed, 2):
        ua, ub = units[ea["run"]], units[eb["run"]]
        ua, ub = ua[ua["model"] == ea["model"]], ub[ub["model"] == eb["model"]]
        for mid in [m for m in dict.fromkeys(ua["measure_id"]) if m in set(ub["measure_id"]) and m in shown.index]:
            a, b = ua[ua["measure_id"] == mid], ub[ub["measure_id"] == mid]
            nb = a["notebook"].iloc[0]
            res = difference(a, b, measures.find(mid))
            if not res["n_items"]:
                continue
            info = shown.loc[mid]
            rows.append({"study": info["study"], "notebook": nb, "measure_id": mid, "measure": info["measure"],
                         "first": ea["entry"], "second": eb["entry"], "estimate": res["estimate"],
                         "ci_low": res["ci_low"], "ci_high": res["ci_high"], "p": res["p"],
                         "n": res["n_items"], "n_judgments": res["n_judgments"], "unit": a["unit"].iloc[0],
                         "ci_note": res.get("ci_note", ""), "smoke": res["n_items"] < findings.SMOKE_N,
                         "pooled": _flag(info, "pooled", False), "primary": _flag(info, "primary", True)})
    out = pd.DataFrame(rows, columns=["study", "notebook", "measure_id", "measure", "first", "second", "estimate",
                                      "ci_low", "ci_high", "ci_note", "p", "n", "n_judgments", "unit", "smoke",
                                      "pooled", "primary"])
    out.insert(out.columns.get_loc("p") + 1, "p_adjusted", np.nan)
    # the findings' rule: Holm per declared family over tested, non-smoke rows (pooled only in its parts' place)
    return findings.adjust(out)


def _flag(info: pd.Series, name: str, default: bool) -> bool:
    """A boolean column of a findings row (findings of older runs may lack it: the default)."""
    value = info.get(name, default)
    return default if value is None or (isinstance(value, float) and np.isnan(value)) else bool(value)
