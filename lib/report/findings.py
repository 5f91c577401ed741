"""Headline findings of a run: one row per quantity, written by the notebooks, gathered by the runner.

Each notebook calls `record(run_name, notebook, rows)` with rows made by `finding(...)`; the rows land
in `data/runs/<run>/findings/<notebook>.csv`, so re-running one notebook replaces only its rows. After
a run, `summarize(run_dir)` writes `findings.csv` (all rows) and a short `README.md` that renders the
table with one sentence per study.

`n` is `n_items`, the independent units (questions, items or pairs: `unit` names them); `n_judgments`
counts the judgments behind them. Intervals and tests resample or model the unit, not the judgment
(`lib.stats.clustered_mean`). `p_adjusted` is Holm over one declared family per run and study:
the tested rows that are `primary` (one reading per quantity), not `smoke` and not `pooled` (pooled
rows repeat other rows' data, e.g. all datasets at once); `family` names the study for the rows in
it and is blank for the rest. Below MIN_CI_UNITS units, or where an interval would have zero width,
the interval is blank and `ci_note` says why.
"""
from __future__ import annotations

import json
import math
import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from lib import paths, stats

COLUMNS = ["study", "notebook", "measure_id", "measure", "model", "n", "n_items", "n_judgments", "unit", "estimate", "ci_low",
           "ci_high", "ci_note", "p", "p_adjusted", "pooled", "primary", "family", "smoke", "paper_value", "paper_model"]
# results.json: what tools that read results need, one object per row
RESULT_KEYS = ["study", "notebook", "measure_id", "model", "estimate", "ci_low", "ci_high", "n", "n_judgments",
               "unit", "p", "p_adjusted", "pooled", "primary", "family", "smoke", "measure", "ci_note"]
STUDIES = {
    "self-preference": "Self-preference in RAG",
    "utility": "Utility judgments",
    "rewardbench": "Reward models in RAG",
}
SMOKE_N = 30  # below this many independent units a row is a smoke test, not a finding (the project's rule)


def finding(study: str, notebook: str, measure: str, model: str, n: int, estimate: float,
            ci_low: float | None = None, ci_high: float | None = None, p: float | None = None,
            paper_value: float | None = None, *, n_judgments: int | None = None, unit: str = "",
            pooled: bool = False, paper_model: str | None = None, measure_id: str | None = None,
            primary: bool = True, ci_note: str = "") -> dict:
    """One headline quantity, checked: a known study, whole counts (n = independent units, at most
    n_judgments); an interval that misses its estimate (possible for percentile bootstraps of a skewed
    statistic, or a swapped column) is warned about. A published value needs `paper_model` when the
    paper's model is not the one measured. `measure_id` is the stable, pivotable name (default: a
    slug of the measure). `primary=False` marks a secondary reading of a quantity another row reads
    (kept out of Holm's family). Below MIN_CI_UNITS units, or with a zero-width interval, the
    interval is blanked and `ci_note` says why."""
    if study not in STUDIES:
        raise ValueError(f"Unknown study {study!r}: use one of {sorted(STUDIES)}.")
    if int(n) != n or n < 0:
        raise ValueError(f"{measure}: n must be a whole number >= 0, got {n!r}.")
    judgments = int(n) if n_judgments is None else n_judgments
    if int(judgments) != judgments or judgments < n:
        raise ValueError(f"{measure}: n_judgments must be a whole number >= n ({n}), got {n_judgments!r}.")
    est = float(estimate)
    ci_low, ci_high, ci_note = honest_interval(int(n), _num(ci_low), _num(ci_high), ci_note)
    if not (math.isnan(ci_low) or math.isnan(ci_high) or math.isnan(est)):
        if not (float(ci_low) - 1e-9 <= est <= float(ci_high) + 1e-9):
            warnings.warn(f"{measure}: estimate {est} lies outside its interval [{ci_low}, {ci_high}].",
                          stacklevel=2)
    return {"study": study, "notebook": notebook, "measure_id": measure_id or slug(measure), "measure": measure,
            "model": model, "n": int(n),
            "n_items": int(n), "n_judgments": int(judgments), "unit": unit, "estimate": est,
            "ci_low": _num(ci_low), "ci_high": _num(ci_high), "ci_note": ci_note, "p": _num(p),
            "p_adjusted": float("nan"), "pooled": bool(pooled), "primary": bool(primary), "family": "",
            "smoke": int(n) < SMOKE_N, "paper_value": _num(paper_value), "paper_model": paper_model or ""}


def honest_interval(n: int, low: float, high: float, note: str = "") -> tuple[float, float, str]:
    """(low, high, note): blank below MIN_CI_UNITS units ("too few units") and where the interval has
    zero width (no spread is no certainty); otherwise as given."""
    if math.isnan(low) or math.isnan(high):
        return low, high, note
    if n < stats.MIN_CI_UNITS:
        return float("nan"), float("nan"), stats.TOO_FEW_UNITS
    if high - low <= 1e-12:
        return float("nan"), float("nan"), note or "zero-width interval: no spread between units, no interval"
    return low, high, note


def slug(text: str) -> str:
    """A stable identifier from readable text: lower case, runs of other characters as one '_'."""
    return re.sub(r"[^a-z0-9]+", "_", str(text).lower()).strip("_")


def _num(value) -> float:
    """A float, with None as NaN (CSV-friendly)."""
    return float("nan") if value is None else float(value)


def findings_dir(run_name: str) -> Path:
    """Folder of one run's per-notebook findings files."""
    return paths.run_dir(run_name) / "findings"


def record(run_name: str, notebook: str, rows: list[dict]) -> Path:
    """Write one notebook's findings (replacing what an earlier run of that notebook wrote)."""
    folder = findings_dir(run_name)
    folder.mkdir(parents=True, exist_ok=True)
    frame = pd.DataFrame(rows, columns=COLUMNS)
    path = folder / f"{notebook}.csv"
    frame.to_csv(path, index=False)
    return path


def collect(run_dir: Path) -> pd.DataFrame:
    """Every notebook's findings of a run, in notebook order, with Holm-adjusted p-values."""
    files = sorted((Path(run_dir) / "findings").glob("*.csv"))
    frames = [pd.read_csv(f) for f in files if f.stat().st_size]
    frames = [f for f in frames if not f.empty]
    if not frames:
        return pd.DataFrame(columns=COLUMNS)
    frame = pd.concat(frames, ignore_index=True).reindex(columns=COLUMNS)
    # Files of older runs lack the unit columns: each row then counts as one unit per judgment.
    frame["n_items"] = frame["n_items"].fillna(frame["n"])
    frame["n_judgments"] = frame["n_judgments"].fillna(frame["n_items"])
    frame[["n", "n_items", "n_judgments"]] = frame[["n", "n_items", "n_judgments"]].astype(int)
    frame["measure_id"] = [m if isinstance(m, str) and m else slug(t) for m, t in zip(frame["measure_id"], frame["measure"])]
    frame["smoke"] = frame["n_items"] < SMOKE_N  # recomputed: the rule counts units
    frame["pooled"] = frame["pooled"].astype(object).fillna(False).astype(bool)
    frame["primary"] = frame["primary"].astype(object).fillna(True).astype(bool)  # older files: every row primary
    for col in ("unit", "paper_model", "ci_note"):
        frame[col] = frame[col].astype(object).fillna("").astype(str)
    return adjust(frame)


def in_family(frame: pd.DataFrame) -> pd.Series:
    """Which rows belong to Holm's family: tested, primary, not smoke, not pooled."""
    primary = frame["primary"].astype(bool) if "primary" in frame else True
    return frame["p"].notna() & primary & ~frame["smoke"].astype(bool) & ~frame["pooled"].astype(bool)


def adjust(frame: pd.DataFrame) -> pd.DataFrame:
    """`p_adjusted` and `family`: Holm per run and study over the rows `in_family`; `family` is the
    study's name for those rows and "" for the rest (whose p_adjusted stays blank)."""
    frame = frame.copy()
    frame["p_adjusted"] = float("nan")
    frame["family"] = ""
    member = in_family(frame)
    keys = [k for k in ("run", "study") if k in frame]
    for _, rows in frame[member].groupby(keys, sort=False):
        frame.loc[rows.index, "p_adjusted"] = stats.holm(rows["p"].to_numpy(float))
        frame.loc[rows.index, "family"] = rows["study"]
    return frame


def study_sentence(study: str, rows: pd.DataFrame) -> str:
    """One plain sentence on what a study's rows show: how many are findings and which differ from
    their null after Holm's correction."""
    title = STUDIES.get(study, study)
    sized = rows[rows["n_items"] >= SMOKE_N]
    small = len(rows) - len(sized)
    if sized.empty:
        return (f"{title}: every quantity has fewer than {SMOKE_N} independent units, so this run is a "
                "smoke test, not a finding.")
    tested = sized[sized["p_adjusted"].notna()]
    sig = tested[tested["p_adjusted"] < 0.05]
    parts = [f"{title}: {len(sized)} quantities with n >= {SMOKE_N} units"]
    if len(tested):
        named = "; ".join(f"{r.measure} ({r.model}) = {r.estimate:.3g}, Holm p = {r.p_adjusted:.2g}"
                          for r in sig.itertuples())
        parts.append(f"{len(sig)} of the {len(tested)} tested differ from their null at Holm-adjusted p < 0.05"
                     + (f" ({named})" if named else ""))
    if small:
        parts.append(f"{small} more have n < {SMOKE_N} and are smoke tests only")
    return ", ".join(parts) + "."


def _markdown(frame: pd.DataFrame) -> str:
    """The findings table as GitHub markdown (numbers to 3 significant digits, blanks for missing)."""
    def cell(v):
        if isinstance(v, (bool, np.bool_)):
            return "yes" if v else ""
        if isinstance(v, float):
            return "" if math.isnan(v) else f"{v:.3g}"
        return str(v)
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + " --- |" * len(COLUMNS)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in frame[COLUMNS].itertuples(index=False)]
    return "\n".join(lines)


def summarize(run_dir: Path, run_name: str | None = None) -> tuple[Path, Path, Path]:
    """Write findings.csv, results.json and README.md of a run; returns their paths."""
    run_dir = Path(run_dir)
    frame = collect(run_dir)
    csv_path = run_dir / "findings.csv"
    frame.to_csv(csv_path, index=False)
    json_path = run_dir / "results.json"
    records = frame[RESULT_KEYS].astype(object).where(frame[RESULT_KEYS].notna(), None).to_dict("records")
    json_path.write_text(json.dumps(records, indent=1, default=_plain) + "\n", encoding="utf-8")
    name = run_name or run_dir.name
    text = [f"# Findings of run `{name}`", "",
            "One row per headline quantity: estimate with its 95% interval, n and, where a test applies, "
            "its p-value; `paper_value` is the published number where one exists, `paper_model` the "
            "paper's model behind it; `measure_id` is a stable name to pivot on (also in `results.json`).", "",
            "`n` counts independent units (`n_items`: the `unit` column says which: question, item or "
            "pair); `n_judgments` counts the judgments behind them. Where one unit gives several "
            "judgments, the 95% interval is a percentile cluster bootstrap (the unit resampled with "
            "replacement, seeded) and the p-value a sign-flip test over units; where each unit gives one "
            "judgment, a Wilson interval and binomial test or a paired t-test over units. `p_adjusted` "
            "is Holm's correction over one declared family per study in this run (the `family` column "
            "names it): tested rows that are `primary` (one reading per quantity), not smoke and not "
            "`pooled` (rows that repeat other rows' data, all datasets at once). A blank interval has "
            "its reason in `ci_note` (fewer than 10 units, or no spread between units). Rows "
            f"with n < {SMOKE_N} units are smoke tests, not findings: they are listed apart below.", ""]
    for study in STUDIES:
        rows = frame[frame["study"] == study]
        if len(rows):
            size = int((rows["family"] == study).sum())
            text.append("- " + study_sentence(study, rows) + f" Holm's family `{study}`: {size} rows.")
    findings_rows, smoke_rows = frame[~frame["smoke"]], frame[frame["smoke"]]
    text += ["", f"## Findings (n >= {SMOKE_N} units)", "",
             _markdown(findings_rows) if len(findings_rows) else "None in this run.", "",
             f"## Smoke rows (n < {SMOKE_N} units: the pipeline runs, nothing more)", "",
             _markdown(smoke_rows) if len(smoke_rows) else "None.", ""]
    md_path = run_dir / "README.md"
    md_path.write_text("\n".join(text), encoding="utf-8")
    return csv_path, md_path, json_path


def _plain(value):
    """JSON for numpy scalars."""
    return value.item() if hasattr(value, "item") else str(value)
