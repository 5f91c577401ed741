"""The bias card of one model: the battery's rows read from a run's findings.csv, the papers'
reference rows beside them, one sentence per measure, and the dot-and-interval figure.

Nothing is recomputed: estimate, interval, n, p and Holm's p come from the notebooks' findings rows
(lib.report.findings); a measure the run did not give (no row, or a row with n = 0) is "not measured".
"""
from __future__ import annotations

import math
import textwrap
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd

from lib.report.findings import SMOKE_N
from lib.report.judgment_links import link as inspect_link
from lib.report.run_readme import plain  # one rule for a reason inside a sentence: no nested parentheses

from .battery import BATTERY, Measure, method_of

COLUMNS = ["row_type", "key", "label", "notebook", "measure_id", "method", "model", "n", "unit", "n_judgments",
           "estimate", "ci_low", "ci_high", "no_interval", "p", "p_adjusted", "smoke", "status", "source", "sentence",
           "after_mitigation"]
NOT_MEASURED = "not measured"
# a panel's corner note above the no-bias line and the markers it would otherwise be crossed by
_ON_TOP = {"zorder": 5, "bbox": {"facecolor": "white", "edgecolor": "none", "pad": 0.6}}
_PERCENT_KINDS = {"rate", "accuracy", "consistency"}  # estimates that are shares 0..1, shown in %


def measured_rows(findings: pd.DataFrame, model: str | None = None) -> pd.DataFrame:
    """One row per battery measure: the first of its measure_ids the run measured (n > 0) for
    `model` (None: any model), else a 'not measured' row saying why."""
    frame = findings if model is None or findings.empty else findings[findings["model"].astype(str) == model]
    rows = []
    for m in BATTERY:
        row = _pick(frame, m)
        row.update(row_type="measured", key=m.key, label=m.label, notebook=m.notebook)
        row["sentence"] = sentence(m, row)
        row["after_mitigation"] = after_mitigation(frame, m)
        rows.append(row)
    return pd.DataFrame(rows).reindex(columns=COLUMNS)


def after_mitigation(frame: pd.DataFrame, m: Measure) -> str:
    """The change a mitigation arm makes to this row (the registry's `mitigations()`), from the
    run's findings: '<arm>: -12 pp [-18, -6], n = 40'; '' where no arm reads it."""
    from lib.report.measures import find, mitigations

    for mid in mitigations().get(m.key, ()):
        hit = frame[(frame["measure_id"] == mid) & (frame["n"] > 0) & frame["estimate"].notna()] if len(frame) else frame
        if len(hit):
            r = hit.iloc[0]
            fmt = (lambda x: f"{x:+.2f}") if m.kind == "diff_self" else (lambda x: f"{100 * x:+.0f} pp")
            ci = f" [{fmt(r['ci_low'])}, {fmt(r['ci_high'])}]" if not (pd.isna(r["ci_low"]) or pd.isna(r["ci_high"])) else ""
            return f"{mid.split('.')[0]}: {fmt(r['estimate'])}{ci}, n = {int(r['n'])}"
    return ""


def _note(r) -> str:
    """Why a row has no interval (findings' no_interval; older findings: their ci_note, else 'no interval')."""
    for col in ("no_interval", "ci_note"):
        note = r.get(col) if hasattr(r, "get") else None
        if isinstance(note, str) and note:
            return note
    return "" if not (pd.isna(r["ci_low"]) or pd.isna(r["ci_high"])) else "no interval"


def _pick(frame: pd.DataFrame, m: Measure) -> dict:
    """The findings row that gives measure `m`, as a card row (status says whether it was measured)."""
    present = frame[frame["measure_id"].isin(m.measure_ids)] if len(frame) else frame
    for mid in m.measure_ids:
        hit = present[(present["measure_id"] == mid) & (present["n"] > 0) & present["estimate"].notna()]
        if len(hit):
            r = hit.iloc[0]
            return {"measure_id": mid, "method": method_of(mid), "model": r["model"], "n": int(r["n"]),
                    "unit": r["unit"], "n_judgments": int(r["n_judgments"]), "estimate": float(r["estimate"]),
                    "ci_low": r["ci_low"], "ci_high": r["ci_high"], "no_interval": _note(r),
                    "p": r["p"], "p_adjusted": r["p_adjusted"],
                    "smoke": int(r["n"]) < SMOKE_N, "status": "measured", "source": r["measure"]}
    if len(present):
        why = f"{NOT_MEASURED}: notebook {m.notebook[:2]} ran, but no reply it could read decided a unit (n = 0)"
    elif len(frame) and (frame["notebook"] == m.notebook).any():
        why = f"{NOT_MEASURED}: notebook {m.notebook[:2]} ran but wrote no row for it: {m.missing}"
    else:
        why = f"{NOT_MEASURED}: this run did not include notebook {m.notebook}"
    return {"measure_id": m.measure_ids[0], "method": method_of(m.measure_ids[0]), "n": 0, "status": why,
            "smoke": True}


def reference_rows() -> pd.DataFrame:
    """The papers' numbers for the battery's measures (lib.paper_check.published), in each measure's scale."""
    rows = [{"row_type": "reference", "key": m.key, "label": m.label, "notebook": m.notebook, "model": r.model,
             "estimate": r.value, "status": "published", "source": r.source(), "method": "paper"}
            for m in BATTERY for r in m.references]
    return pd.DataFrame(rows).reindex(columns=COLUMNS)


def reference_mismatches(profile: pd.DataFrame) -> list[str]:
    """Reference rows of a card that differ from (or are missing against) lib.paper_check.published,
    one line each; empty when the card's paper numbers are the published ones."""
    refs = profile[profile["row_type"] == "reference"]
    problems = []
    for m in BATTERY:
        for r in m.references:
            hit = refs[(refs["key"] == m.key) & (refs["model"] == r.model)]
            if hit.empty:
                problems.append(f"{m.key}: no reference row for {r.model} ({r.source()})")
            elif not math.isclose(float(hit["estimate"].iloc[0]), r.value, abs_tol=1e-9):
                problems.append(f"{m.key}: {r.model} is {hit['estimate'].iloc[0]} on the card, "
                                f"{r.value} in published.py ({r.source()})")
    return problems


def card(findings: pd.DataFrame, model: str | None = None) -> pd.DataFrame:
    """profile.csv: the measured rows, then the reference rows."""
    return pd.concat([measured_rows(findings, model), reference_rows()], ignore_index=True)


def value_text(m: Measure, x) -> str:
    """An estimate in the measure's units: '55%', '+0.12 points', '+6 pp', 'F1 12.3%'."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    x = float(x)
    if m.kind in _PERCENT_KINDS:
        return f"{100 * x:.0f}%"
    if m.kind == "diff_self":
        return f"{x:+.2f}"
    if m.kind == "asymmetry":
        return f"{100 * x:+.0f} pp"
    return f"{x:.1f}%"  # f1, share: already in percent


def sentence(m: Measure, row: dict) -> str:
    """What one measured row means, in words, with its interval, n, Holm p and the smoke-test mark."""
    if row.get("status") != "measured":
        return f"{m.label}: {row['status']}."
    est = row["estimate"]
    if m.kind == "diff_self":
        pts = f"{abs(est):.2f} points (1-5 scale)"
        core = (f"rates its own passages above human-written ones by {pts}" if est < 0 else
                f"rates human-written passages above its own by {pts}" if est > 0 else
                "rates its own and human-written passages the same")
    else:
        core = m.phrase.format(value=value_text(m, est))
    lo, hi = row.get("ci_low"), row.get("ci_high")
    unit = str(row.get("unit") or "unit")
    parts = [core, f"n = {row['n']} {unit if row['n'] == 1 else unit + 's'}"]
    if not (pd.isna(lo) or pd.isna(hi)):
        parts.append(f"95% CI [{value_text(m, lo)}, {value_text(m, hi)}]")
    else:  # the reason's own parentheses become a clause: "no 95% CI: all units equal, nothing varies ..."
        parts.append("no 95% CI: " + plain(row.get("no_interval") or "no interval"))
    pa = row.get("p_adjusted")
    smoke_said = False
    if m.null is not None and not pd.isna(pa):
        null = {"diff_self": "no difference (0)", "asymmetry": "no difference (0)",
                "accuracy": "chance (50%)"}.get(m.kind, f"no preference ({value_text(m, m.null)})")
        parts.append(f"Holm p = {pa:.2g}: " + (f"differs from {null}" if pa < 0.05 else f"not distinguishable from {null}"))
    elif m.null is None:
        parts.append("no test (no null value)")
    elif not pd.isna(row.get("p", float("nan"))):
        smoke_said = bool(row.get("smoke"))
        parts.append(f"p = {row['p']:.2g}, " + (f"a smoke test (fewer than {SMOKE_N} units), so not in Holm's family"
                                               if smoke_said else "not in Holm's family"))
    else:
        parts.append("no test in the findings")
    parts.append(f"{row['method']} reading")
    if row.get("smoke") and not smoke_said:
        parts.append(f"a smoke test (fewer than {SMOKE_N} units)")
    text = "; ".join(parts)
    return text[0].upper() + text[1:] + "."


def display_table(profile: pd.DataFrame) -> pd.DataFrame:
    """The card as a person reads it: one line per measure, the papers' numbers, then where its
    judgments are (the run's inspect.html section)."""
    by_key = {m.key: m for m in BATTERY}
    refs = profile[profile["row_type"] == "reference"]
    out = []
    for r in profile[profile["row_type"] == "measured"].to_dict("records"):
        m = by_key[r["key"]]
        measured = r["status"] == "measured"
        ci = (f"[{value_text(m, r['ci_low'])}, {value_text(m, r['ci_high'])}]"
              if measured and not pd.isna(r["ci_low"]) else f"(no CI: {plain(r['no_interval'])})" if measured else "")
        paper = "; ".join(f"{x['model']}: {value_text(m, x['estimate'])}" for x in refs[refs["key"] == m.key].to_dict("records"))
        out.append({"measure": m.label, "notebook": m.notebook[:2], "method": r["method"] if measured else "",
                    "n": f"{int(r['n'])} {r['unit']}s" if measured else NOT_MEASURED,
                    "estimate [95% CI]": f"{value_text(m, r['estimate'])} {ci}".strip() if measured else "",
                    "no bias at": ("0" if m.null == 0 else value_text(m, m.null)) if m.null is not None else "",
                    "p": _p(r["p"]), "Holm p": _p(r["p_adjusted"]),
                    "smoke (n < 30)": ("yes" if r["smoke"] else "no") if measured else "",
                    "after mitigation (change)": "" if pd.isna(r.get("after_mitigation")) else r["after_mitigation"],
                    "papers' models (same measure)": paper or "none",
                    "judgments": inspect_link(r["measure_id"]) if measured else ""})  # profile.html links it
    return pd.DataFrame(out)


def _p(x) -> str:
    return "" if x is None or pd.isna(x) else f"{x:.2g}"


TEXT_PT = 7.5  # every text of the card figure: it prints at this size at its span's width
LABEL_CHARS = 30  # a measure's name wraps at this many characters, left of its row


def span_of(columns: int) -> str:
    """Where the card figure goes in a paper: one card in a column, two or more side by side on the page."""
    return "column" if columns == 1 else "page"


TITLE = "Bias card: estimates with 95% intervals, no-bias values (dashed) and the papers' models"


def figure(profiles, title: str = TITLE):
    """Dot-and-interval grid of the battery: one row per measure (its own scale), its name in the
    left column, one column per card (`profiles`: a card, or {column title: card} for several side by
    side, e.g. a planted judge beside a real model, or a model before and after a mitigation). Each
    panel shows the estimate with its 95% interval (a hollow dot: no interval), the no-bias value as a
    dashed line, the papers' numbers as open markers, and n; a measure a card did not measure says so
    in its panel. Laid out by matplotlib's constrained layout at the span's width (`span_of`), all
    text at TEXT_PT."""
    if isinstance(profiles, pd.DataFrame):
        profiles = {"": profiles}
    titles = list(profiles)
    width = 3.3 if span_of(len(titles)) == "column" else 7.0
    ncols = 1 if width < 4 else 3  # the legend's columns: its longest entry is about 2 in at TEXT_PT
    legend_rows = -(-(len(ref_models_of(profiles)) + 3) // ncols)
    fig = plt.figure(figsize=(width, 0.55 * len(BATTERY) + 0.16 * legend_rows + 1.0), layout="constrained")
    grid = fig.add_gridspec(len(BATTERY), 1 + len(titles), width_ratios=[1.25] + [1.6] * len(titles))
    markers = ["^", "s", "D"]
    ref_models = ref_models_of(profiles)
    chars = int(LABEL_CHARS * (1.0 if len(titles) == 1 else 1.3))
    for i, m in enumerate(BATTERY):
        name = fig.add_subplot(grid[i, 0])
        name.set_axis_off()  # the measure's name, not a panel
        name.text(1.0, 0.5, textwrap.fill(_short(m), chars, break_on_hyphens=False), ha="right", va="center", fontsize=TEXT_PT,
                  transform=name.transAxes)
    for j, head in enumerate(titles):
        profile = profiles[head]
        measured = profile[profile["row_type"] == "measured"].set_index("key")
        refs = profile[profile["row_type"] == "reference"]
        for i, m in enumerate(BATTERY):
            ax = fig.add_subplot(grid[i, 1 + j])
            _panel(ax, m, measured.loc[m.key] if m.key in measured.index else None, refs[refs["key"] == m.key],
                   ref_models, markers)
            if i == 0 and head:
                ax.set_title(textwrap.fill(head, 30), fontsize=TEXT_PT + 0.5, fontweight="bold")
    handles = [plt.Line2D([], [], marker="o", ls="-", color="C0", label="estimate, 95% CI"),
               plt.Line2D([], [], marker="o", ls="", color="C0", mfc="white", label="no interval")]
    handles += [plt.Line2D([], [], marker=markers[i % len(markers)], ls="", mfc="none", mec=f"C{1 + i}", label=name)
                for i, name in enumerate(ref_models)]
    handles.append(plt.Line2D([], [], ls="--", color="0.3", label="no bias / chance"))
    fig.legend(handles=handles, loc="outside lower center", ncols=ncols, fontsize=TEXT_PT, frameon=False)
    fig.suptitle(textwrap.fill(title, 55 if width < 4 else 110), fontsize=TEXT_PT + 0.5)
    return fig


def ref_models_of(profiles: dict) -> list:
    """The papers' models of the cards' reference rows, each once, in order."""
    return list(dict.fromkeys(m for p in profiles.values() for m in p.loc[p["row_type"] == "reference", "model"]))


def _panel(ax, m: Measure, r, refs: pd.DataFrame, ref_models: list, markers: list) -> None:
    """One measure of one card: the estimate and its interval (or why there is none), n, the papers'
    numbers and the no-bias line, on the measure's scale."""
    xs = []
    if r is not None and r["status"] == "measured":
        est, lo, hi = (_scaled(m, r.get(c)) for c in ("estimate", "ci_low", "ci_high"))
        xs += [est] + [v for v in (lo, hi) if not math.isnan(v)]
        bar = not (math.isnan(lo) or math.isnan(hi))
        if bar:
            ax.hlines(0, lo, hi, color="C0", lw=2.2)
        # no interval (too few units, no spread): hollow, so no dot reads as a 95% claim
        ax.plot([est], [0], "o", color="C0", ms=6, zorder=3, mfc="C0" if bar else "white", mew=1.5)
        ax.text(0.02, 0.95, f"n = {int(r['n'])}" + (", smoke" if r["smoke"] else ""),
                transform=ax.transAxes, ha="left", va="top", fontsize=TEXT_PT - 0.5, color="0.25", **_ON_TOP)
    else:
        # where the n of a measured row goes: the papers' markers sit on the middle line
        ax.text(0.02, 0.95, NOT_MEASURED, transform=ax.transAxes, ha="left", va="top", fontsize=TEXT_PT - 0.5,
                color="0.35", style="italic", **_ON_TOP)
    for x in refs.to_dict("records"):
        v = _scaled(m, x["estimate"])
        xs.append(v)
        i = ref_models.index(x["model"])
        ax.plot([v], [0], markers[i % len(markers)], mfc="none", mec=f"C{1 + i}", ms=6, mew=1.3, zorder=2)
    if m.null is not None:
        nv = _scaled(m, m.null)
        xs.append(nv)
        ax.axvline(nv, color="0.3", ls="--", lw=1)
    lo_x, hi_x = _FIXED_RANGE.get(m.kind, (0.0, 100.0))
    xs = [x for x in xs if not math.isnan(x)]
    lo_x, hi_x = min([lo_x] + xs), max([hi_x] + xs)  # a fixed range per kind, widened for outliers
    pad = 0.04 * (hi_x - lo_x)
    ax.set_xlim(lo_x - pad, hi_x + pad)
    ax.set_yticks([])
    ax.set_ylim(-1, 1.6)  # room above the dot for n
    ax.tick_params(axis="x", labelsize=TEXT_PT, pad=1, length=2)
    ax.xaxis.set_major_locator(plt.MaxNLocator(4))
    ax.grid(axis="y", visible=False)


# x range of a panel per kind (the plotted scale): shares and F1 over 0-100%, differences around 0
_FIXED_RANGE = {"diff_self": (-1.0, 1.0), "asymmetry": (-100.0, 100.0)}


def _scaled(m: Measure, x) -> float:
    """The plotted value: shares in percent, the rest as they are."""
    if x is None or pd.isna(x):
        return float("nan")
    return 100 * float(x) if m.kind in _PERCENT_KINDS or m.kind == "asymmetry" else float(x)


def _short(m: Measure) -> str:
    """Row label: the label up to its colon, with the axis unit."""
    unit = {"diff_self": "points, human minus own", "asymmetry": "percentage points", "f1": "%", "share": "%"}.get(m.kind, "%")
    head = m.label.split(':')[0]
    return head if "%" in head else f"{head}, {unit}"


def write(run_dir: Path, model: str | None = None) -> pd.DataFrame:
    """profile.csv of a finished run (from its findings.csv); returns the card."""
    run_dir = Path(run_dir)
    path = run_dir / "findings.csv"
    if not path.exists():
        raise FileNotFoundError(f"{path} does not exist: run the profile's notebooks first (python -m lib.profile --model ...).")
    profile = card(pd.read_csv(path), model)
    profile.to_csv(run_dir / "profile.csv", index=False)
    return profile
