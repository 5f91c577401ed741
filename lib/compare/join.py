"""Read runs' findings.csv and manifest.json and join them into one table keyed by
(study, notebook, measure_id), with one column group per compared entry (a run, or a model within a
run when one run measured several)."""
from __future__ import annotations

import glob
import json
from pathlib import Path

import numpy as np
import pandas as pd

from lib import paths
from lib.report import findings, measures
from lib.report.judgment_links import link  # a measure's judgments: its section of the run's inspect.html
from lib.report.labels import label

KEYS = ["study", "notebook", "measure_id"]
# the per-entry columns of comparison.csv, in this order
VALUES = ["estimate", "ci_low", "ci_high", "n", "unit", "p", "p_adjusted", "smoke", "no_interval"]


class CompareError(ValueError):
    """Runs that cannot be compared, with the folder and the fix in one line."""


def resolve_runs(patterns) -> list[Path]:
    """Run folders from names (under data/runs/ or RAGBIAS_RUNS), paths or glob patterns, in the
    order given, each once. A pattern that matches no folder is an error naming it."""
    found: list[Path] = []
    for pattern in patterns:
        pattern = str(pattern)
        hits = [Path(p) for p in sorted(glob.glob(pattern)) if Path(p).is_dir()]
        if not hits and not Path(pattern).is_absolute():
            hits = [Path(p) for p in sorted(glob.glob(str(paths.runs_root() / pattern))) if Path(p).is_dir()]
        if not hits:
            raise CompareError(f"{pattern}: no run folder matches (looked here and in {paths.runs_root()}); "
                               "give run names, folders or a glob such as 'sweep__*'.")
        found.extend(h.resolve() for h in hits if h.resolve() not in found)
    return found


def run_model(manifest: dict) -> str:
    """The run-level model a run was given (`model`: command line or sweep grid, else the config), or ''."""
    given = manifest.get("command_line_parameters") or {}
    config = (manifest.get("config") or {}).get("parameters") or {}
    return str(given.get("model") or config.get("model") or "")


def read_run(folder: Path) -> pd.DataFrame:
    """One run's findings rows with `run`, `run_model` and `run_parameters` (JSON) from its manifest."""
    folder = Path(folder)
    csv = folder / "findings.csv"
    if not csv.exists() and (folder / "comparison.csv").exists():
        raise CompareError(f"{folder}: a comparison, not a run (it has comparison.csv); compare the runs "
                           "themselves, e.g. with a glob 'name__*' that leaves it out.")
    if not csv.exists():
        stating = ", ".join(s[:2] for s in measures.finding_notebooks())
        raise CompareError(f"{folder}: no findings.csv in this run folder; only runs whose notebooks state "
                           f"headline findings ({stating}) can be compared, and a run writes the file "
                           "when it ends (python -m lib.runner run ...).")
    frame = pd.read_csv(csv) if csv.stat().st_size else pd.DataFrame(columns=findings.COLUMNS)
    missing = [c for c in KEYS + ["estimate", "model"] if c not in frame.columns]
    if missing:
        raise CompareError(f"{csv}: not a findings table (no column(s) {missing}).")
    frame = frame.reindex(columns=findings.COLUMNS)
    manifest_path = folder / "manifest.json"
    manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    frame["model"] = frame["model"].astype(object).fillna("").astype(str)
    for col in ("unit", "paper_model", "measure", "no_interval"):
        frame[col] = frame[col].astype(object).fillna("").astype(str)
    frame["smoke"] = frame["n"].fillna(0) < findings.SMOKE_N
    frame.insert(0, "run", manifest.get("run") or folder.name)
    frame.insert(1, "run_model", run_model(manifest))
    frame["run_parameters"] = json.dumps(manifest.get("command_line_parameters") or {}, sort_keys=True)
    frame["run_folder"] = str(folder)
    return frame


def entry_labels(long: pd.DataFrame) -> pd.Series:
    """A short readable label per row's entry (run, model): the model's name when every run has one
    model and the models differ, else the run's name (with the model when a run holds several)."""
    pairs = long[["run", "model"]].drop_duplicates()
    one_model_per_run = not pairs["run"].duplicated().any()
    names = pairs.assign(name=[label(m) if m else r for r, m in zip(pairs["run"], pairs["model"])])
    if one_model_per_run and not names["name"].duplicated().any():
        mapping = dict(zip(zip(names["run"], names["model"]), names["name"]))
    elif one_model_per_run:
        mapping = {(r, m): r for r, m in zip(pairs["run"], pairs["model"])}
    else:
        mapping = {(r, m): f"{r}: {label(m)}" for r, m in zip(pairs["run"], pairs["model"])}
    return pd.Series([mapping[(r, m)] for r, m in zip(long["run"], long["model"])], index=long.index)


def join_runs(folders) -> pd.DataFrame:
    """Every findings row of every run, one table (long form) with an `entry` label per (run, model)."""
    frames = [read_run(f) for f in folders]
    long = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    if long.empty:
        raise CompareError(f"{', '.join(str(f) for f in folders)}: the findings tables are empty; nothing to compare.")
    long.insert(0, "entry", entry_labels(long))
    return long


def entries(long: pd.DataFrame) -> list[str]:
    """Entry labels in the order the runs were given."""
    return list(dict.fromkeys(long["entry"]))


def wide(long: pd.DataFrame) -> pd.DataFrame:
    """comparison.csv: one row per (study, notebook, measure_id), the readable measure and the paper's
    value, then `<column> [<entry>]` for every entry (`judgments [<entry>]`: the measure's section of that
    run's inspect.html); an entry without that measure has empty cells."""
    first = long.groupby(KEYS, sort=False).agg(
        measure=("measure", "first"),
        paper_value=("paper_value", lambda s: s.dropna().iloc[0] if s.notna().any() else np.nan),
        paper_model=("paper_model", lambda s: next((v for v in s if v), "")))
    parts = [first]
    for entry in entries(long):
        rows = long[long["entry"] == entry].drop_duplicates(KEYS).set_index(KEYS)
        rows = rows[VALUES].assign(judgments=[link(m, f"{f}/") for m, f in zip(rows.index.get_level_values(
            "measure_id"), rows["run_folder"])])
        parts.append(rows.rename(columns=lambda c: f"{c} [{entry}]"))
    out = pd.concat(parts, axis=1).loc[first.index]
    for entry in entries(long):  # counts stay whole numbers where an entry lacks a measure
        out[f"n [{entry}]"] = out[f"n [{entry}]"].astype("Int64")
    return out.reset_index()


def cell(row, entry: str) -> tuple:
    """(estimate, ci_low, ci_high, n, p_adjusted, smoke) of one entry in a wide row (NaNs if absent)."""
    return tuple(row.get(f"{c} [{entry}]", np.nan) for c in ("estimate", "ci_low", "ci_high", "n", "p_adjusted", "smoke"))
