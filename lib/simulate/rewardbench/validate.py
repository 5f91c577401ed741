"""`make validate` for notebooks 13-15 and the second simulated model: the run config's simulator
address filled in, every findings row compared with the truth of the model it measured, and
compare's paired differences between the two models checked against the difference of their truths."""
from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from ..core.truth import on_truths_side
from .length import pair_lengths, with_pairs
from .truth import RMDesign, per_model, served_name

PLACEHOLDER = "http://127.0.0.1:8765/v1"  # the address the run configs name; the running server's replaces it


def lifted(cfg: dict, url: str) -> dict:
    """The config's run-wide parameters other than `model` that name the placeholder address (13-15's
    two judges), at the running server's address, for the command-line level: there, beside the
    run-level `model` that validate sets, the more specific parameter wins."""
    return {k: at_address(v, url) for k, v in (cfg.get("parameters") or {}).items()
            if k != "model" and PLACEHOLDER in str(v)}


def at_address(value, url: str):
    """A loaded config with the placeholder address replaced by the running simulator's, everywhere."""
    if isinstance(value, str):
        return value.replace(PLACEHOLDER, url)
    if isinstance(value, list):
        return [at_address(v, url) for v in value]
    if isinstance(value, dict):
        return {k: at_address(v, url) for k, v in value.items()}
    return value


def rm_design(cfg: dict, run_dir: Path) -> RMDesign:
    """13's pairs as the run asked for them (category, length difference in words) and 15's samples."""
    from lib.rewardbench import study
    from lib.self_preference.bank import load_bank

    def param(nb, key, default):
        return (cfg.get("_overrides") or {}).get(key, (cfg.get("per_notebook", {}).get(nb) or {}).get(
            key, cfg.get("parameters", {}).get(key, default)))

    rb = "13_rewardbench"
    bank_file = run_dir / "passage_bank.jsonl"
    bank = load_bank(bank_file) if bank_file.exists() else None
    pairs = study.study_pairs(param(rb, "pairs_path", ""), int(param(rb, "n_per_category", 0)),
                              int(param(rb, "seed", 0)), bank=bank)
    return RMDesign(pairs=pair_lengths(pairs),
                    n_samples=int(param("15_best_of_n", "n_samples", 3)),
                    categories=tuple(dict.fromkeys(pairs["category"])))


def compare_by_model(findings: pd.DataFrame, truths_of: dict, compare) -> pd.DataFrame:
    """validate's `compare` per served model: each row against its own model's truths (a `model`
    column, beyond the issue's columns, says which served model a row measured)."""
    parts = [compare(part, truths_of.get(name, truths_of["sim"])).assign(model=name)
             for name, part in findings.groupby(findings["model"].map(served_name), sort=False)]
    return pd.concat(parts, ignore_index=True) if parts else compare(findings, {})


def paired_rows(run_dirs, truths_of: dict, columns) -> pd.DataFrame:
    """Compare's paired differences between the served models (lib.compare), each against the
    difference of the two models' truths: the first entry's minus the second's."""
    from lib.compare import CompareError, compare_tables

    try:
        tables = compare_tables([str(d) for d in run_dirs])
    except CompareError:  # a run without findings rows: nothing paired to check
        return pd.DataFrame(columns=[*columns, "model"])
    model_of = dict(zip(tables["long"]["entry"], tables["long"]["model"].map(served_name)))
    rows = []
    for r in tables["paired"].to_dict("records"):
        a, b = model_of.get(r["first"]), model_of.get(r["second"])
        # a name the truth file does not describe is served with the file's own sections ('sim')
        of_a, of_b = truths_of.get(a, truths_of["sim"]), truths_of.get(b, truths_of["sim"])
        if a == b or r["measure_id"] not in of_a or r["measure_id"] not in of_b:
            continue
        nb, ta, _ = of_a[r["measure_id"]]
        tb = of_b[r["measure_id"]][1]
        truth = ta - tb
        ok = not (pd.isna(r["ci_low"]) or pd.isna(r["ci_high"]))
        row = {"measure_id": f"paired_difference.{r['measure_id']}.{a}_minus_{b}", "notebook": "17_compare_models",
               "truth": truth, "null": 0.0, "estimate": r["estimate"], "ci_low": r["ci_low"], "ci_high": r["ci_high"],
               "n_items": r["n"], "p_adjusted": r["p_adjusted"],
               "covered": float(r["ci_low"] - 1e-9 <= truth <= r["ci_high"] + 1e-9) if ok else math.nan}
        side = on_truths_side(r["estimate"], truth, 0.0)  # a null difference: either side is a false detection
        row["detected"] = float(r["p_adjusted"] < 0.05 and side) if not pd.isna(r["p_adjusted"]) else math.nan
        rows.append({**row, "model": f"{a} - {b}"})
    return pd.DataFrame(rows, columns=[*columns, "model"])


def model_truths(truth, cfg: dict, run_dir: Path, measure_truths, design) -> dict:
    """{served model: {measure_id: (notebook, truth, null)}} for this run; every truth function sees
    the run's RM pairs (`length.with_pairs`: the truths a planted length term moves read them)."""
    rm = rm_design(cfg, run_dir)
    paired = with_pairs(design, rm.pairs)
    return per_model(truth, rm, lambda t: measure_truths(t, paired))
