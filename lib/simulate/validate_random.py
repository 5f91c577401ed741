"""`validate --random N` (`make validate-random N=...`): draw N planted-parameter files from the
declared ranges (random_truth.RANGES), validate each at one size, and report coverage per notebook and
per measure family over the draws (random_coverage.csv and random_summary.txt in the runs folder);
the check fails where any notebook with rows covers below RANDOM_GOAL pooled over the draws."""
from __future__ import annotations

import time
from pathlib import Path

import pandas as pd

from lib import paths

from .random_truth import write_truths
from .truth_ranges import family

RANDOM_GOAL = 0.90


def coverage_table(tables: list[pd.DataFrame], by: str) -> pd.DataFrame:
    """Rows with a defined coverage, pooled over the draws, per `by` ('notebook' or 'family'): draws,
    rows, covered, share."""
    parts = [t.assign(draw=i) for i, t in enumerate(tables) if t is not None and len(t)]
    if not parts:
        return pd.DataFrame(columns=[by, "draws", "rows", "covered", "coverage"])
    rows = pd.concat(parts, ignore_index=True)
    rows = rows[rows["covered"].notna()].assign(family=lambda d: d["measure_id"].map(family))
    g = rows.groupby(by)
    out = pd.DataFrame({"draws": g["draw"].nunique(), "rows": g.size(), "covered": g["covered"].sum().astype(int)})
    out["coverage"] = out["covered"] / out["rows"]
    return out.reset_index()


def random_verdict(by_notebook: pd.DataFrame, goal: float = RANDOM_GOAL) -> tuple[bool, str]:
    """(passed, summary): every notebook covers at least `goal` of its rows pooled over the draws."""
    low = by_notebook[by_notebook["coverage"] < goal]
    passed = len(by_notebook) > 0 and low.empty
    draws = int(by_notebook["draws"].max()) if len(by_notebook) else 0
    return passed, (f"random truths: {'PASS' if passed else 'FAIL'}: {draws} draws, "
                    f"{int(by_notebook['covered'].sum())}/{int(by_notebook['rows'].sum())} rows covered; "
                    + (f"below {goal:.0%}: " + ", ".join(f"{r.notebook} {r.coverage:.0%}" for r in low.itertuples())
                       if len(low) else f"every notebook at least {goal:.0%}"))


def validate_random(n: int, seed: int = 0, size=None, run_name: str = "known_truth_random", only=None,
                    validate_one=None, **kw) -> tuple[bool, str, dict]:
    """Validate n random truth files (each its own run, `<run_name>_<i>`); (passed, summary, tables)."""
    from .validate import validate

    validate_one = validate_one or validate
    folder = paths.runs_root() / run_name
    folder.mkdir(parents=True, exist_ok=True)
    tables, verdicts = [], []
    for i, path in enumerate(write_truths(folder / "truths", n, seed)):
        start = time.monotonic()
        passed, line, table = validate_one(path, size, f"{run_name}_{i}", only=only, **kw)
        tables.append(table)
        verdicts.append({"draw": i, "truth_file": path.name, "passed": passed, "minutes": (time.monotonic() - start) / 60,
                         "summary": line})
        pd.DataFrame(verdicts).to_csv(folder / "random_runs.csv", index=False)
    by_nb, by_family = coverage_table(tables, "notebook"), coverage_table(tables, "family")
    passed, line = random_verdict(by_nb)
    if by_nb.empty:  # no run gave a table (a dry run): the runs' own verdicts are all there is
        passed = all(v["passed"] for v in verdicts)
        line = f"random truths: {'PASS' if passed else 'FAIL'}: {n} draws, no row with an interval to pool"
    by_nb.to_csv(folder / "random_coverage_notebooks.csv", index=False)
    by_family.to_csv(folder / "random_coverage_families.csv", index=False)
    (folder / "random_summary.txt").write_text(
        line + "\n\n" + by_nb.to_markdown(index=False, floatfmt=".2f") + "\n\n"
        + by_family.to_markdown(index=False, floatfmt=".2f") + "\n")
    return passed, line, {"notebooks": by_nb, "families": by_family, "runs": pd.DataFrame(verdicts)}
