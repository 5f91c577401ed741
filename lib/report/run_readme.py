"""A run's README.md: what the run found, per study, in sentences a reader can cite; then the findings,
the diagnostics (failure shares, parse rates) and the smoke rows, each in its own table where every row
has n used / n attempted, an interval or the reason for none, a scale and a direction."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from .latex_table import format_number, interval_text

ALPHA = 0.05


def family_mask(frame: pd.DataFrame, study: str) -> pd.Series:
    """Rows in Holm's family of one study: the findings' `family` column, or for a frame without one
    the rule that column comes from (`findings.in_family`)."""
    if "family" in frame.columns:
        return frame["family"].astype(object).fillna("").astype(str).eq(study)
    from .findings import in_family  # findings imports this module when it writes the README

    return (frame["study"] == study) & in_family(frame)


def _value(r) -> str:
    """'0.560 [0.350, 0.760] share 0-1' for a row (percentages to one decimal), or the estimate with
    the stated reason for no interval."""
    decimals = 1 if str(r.get("scale") or "").startswith("%") else 3
    if r["estimate"] is None or pd.isna(r["estimate"]):
        return f"no estimate ({interval_reason(r)})"
    text = interval_text(r["estimate"], r["ci_low"], r["ci_high"], decimals)
    scale = f" {r['scale']}" if r.get("scale") else ""
    if pd.isna(r["ci_low"]) or pd.isna(r["ci_high"]):
        return f"{text}{scale} (no interval: {interval_reason(r)})"
    return text + scale


def interval_reason(r) -> str:
    """Why a row has no interval: the writer's stated reason, else what its counts show."""
    if r.get("no_interval"):
        return str(r["no_interval"])
    if int(r["n_items"]) == 0:
        return "no unit could be used (n = 0)"
    if pd.isna(r["estimate"]):
        return "nothing to estimate from the units used"
    if int(r["n_items"]) == 1:
        return "one unit: an interval needs at least two"
    return "none computed (reason not stated by the notebook)"


def _count(r) -> str:
    """'17 of 20 questions' (used of attempted)."""
    unit = f" {r['unit']}s" if r.get("unit") else " units"
    return f"{int(r['n_items'])} of {int(r['n_attempted'])}{unit}"


def _label(r) -> str:
    return f"{r['measure']} ({r['model']})" if r.get("model") else str(r["measure"])


def study_conclusion(study: str, title: str, frame: pd.DataFrame, smoke_n: int) -> str:
    """The sentences a reader can cite about one study: what Holm's family says, what else was
    estimated, and how much of the pipeline failed."""
    rows = frame[frame["study"] == study]
    family = rows[family_mask(frame, study).loc[rows.index]]
    kind = rows["kind"] if "kind" in rows else pd.Series("finding", index=rows.index)
    diagnostics, findings = rows[kind == "diagnostic"], rows[kind != "diagnostic"]
    sized = findings[~findings["smoke"].astype(bool)]
    parts = []
    if len(family):
        adjusted = family["p_adjusted"].astype(float)
        sig = family[adjusted < ALPHA]
        if sig.empty:
            best = family.loc[adjusted.idxmin()] if adjusted.notna().any() else family.iloc[0]
            parts.append(f"no measure differs from chance (its null) after Holm's correction (family of "
                         f"{len(family)} tested measures, alpha = {ALPHA}); the smallest Holm-adjusted p is "
                         f"{format_number(float(best['p_adjusted']), 2)} ({_label(best)}: "
                         f"{_value(best)}, {_count(best)})")
        else:
            named = "; ".join(f"{_label(r)} = {_value(r)}, {_count(r)}, Holm p = "
                              f"{format_number(float(r['p_adjusted']), 2)}{_direction(r)}" for _, r in sig.iterrows())
            parts.append(f"{len(sig)} of {len(family)} tested measures differ from chance (their null) after "
                         f"Holm's correction (family of {len(family)}, alpha = {ALPHA}): {named}")
    elif len(sized):
        parts.append(f"no measure was tested with n >= {smoke_n} units, so the run draws no conclusion on bias "
                     f"for this study")
    else:
        parts.append(f"every quantity has fewer than {smoke_n} independent units: this run is a smoke test "
                     "(the pipeline runs), not a finding")
    untested = sized[sized["p"].isna() & ~sized.index.isin(family.index)]
    if len(untested):
        parts.append(f"{len(untested)} estimate(s) with n >= {smoke_n} carry no test, e.g. "
                     f"{_label(untested.iloc[0])} = {_value(untested.iloc[0])}, {_count(untested.iloc[0])}")
    if len(diagnostics):
        worst = diagnostics.loc[diagnostics["estimate"].astype(float).fillna(-np.inf).idxmax()]
        parts.append(f"diagnostics: {len(diagnostics)} row(s) on the pipeline, the largest {_label(worst)} = "
                     f"{_value(worst)}, {_count(worst)}")
    return f"**{title}**: " + "; ".join(parts) + "."


def _direction(r) -> str:
    return f" ({r['direction']})" if r.get("direction") else ""


READABLE = ["notebook", "measure", "model", "n used / attempted", "estimate [95% CI]", "direction", "p",
            "Holm p", "paper value", "judgments"]


def readable_table(rows: pd.DataFrame) -> str:
    """Rows as a GitHub markdown table a reader can take in: counts, the estimate with its interval
    (or the reason for none) and scale in one cell, the direction, the test."""
    from lib.inspect import link as inspect_link  # the page of a run's judgments (lib.inspect)

    def p_cell(v):
        return "" if v is None or (isinstance(v, float) and math.isnan(v)) else format_number(float(v), 3)

    lines = ["| " + " | ".join(READABLE) + " |", "|" + " --- |" * len(READABLE)]
    for _, r in rows.iterrows():
        paper = ""
        if pd.notna(r.get("paper_value")):
            paper = format_number(float(r["paper_value"]), 3) + (f" ({r['paper_model']})" if r.get("paper_model") else "")
        notes = " (pooled: outside Holm's family)" if bool(r.get("pooled")) else ""
        judged = f"[judgments]({inspect_link(r['measure_id'])})" if pd.notna(r.get("measure_id")) else ""
        cells = [str(r["notebook"]), str(r["measure"]) + notes, str(r["model"]), _count(r), _value(r),
                 str(r.get("direction") or "not stated"), p_cell(r["p"]), p_cell(r["p_adjusted"]), paper, judged]
        lines.append("| " + " | ".join(c.replace("|", "/") for c in cells) + " |")
    return "\n".join(lines)


def render(frame: pd.DataFrame, name: str, studies: dict, smoke_n: int, metadata: dict) -> str:
    """The whole README.md of a run."""
    kind = frame["kind"] if "kind" in frame else pd.Series("finding", index=frame.index)
    diagnostics = frame[kind == "diagnostic"]
    rest = frame[kind != "diagnostic"]
    findings, smoke = rest[~rest["smoke"].astype(bool)], rest[rest["smoke"].astype(bool)]
    git = metadata.get("git") or {}
    models = ", ".join(f"{m.get('spec')}" + (f" ({m['package']} {m.get('package_version')})" if m.get("package") else "")
                       for m in metadata.get("models") or []) or "none recorded"
    text = [f"# Run `{name}`: what it found", ""]
    present = [s for s in studies if (frame["study"] == s).any()]
    if present:
        text += ["- " + study_conclusion(s, studies[s], frame, smoke_n) for s in present]
    else:
        text.append("This run wrote no findings rows (its notebooks state no headline quantity).")
    text += ["", f"Commit {git.get('commit', 'unknown')}" + (" with uncommitted changes" if git.get("dirty") else "")
             + f", {metadata.get('date', '')}; models: {models}. Full provenance in `results.json`.", "",
             f"## Findings (n >= {smoke_n} units)", "",
             readable_table(findings) if len(findings) else "None in this run.", "",
             "## Diagnostics (the pipeline, not the models' bias: failure shares, parse rates)", "",
             readable_table(diagnostics) if len(diagnostics) else "None in this run.", "",
             f"## Smoke rows (n < {smoke_n} units: the pipeline runs, nothing more)", "",
             readable_table(smoke) if len(smoke) else "None.", "",
             "## How to read these tables", "",
             "`n used / attempted` counts independent units (questions, items or pairs); units that failed "
             "(no readable reply, a missing passage) are the difference. The estimate's 95% interval follows "
             "it in brackets, on the stated scale; where one unit gives several judgments the interval and the "
             "test are over units (the cluster's rate: a Clopper-Pearson interval at the effective n; other "
             "means: a cluster bootstrap; p: exact sign flips up to 32 units, a saddlepoint approximation of "
             "them above); where each unit gives one judgment, a Wilson interval and binomial test or a paired "
             "t-test. Below 10 units, or where every unit agrees, no interval is shown and the reason is given "
             "(docs/statistics.md). `Holm p` is Holm's correction over one declared family per study (the "
             "`family` column of `findings.csv`): tested findings that are the primary reading of their "
             "quantity, not smoke tests, not diagnostics and not `pooled` (rows that repeat other rows' data). "
             "`findings.csv` has every column. `judgments` links each row to the judgments behind it in `inspect.html` "
             "(prompts, replies, parsed values; written at the end of a run, or by `make inspect RUN=<run>`).", ""]
    return "\n".join(text)
