"""Replications of the known-truth check (docs/known_truth.md): R seeds at a small size, each with new
questions and new replies, through the studies' own code (02-15 and compare's paired
difference of two judges; lib/simulate/replicate.py) against a fresh simulator. Prints, per measure
family, the coverage of the 95% intervals (interval over seeds: a seed's rows are not independent),
the share of planted nulls detected after Holm (false detection) and of planted effects detected, for
the planted and the all-null truth file. Notebook 09's candidate sets do not depend on the seed or the
truth file: they are built once per invocation.

    .venv/bin/python benchmarks/bench_known_truth.py [--seeds 20] [--size 10] [--truth configs/known_truth.yaml ...]
        [--utility-size 30] [--families self_preference,perplexity,knowledge,style,utility,rm | --notebooks 10,13]
    .venv/bin/python benchmarks/bench_known_truth.py --summarize bench_known_truth_a bench_known_truth_b
        (one table from the rows of earlier invocations, e.g. families run separately)
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from contextlib import nullcontext
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("TQDM_DISABLE", "1")  # one line per seed instead of progress bars

import pandas as pd  # noqa: E402

from lib import paths  # noqa: E402
from lib.simulate.replicate import GROUPS, notebooks_for, one_replication, utility_sets  # noqa: E402
from lib.simulate.replicate_summary import summarize  # noqa: E402
from lib.simulate.core.truth_file import load_truth  # noqa: E402

DEFAULT_TRUTHS = ["configs/known_truth.yaml", "configs/known_truth_null.yaml"]


def _list(text: str) -> list[str]:
    return [t.strip() for t in (text or "").split(",") if t.strip()]


SHOWN = ["truth_file", "family", "model", "rows", "seeds", "coverage", "coverage_seed_low", "coverage_seed_high",
         "null_rows", "false_detection", "false_detection_seed_high", "planted_rows", "detected_planted",
         "bias", "bias_low", "bias_high", "meets_goal"]


def show(summary: pd.DataFrame) -> None:
    """Print the summary table and how many families meet issue 29's goals."""
    print(summary[[c for c in SHOWN if c in summary]].to_markdown(index=False, floatfmt=".3f"))
    print(f"families meeting the goals (coverage >= 0.90, false detection <= 0.06): "
          f"{int(summary['meets_goal'].sum())}/{len(summary)}")


def from_rows(folders) -> pd.DataFrame:
    """The summary of rows written by earlier invocations (their *_rows.csv), per truth file; a seed
    that two invocations ran counts once."""
    parts = []
    for folder in folders:
        for f in sorted((paths.runs_root() / folder).glob("*_rows.csv")):
            parts.append(pd.read_csv(f).assign(truth_file=f.name.removesuffix("_rows.csv") + ".yaml"))
    rows = pd.concat(parts, ignore_index=True)
    # a seed run by two invocations gives the same rows (its draws are fixed by the seed): count it once
    rows = rows.drop_duplicates([c for c in ("truth_file", "seed", "measure_id", "model") if c in rows])
    return pd.concat([summarize(g).assign(truth_file=name) for name, g in rows.groupby("truth_file", sort=False)],
                     ignore_index=True)


def main(argv=None) -> int:
    """Run the replications of each truth file and write their rows and summary as CSV."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--first-seed", type=int, default=0, help="seeds first .. first + seeds - 1")
    ap.add_argument("--size", type=int, default=10, help="questions per dataset (RM pairs per category)")
    ap.add_argument("--utility-size", type=int, default=30,
                    help="10's questions per dataset: at 10 its set-F1 interval under-covers (docs/known_truth.md)")
    ap.add_argument("--truth", action="append", help="truth file(s); default: the planted and the all-null file")
    ap.add_argument("--families", default="", help=f"groups of notebooks: {', '.join(GROUPS)}, all (default)")
    ap.add_argument("--notebooks", default="", help="notebook numbers, e.g. 10,13 (what they need runs too)")
    ap.add_argument("--out", default="bench_known_truth", help="folder under data/runs for the CSV files")
    ap.add_argument("--summarize", nargs="+", metavar="FOLDER", help="only summarize rows already written there")
    args = ap.parse_args(argv)
    if args.summarize:
        show(from_rows(args.summarize))
        return 0
    notebooks = notebooks_for(_list(args.notebooks), _list(args.families))
    out_dir = paths.runs_root() / args.out
    out_dir.mkdir(parents=True, exist_ok=True)
    truths = [(p, load_truth(ROOT / p)) for p in (args.truth or DEFAULT_TRUTHS)]
    print(f"notebooks {', '.join(notebooks)}; {args.seeds} seeds x {len(truths)} truth file(s), size {args.size}"
          + (f" (10: {args.utility_size})" if "10" in notebooks else ""),
          flush=True)
    started = time.time()
    built = utility_sets(truths[0][1], args.utility_size) if "09" in notebooks else nullcontext(None)
    summaries = []
    with built as sets:
        if sets is not None:
            print(f"09's candidate sets built once: {time.time() - started:.0f} s", flush=True)
        for path, truth in truths:
            t0, tables, seconds = time.time(), [], {}
            for seed in range(args.first_seed, args.first_seed + args.seeds):
                tables.append(one_replication(truth, args.size, seed, notebooks, sets, seconds,
                                              args.utility_size))
                # written after every seed: an interrupted run keeps its finished seeds
                pd.concat(tables, ignore_index=True).to_csv(out_dir / f"{Path(path).stem}_rows.csv", index=False)
                print(f"{Path(path).name} seed {seed}: {time.time() - t0:.0f} s", flush=True)
            print("wall seconds per notebook over the seeds: "
                  + ", ".join(f"{nb} {s:.0f}" for nb, s in seconds.items()), flush=True)
            rows = pd.concat(tables, ignore_index=True)
            summaries.append(summarize(rows).assign(truth_file=Path(path).name, seeds=args.seeds, size=args.size,
                                                    seconds=round(time.time() - t0, 1)))
    summary = pd.concat(summaries, ignore_index=True)
    summary.to_csv(out_dir / "summary.csv", index=False)
    show(summary)
    print(f"total {time.time() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
