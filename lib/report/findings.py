"""Headline findings of a run: one row per quantity, written by the notebooks, gathered by the runner.

Each notebook calls `record(run_name, notebook, rows)` with rows made by `finding(...)`; the rows land
in `data/runs/<run>/findings/<notebook>.csv`, so re-running one notebook replaces only its rows. After
a run, `summarize(run_dir)` writes `findings.csv` (all rows), `results.json` (provenance and every
row) and a `README.md` that opens with what the run found per study (lib.report.run_readme).

`n` is `n_items`, the independent units (questions, items or pairs: `unit` names them); `n_judgments`
counts the judgments behind them. Intervals and tests resample or model the unit, not the judgment
(`lib.stats.clustered_mean`). `p_adjusted` is Holm over each family per run, the family declared
with the measure (`Measure.holm_family`): the study's for the tested primary readings (one reading
per quantity), a study's "secondary readings" family for the readings beyond the paper; smoke rows
are never in one; a `pooled` row (all datasets at once, repeating other rows' data) enters in place
of its notebook's per-dataset rows when none of those has SMOKE_N units (`in_family`); `family`
names the family for the rows in it and is blank for the rest. Below MIN_CI_UNITS units, or where an interval would have zero width,
the interval is blank and `no_interval` says why (the one rule of `lib.stats.shown_interval`, which
tables and figures apply too).
"""
from __future__ import annotations

import json
import math
import re
import warnings
from pathlib import Path

import pandas as pd

from lib import paths, stats

COLUMNS = ["study", "notebook", "measure_id", "measure", "model", "n", "n_items", "n_judgments", "unit", "estimate", "ci_low",
           "ci_high", "p", "p_adjusted", "pooled", "primary", "family", "smoke", "paper_value", "paper_model"]
# What a reader needs to read a row on its own: a finding or a pipeline diagnostic (failure share,
# parse rate), units attempted (n counts those used), the scale, which way is "more", and why a row
# has no interval.
DESCRIBED = ["kind", "n_attempted", "scale", "direction", "no_interval"]
COLUMNS = COLUMNS + DESCRIBED
KINDS = ("finding", "diagnostic")
STUDIES = {
    "self-preference": "Self-preference in RAG",
    "utility": "Utility judgments",
    "rewardbench": "Reward models in RAG",
    "mitigation": "Mitigation arms (beyond the papers)",
}
SMOKE_N = 30  # below this many independent units a row is a smoke test, not a finding (the project's rule)


def finding(study: str, notebook: str, measure: str, model: str, n: int, estimate: float,
            ci_low: float | None = None, ci_high: float | None = None, p: float | None = None,
            paper_value: float | None = None, *, n_judgments: int | None = None, unit: str = "",
            pooled: bool = False, paper_model: str | None = None, measure_id: str | None = None,
            primary: bool = True, ci_note: str = "", kind: str = "finding", n_attempted: int | None = None,
            scale: str = "", direction: str = "", no_interval: str = "") -> dict:
    """One headline quantity, checked: a known study, whole counts (n = independent units, at most
    n_judgments); an interval that misses its estimate (possible for percentile bootstraps of a skewed
    statistic, or a swapped column) is warned about. A published value needs `paper_model` when the
    paper's model is not the one measured. `measure_id` is the stable, pivotable name (default: a
    slug of the measure). `primary=False` marks a secondary reading of a quantity another row reads
    (kept out of Holm's family). Below MIN_CI_UNITS units, or with a zero-width interval, the
    interval is blanked and `no_interval` says why. `kind` "diagnostic" marks a row on the pipeline (a
    failure share, a parse rate), not a finding; `n_attempted` counts the units tried (default n);
    `scale` says in what the estimate is (e.g. "share 0-1", "%"), `direction` what a higher value
    means, `no_interval` why a row has no interval (default: the writer's `ci_note`, or the rule's reason, when
    the interval is blank; a shown interval has none)."""
    if study not in STUDIES:
        raise ValueError(f"Unknown study {study!r}: use one of {sorted(STUDIES)}.")
    if int(n) != n or n < 0:
        raise ValueError(f"{measure}: n must be a whole number >= 0, got {n!r}.")
    judgments = int(n) if n_judgments is None else n_judgments
    if int(judgments) != judgments or judgments < n:
        raise ValueError(f"{measure}: n_judgments must be a whole number >= n ({n}), got {n_judgments!r}.")
    if kind not in KINDS:
        raise ValueError(f"{measure}: kind must be one of {KINDS}, got {kind!r}.")
    attempted = int(n) if n_attempted is None else n_attempted
    if int(attempted) != attempted or attempted < n:
        raise ValueError(f"{measure}: n_attempted must be a whole number >= n ({n}), got {n_attempted!r}.")
    est = float(estimate)
    ci_low, ci_high, ci_note = honest_interval(int(n), _num(ci_low), _num(ci_high), ci_note)
    if not (math.isnan(ci_low) or math.isnan(ci_high) or math.isnan(est)):
        if not (float(ci_low) - 1e-9 <= est <= float(ci_high) + 1e-9):
            warnings.warn(f"{measure}: estimate {est} lies outside its interval [{ci_low}, {ci_high}].",
                          stacklevel=2)
    return {"study": study, "notebook": notebook, "measure_id": measure_id or slug(measure), "measure": measure,
            "model": model, "n": int(n),
            "n_items": int(n), "n_judgments": int(judgments), "unit": unit, "estimate": est,
            "ci_low": _num(ci_low), "ci_high": _num(ci_high), "p": _num(p),
            "p_adjusted": float("nan"), "pooled": bool(pooled), "primary": bool(primary), "family": "",
            "smoke": int(n) < SMOKE_N, "paper_value": _num(paper_value), "paper_model": paper_model or "",
            "kind": kind, "n_attempted": int(attempted), "scale": scale, "direction": direction,
            "no_interval": (no_interval or ci_note) if math.isnan(ci_low) or math.isnan(ci_high) else ""}


def honest_interval(n: int, low: float, high: float, note: str = "") -> tuple[float, float, str]:
    """(low, high, note) by the one rule every output shares (`lib.stats.shown_interval`)."""
    return stats.shown_interval(n, low, high, note)


def slug(text: str) -> str:
    """A stable identifier from readable text: lower case, runs of other characters as one '_'."""
    return re.sub(r"[^a-z0-9]+", "_", str(text).lower()).strip("_")


def _num(value) -> float:
    """A float, with None and pandas' NA as NaN (CSV-friendly)."""
    return float("nan") if value is None or value is pd.NA else float(value)


def declared_finding(study: str, notebook: str, measure: str, model: str, n: int, estimate: float, *args,
        measure_id: str | None = None, **kwargs) -> dict:
    """A findings row (`finding`) of a measure declared in `lib.report.measures`: an undeclared
    measure_id, or one declared for another study or notebook, is refused; the declaration's reading
    sets the row's `primary` and its unit."""
    from . import measures

    mid = measure_id or slug(measure)
    m = measures.find(mid)
    if (m.study, m.notebook) != (study, notebook):
        raise ValueError(f"{mid} is declared for {m.study} / {m.notebook}, not {study} / {notebook}.")
    kwargs.setdefault("primary", m.primary)
    kwargs.setdefault("unit", m.unit)
    return finding(study, notebook, measure, model, n, estimate, *args, measure_id=mid, **kwargs)


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
    frame = pd.concat(frames, ignore_index=True)
    frame = frame.reindex(columns=list(dict.fromkeys(COLUMNS + list(frame.columns))))
    # Files of older runs lack the unit columns: each row then counts as one unit per judgment.
    frame["n_items"] = frame["n_items"].fillna(frame["n"])
    frame["n_judgments"] = frame["n_judgments"].fillna(frame["n_items"])
    frame[["n", "n_items", "n_judgments"]] = frame[["n", "n_items", "n_judgments"]].astype(int)
    frame["measure_id"] = [m if isinstance(m, str) and m else slug(t) for m, t in zip(frame["measure_id"], frame["measure"])]
    frame["smoke"] = frame["n_items"] < SMOKE_N  # recomputed: the rule counts units
    frame["pooled"] = frame["pooled"].astype(object).fillna(False).astype(bool)
    frame["primary"] = frame["primary"].astype(object).fillna(True).astype(bool)  # older files: every row primary
    if "ci_note" in frame:  # older files: the reason was in `ci_note` too
        frame["no_interval"] = frame["no_interval"].where(frame["no_interval"].notna(), frame["ci_note"])
    frame = frame.reindex(columns=COLUMNS)
    frame["no_interval"] = frame["no_interval"].astype(object).fillna("").astype(str)
    frame.loc[frame["ci_low"].notna() & frame["ci_high"].notna(), "no_interval"] = ""
    for col in ("unit", "paper_model", "scale", "direction", "no_interval"):
        frame[col] = frame[col].astype(object).fillna("").astype(str)
    frame["kind"] = frame["kind"].astype(object).fillna("finding").astype(str)  # older files: all findings
    frame["n_attempted"] = frame["n_attempted"].fillna(frame["n_items"]).astype(int)
    return adjust(frame)


def families(frame: pd.DataFrame) -> pd.Series:
    """Each row's Holm family, were it tested: where its measure is declared
    (`lib.report.measures.holm_family`: the study's family for a primary reading, a declared family
    such as "self-preference, secondary readings" for the others), "" for none."""
    from . import measures

    primary = frame["primary"] if "primary" in frame else pd.Series(True, index=frame.index)
    return pd.Series([measures.holm_family(str(m), str(s), bool(p))
                      for m, s, p in zip(frame["measure_id"], frame["study"], primary.astype(object).fillna(True))],
                     index=frame.index, dtype=object)


def in_family(frame: pd.DataFrame) -> pd.Series:
    """Which rows Holm's families test: tested findings (not pipeline diagnostics) of a measure with a
    family (`families`), not smoke; and of those, per family, notebook and model, the per-part rows
    (per dataset) where any of them has SMOKE_N units, else the pooled rows (all parts at once) in
    their place. So a pooled row, which repeats its parts' data, is never tested beside them, and is
    the test where only it has the units (a run too small per dataset still tests what it can)."""
    family = families(frame)
    finding_rows = frame["kind"].astype(object).fillna("finding").eq("finding") if "kind" in frame else True
    tested = frame["p"].notna() & family.ne("") & finding_rows & ~frame["smoke"].astype(bool)
    pooled = frame["pooled"].astype(bool)
    parts = tested & ~pooled
    keys = [frame[k].astype(str) for k in ("run", "notebook", "model") if k in frame] + [family]
    has_parts = parts.groupby(keys).transform("any") if len(frame) else parts
    return parts | (tested & pooled & ~has_parts)


def adjust(frame: pd.DataFrame) -> pd.DataFrame:
    """`p_adjusted` and `family`: Holm per run and family over the rows `in_family`; `family` names
    the family for those rows and is "" for the rest (whose p_adjusted stays blank)."""
    frame = frame.copy()
    frame["p_adjusted"] = float("nan")
    frame["family"] = ""
    member = in_family(frame)
    named = families(frame)
    keys = [frame[k].astype(str) for k in ("run",) if k in frame] + [named]
    for _, rows in frame[member].groupby([k[member] for k in keys], sort=False):
        frame.loc[rows.index, "p_adjusted"] = stats.holm(rows["p"].to_numpy(float))
        frame.loc[rows.index, "family"] = named[rows.index]
    return frame


def summarize(run_dir: Path, run_name: str | None = None, manifest: dict | None = None) -> tuple[Path, Path, Path]:
    """Write findings.csv, results.json (provenance and every row) and README.md of a run; returns their
    paths. `manifest` is the runner's (default: the run's manifest.json when there is one)."""
    from . import provenance, run_readme

    run_dir = Path(run_dir)
    name = run_name or run_dir.name
    if manifest is None and (run_dir / "manifest.json").is_file():
        manifest = json.loads((run_dir / "manifest.json").read_text())
    frame = with_specs(collect(run_dir), (manifest or {}).get("model_specs") or [])
    csv_path = run_dir / "findings.csv"
    frame.to_csv(csv_path, index=False)
    manifest = {"run": name, **(manifest or {})}
    # the models the rows name count too (a run summarised without the runner's manifest still lists them)
    manifest["model_specs"] = sorted(set(manifest.get("model_specs") or []) | set(provenance.specs_in(frame["model"])))
    metadata = provenance.run_metadata(manifest)
    json_path = run_dir / "results.json"
    json_path.write_text(json.dumps(results_document(frame, metadata), indent=1, default=_plain) + "\n",
                         encoding="utf-8")
    md_path = run_dir / "README.md"
    md_path.write_text(run_readme.render(frame, name, STUDIES, SMOKE_N, metadata), encoding="utf-8")
    return csv_path, md_path, json_path


def with_specs(frame: pd.DataFrame, specs) -> pd.DataFrame:
    """The frame with every `model` named by its spec as the run was given it: a table's short name
    ('smollm2') becomes the run's one spec of that short name ('local:smollm2'); a name no spec of the
    run shortens to (a release's author) stays as it is."""
    from lib.models.specs import short_name

    short: dict[str, list[str]] = {}
    for spec in dict.fromkeys(str(s) for s in specs):
        try:
            short.setdefault(short_name(spec), []).append(spec)
        except Exception:  # noqa: BLE001  (not a spec: nothing to name by it)
            continue
    if not short or not len(frame):
        return frame
    known = set(specs)
    names = [m if m in known or len(short.get(m, [])) != 1 else short[m][0] for m in frame["model"].astype(str)]
    return frame.assign(model=names)


def results_document(frame: pd.DataFrame, metadata: dict) -> dict:
    """results.json: the run's provenance, then every findings column of every row, with the units
    that failed (`n_failed` = attempted minus used) spelled out."""
    rows = frame.assign(n_failed=frame["n_attempted"] - frame["n_items"]) if len(frame) else frame.assign(n_failed=[])
    records = rows.astype(object).where(rows.notna(), None).to_dict("records")
    return {"metadata": metadata, "columns": list(rows.columns), "n_rows": len(records), "rows": records}


def _plain(value):
    """JSON for numpy scalars."""
    return value.item() if hasattr(value, "item") else str(value)
