"""Headline findings of a run: one row per quantity, written by the notebooks, gathered by the runner.

Each notebook calls `record(run_name, notebook, rows)` with rows made by `finding(...)`; the rows land
in `data/runs/<run>/findings/<notebook>.csv`, so re-running one notebook replaces only its rows. After
a run, `summarize(run_dir)` writes `findings.csv` (all rows) and a short `README.md` that renders the
table with one sentence per study.
"""
from __future__ import annotations

import math
import warnings
from pathlib import Path

import pandas as pd

from lib import config

COLUMNS = ["study", "notebook", "measure", "model", "n", "estimate", "ci_low", "ci_high", "p", "paper_value"]
STUDIES = {
    "self-preference": "Self-preference in RAG",
    "utility": "Utility judgments",
    "rewardbench": "Reward models in RAG",
}
SMOKE_N = 30  # below this a cell is a smoke test, not a finding (the project's rule)


def finding(study: str, notebook: str, measure: str, model: str, n: int, estimate: float,
            ci_low: float | None = None, ci_high: float | None = None, p: float | None = None,
            paper_value: float | None = None) -> dict:
    """One headline quantity, checked: a known study, a whole n; an interval that misses its estimate
    (possible for percentile bootstraps of a skewed statistic, or a swapped column) is warned about."""
    if study not in STUDIES:
        raise ValueError(f"Unknown study {study!r}: use one of {sorted(STUDIES)}.")
    if int(n) != n or n < 0:
        raise ValueError(f"{measure}: n must be a whole number >= 0, got {n!r}.")
    est = float(estimate)
    if ci_low is not None and ci_high is not None and not math.isnan(est):
        if not (float(ci_low) - 1e-9 <= est <= float(ci_high) + 1e-9):
            warnings.warn(f"{measure}: estimate {est} lies outside its interval [{ci_low}, {ci_high}].",
                          stacklevel=2)
    return {"study": study, "notebook": notebook, "measure": measure, "model": model, "n": int(n),
            "estimate": est, "ci_low": _num(ci_low), "ci_high": _num(ci_high), "p": _num(p),
            "paper_value": _num(paper_value)}


def _num(value) -> float:
    """A float, with None as NaN (CSV-friendly)."""
    return float("nan") if value is None else float(value)


def findings_dir(run_name: str) -> Path:
    """Folder of one run's per-notebook findings files."""
    return config.run_dir(run_name) / "findings"


def record(run_name: str, notebook: str, rows: list[dict]) -> Path:
    """Write one notebook's findings (replacing what an earlier run of that notebook wrote)."""
    folder = findings_dir(run_name)
    folder.mkdir(parents=True, exist_ok=True)
    frame = pd.DataFrame(rows, columns=COLUMNS)
    path = folder / f"{notebook}.csv"
    frame.to_csv(path, index=False)
    return path


def collect(run_dir: Path) -> pd.DataFrame:
    """Every notebook's findings of a run, in notebook order."""
    files = sorted((Path(run_dir) / "findings").glob("*.csv"))
    frames = [pd.read_csv(f) for f in files if f.stat().st_size]
    frames = [f for f in frames if not f.empty]
    if not frames:
        return pd.DataFrame(columns=COLUMNS)
    return pd.concat(frames, ignore_index=True)[COLUMNS]


def study_sentence(study: str, rows: pd.DataFrame) -> str:
    """One plain sentence on what a study's rows show: how many are findings and which differ from null."""
    title = STUDIES.get(study, study)
    sized = rows[rows["n"] >= SMOKE_N]
    small = len(rows) - len(sized)
    if sized.empty:
        return (f"{title}: every quantity has n < {SMOKE_N}, so this run is a smoke test, not a finding.")
    tested = sized[sized["p"].notna()]
    sig = tested[tested["p"] < 0.05]
    parts = [f"{title}: {len(sized)} quantities with n >= {SMOKE_N}"]
    if len(tested):
        named = "; ".join(f"{r.measure} ({r.model}) = {r.estimate:.3g}, p = {r.p:.2g}" for r in sig.itertuples())
        parts.append(f"{len(sig)} of the {len(tested)} tested differ from their null at p < 0.05"
                     + (f" ({named})" if named else ""))
    if small:
        parts.append(f"{small} more have n < {SMOKE_N} and are smoke tests only")
    return ", ".join(parts) + "."


def _markdown(frame: pd.DataFrame) -> str:
    """The findings table as GitHub markdown (numbers to 3 significant digits, blanks for missing)."""
    def cell(v):
        if isinstance(v, float):
            return "" if math.isnan(v) else f"{v:.3g}"
        return str(v)
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + " --- |" * len(COLUMNS)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in frame[COLUMNS].itertuples(index=False)]
    return "\n".join(lines)


def summarize(run_dir: Path, run_name: str | None = None) -> tuple[Path, Path]:
    """Write findings.csv and README.md of a run; returns their paths."""
    run_dir = Path(run_dir)
    frame = collect(run_dir)
    csv_path = run_dir / "findings.csv"
    frame.to_csv(csv_path, index=False)
    name = run_name or run_dir.name
    text = [f"# Findings of run `{name}`", "",
            "One row per headline quantity: estimate with its 95% interval, n and, where a test applies, "
            f"its p-value; `paper_value` is the published number where one exists. Rows with n < {SMOKE_N} "
            "are smoke tests, not findings.", ""]
    for study in STUDIES:
        rows = frame[frame["study"] == study]
        if len(rows):
            text.append("- " + study_sentence(study, rows))
    text += ["", _markdown(frame), ""]
    md_path = run_dir / "README.md"
    md_path.write_text("\n".join(text), encoding="utf-8")
    return csv_path, md_path
