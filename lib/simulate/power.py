"""`make power`: how many questions a headline effect needs for 80% power, from simulated replications.

Each replication draws unit-level judgments from the planted model (the `planted` functions, with the
question-level random effect of the truth file's ICC) and applies the project's own test (`lib.stats`:
the clustered test the findings use, at Holm's strictest step over the study's declared family). This
replicates the analysis, not the whole pipeline (no prompts, no parsing, no papermill); the check
against full-pipeline replications is in docs/power.md.
"""
from __future__ import annotations

import argparse
import math
import textwrap
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd

from lib import paths, stats

from . import planted as M
from .truth import COMBOS, expect, pair_cells, pairwise_truths
from .truth_file import Truth, load_truth

ALPHA = 0.05
TARGET = 0.80
GRID = (10, 20, 30, 45, 60, 80, 100, 130, 170, 220, 300, 400, 550, 700, 1000, 1400, 2000, 3000)
# Tested rows in Holm's family of each study. Self-preference: counted in the papers'-size validate run's
# findings.csv (05's per-dataset rows, 06's rates, 08's style rows: 22). Utility and RM: assumed, not
# counted (their simulated notebooks and the two-judge rows are not on this branch): pass --family.
FAMILY = {"self-preference": 22, "utility": 16, "rewardbench": 8}
N_CANDIDATES = 10  # utility: candidate passages per question, one of them the ground-truth evidence
RM_CATEGORIES = ("helpful", "abstain", "conflict")


@dataclass(frozen=True)
class Draw:
    """Judgments of one simulated replication: values (NaN = unparsed), their unit, an optional contrast."""

    values: np.ndarray
    clusters: np.ndarray
    contrast: np.ndarray | None = None


@dataclass(frozen=True)
class Effect:
    """A headline effect: its planted parameter at each size, the implied value, and a draw of n units."""

    name: str
    study: str
    parameter: str
    sizes: tuple
    null: float
    implied: Callable[[Truth, float], float]
    draw: Callable[[Truth, float, int, np.random.Generator], Draw]


# ---------------------------------------------------------------- notebook 06: pairwise choices

def _with_pairwise(truth: Truth, **kw) -> Truth:
    return replace(truth, pairwise=replace(truth.pairwise, **kw))


def pair_judgments(truth: Truth, n: int, rng: np.random.Generator, combos=COMBOS) -> pd.DataFrame:
    """06's design for n questions: every combo in both orders, own vs human passage, one choice each."""
    u = rng.normal(0.0, truth.question_sd, n)
    rows = []
    for cell in pair_cells(truth, combos):  # the cells the truth averages over, so both see one design
        own = (cell["own_first"], not cell["own_first"])
        first = rng.random(n) < M.sigmoid(M.pair_logit(truth, own, cell["true"], u))
        failed = rng.random(n) < truth.format_failure
        rows.append(pd.DataFrame({"q": np.arange(n), "combo": cell["combo"], "first": first,
                                  "own_first": cell["own_first"], "true_first": cell["true"][0], "failed": failed}))
    return pd.concat(rows, ignore_index=True)


def _pair_draw(column: Callable[[pd.DataFrame], pd.Series], keep: Callable[[pd.DataFrame], pd.Series] = None):
    def draw(truth: Truth, n: int, rng: np.random.Generator) -> Draw:
        d = pair_judgments(truth, n, rng)
        if keep is not None:
            d = d[keep(d)]
        v = column(d).to_numpy(dtype=float, copy=True)
        v[d["failed"].to_numpy()] = np.nan
        return Draw(v, d["q"].to_numpy())
    return draw


def _chose_own(d):
    return d["first"] == d["own_first"]


def _chose_true(d):
    return d["first"] == d["true_first"]


def _factual_pairs(d):
    return d["combo"].isin(["TF", "FT"])


# ---------------------------------------------------------------- utility: ground-truth evidence

def _gt_probs(truth: Truth, shift: float, u) -> tuple:
    """P(select) of the ground-truth passage and of any other candidate, given the question effect."""
    base = M.logit(0.3)  # beyond the planted file: 30% of other candidates selected (a stand-in rate)
    return M.sigmoid(base + shift + u), M.sigmoid(base + u)


def utility_implied(truth: Truth, shift: float) -> float:
    """P(select ground truth) - P(select another candidate), the question effect integrated out."""
    return expect(lambda u: float(np.subtract(*_gt_probs(truth, shift, u))), truth.question_sd)


def utility_draw(truth: Truth, shift: float, n: int, rng: np.random.Generator) -> Draw:
    """Pointwise verdicts on N_CANDIDATES passages per question, the first the ground-truth evidence."""
    u = rng.normal(0.0, truth.question_sd, n)[:, None]
    p_gt, p_other = _gt_probs(truth, shift, u)
    probs = np.concatenate([p_gt, np.repeat(p_other, N_CANDIDATES - 1, axis=1)], axis=1)
    v = (rng.random(probs.shape) < probs).astype(float)
    v[rng.random(v.shape) < truth.format_failure] = np.nan
    contrast = np.tile(np.r_[1.0, -np.ones(N_CANDIDATES - 1)], n)
    return Draw(v.ravel(), np.repeat(np.arange(n), N_CANDIDATES), contrast)


# ---------------------------------------------------------------- RM: accuracy of two judges

def _judge_b(truth: Truth, shift: float) -> Truth:
    """The second judge: every category's accuracy moved by `shift` on the log-odds."""
    acc = {c: float(M.sigmoid(M.logit(a) + shift)) for c, a in truth.rewardbench.accuracy.items()}
    return replace(truth, rewardbench=replace(truth.rewardbench, accuracy=acc))


def rm_implied(truth: Truth, shift: float) -> float:
    """Order-averaged accuracy of judge B minus judge A over RM_CATEGORIES (unparsed counts as wrong)."""
    b = _judge_b(truth, shift)
    parsed = 1 - truth.format_failure

    def acc(t, cat):
        return expect(lambda u: float(M.sigmoid(M.judge_logit(t, cat, True, u)) + M.sigmoid(M.judge_logit(t, cat, False, u))) / 2,
                      truth.question_sd)
    return parsed * float(np.mean([acc(b, c) - acc(truth, c) for c in RM_CATEGORIES]))


def rm_draw(truth: Truth, shift: float, n: int, rng: np.random.Generator) -> Draw:
    """n pairs (categories in turn), each judged by both judges in both orders; one difficulty per pair."""
    b = _judge_b(truth, shift)
    u = rng.normal(0.0, truth.question_sd, n)
    cats = np.array([RM_CATEGORIES[i % len(RM_CATEGORIES)] for i in range(n)])
    values, clusters, contrast = [], [], []
    for sign, t in ((1.0, b), (-1.0, truth)):
        for first in (True, False):
            p = np.empty(n)
            for c in RM_CATEGORIES:
                p[cats == c] = M.sigmoid(M.judge_logit(t, c, first, u[cats == c]))
            right = (rng.random(n) < p) & (rng.random(n) >= truth.format_failure)  # unparsed counts as wrong
            values.append(right.astype(float))
            clusters.append(np.arange(n))
            contrast.append(np.full(n, sign))
    return Draw(np.concatenate(values), np.concatenate(clusters), np.concatenate(contrast))


def effects() -> list[Effect]:
    """The headline effects and the three planted sizes of each (log-odds on the planted model)."""
    def pair(name, param, column, keep=None, sizes=(0.2, 0.4, 0.8)):
        return Effect(name, "self-preference", f"pairwise.{param}", sizes, 0.5,
                      lambda t, s, key={"self": "self", "position": "first", "factual": "factual"}[param]:
                      pairwise_truths(_with_pairwise(t, **{param: s}))[key],
                      lambda t, s, n, rng: _pair_draw(column, keep)(_with_pairwise(t, **{param: s}), n, rng))
    return [pair("self-preference rate (06)", "self", _chose_own),
            pair("first-position rate (06)", "position", lambda d: d["first"], sizes=(0.1, 0.2, 0.4)),
            pair("factual preference rate (06)", "factual", _chose_true, _factual_pairs),
            Effect("utility: ground-truth evidence selected, minus other candidates", "utility",
                   "log-odds of selecting the ground-truth passage", (0.2, 0.4, 0.8), 0.0, utility_implied, utility_draw),
            Effect("RM accuracy difference between two judges (13)", "rewardbench",
                   "judge B's log-odds of naming the chosen response, minus judge A's", (0.1, 0.2, 0.4), 0.0,
                   rm_implied, rm_draw)]


# ---------------------------------------------------------------- power

def p_value(d: Draw, null: float) -> tuple[float, float]:
    """(estimate, p) from the test the findings use: `lib.stats.clustered_mean` for a rate (a binomial
    test when every unit gives one judgment, else the cluster sign-flip test), the cluster test of a
    contrast for a difference. The p-value does not depend on the bootstrap draws, so few are drawn."""
    if d.contrast is None:
        r = stats.clustered_mean(d.values, d.clusters, null=null, n_boot=20)
    else:
        r = stats.cluster_bootstrap(d.values, d.clusters, null=null, contrast=d.contrast, n_boot=20, rate=False)
    return r["estimate"], r["p"]


def power(draw: Callable[[int, np.random.Generator], Draw], n: int, null: float, truth_sign: float,
          family: int = 1, reps: int = 200, seed: int = 0, alpha: float = ALPHA) -> float:
    """Share of `reps` replications of n units whose test rejects at alpha / family (Holm's first,
    strictest step) with the estimate on the truth's side of the null."""
    rng = np.random.default_rng([seed, n])
    hits = 0
    for _ in range(reps):
        est, p = p_value(draw(n, rng), null)
        hits += bool(p < alpha / family and np.sign(est - null) == truth_sign)
    return hits / reps


def n_for_power(draw, null: float, truth_sign: float, family: int, reps: int, seed: int = 0,
                grid=GRID, target: float = TARGET) -> tuple[float, list]:
    """Smallest n of the grid whose power reaches `target`, linearly interpolated from the grid point
    below (NaN beyond the grid); and the (n, power) points computed (the grid walked upward)."""
    curve = []
    for n in grid:
        curve.append((n, power(draw, n, null, truth_sign, family, reps, seed)))
        if curve[-1][1] >= target:
            if len(curve) == 1:
                return float(n), curve
            (n0, p0), (n1, p1) = curve[-2], curve[-1]
            return float(n0 + (target - p0) / max(p1 - p0, 1e-9) * (n1 - n0)), curve
    return math.nan, curve


def power_table(truth: Truth, reps: int = 200, seed: int = 0, family: dict | None = None,
                chosen: list[Effect] | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(one row per effect and size: implied value, questions for 80% power; every computed power point)."""
    fam = {**FAMILY, **(family or {})}
    rows, points = [], []
    for e in chosen or effects():
        for size in e.sizes:
            value = e.implied(truth, size)
            sign = float(np.sign(value - e.null))
            n80, curve = n_for_power(lambda n, rng, e=e, s=size: e.draw(truth, s, n, rng), e.null, sign,
                                     fam[e.study], reps, seed)
            rows.append({"effect": e.name, "parameter": e.parameter, "planted": size, "implied": round(value, 4),
                         "null": e.null, "holm_family": fam[e.study], "questions_for_80pct": n80,
                         "replications": reps})
            points += [{"effect": e.name, "planted": size, "implied": value, "n": n, "power": p} for n, p in curve]
    return pd.DataFrame(rows), pd.DataFrame(points)


def figure(points: pd.DataFrame, path: Path) -> Path:
    """Power against the number of questions, one panel per effect, one line per planted size."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from lib.report.plotting import house_style

    house_style()
    names = list(dict.fromkeys(points["effect"]))
    fig, axes = plt.subplots(1, len(names), figsize=(3.0 * len(names), 3.0), sharey=True, layout="constrained")
    for ax, name in zip(np.atleast_1d(axes), names):
        for (size, implied), g in points[points["effect"] == name].groupby(["planted", "implied"]):
            ax.plot(g["n"], g["power"], marker="o", ms=3, label=f"{implied:.3f}")
        ax.axhline(TARGET, color="grey", lw=0.8, ls="--")
        ax.set(xscale="log", xlabel="questions (units)")
        ax.set_title(textwrap.fill(name.split(" (")[0], 26), fontsize="medium")
        ax.legend(title="implied value", fontsize=7, title_fontsize=7)
    np.atleast_1d(axes)[0].set_ylabel("power (Holm's first step)")
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=130)
    plt.close(fig)
    return path


def main(argv=None) -> int:
    """Write the power table, every power point and the figure (data/runs/power/), and print the table."""
    ap = argparse.ArgumentParser(prog="python -m lib.simulate.power", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--truth", default=str(paths.CONFIGS / "known_truth.yaml"),
                    help="planted parameters (ICC, failure rate, the other effects held at their values)")
    ap.add_argument("--reps", type=int, default=200, help="replications per (effect, size, n)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=str(paths.runs_root() / "power"))
    ap.add_argument("--family", action="append", default=[], metavar="STUDY=M",
                    help="tested rows in a study's Holm family, e.g. self-preference=24 (default: FAMILY)")
    ap.add_argument("--effect", action="append", default=[], metavar="TEXT",
                    help="only the effects whose name contains TEXT (repeatable; default: all)")
    args = ap.parse_args(argv)
    chosen = [e for e in effects() if not args.effect or any(t in e.name for t in args.effect)]
    if not chosen:
        ap.error(f"--effect {args.effect}: no effect matches; effects: {[e.name for e in effects()]}")
    try:
        family = {k: int(v) for k, v in (f.split("=", 1) for f in args.family)}
    except ValueError:
        ap.error(f"--family takes STUDY=M with M a whole number, e.g. self-preference=24; got {args.family}")
    unknown = set(family) - set(FAMILY)
    if unknown:
        ap.error(f"--family: unknown study {sorted(unknown)}; choose from {sorted(FAMILY)}")
    table, points = power_table(load_truth(args.truth), args.reps, args.seed, family, chosen)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    table.to_csv(out / "power_table.csv", index=False)
    points.to_csv(out / "power_points.csv", index=False)
    figure(points, out / "power.png")
    print(table.to_markdown(index=False, floatfmt=".3f"))
    print(f"written to {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
