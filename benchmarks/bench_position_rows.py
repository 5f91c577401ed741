"""Notebook 11's position rows (Figure 5: per-question F1 / NDCG@1 with the ground truth at place 1
minus at place 10) drawn directly from the planted utility model, without the simulator or the
pipeline's judging, and made into rows by the study's own `factor_findings` (its interval and test).

Each replicate is one replication's design (docs/known_truth.md, "11 and 12 in the replications"):
`--size` questions per dataset with 09's candidate-set compositions (10 passages: NQ and MS MARCO one
ground truth, HotpotQA two, three counterfactuals, the rest noisy), one question effect per question
shared by its two places, the planted format-failure rate. Draws come from `utility.draws.Draws`
(the Monte Carlo the truths use, checked against a plain loop in tests/simulate); each question is
scored by the study's `set_prf` / `rank_metrics`. Prints, per form, the coverage of the rows' 95%
intervals with an exact binomial interval, and the spread of z = (estimate - truth) / (width / 3.92):
does the row's interval hold its level for this lumpy per-question difference (each question gives
-1, 0 or 1 for rankings)?

    .venv/bin/python benchmarks/bench_position_rows.py [--truth configs/known_truth_null.yaml] [--replicates 1000]

`--replications FOLDER ...` reads instead the rows `bench_known_truth.py` wrote under data/runs (e.g.
`--notebooks 11 --truth configs/known_truth_null.yaml`) and prints the same per-row figures over seeds.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from scipy.stats import beta, binom  # noqa: E402

from lib import paths  # noqa: E402
from lib.simulate.utility import truth as UT  # noqa: E402
from lib.simulate.core.truth_file import load_truth  # noqa: E402
from lib.simulate.utility.draws import Draws  # noqa: E402
from lib.utility.findings_rows import factor_findings  # noqa: E402
from lib.utility.judgment_metrics import rank_metrics, set_prf  # noqa: E402

CF, NOISY = ["counterfactual"] * 3, ["distractor"] * 6
COMPOSITIONS = {"nq": tuple(["ground_truth"] + CF + NOISY), "hotpotqa": tuple(["ground_truth"] * 2 + CF + NOISY[:5]),
                "marco": tuple(["ground_truth"] + CF + NOISY)}
FORMS = ("listwise-set", "listwise-rank")
PLACES = (1, 10)


def replicate_rows(truth, size: int, rng: np.random.Generator) -> pd.DataFrame:
    """One replication's per-question table (as `FactorSweep.positions` gives it) for both forms."""
    recs = []
    for source, roles in COMPOSITIONS.items():
        labels = [int(r == "ground_truth") for r in roles]
        gt = roles.index("ground_truth")
        for form in FORMS:
            draws = [Draws(truth.utility, roles, truth.question_sd, truth.format_failure, size,
                           int(rng.integers(2 ** 32)), fixed=(gt, place - 1)) for place in PLACES]
            draws[1].q = draws[0].q  # one question effect per question, shared by its two places
            for place, d in zip(PLACES, draws):
                if form == "listwise-set":
                    sel, failed = d.listwise_set("utility")
                    value = [set_prf(list(np.flatnonzero(s)), labels)["F1"] for s in sel]
                    column = "F1 per question"
                else:
                    rank, failed = d.listwise_rank("utility")
                    value = [rank_metrics(list(np.argsort(r)), labels)["NDCG@1"] for r in rank]
                    column = "NDCG@1"
                for i in range(size):
                    recs.append({"id": f"{source}-{i}", "model": "sim", "form": form, "position": place,
                                 "failed": bool(failed[i]), column: np.nan if failed[i] else value[i]})
    return pd.DataFrame(recs)


def report(rows: pd.DataFrame) -> None:
    """Per position row: coverage of its truth with an exact (Clopper-Pearson) interval, the one-sided
    binomial p against 0.95, z = (estimate - truth) / (width / 3.92), the estimates' spread."""
    rows = rows.dropna(subset=["ci_low"])
    for measure, g in rows.groupby("measure_id"):
        k, n = int(((g.ci_low <= g.truth) & (g.truth <= g.ci_high)).sum()), len(g)
        lo = beta.ppf(0.025, k, n - k + 1) if k else 0.0
        hi = beta.ppf(0.975, k + 1, n - k) if k < n else 1.0
        z = (g.estimate - g.truth) / ((g.ci_high - g.ci_low) / 3.92)
        print(f"{measure}: truth {g.truth.mean():+.4f}; coverage {k}/{n} = {k / n:.3f} [{lo:.3f}, {hi:.3f}] "
              f"(one-sided p against 0.95: {binom.cdf(k, n, 0.95):.3f}); z mean {z.mean():+.2f} sd {z.std():.2f}; "
              f"estimate mean {g.estimate.mean():+.4f} sd {g.estimate.std():.4f}; "
              f"mean width {(g.ci_high - g.ci_low).mean():.4f}; questions {g.n_items.mean():.1f}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--truth", default="configs/known_truth_null.yaml")
    ap.add_argument("--replicates", type=int, default=1000)
    ap.add_argument("--size", type=int, default=30, help="questions per dataset")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--replications", nargs="+", metavar="FOLDER",
                    help="only report the position rows bench_known_truth.py wrote in these folders")
    args = ap.parse_args(argv)
    if args.replications:
        rows = pd.concat([pd.read_csv(f) for d in args.replications
                          for f in sorted((paths.runs_root() / d).glob("*_rows.csv"))], ignore_index=True)
        rows = rows[rows.measure_id.str.startswith("position_effect.")]
        for name, g in rows.groupby("truth_file") if "truth_file" in rows else [("", rows)]:
            g = g.drop_duplicates(["seed", "measure_id", "model"])  # a seed run twice counts once
            print(f"{name or 'replications'}: seeds {g.seed.min()}-{g.seed.max()} ({g.seed.nunique()})")
            report(g)
        return 0
    truth = load_truth(ROOT / args.truth)
    comps = [c for c in COMPOSITIONS.values() for _ in range(args.size)]
    truths = {f: UT.position_effect(truth, f, comps, *PLACES) for f in FORMS}
    rng = np.random.default_rng(args.seed)
    rows = []
    for r in range(args.replicates):
        rows += factor_findings(pd.DataFrame(columns=["model", "form"]), replicate_rows(truth, args.size, rng),
                                n_boot=1000, seed=r)
    got = pd.DataFrame(rows)
    got["truth"] = got["measure_id"].str.split(".").str[1].map(truths)
    print(f"{args.truth}: {args.replicates} replicates, {args.size} questions per dataset")
    report(got)
    return 0


if __name__ == "__main__":
    sys.exit(main())
