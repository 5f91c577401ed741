"""`make power`: how many questions a headline effect needs for 80% power, from simulated replications.

Each replication draws unit-level judgments from the planted model (the `planted`, `core.utility_model` and
13's judge functions, with the question-level random effect of the truth file's ICC) and applies the
test the pipeline applies to the row (`lib.stats`, or `lib.compare` for the two judges' paired
difference) at Holm's strictest step over the row's family, counted from the measure registry at the
design of a runner config (`power_family`). This replicates the analysis, not the whole pipeline (no
prompts, no parsing, no papermill); the check against full-pipeline replications is in docs/power.md.
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

from lib import paths

from .core import planted as M
from .core.power_draw import Draw, p_value
from .core.truth import COMBOS, PAPER
from .core.truth_file import Truth, load_truth
from .power_family import FamilyError, design_of, family_size
from .rewardbench.power import MEASURE_ID as RM_MEASURE, rm_draw, rm_implied
from .self_preference.truth import pair_cells, pairwise_truths
from .utility.power import utility_draw, utility_implied

ALPHA = 0.05
TARGET = 0.80
GRID = (10, 20, 30, 45, 60, 80, 100, 130, 170, 220, 300, 400, 550, 700, 1000, 1400, 2000, 3000)
STUDIES = ("self-preference", "utility", "rewardbench")
DESIGN = paths.CONFIGS / "paper.yaml"  # the design whose Holm families the table counts by default


@dataclass(frozen=True)
class Effect:
    """A headline effect: its planted parameter at each size, the implied value, a draw of n units, and
    the Holm family its row belongs to (the study's findings, or with `paired` compare's paired rows;
    `measure_id`: its declaration in the registry, "" when the row is not declared)."""

    name: str
    study: str
    parameter: str
    sizes: tuple
    null: float
    implied: Callable[[Truth, float], float]
    draw: Callable[[Truth, float, int, np.random.Generator], Draw]
    measure_id: str = ""
    paired: bool = False

    def family(self, design) -> int:
        """Tested rows in the row's Holm family at a design (power_family.family_size)."""
        return family_size(self.study, design, self.paired, self.measure_id or None)


# ---------------------------------------------------------------- notebook 06: pairwise choices

def _with_pairwise(truth: Truth, **kw) -> Truth:
    return replace(truth, pairwise=replace(truth.pairwise, **kw))


def pair_judgments(truth: Truth, n: int, rng: np.random.Generator, combos=COMBOS) -> pd.DataFrame:
    """06's design for n questions: every combo in both orders, own vs human passage, one choice each."""
    u, u_position, u_factual = rng.normal(0.0, truth.question_sd, (3, n))  # a question's three effects
    rows = []
    for cell in pair_cells(truth, combos):  # the cells the truth averages over, so both see one design
        own = (cell["own_first"], not cell["own_first"])
        first = rng.random(n) < M.sigmoid(M.pair_logit(truth, own, cell["true"], u, u_position=u_position,
                                                       u_factual=u_factual))
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


def effects() -> list[Effect]:
    """The headline effects and the three planted sizes of each (log-odds on the planted model)."""
    def pair(name, param, column, keep=None, sizes=(0.2, 0.4, 0.8), row=""):
        return Effect(name, "self-preference", f"pairwise.{param}", sizes, 0.5,
                      lambda t, s, key={"self": "self", "position": "first", "factual": "factual"}[param]:
                      pairwise_truths(_with_pairwise(t, **{param: s}))[key],
                      lambda t, s, n, rng: _pair_draw(column, keep)(_with_pairwise(t, **{param: s}), n, rng),
                      f"{row}.{PAPER}")
    return [pair("self-preference rate (06)", "self", _chose_own, row="self_preference_rate"),
            pair("first-position rate (06)", "position", lambda d: d["first"], sizes=(0.1, 0.2, 0.4),
                 row="first_position_rate"),
            pair("factual preference rate (06)", "factual", _chose_true, _factual_pairs, row="factual_preference_rate"),
            Effect("utility: ground truth selected minus counterfactuals (listwise-set)", "utility",
                   "log-odds of selecting the ground-truth passage over a counterfactual one", (0.2, 0.4, 0.8), 0.0,
                   utility_implied, utility_draw),
            Effect("RM accuracy difference between two judges (13, compared)", "rewardbench",
                   "judge A's log-odds of naming the chosen response, minus judge B's", (0.1, 0.2, 0.4), 0.0,
                   rm_implied, rm_draw, RM_MEASURE, paired=True)]


# ---------------------------------------------------------------- power

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


def families(chosen: list[Effect], design, family: dict | None = None) -> dict:
    """{effect name: Holm family m}: counted from the registry at the design, unless `family` gives the
    study's m."""
    return {e.name: int((family or {}).get(e.study) or e.family(design)) for e in chosen}


def power_table(truth: Truth, reps: int = 200, seed: int = 0, family: dict | None = None,
                chosen: list[Effect] | None = None, design=None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(one row per effect and size: implied value, Holm family, questions for 80% power; every computed
    power point). `design`: the family design (default: configs/paper.yaml's); `family`: {study: m}."""
    chosen = chosen or effects()
    fams = families(chosen, design if design is not None else design_of(DESIGN), family)
    rows, points = [], []
    for e in chosen:
        m = fams[e.name]
        for size in e.sizes:
            value = e.implied(truth, size)
            sign = float(np.sign(value - e.null))
            n80, curve = n_for_power(lambda n, rng, e=e, s=size: e.draw(truth, s, n, rng), e.null, sign,
                                     m, reps, seed)
            rows.append({"effect": e.name, "parameter": e.parameter, "planted": size, "implied": round(value, 4),
                         "null": e.null, "holm_family": m, "questions_for_80pct": n80,
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
    ap.add_argument("--config", default=str(DESIGN),
                    help="runner config whose design sets the Holm families (datasets, settings, models)")
    ap.add_argument("--design", action="append", default=[], metavar="FIELD=A,B",
                    help="values of a measure_id field the config does not give, e.g. dataset=nq,marco")
    ap.add_argument("--family", action="append", default=[], metavar="STUDY=M",
                    help="tested rows in a study's Holm family, e.g. self-preference=24 (default: counted "
                         "from the registry at --config's design)")
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
    unknown = set(family) - set(STUDIES)
    if unknown:
        ap.error(f"--family: unknown study {sorted(unknown)}; choose from {sorted(STUDIES)}")
    bad = [d for d in args.design if "=" not in d or not d.split("=", 1)[1]]
    if bad:
        ap.error(f"--design takes FIELD=A,B, e.g. dataset=nq,marco; got {bad}")
    try:
        design = design_of(args.config, {k: tuple(v.split(",")) for k, v in (d.split("=", 1) for d in args.design)})
        families(chosen, design, family)
    except (FamilyError, OSError) as err:
        ap.error(str(err))
    table, points = power_table(load_truth(args.truth), args.reps, args.seed, family, chosen, design)
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
