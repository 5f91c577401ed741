"""The judgment inspector: the judgments behind every findings row of a run, in one self-contained
page (`inspect.html` in the run folder) or as a table in a notebook cell.

- `collect.py` reads a run: per measure_id of findings.csv the judgments its declaration's reader
  gives (`Measure.judgments` in each study's measures.py: records file, unit key, reader);
- `page.py` writes the page (inline style, script and data; filters, search, counts per row);
- `notebook.py` `show(run, measure_id)`, the same view as an interactive table in JupyterLab;
- `__main__.py` `python -m lib.inspect <run> [--measure ID]`.

`anchor(measure_id)` / `link(measure_id)` give the address of a measure's section, which the run
README, the bias card and compare's tables link to.
"""
from __future__ import annotations

from pathlib import Path

from lib.report.judgment_links import PAGE, anchor, link  # noqa: F401  (below every layer that links here)


def run_folder(run) -> Path:
    """A run's folder: a path as given, else a run name under the runs folder (lib.paths)."""
    from lib import paths

    path = Path(run)
    return path if path.exists() else paths.run_dir(str(run))


def build(run, measure: str | None = None, limit: int | None = None) -> Path:
    """Write inspect.html into the run folder (every measure of findings.csv, or only `measure`)."""
    from .collect import sections
    from .page import LIMIT, page_data, render

    folder = run_folder(run)
    data = page_data(folder.name, sections(folder, measure), limit or LIMIT)
    out = folder / PAGE
    out.write_text(render(data), encoding="utf-8")
    return out


def show(run, measure_id: str, **kwargs):
    """The judgments behind one measure of a run as an interactive table in a notebook cell (itables)."""
    from .notebook import show as _show

    return _show(run, measure_id, **kwargs)


__all__ = ["PAGE", "anchor", "build", "link", "run_folder", "show"]
