"""Where a run's tables, figures, intermediate files and cache counters are written."""
from __future__ import annotations

import json
import re
import warnings
from pathlib import Path

import pandas as pd

from . import figure_checks, intervals, latex_table, layout, plotting, text_fit
from lib.models import cache, cost_table
from lib.paths import figure_dir, run_dir

# "=" too: a sweep names its runs <run>__key=value (lib.runner.grid_runs)
_SAFE = re.compile(r"^[A-Za-z0-9_.=-]+$")


def _check_name(name: str) -> str:
    if not _SAFE.match(name):
        raise ValueError(f"Output name {name!r} may use only letters, digits, '_', '-', '.' and '='.")
    return name


class FigureWarning(UserWarning):
    """A saved figure that a reader cannot judge as it is (e.g. no n stated)."""


NO_DATA = "no data: no value to show in this panel"


class RunOutputs:
    """Files of one notebook within one named run: tables (CSV, LaTeX), figures (PNG, PDF), state."""

    def __init__(self, run_name: str, notebook: str):
        self.run_name = _check_name(run_name)
        self.notebook = _check_name(notebook)
        self.run_dir = run_dir(run_name)
        self.table_dir = self.run_dir / notebook
        self.figure_dir = figure_dir(run_name)
        for d in (self.table_dir, self.figure_dir):
            d.mkdir(parents=True, exist_ok=True)
        self.written: list[str] = []
        self.not_saved: dict[str, str] = {}  # figure or LaTeX table name -> why it was not saved (nothing to show)
        self._stats_at_start = cache.cache_stats()

    def path(self, filename: str) -> Path:
        """A file in the run folder shared by the notebooks of this run (e.g. the passage bank)."""
        return self.run_dir / _check_name(filename)

    def table(self, df: pd.DataFrame, name: str, latex: bool = True, float_format: str = "%.3f",
              caption: str | None = None, latex_columns: list[str] | None = None) -> Path:
        """Write df as CSV in the run folder and as a LaTeX table beside the figures (escaped,
        booktabs, numbers with float_format's decimals, a caption with n; `latex_columns` picks
        the columns shown in LaTeX, the CSV keeps them all). Both show an interval only where the
        findings would (`intervals.withhold`), the reason for a withheld one in `no_interval`."""
        csv = self.table_dir / f"{_check_name(name)}.csv"
        df = intervals.withhold(df)  # the findings' rule: no interval below 10 units or of zero width
        df.to_csv(csv, index=not isinstance(df.index, pd.RangeIndex))
        self.written.append(str(csv))
        if latex:
            decimals = re.fullmatch(r"%\.(\d+)f", float_format)
            if not decimals:
                raise ValueError(f"Table {name!r}: float_format {float_format!r} must look like '%.3f'.")
            tex = self.figure_dir / f"{name}.tex"
            text = latex_table.to_latex(df, name, caption=caption, columns=latex_columns,
                                        decimals=int(decimals.group(1)))
            if text is None:  # an empty tabular stops pdflatex, and one of dashes tells a reader nothing
                tex.unlink(missing_ok=True)  # an earlier run's table of this name is no longer true
                self.not_saved[name] = "no rows" if df.empty else "no estimate in any row"
                print(f"table {name!r}: {self.not_saved[name]}, so no LaTeX table written (the CSV keeps "
                      f"{'the columns' if df.empty else 'its counts'})")
            else:
                tex.write_text(text)
                self.written.append(str(tex))
        return csv

    def figure(self, fig, name: str, caption: str | None = None, empty_note: str = NO_DATA,
               span: str = "column") -> list[Path]:
        """Save a matplotlib figure as PNG and PDF after the house style's finishing pass. A panel
        with no data gets `empty_note` written in it; a figure whose every panel is empty is not
        saved (no paths returned; the reason, the panels' own notes or `empty_note`, is printed and kept in
        `not_saved`). The figure is saved as wide as its `span` ("column": a paper's column, 3.3 in;
        "page": a full-width figure*, 7 in, declared where a paper would use one), so its text prints at
        the size it was drawn. A figure that states no n anywhere (caption, titles, labels, legend:
        'n = ...'), has no title nor caption, draws error bars that nothing names, or cannot be brought
        to its span's width with text of about 7 pt or more (6.5), is saved with a FigureWarning."""
        _check_name(name)
        if span not in figure_checks.SPANS:
            raise ValueError(f"Figure {name!r}: span {span!r} must be one of {sorted(figure_checks.SPANS)}.")
        panels = [ax for ax in fig.axes if figure_checks.is_panel(ax)]
        empty = [ax for ax in panels if figure_checks.is_empty(ax)]
        if panels and len(empty) == len(panels):
            for ext in ("png", "pdf", "caption.txt"):  # an earlier run's file of this name is no longer true
                (self.figure_dir / f"{name}.{ext}").unlink(missing_ok=True)
            self.not_saved[name] = plotting.empty_reason(empty, empty_note)
            print(f"figure {name!r} not saved: every panel is empty ({self.not_saved[name]})")
            return []
        for ax in empty:
            if not ax.texts:  # a panel that already explains itself keeps its own words
                plotting.note_empty(ax, empty_note)
        if layout.laid_out_by_maker(fig):
            # laid out by its maker at its span's width already: the house passes would change its layout
            plotting.tidy_content(fig)
            target = figure_checks.SPANS[span]
            for _ in range(2):  # the saved box is the drawn content: widen the figure by what it trims
                fig.set_size_inches(fig.get_figwidth() * target / figure_checks.saved_width(fig), fig.get_figheight())
            width = figure_checks.saved_width(fig)
        else:
            plotting.tidy(fig)
            width = text_fit.fit_to_span(fig, span)  # saved as wide as declared: its text prints as drawn
        if not figure_checks.states_n(fig, caption):
            warnings.warn(f"figure {name!r} states no n: put 'n = ...' in its title or caption",
                          FigureWarning, stacklevel=2)
        if not figure_checks.title_text(fig) and not caption:
            warnings.warn(f"figure {name!r} has no title (a count alone is none): give it a caption-like one "
                          "(what it shows, of what)",
                          FigureWarning, stacklevel=2)
        if figure_checks.has_error_bars(fig) and not figure_checks.names_error_bars(fig, caption):
            warnings.warn(f"figure {name!r} has error bars that nothing names: say what they are "
                          "(e.g. 'bars: 95% CI, bootstrap over questions') in its title or caption",
                          FigureWarning, stacklevel=2)
        panel = figure_checks.narrowest_panel_in(fig)
        if panel < figure_checks.MIN_PANEL_IN:
            warnings.warn(f"figure {name!r}: at a {span}'s width ({figure_checks.SPANS[span]} in) its narrowest "
                          f"panel is {panel:.2f} in wide (under {figure_checks.MIN_PANEL_IN:g} in); use fewer panels "
                          "per row"
                          + (", or span='page' where a paper would use a full-width figure*" if span == "column" else ""),
                          FigureWarning, stacklevel=2)
        printed, drawn, _ = figure_checks.printed_text_pt(fig, span)
        # within 5% of the span: the width fit stops within a few tries, and a figure 3% narrower than
        # the page is scaled up by that much when set at the span's width, its text with it
        target = figure_checks.SPANS[span]
        if abs(width - target) > 0.05 * target or printed < figure_checks.MIN_PRINTED_PT:
            warnings.warn(f"figure {name!r} is {width:.1f} in wide as saved: at a {span}'s width "
                          f"({target} in) its smallest text ({drawn:.1f} pt) prints at {printed:.1f} pt "
                          f"(at least {figure_checks.MIN_PRINTED_PT:g} pt wanted); use fewer panels per row or "
                          "larger text"
                          + (", or span='page' where a paper would use a full-width figure*" if span == "column" else ""),
                          FigureWarning, stacklevel=2)
        paths = []
        for ext in ("png", "pdf"):
            p = self.figure_dir / f"{name}.{ext}"
            fig.savefig(p, bbox_inches="tight")
            paths.append(p)
            self.written.append(str(p))
        if caption:
            p = self.figure_dir / f"{name}.caption.txt"
            p.write_text(caption + "\n")
            paths.append(p)
            self.written.append(str(p))
        return paths

    def finish(self) -> dict:
        """Print this notebook's cache hits / misses / tokens and record them for the manifest."""
        now = cache.cache_stats()
        delta = {k: now[k] - self._stats_at_start.get(k, 0) for k in now}
        stats_dir = self.run_dir / "cache_stats"
        stats_dir.mkdir(parents=True, exist_ok=True)
        (stats_dir / f"{self.notebook}.json").write_text(json.dumps(delta, indent=1))
        # the model layer's cost ledger of this kernel: calls, hits, tokens, seconds, dollars per model
        cost_table().to_csv(stats_dir / f"{self.notebook}_cost.csv", index=False)
        print(f"[{self.notebook}] cache hits: {delta['hits']}, misses (model calls): {delta['misses']}, "
              f"tokens in/out: {delta['tokens_in']}/{delta['tokens_out']}")
        return delta
