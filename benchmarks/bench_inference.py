"""Do the findings' intervals and tests keep their promises? Coverage, mean width and type-I error of
every interval / test a findings row uses, on simulated judgments with a known truth.

Each data set: K questions (3, 5, 10, 30, 100, 300), 8 judgments per question (2 orders x 4
factuality combinations), each question its own rate drawn from a Beta with the given mean and
within-question correlation (ICC 0, 0.3, 0.6), about 15% of judgments unparsed (missing). The
interval shown is what a findings row shows (`lib.report.findings.honest_interval`: none below 10
units, none of zero width), so "blank" counts rows that show no interval. Then degenerate data (every
question alike) and the power of the tests for a planted effect.

    .venv/bin/python benchmarks/bench_inference.py [--sets 200] [--markdown out.md]

The default (200 null data sets per cell) takes a few minutes on 2 cores; `--sets 1000` narrows the
Monte Carlo error of a 5% rejection rate from about 1.5 to about 0.7 percentage points.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from scipy import stats as sps

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from lib import stats  # noqa: E402
from lib.report.findings import honest_interval  # noqa: E402
from lib.rewardbench.categories import category_weights  # noqa: E402

SIZES = (3, 5, 10, 30, 100, 300)
ICCS = (0.0, 0.3, 0.6)
PER_ITEM = 8  # 2 orders x 4 factuality combinations
FAIL = 0.15  # share of judgments whose reply did not parse
N_BOOT = 1000  # resamples per interval here (the findings use 2000): the benchmark's budget
CATEGORIES = ("helpful", "abstain", "conflict")  # the demo's three categories of 13


def unit_rates(rng, k: int, mean: float, icc: float) -> np.ndarray:
    """Each question's own rate: Beta with the given mean and intra-class correlation (icc 0: all equal)."""
    if icc == 0:
        return np.full(k, mean)
    s = 1 / icc - 1
    return rng.beta(mean * s, (1 - mean) * s, k)


def judgments(rng, k: int, mean: float, icc: float, fail: float = FAIL):
    """0/1 judgments (NaN where the reply did not parse), their question ids and orders (0/1)."""
    r = np.repeat(unit_rates(rng, k, mean, icc), PER_ITEM)
    y = (rng.random(len(r)) < r).astype(float)
    y[rng.random(len(r)) < fail] = np.nan
    return y, np.repeat(np.arange(k), PER_ITEM), np.tile(np.arange(PER_ITEM) % 2, k)


# --- one function per interval / test of the findings: (estimate's truth, low, high, p) -------------

def clustered_rate(rng, k, icc, mean, seed):
    """06/07/08 rates: share of judgments, questions clustered (Korn-Graubard, sign-flip p)."""
    y, ids, _ = judgments(rng, k, mean, icc)
    c = stats.clustered_mean(y, ids, null=0.5, n_boot=N_BOOT, seed=seed)
    return mean, c["ci_low"], c["ci_high"], c["p"], c["n_items"]


def balanced_rate(rng, k, icc, mean, seed):
    """06's order-balanced self-preference rate, parse failures depending on the order (5% / 30%)."""
    y, ids, order = judgments(rng, k, mean, icc, fail=0.0)
    y[rng.random(len(y)) < np.where(order == 0, 0.05, 0.30)] = np.nan
    ok = ~np.isnan(y)
    y, ids, order = y[ok], ids[ok], order[ok]
    counts = np.bincount(order, minlength=2).astype(float)
    if (counts == 0).any():
        return mean, np.nan, np.nan, np.nan, len(np.unique(ids))
    w = len(y) / (2 * counts[order])
    c = stats.cluster_bootstrap(y, ids, null=0.5, n_boot=N_BOOT, seed=seed, rate=True, judgment_weights=w)
    return mean, c["ci_low"], c["ci_high"], c["p"], c["n_items"]


def asymmetry(rng, k, icc, mean, seed):
    """06's TF-minus-FT asymmetry: a contrast of two groups' means within questions (null 0)."""
    y, ids, _ = judgments(rng, k, mean, icc)
    sign = np.where(np.tile(np.arange(PER_ITEM) // 4, k) == 0, 1, -1)  # half TF, half FT
    c = stats.cluster_bootstrap(y, ids, contrast=sign, n_boot=N_BOOT, seed=seed)
    return 0.0, c["ci_low"], c["ci_high"], c["p"], c["n_items"]


def paired_t(rng, k, icc, mean, seed):
    """05 human minus self / 03 perplexity: one difference per question, paired t-test and t interval."""
    a = np.nanmean(judgments(rng, k, mean, icc)[0].reshape(k, PER_ITEM), axis=1) * 4 + 1
    b = np.nanmean(judgments(rng, k, mean, icc)[0].reshape(k, PER_ITEM), axis=1) * 4 + 1
    d = (a - b)[~np.isnan(a - b)]
    if len(d) < 3 or d.std() == 0:
        return 0.0, np.nan, np.nan, np.nan, len(d)
    lo, hi = sps.t.interval(0.95, len(d) - 1, loc=d.mean(), scale=sps.sem(d))
    return 0.0, lo, hi, float(sps.ttest_1samp(d, 0).pvalue), len(d)


def paired_difference(rng, k, icc, mean, seed):
    """compare's paired differences: one difference per question, expanded percentile bootstrap, sign flips."""
    a = np.nanmean(judgments(rng, k, mean, icc)[0].reshape(k, PER_ITEM), axis=1)
    b = np.nanmean(judgments(rng, k, mean, icc)[0].reshape(k, PER_ITEM), axis=1)
    c = stats.clustered_mean(a - b, np.arange(k), null=0.0, method="bootstrap", n_boot=N_BOOT, seed=seed, rate=False)
    return 0.0, c["ci_low"], c["ci_high"], c["p"], c["n_items"]


def weighted_accuracy(rng, k, icc, mean, seed):
    """13's overall accuracy: per pair the mean of two orders, 3 categories weighted by the paper's counts."""
    r = unit_rates(rng, k, mean, icc)
    value = (rng.random((k, 2)) < r[:, None]).mean(axis=1)
    cats = np.array(CATEGORIES)[np.arange(k) % len(CATEGORIES)]
    w = category_weights({c: int((cats == c).sum()) for c in CATEGORIES})
    c = stats.cluster_bootstrap(value, np.arange(k), null=0.5, strata=cats, weights=w, n_boot=N_BOOT, seed=seed)
    return mean, c["ci_low"], c["ci_high"], c["p"], c["n_items"]


def wilson(rng, k, icc, mean, seed):
    """One 0/1 per unit (13's position consistency, 10's unreadable share): Wilson and exact binomial."""
    y = (rng.random(k) < unit_rates(rng, k, mean, icc)).astype(float)
    c = stats.clustered_mean(y, np.arange(k), null=0.5)
    return mean, c["ci_low"], c["ci_high"], c["p"], k


def unit_mean(rng, k, icc, mean, seed):
    """10's per-question metrics: a mean of one value per question in [0, 1], expanded percentile bootstrap."""
    v = np.nanmean(judgments(rng, k, mean, icc)[0].reshape(k, PER_ITEM), axis=1)
    v = v[~np.isnan(v)]
    lo, hi = stats.bootstrap_ci(v, n_boot=N_BOOT, seed=seed)
    return mean, lo, hi, np.nan, len(v)


METHODS = {"clustered rate (06-08)": clustered_rate, "order-balanced rate (06)": balanced_rate,
           "TF-FT asymmetry (06)": asymmetry, "paired t (03, 05)": paired_t,
           "paired difference (compare)": paired_difference, "weighted accuracy (13)": weighted_accuracy,
           "Wilson / binomial (one per unit)": wilson, "mean of unit values (10)": unit_mean}


def run_cell(method, k: int, icc: float, mean: float, sets: int, seed: int = 0) -> dict:
    """Coverage, mean width, blank share and rejection rate at 5% over `sets` data sets."""
    rng = np.random.default_rng([seed, k, int(icc * 10), int(mean * 100)])
    cover = width = shown = reject = tested = zero = 0
    for s in range(sets):
        truth, lo, hi, p, n = method(rng, k, icc, mean, s)
        lo, hi, _ = honest_interval(int(n), float(lo), float(hi))
        if not (np.isnan(lo) or np.isnan(hi)):
            shown += 1
            cover += lo - 1e-12 <= truth <= hi + 1e-12
            width += hi - lo
            zero += hi - lo <= 1e-12
        if not np.isnan(p):
            tested += 1
            reject += p < 0.05
    return {"coverage": cover / shown if shown else np.nan, "width": width / shown if shown else np.nan,
            "blank": 1 - shown / sets, "reject": reject / tested if tested else np.nan, "zero_width": zero}


def degenerate() -> list[tuple]:
    """Every question alike: all judgments 1, every question at 0.5, every difference 0."""
    rows = []
    for k in (10, 30, 100):
        ids = np.repeat(np.arange(k), PER_ITEM)
        cases = {"all judgments 1 (rate)": stats.clustered_mean(np.ones(k * PER_ITEM), ids, null=0.5),
                 "every question at 0.5 (rate)": stats.clustered_mean(np.tile([1.0, 0.0], k * PER_ITEM // 2), ids, null=0.5),
                 "one per unit, all 1 (Wilson)": stats.clustered_mean(np.ones(k), np.arange(k), null=0.5),
                 "every difference 0 (paired)": stats.clustered_mean(np.zeros(k), np.arange(k), null=0.0,
                                                                     method="bootstrap", rate=False)}
        for name, c in cases.items():
            lo, hi, note = honest_interval(k, c["ci_low"], c["ci_high"], c.get("ci_note", ""))
            rows.append((name, k, lo, hi, c["p"], note))
    return rows


def fmt(x, digits=3) -> str:
    return "" if x is None or (isinstance(x, float) and np.isnan(x)) else f"{x:.{digits}f}"


def main(argv=None) -> int:
    """Print (and with --markdown write) the coverage / type-I / power tables."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", type=int, default=200, help="null data sets per cell (default 200)")
    ap.add_argument("--power-sets", type=int, default=100, help="data sets per power cell (default 100)")
    ap.add_argument("--markdown", type=Path, help="also write the tables to this markdown file")
    ap.add_argument("--methods", nargs="*", help="only the intervals / tests whose name contains one of these words")
    ap.add_argument("--sizes", nargs="*", type=int, default=list(SIZES), help="numbers of questions (default: all)")
    ap.add_argument("--iccs", nargs="*", type=float, default=list(ICCS), help="within-question correlations (default: all)")
    ap.add_argument("--null-only", action="store_true", help="skip the power and degenerate-data tables")
    ap.add_argument("--seed", type=int, default=0, help="seed of the null data sets (another seed: other data sets)")
    args = ap.parse_args(argv)
    chosen = {n: f for n, f in METHODS.items() if not args.methods or any(w in n for w in args.methods)}
    start = time.perf_counter()
    lines = [f"Null data sets per cell: {args.sets}, seed {args.seed} (true rate 0.5; differences 0); {PER_ITEM} judgments per "
             f"question, {FAIL:.0%} unparsed; {N_BOOT} resamples per interval. Coverage and width over the rows that "
             "show an interval; blank = share of rows showing none (below 10 units, or no spread); type-I = "
             "rejections at 5%.", "",
             "| interval / test | questions | ICC | coverage | mean width | blank | type-I | zero-width |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    worst = {"coverage": 1.0, "reject": 0.0, "zero": 0}
    for name, method in chosen.items():
        for k in args.sizes:
            for icc in args.iccs:
                r = run_cell(method, k, icc, 0.5, args.sets, seed=args.seed)
                lines.append(f"| {name} | {k} | {icc} | {fmt(r['coverage'])} | {fmt(r['width'])} | "
                             f"{r['blank']:.2f} | {fmt(r['reject'])} | {r['zero_width']} |")
                if k >= 10 and not np.isnan(r["coverage"]):
                    worst["coverage"] = min(worst["coverage"], r["coverage"])
                if not np.isnan(r["reject"]):
                    worst["reject"] = max(worst["reject"], r["reject"])
                worst["zero"] += r["zero_width"]
                print(lines[-1], flush=True)  # each cell as it finishes: a long run shows its progress
    lines += ["", f"Worst coverage at >= 10 questions: {worst['coverage']:.3f}; worst type-I error: "
              f"{worst['reject']:.3f}; zero-width intervals shown: {worst['zero']}."]
    if args.null_only:
        return _emit(lines, start, args.markdown)
    lines += ["",
              f"Power at 5% for a planted effect (true rate 0.6; differences: B's rate 0.5 vs A's 0.6), ICC 0.3, "
              f"{args.power_sets} data sets per cell:", "",
              "| test | " + " | ".join(f"{k} questions" for k in SIZES[2:]) + " |",
              "|" + " --- |" * (len(SIZES) - 1)]
    for name in ("clustered rate (06-08)", "order-balanced rate (06)", "weighted accuracy (13)",
                 "Wilson / binomial (one per unit)"):
        cells = [run_cell(METHODS[name], k, 0.3, 0.6, args.power_sets, seed=1)["reject"] for k in SIZES[2:]]
        lines.append(f"| {name} | " + " | ".join(fmt(c, 2) for c in cells) + " |")
    lines += ["", "Degenerate data (what a findings row shows):", "",
              "| data | questions | ci_low | ci_high | p | note |", "| --- | --- | --- | --- | --- | --- |"]
    lines += [f"| {n} | {k} | {fmt(lo)} | {fmt(hi)} | {p:.2g} | {note} |" for n, k, lo, hi, p, note in degenerate()]
    return _emit(lines, start, args.markdown)


def _emit(lines: list[str], start: float, markdown: Path | None) -> int:
    """Print the tables (and write them to `markdown`), with the seconds taken."""
    lines = lines + ["", f"({time.perf_counter() - start:.0f} s)"]
    text = "\n".join(lines)
    print(text)
    if markdown:
        markdown.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
