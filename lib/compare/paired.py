"""Differences between two compared entries on the same units, paired by unit: per measure, the
mean of (entry A's value - entry B's value) over the units both measured, with the interval and
test of lib.stats (units resampled, sign flips over units). Read from the per-item records the runs
keep, for the measures whose findings have them:

- 05 `human_minus_self.*` (pointwise_ratings.jsonl): per question, human-true minus own-passage score;
- 13 `judge_overall_accuracy.*` (rewardbench_raw.jsonl): per pair, the judge's accuracy over both orders,
  categories weighted as the finding weighs them.
"""
from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pandas as pd

from lib import stats
from lib.report import findings
from lib.report.findings import slug
from lib.models.specs import author_name

# per-unit columns: measure_id, model, unit_id, stratum, value, cluster (what intervals resample: the
# unit itself, or the question several pairs were built from)
UNIT_COLUMNS = ["measure_id", "model", "unit_id", "stratum", "value", "cluster"]
PAIRED_MEASURES = {"05_pointwise_reranking": "human_minus_self.*", "13_rewardbench": "judge_overall_accuracy.*"}


def _params(folder: Path, notebook: str) -> dict:
    """The parameters a notebook ran with, from the run's manifest ({} without one)."""
    path = Path(folder) / "manifest.json"
    if not path.exists():
        return {}
    for entry in json.loads(path.read_text()).get("notebooks", []):
        if Path(entry["notebook"]).stem == notebook:
            return entry.get("parameters") or {}
    return {}


def units_05(folder: Path) -> pd.DataFrame:
    """Per question: human (true) minus the evaluator's own passage (true / false) for every dataset
    (and all datasets pooled), setting and rating method, as notebook 05's findings define them."""
    from lib.self_preference.likelihood import RATING_METHODS

    path = Path(folder) / "pointwise_ratings.jsonl"
    if not path.exists():
        return pd.DataFrame(columns=UNIT_COLUMNS)
    ratings = pd.read_json(path, lines=True, dtype={"item_id": str})
    params = _params(folder, "05_pointwise_reranking")
    specs = {author_name(s, params.get("author_names") or {}): s for s in params.get("evaluators") or []}
    views = [ratings] + ([ratings.assign(dataset="all")] if ratings["dataset"].nunique() > 1 else [])
    rows = []
    for view in views:
        for (dataset, evaluator, setting), g in view.groupby(["dataset", "evaluator", "setting"], sort=False):
            # the unit is the question: its own dataset and item id, also within the pooled view
            g = g.assign(unit_id=ratings.loc[g.index, "dataset"].astype(str) + "|" + g["item_id"].astype(str))
            for method, col in RATING_METHODS.items():
                if col not in g:
                    continue
                score = pd.to_numeric(g[col], errors="coerce")
                human = score[(g["author"] == "human") & (g["factuality"] == "true")].groupby(g["unit_id"]).mean()
                for fact in ("true", "false"):
                    own = score[(g["author"] == evaluator) & (g["factuality"] == fact)].groupby(g["unit_id"]).mean()
                    diff = (human - own).dropna()
                    mid = f"human_minus_self.{dataset}.{setting}.self_{fact}.{slug(method)}"
                    rows += [(mid, specs.get(evaluator, evaluator), u, "", float(v), u) for u, v in diff.items()]
    return pd.DataFrame(rows, columns=UNIT_COLUMNS)


def units_13(folder: Path) -> pd.DataFrame:
    """Per pair: each generative judge's accuracy over both orders (unparsed = wrong), stratum = category,
    cluster = the pair's question (`accuracy_tables.question_units`)."""
    from lib.models.specs import parse_reward_spec
    from lib.rewardbench import study
    from lib.rewardbench.accuracy_tables import question_units

    path = Path(folder) / study.RAW_FILE
    if not path.exists():
        return pd.DataFrame(columns=UNIT_COLUMNS)
    results = study.reparse(path)
    rows = []
    for _, res in results[results["kind"] == "judge"].groupby("rm", sort=False):
        parsed = parse_reward_spec(res["spec"].iloc[0])
        method = "log-probability verdict" if parsed.options.get("decide") == "logprob" else "generate-and-parse"
        mid = f"judge_overall_accuracy.{slug(method)}"
        # pairs built from one question are one cluster, as the finding resamples them
        rows += [(mid, parsed.target, str(i), c, float(v), q)
                 for i, c, v, q in zip(res["id"], res["category"], res["correct"], question_units(res))]
    return pd.DataFrame(rows, columns=UNIT_COLUMNS)


UNITS = {"05_pointwise_reranking": (units_05, "question"), "13_rewardbench": (units_13, "pair")}


def run_units(folder: Path) -> pd.DataFrame:
    """Every per-unit value a run's records give, with `notebook` and `unit` columns."""
    parts = [f(folder).assign(notebook=nb, unit=unit) for nb, (f, unit) in UNITS.items()]
    return pd.concat(parts, ignore_index=True)


def difference(a: pd.DataFrame, b: pd.DataFrame, notebook: str, seed: int = 0) -> dict:
    """Mean paired difference a - b over the units both have (the units of one measure)."""
    both = a.merge(b, on=["unit_id", "stratum"], suffixes=("_a", "_b")).dropna(subset=["value_a", "value_b"])
    d = (both["value_a"] - both["value_b"]).to_numpy(float)
    if notebook == "13_rewardbench" and len(both):
        from lib.rewardbench.categories import category_weights

        weights = category_weights(both["stratum"].value_counts().to_dict())
        res = stats.cluster_bootstrap(d, both["cluster_a"], null=0.0, strata=both["stratum"], weights=weights,
                                      seed=seed, rate=False)
    else:
        res = stats.clustered_mean(d, both["unit_id"], null=0.0, method="bootstrap", seed=seed, rate=False)
    return res


def paired_differences(long: pd.DataFrame, folders: dict) -> pd.DataFrame:
    """Every pair of entries (in the order given) on every paired measure both measured: estimate
    (first minus second), 95% interval, sign-flip p, n units; Holm over each study's paired rows
    that are tested, primary, not smoke and not `pooled` (`family` names the study for those).
    `folders` maps run name -> run folder."""
    units = {run: run_units(folder) for run, folder in folders.items()}
    keyed = long.drop_duplicates(["entry"])[["entry", "run", "model"]].to_dict("records")
    measures = long.drop_duplicates(["study", "notebook", "measure_id"]).set_index("measure_id")
    rows = []
    for ea, eb in itertools.combinations(keyed, 2):
        ua, ub = units[ea["run"]], units[eb["run"]]
        ua, ub = ua[ua["model"] == ea["model"]], ub[ub["model"] == eb["model"]]
        for mid in [m for m in dict.fromkeys(ua["measure_id"]) if m in set(ub["measure_id"]) and m in measures.index]:
            a, b = ua[ua["measure_id"] == mid], ub[ub["measure_id"] == mid]
            nb = a["notebook"].iloc[0]
            res = difference(a, b, nb)
            if not res["n_items"]:
                continue
            info = measures.loc[mid]
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
    out["family"] = ""
    # the findings' rule: Holm per study over tested, primary, non-smoke, non-pooled rows
    member = findings.in_family(out)
    for _, g in out[member].groupby("study"):
        out.loc[g.index, "p_adjusted"] = stats.holm(g["p"].to_numpy(float))
        out.loc[g.index, "family"] = g["study"]
    return out


def _flag(info: pd.Series, name: str, default: bool) -> bool:
    """A boolean column of a findings row (findings of older runs may lack it: the default)."""
    value = info.get(name, default)
    return default if value is None or (isinstance(value, float) and np.isnan(value)) else bool(value)
