"""The power analysis (lib/simulate/power.py) against the whole pipeline at one size.

`--row self` (default): R replications of notebooks 02, 05 and 06's own code against the simulator
(lib/simulate/replicate.py), with the self-preference log-odds moved to a size where power is neither
0 nor 1, give the share of seeds whose self-preference and first-position rows are detected after Holm.
`--row rm`: R replications of notebook 13's own code (lib.rewardbench.study.pair_results, its findings
rows) with two simulated judges on the demo pairs, the second judge's accuracy `--shift` log-odds below
the first's, compared by lib.compare (compare_tables: per-unit values from the registry's reader, the
paired difference, Holm over compare's family); the share of seeds whose paired difference is detected.
The power analysis at the same units (for the RM row: the run's very pairs, categories and questions)
and the same Holm family predicts that share.

    .venv/bin/python benchmarks/bench_power_check.py [--seeds 20] [--size 10] [--self 0.6]
    .venv/bin/python benchmarks/bench_power_check.py --row rm [--seeds 20] [--size 0] [--shift 0.2]
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
from lib.simulate.rewardbench import power as RM  # noqa: E402
from lib.simulate.core.truth_file import model_names  # noqa: E402
from lib.simulate.replicate import DATASETS, one_replication  # noqa: E402
from lib.simulate.core.truth_file import load_truth  # noqa: E402
from lib.stats import wilson_ci  # noqa: E402

ROWS = {"self_preference_rate": "pairwise.self", "first_position_rate": "pairwise.position"}


def served_truth(truth, shift: float):
    """The truth file whose second served model is the power analysis' judge B (rewardbench.power.judges)."""
    _, b = RM.judges(truth, shift)
    name = (model_names(truth) + ["sim_b"])[1]
    section = {"rewardbench": {"accuracy": dict(b.rewardbench.accuracy), "position": b.rewardbench.position}}
    return replace(truth, models={name: section}), name


def rm_replication(truth, n_per_category: int, seed: int) -> dict:
    """One seed of notebook 13 with two simulated judges, compared: the paired row of compare_tables."""
    import tempfile

    from lib.compare import compare_tables
    from lib.simulate.core.scratch import own_cache
    from lib.report import findings
    from lib.rewardbench import findings_rows, study
    from lib.simulate.rewardbench.truth import served_name
    from lib.simulate.server import SimServer

    truth = replace(truth, seed=truth.seed + 1000 * (seed + 1))  # new pair difficulties and verdicts
    second = model_names(truth)[1]
    with tempfile.TemporaryDirectory() as tmp:
        run_dir = Path(tmp) / f"rm_seed{seed}"
        (run_dir / "findings").mkdir(parents=True)
        # replies change with the seed: no shared cache
        with own_cache(run_dir / "cache"), SimServer(truth, run_dir) as sim:
            judges = [f"judge:openai:{name}@{sim.url};retries:0;max_tokens:16" for name in ("sim", second)]
            pairs = study.study_pairs("", n_per_category, 0)
            results = study.pair_results(judges, pairs, run_dir / "rewardbench_raw.jsonl")
        pd.DataFrame(findings_rows.judge_findings(results)).to_csv(run_dir / "findings" / "13_rewardbench.csv",
                                                                     index=False)
        findings.collect(run_dir).to_csv(run_dir / "findings.csv", index=False)
        tables = compare_tables([str(run_dir)])
        paired = tables["paired"]
        model_of = dict(zip(tables["long"]["entry"], tables["long"]["model"].map(served_name)))
    row = paired[paired["measure_id"] == RM.MEASURE_ID].iloc[0]
    sign = 1.0 if model_of[row["first"]] == "sim" else -1.0  # the truth: judge A (sim) minus judge B
    return {"seed": seed, "estimate": sign * row["estimate"], "p_adjusted": row["p_adjusted"],
            "holm_family": int((paired["family"] == "rewardbench").sum()), "n": int(row["n"]),
            "detected": float(row["p_adjusted"] < 0.05 and sign * row["estimate"] > 0), "pairs": pairs}


def rm_check(args, base) -> pd.DataFrame:
    """--row rm: the pipeline's detection share and the power analysis' power on the same pairs."""
    from lib.rewardbench.accuracy_tables import question_units

    truth, _ = served_truth(base, args.shift)
    started, rows = time.time(), []
    for seed in range(args.seeds):
        rows.append(rm_replication(truth, args.size, seed))
        print(f"seed {seed}: {time.time() - started:.0f} s", flush=True)
    pairs = rows[0].pop("pairs")
    for r in rows[1:]:
        r.pop("pairs")
    got = pd.DataFrame(rows)
    design = RM.PairDesign(tuple(pairs["category"]), tuple(question_units(pairs)))
    family = int(got["holm_family"].median())
    implied = RM.rm_implied(base, args.shift, tuple(dict.fromkeys(pairs["category"])))
    predicted = P.power(lambda k, rng: RM.rm_draw(base, args.shift, k, rng, design), len(pairs), 0.0,
                        float(np.sign(implied)), family, args.reps)
    hit = got["detected"]
    lo, hi = wilson_ci(int(hit.sum()), len(hit))
    table = pd.DataFrame([{"measure": "RM accuracy difference (13, compared)", "planted shift": args.shift,
                           "implied": implied, "pairs": len(pairs), "questions": len(set(design.clusters)),
                           "holm_family": family, "pipeline detected": f"{int(hit.sum())}/{len(hit)}",
                           "pipeline share": hit.mean(), "95% CI": f"[{lo:.2f}, {hi:.2f}]",
                           "pipeline mean estimate": got["estimate"].mean(), "power analysis": predicted}])
    return write(got, table, "rm_", started, ".3f")


def write(rows: pd.DataFrame, table: pd.DataFrame, prefix: str, started: float, floatfmt: str) -> pd.DataFrame:
    """Every seed's rows and the summary under data/runs/bench_power_check/; print the summary and the time."""
    out_dir = paths.runs_root() / "bench_power_check"
    out_dir.mkdir(parents=True, exist_ok=True)
    rows.to_csv(out_dir / f"{prefix}rows.csv", index=False)
    table.to_csv(out_dir / f"{prefix}summary.csv", index=False)
    print(table.to_markdown(index=False, floatfmt=floatfmt))
    print(f"{time.time() - started:.0f} s")
    return table


def main(argv=None) -> int:
    """Replicate the pipeline, predict its detection rate with the power analysis, print both."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--row", choices=("self", "rm"), default="self")
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--size", type=int, default=None,
                    help="questions per dataset (self, default 10); pairs per category (rm, default 0: all demo pairs)")
    ap.add_argument("--self", type=float, default=0.6, help="planted self-preference log-odds")
    ap.add_argument("--shift", type=float, default=0.2, help="rm: judge B's accuracy below judge A's, log-odds")
    ap.add_argument("--reps", type=int, default=1000, help="replications of the power analysis")
    ap.add_argument("--truth", default="configs/known_truth.yaml")
    args = ap.parse_args(argv)
    base = load_truth(ROOT / args.truth)
    if args.row == "rm":
        args.size = args.size or 0
        rm_check(args, base)
        return 0
    args.size = args.size or 10
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
    write(rows, pd.DataFrame(out), "", started, ".2f")
    return 0


if __name__ == "__main__":
    sys.exit(main())
