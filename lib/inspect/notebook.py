"""The inspector in a notebook cell: one measure's judgments as an interactive table (itables, whose
JavaScript is bundled into the notebook: no network), one row per pair (both orders side by side)
or per judgment, with the same counts as inspect.html."""
from __future__ import annotations

import fnmatch
import html

import pandas as pd

from .collect import Section, read_findings, sections

_initialised = False  # itables' JavaScript goes into the notebook once per kernel


def _cell(text: str, fold: str = "") -> str:
    body = f'<pre style="white-space:pre-wrap;margin:0;text-align:left">{html.escape(str(text))}</pre>'
    return f"<details><summary>{fold}</summary>{body}</details>" if fold else body


def judgment_table(section: Section, model: str | None = None, markup: bool = False) -> pd.DataFrame:
    """One row per pair (pairwise measures: both orders side by side) or per judgment: unit, whether
    it counts, flip and choice marks, then per order its reply, parsed value or reason, and prompt;
    `markup` folds prompts and keeps replies' line breaks as HTML (for itables)."""
    j = section.judgments
    if model is not None:
        j = j[j["model"] == model]
    rows = []
    keys = j["pair_id"].where(j["pair_id"] != "", j.index.astype(str))
    for _, g in j.groupby(keys, sort=False):
        first = g.iloc[0]
        row = {"model": first["model"], "unit": first["unit_id"], "dataset": first["stratum"],
               "counted": bool(g["counted"].astype(bool).any()), "flipped": bool(g["flipped"].fillna(False).astype(bool).any())}
        for k, r in enumerate(g.to_dict("records"), 1):
            passages = " vs ".join(f"{a} ({f})" if f else a for a, f in ((r["author_1"], r["fact_1"]),
                                                                          (r["author_2"], r["fact_2"])) if a)
            row[f"order {k}"] = r["order"] + (f": {passages}" if passages else "")
            row[f"reply {k}"] = _cell(r["reply"]) if markup else r["reply"]
            row[f"parsed {k}"] = r["parsed"] or f"not parsed: {r['reason']}"
            row[f"prompt {k}"] = _cell(r["prompt"], "prompt") if markup and r["prompt"] else r["prompt"]
        rows.append(row)
    return pd.DataFrame(rows)


def _pick(folder, measure_id: str) -> str | None:
    """The run's measure_id: the one given, else the first of findings.csv that matches it as a
    pattern (`*` for any part), else None."""
    ids = list(dict.fromkeys(read_findings(folder)["measure_id"]))
    if measure_id in ids:
        return measure_id
    return next((i for i in ids if fnmatch.fnmatchcase(i, measure_id)), None)


def show(run, measure_id: str, model: str | None = None, **options) -> None:
    """Display one measure's judgments in the cell: its findings numbers and counts, then the table
    (itables options, e.g. pageLength=25, go through)."""
    import itables
    from IPython.display import Markdown, display

    from . import link, run_folder

    global _initialised
    folder = run_folder(run)
    picked = _pick(folder, measure_id)
    if picked is None:
        display(Markdown(f"No findings row of `{measure_id}` in run `{folder.name}`: nothing to inspect."))
        return
    section = sections(folder, picked)[0]
    if section.no_judgments:
        display(Markdown(f"`{picked}`: no judgments shown: {section.no_judgments}."))
        return
    if not _initialised:
        itables.init_notebook_mode(all_interactive=False, connected=False)
        _initialised = True
    for r in section.rows.to_dict("records"):
        if model is not None and r["model"] != model:
            continue
        counted = section.judgments[(section.judgments["model"] == r["model"]) & section.judgments["counted"].astype(bool)]
        display(Markdown(f"**`{picked}`**, {r['model']}: estimate {r['estimate']:.3g}, findings n = {int(r['n'])} "
                         f"{section.unit}s; the records give {counted['unit_id'].nunique()} counted units. "
                         f"With filters and every measure: `{link(picked, f'{folder}/')}`."))
        options = {"pageLength": 10, "maxBytes": 1_000_000, **options}  # itables samples rows above it, and says so
        itables.show(judgment_table(section, r["model"], markup=True), caption=f"{picked} ({r['model']})",
                     allow_html=True, showIndex=False, **options)
