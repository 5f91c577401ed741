"""Replications of the known-truth check (docs/known_truth.md): R seeds at a small size, each with new
questions and new replies, through the studies' own code for notebooks 02, 05 (RAG prompt) and 06
against the simulator. Prints, per measure family, the coverage of the 95% intervals and, under the
all-null truth file, the share of null rows detected after Holm (false detection).

    .venv/bin/python benchmarks/bench_known_truth.py [--seeds 20] [--size 10] [--truth configs/known_truth.yaml ...]
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("TQDM_DISABLE", "1")  # one line per seed instead of progress bars

import pandas as pd  # noqa: E402

from lib import paths  # noqa: E402
from lib.simulate.replicate import one_replication, summarize  # noqa: E402
from lib.simulate.truth_file import load_truth  # noqa: E402

DEFAULT_TRUTHS = ["configs/known_truth.yaml", "configs/known_truth_null.yaml"]


def main(argv=None) -> int:
    """Run the replications of each truth file and write their rows and summary as CSV."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--size", type=int, default=10, help="questions per dataset")
    ap.add_argument("--truth", action="append", help="truth file(s); default: the planted and the all-null file")
    args = ap.parse_args(argv)
    out_dir = paths.runs_root() / "bench_known_truth"
    out_dir.mkdir(parents=True, exist_ok=True)
    summaries = []
    for path in args.truth or DEFAULT_TRUTHS:
        truth, started, tables = load_truth(ROOT / path), time.time(), []
        for seed in range(args.seeds):
            tables.append(one_replication(truth, args.size, seed))
            print(f"{Path(path).name} seed {seed}: {time.time() - started:.0f} s", flush=True)
        rows = pd.concat(tables, ignore_index=True)
        rows.to_csv(out_dir / f"{Path(path).stem}_rows.csv", index=False)
        summaries.append(summarize(rows).assign(truth_file=Path(path).name, seeds=args.seeds, size=args.size,
                                                seconds=round(time.time() - started, 1)))
    summary = pd.concat(summaries, ignore_index=True)
    summary.to_csv(out_dir / "summary.csv", index=False)
    print(summary.to_markdown(index=False, floatfmt=".3f"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
