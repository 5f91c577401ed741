"""Compare runs (models, settings): their findings joined into one table, a forest plot and a LaTeX
table per study, and paired differences on the units two runs share.

    python -m lib.runner compare 'data/runs/sweep__*' --name my_comparison

writes data/runs/<name>/comparison.csv (one row per measure, a column group per run or model),
comparison_long.csv (every findings row with its run's model and parameters), paired_differences.csv,
and figures/<name>/forest_<study>.png/.pdf, comparison_<study>.tex and paired_differences.tex.
"""
from __future__ import annotations

import matplotlib.pyplot as plt

from lib import paths
from lib.report.outputs import RunOutputs

from . import forest, latex, paired
from .join import CompareError, entries, join_runs, resolve_runs, wide

__all__ = ["CompareError", "compare", "compare_tables", "resolve_runs"]


def compare_tables(runs) -> dict:
    """The comparison of runs (names, folders or globs) in memory: long, wide and paired tables."""
    folders = resolve_runs(runs)
    long = join_runs(folders)
    by_run = dict(zip(long.drop_duplicates("run_folder")["run"], long.drop_duplicates("run_folder")["run_folder"]))
    return {"folders": folders, "long": long, "wide": wide(long), "paired": paired.paired_differences(long, by_run)}


def compare(runs, name: str, show: bool = False, out: RunOutputs | None = None) -> dict:
    """Compare runs and write the comparison under data/runs/<name>/ and figures/<name>/ (through
    `out`, a notebook's outputs, when given); returns the tables, the written paths and the forest
    figures by study (a study's later pages as '<study>, page 2', ...; left open for display with `show`)."""
    tables = compare_tables(runs)
    out = out or RunOutputs(name, "compare")
    written = []
    for key, file in (("wide", "comparison.csv"), ("long", "comparison_long.csv"),
                      ("paired", "paired_differences.csv")):
        path = out.path(file)
        tables[key].to_csv(path, index=False)
        written.append(path)
    long = tables["long"]
    figures = {}
    for study in dict.fromkeys(long["study"]):
        table = latex.study_table(tables["wide"], long, study)
        out.table(table, f"comparison_{study.replace('-', '_')}", caption=latex.caption(study, long))
        written.append(out.figure_dir / f"comparison_{study.replace('-', '_')}.tex")
        # row labels on the left and n on the right: a full-width figure (figure*) in a two-column paper,
        # one per page when its rows do not fit one (forest_<study>, forest_<study>_2, ...)
        figs = forest.forest_figures(long, study)
        stem = f"forest_{study.replace('-', '_')}"
        for old in out.figure_dir.glob(f"{stem}_[0-9]*.*"):  # an earlier comparison's later pages are not this one's
            old.unlink()
        for i, fig in enumerate(figs):
            page_name = stem + (f"_{i + 1}" if i else "")  # not `name`: the comparison's name is printed below
            written += [p for p in out.figure(fig, page_name, span="page") if p.suffix != ".txt"]
            figures[study if not i else f"{study}, page {i + 1}"] = fig
            if not show:
                plt.close(fig)
    if len(tables["paired"]):
        shown = tables["paired"].assign(difference=[latex.estimate_text(*r) for r in tables["paired"][
            ["estimate", "ci_low", "ci_high", "p_adjusted"]].itertuples(index=False)])
        out.table(shown, "paired_differences", latex_columns=["measure", "first", "second", "difference", "n"],
                  caption=f"Paired differences (first minus second) on the units both measured. {latex.NOTE}")
        written.append(out.figure_dir / "paired_differences.tex")
    print(f"[compare {name}] {len(tables['folders'])} runs, {len(entries(long))} compared "
          f"({', '.join(entries(long))}), {len(tables['wide'])} measures, {len(tables['paired'])} paired differences; "
          f"{paths.run_dir(name) / 'comparison.csv'}, figures in {paths.figure_dir(name)}")
    return {**tables, "written": written, "figures": figures}


def compare_or_say(runs, out: RunOutputs) -> dict | None:
    """`compare` into a notebook's outputs, figures left open to show, or None with one printed line
    when `runs` is empty (the comparing notebook run without runs to compare)."""
    if not runs:
        print("Nothing to compare: set `runs` to run names, run folders or globs, e.g. "
              "runs = [\"compare_example__*\"] (python -m lib.runner run ... -p 'runs=[...]').")
        return None
    return compare(runs, out.run_name, show=True, out=out)

