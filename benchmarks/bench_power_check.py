"""The power analysis (lib/simulate/power.py) against the whole pipeline at one size: R replications
of notebooks 02, 05 and 06's own code against the simulator (lib/simulate/replicate.py), with the
self-preference log-odds moved to a size where power is neither 0 nor 1, give the share of seeds whose
self-preference and first-position rows are detected after Holm; the power analysis at the same number
of questions and the same Holm family predicts that share.

    .venv/bin/python benchmarks/bench_power_check.py [--seeds 20] [--size 10] [--self 0.6]
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("TQDM_DISABLE", "1")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from lib import paths  # noqa: E402
from lib.simulate import power as P  # noqa: E402
from lib.simulate.replicate import DATASETS, one_replication  # noqa: E402
from lib.simulate.truth_file import load_truth  # noqa: E402
from lib.stats import wilson_ci  # noqa: E402

ROWS = {"self_preference_rate": "pairwise.self", "first_position_rate": "pairwise.position"}


def main(argv=None) -> int:
    """Replicate the pipeline, predict its detection rate with the power analysis, print both."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--size", type=int, default=10, help="questions per dataset")
    ap.add_argument("--self", type=float, default=0.6, help="planted self-preference log-odds")
    ap.add_argument("--reps", type=int, default=1000, help="replications of the power analysis")
    ap.add_argument("--truth", default="configs/known_truth.yaml")
    args = ap.parse_args(argv)
    base = load_truth(ROOT / args.truth)
    truth = replace(base, pairwise=replace(base.pairwise, self=args.self))
    started, tables = time.time(), []
    for seed in range(args.seeds):
        tables.append(one_replication(truth, args.size, seed))
        print(f"seed {seed}: {time.time() - started:.0f} s", flush=True)
    rows = pd.concat(tables, ignore_index=True)
    family = int(np.median(rows.groupby("seed")["p_adjusted"].count()))  # tested rows in Holm's family per seed
    n = args.size * len(DATASETS)
    out = []
    for prefix, parameter in ROWS.items():
        hit = rows[rows["measure_id"].str.startswith(prefix + ".")]["detected"].dropna()
        lo, hi = wilson_ci(int(hit.sum()), len(hit))
        effect = next(e for e in P.effects() if e.parameter == parameter)
        size = getattr(truth.pairwise, parameter.split(".")[1])
        predicted = P.power(lambda k, rng: effect.draw(truth, size, k, rng), n, 0.5, 1.0, family, args.reps)
        out.append({"measure": prefix, "planted log-odds": size, "questions": n, "holm_family": family,
                    "pipeline detected": f"{int(hit.sum())}/{len(hit)}", "pipeline share": hit.mean(),
                    "95% CI": f"[{lo:.2f}, {hi:.2f}]", "power analysis": predicted})
    table = pd.DataFrame(out)
    out_dir = paths.runs_root() / "bench_power_check"
    out_dir.mkdir(parents=True, exist_ok=True)
    rows.to_csv(out_dir / "rows.csv", index=False)
    table.to_csv(out_dir / "summary.csv", index=False)
    print(table.to_markdown(index=False, floatfmt=".2f"))
    print(f"{time.time() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
