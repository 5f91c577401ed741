"""Where a run's tables, figures, intermediate files and cache counters are written."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd

from .models import cache, cost_table
from .config import figure_dir, run_dir

_SAFE = re.compile(r"^[A-Za-z0-9_.-]+$")


def _check_name(name: str) -> str:
    if not _SAFE.match(name):
        raise ValueError(f"Output name {name!r} may use only letters, digits, '_', '-' and '.'.")
    return name


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
        self._stats_at_start = cache.cache_stats()

    def path(self, filename: str) -> Path:
        """A file in the run folder shared by the notebooks of this run (e.g. the passage bank)."""
        return self.run_dir / _check_name(filename)

    def table(self, df: pd.DataFrame, name: str, latex: bool = True, float_format: str = "%.3f") -> Path:
        """Write df as CSV in the run folder and as a LaTeX table beside the figures."""
        csv = self.table_dir / f"{_check_name(name)}.csv"
        df.to_csv(csv, index=not isinstance(df.index, pd.RangeIndex))
        self.written.append(str(csv))
        if latex:
            tex = self.figure_dir / f"{name}.tex"
            tex.write_text(df.to_latex(float_format=lambda x: float_format % x,
                                       index=not isinstance(df.index, pd.RangeIndex)))
            self.written.append(str(tex))
        return csv

    def figure(self, fig, name: str) -> list[Path]:
        """Save a matplotlib figure as PNG and PDF in the run's figure folder."""
        paths = []
        for ext in ("png", "pdf"):
            p = self.figure_dir / f"{_check_name(name)}.{ext}"
            fig.savefig(p, bbox_inches="tight")
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
