"""The replications' summary per measure family: coverage of the 95% intervals, false detection of
planted nulls and detection of planted effects, each with its unit said. Rows of one seed are not
independent (they share the seed's questions, replies and question effects), so the interval of each
share resamples seeds (a cluster bootstrap with the seed as cluster, `lib.stats.clustered_mean`);
the Wilson interval over rows is shown beside it and is too narrow wherever a seed gives a family
several rows."""
from __future__ import annotations

import math

import pandas as pd

from lib.stats import clustered_mean, wilson_ci

from .validate import must_detect

COVERAGE_GOAL, FALSE_DETECTION_LIMIT = 0.90, 0.06  # issue 29's goals across replications


def family(measure_id: str) -> str:
    """The measure family of a row: its id up to the first dot (human_minus_self, set_f1, ...); a
    paired difference is the family of its measure (paired_difference.judge_overall_accuracy)."""
    parts = measure_id.split(".")
    return ".".join(parts[:2]) if parts[0] == "paired_difference" else parts[0]


def share(values: pd.Series, seeds: pd.Series) -> dict:
    """A share of 0/1 rows: estimate, Wilson interval over rows, interval over seeds (cluster
    bootstrap: the unit is the seed), rows and seeds."""
    values = values.astype(float)
    n, k = len(values), int(values.sum())
    if not n:
        return {"n": 0, "seeds": 0, "share": math.nan, "wilson_low": math.nan, "wilson_high": math.nan,
                "seed_low": math.nan, "seed_high": math.nan}
    lo, hi = wilson_ci(k, n)
    by_seed = clustered_mean(values.to_numpy(), seeds.to_numpy(), method="bootstrap", seed=0, rate=True)
    return {"n": n, "seeds": int(seeds.nunique()), "share": k / n, "wilson_low": lo, "wilson_high": hi,
            "seed_low": by_seed["ci_low"], "seed_high": by_seed["ci_high"]}


def summarize(tables: pd.DataFrame) -> pd.DataFrame:
    """Per measure family (and served model): coverage over rows with an interval, the share of rows
    whose planted effect is null that were detected anyway (false detection), the share of planted
    effects the check requires detected that were, the mean error (estimate - truth), and whether the family meets issue 29's goals.
    Pooled rows (dataset `all`) are left out: they repeat the datasets' data."""
    t = tables[~tables["measure_id"].str.contains(r"\.all\.")].copy()
    if "seed" not in t:
        t["seed"] = 0
    t["family"] = t["measure_id"].map(family)
    keys = ["family", "model"] if "model" in t and t["model"].notna().any() else ["family"]
    if "model" in keys:
        t["model"] = t["model"].fillna("sim")
    out = []
    for key, g in t.groupby(keys, sort=False):
        key = key if isinstance(key, tuple) else (key,)
        cov = g[g["covered"].notna()]
        is_null = (g["truth"] - g["null"]).abs() < 1e-9
        nulls = g[is_null & g["detected"].notna()]
        planted = g[[must_detect(m, tr, nu) for m, tr, nu in zip(g["measure_id"], g["truth"], g["null"])]]
        planted = planted[planted["detected"].notna()]
        c, f, d = (share(x[col], x["seed"]) for x, col in ((cov, "covered"), (nulls, "detected"),
                                                           (planted, "detected")))
        err = g[g["estimate"].notna()] if "estimate" in g else g.iloc[:0]
        bias = (clustered_mean((err["estimate"] - err["truth"]).to_numpy(float), err["seed"].to_numpy(),
                               method="bootstrap", seed=0, rate=False) if len(err) else
                {"estimate": math.nan, "ci_low": math.nan, "ci_high": math.nan})
        meets = (c["n"] > 0 and c["share"] >= COVERAGE_GOAL
                 and (f["n"] == 0 or f["share"] <= FALSE_DETECTION_LIMIT))
        out.append({**dict(zip(keys, key)), "rows": c["n"], "seeds": c["seeds"], "coverage": c["share"],
                    "coverage_seed_low": c["seed_low"], "coverage_seed_high": c["seed_high"],
                    "coverage_wilson_low": c["wilson_low"], "coverage_wilson_high": c["wilson_high"],
                    "null_rows": f["n"], "false_detection": f["share"], "false_detection_seed_high": f["seed_high"],
                    "planted_rows": d["n"], "detected_planted": d["share"],
                    # mean estimate minus truth over every row with an estimate (interval over seeds)
                    "bias": bias["estimate"], "bias_low": bias["ci_low"], "bias_high": bias["ci_high"],
                    "meets_goal": meets})
    return pd.DataFrame(out)
