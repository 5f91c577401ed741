"""Notebook 15's best-of-N gain rows (recall of the judge's knockout pick minus the mean recall of the
N samples, per question) drawn directly from the planted model, without the server, HTTP or the
notebooks, and made into rows by the study's own `findings_rows.best_of_n_findings` (its interval).

Each replicate is one replication's design (`replicate_steps.nb15`): `--size` questions per dataset
(three datasets), `replicate_steps.BON_SAMPLES` samples per question, the knockout of each served
judge (`sim`, `sim_b`) over the same samples. Two ways to draw:

- `--draws planted` (default, fast): the planted model itself with numpy: a question effect per
  question (sd `truth.question_sd`), each sample right with `rewardbench.replies.answer_probability` (good
  evidence, as 15's prompt shows the item's true passage), each of the knockout's verdicts unparsed
  with the planted format-failure rate, else naming response 1 with `rewardbench.replies.choose_probability`;
  the knockout is the study's rule (`best_of_n.pick`: the challenger replaces the champion when it
  wins more of the two orders' verdicts).
- `--draws served`: the simulator's own replies and draw keys (`replies.Replier`, `server.draw_key`)
  for the requests the replication sends: the study's `best_of_n.sample_candidates` (temperature 0.7,
  request seed = the replication seed + the sample) and `best_of_n.pick` (a judge asking Table 6's
  prompt at temperature 0, seed 0, as `judge_draws` does for 13); the replicates are replication
  seeds (`replicate.replication_truth`), so a seed's rows are the replication's to the last digit.

Prints, per served judge, the coverage of the rows' 95% intervals of their truth
(`rewardbench.truth.best_of_n_gain`, from the planted parameters) with an exact binomial interval, the
one-sided binomial p against 0.95 and z = (estimate - truth) / (CI width / 3.92).

    .venv/bin/python benchmarks/bench_bon_rows.py [--truth configs/known_truth_null.yaml] [--replicates 1000] [--draws served]

`--out FILE` keeps the per-replicate rows; `--rows FILE ...` reports several such files together.
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

from lib.models.specs import parse_reward_spec  # noqa: E402
from lib.rewardbench.findings_rows import best_of_n_findings  # noqa: E402
from lib.simulate.core import planted as M  # noqa: E402
from lib.simulate.replicate_steps import BON_SAMPLES, DATASETS  # noqa: E402
from lib.simulate.core.truth_file import for_model  # noqa: E402
from lib.simulate.rewardbench.replies import answer_probability, choose_probability  # noqa: E402
from lib.simulate.rewardbench.truth import best_of_n_gain, served_name  # noqa: E402
from lib.simulate.core.truth_file import load_truth  # noqa: E402

MODELS = ("sim", "sim_b")
URL = "http://direct-draws"  # a spec needs one; nothing is served


def specs(models=MODELS) -> list[str]:
    """The judges as the replication names them (`SeedRun.reward_models`, generative ones)."""
    return [f"judge:openai:{m}@{URL};retries:0;max_tokens:16" for m in models]


def knockout(truth, right: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Index of the pick per question (rows of `right`, questions x samples, True = right answer):
    `best_of_n.pick`'s knockout, each verdict drawn from the planted judge."""
    n_q, n = right.shape
    rows = np.arange(n_q)
    q = {(a, b): choose_probability(truth, (a, b)) for a in (False, True) for b in (False, True)}
    champion = np.zeros(n_q, dtype=int)
    for challenger in range(1, n):
        champ, chal = right[rows, champion], right[:, challenger]
        wins = np.zeros(n_q, dtype=int)  # the champion's verdicts minus the challenger's
        for first, second, sign in ((champ, chal, 1), (chal, champ, -1)):  # champion shown first, then second
            q1 = np.array([q[(bool(a), bool(b))] for a, b in zip(first, second)])
            parsed = rng.random(n_q) >= truth.format_failure
            one = rng.random(n_q) < q1
            wins += sign * np.where(parsed, np.where(one, 1, -1), 0)
        champion = np.where(wins < 0, challenger, champion)
    return champion


def planted_frames(truth, size: int, rng: np.random.Generator, models=MODELS):
    """(candidates, picks) of one replicate drawn from the planted model (columns as the study's)."""
    n_q = size * len(DATASETS)
    u = rng.normal(0.0, truth.question_sd, n_q) if truth.question_sd else np.zeros(n_q)
    p = np.array([answer_probability(truth, True, x) for x in u])
    right = rng.random((n_q, BON_SAMPLES)) < p[:, None]
    ids = [f"q{i}" for i in range(n_q)]
    candidates = pd.DataFrame({"item_id": np.repeat(ids, BON_SAMPLES), "sample": np.tile(np.arange(BON_SAMPLES), n_q),
                               "recall": right.ravel().astype(float)})
    picks = []
    for m, spec in zip(models, specs(models)):
        pick = knockout(for_model(truth, m), right, rng)
        picks.append(pd.DataFrame({"item_id": ids, "recall": right[np.arange(n_q), pick].astype(float),
                                   "rm": parse_reward_spec(spec).name}))
    return candidates, pd.concat(picks, ignore_index=True)


class _Served:
    """A chat policy and judges answered by the simulator's own replier with the server's draw keys."""

    def __init__(self, truth, roles, models=MODELS):
        from lib.simulate.replies import Replier

        self.repliers = {m: Replier(for_model(truth, m), roles) for m in {"sim", *models}}

    def reply(self, body: dict) -> str:
        from lib.simulate.server import draw_key
        from lib.simulate.tasks import recognise

        return self.repliers[body["model"]].reply(recognise(body["messages"], None), draw_key(body), 0)[0]

    def policy(self):
        from types import SimpleNamespace

        def generate(reqs, desc=""):  # the OpenAI backend's body: request seed = seed + sample
            return [SimpleNamespace(text=self.reply({"model": "sim", "messages": r.messages,
                                                     "temperature": r.temperature, "seed": r.seed + r.sample}))
                    for r in reqs]
        return SimpleNamespace(generate=generate)

    def judge(self, model: str, name: str):
        from types import SimpleNamespace

        from lib.rewardbench.judge import judge_messages, parse_choice

        def choice(p, a, b):  # the generative judge's body (judge_draws): temperature 0, seed 0
            return parse_choice(self.reply({"model": model, "messages": judge_messages(p, a, b),
                                            "temperature": 0.0, "seed": 0}))

        def compare(triples, desc=""):  # `JudgeRM.compare`: wins of a minus wins of b over both orders
            out = []
            for p, a, b in triples:
                ab, ba = choice(p, a, b), choice(p, b, a)
                out.append((ab == 1) - (ab == 2) + (ba == 2) - (ba == 1))
            return out
        return SimpleNamespace(kind="judge", name=name, compare=compare)


def served_frames(truth, size: int, seed: int, models=MODELS, roles=None):
    """(candidates, picks) of one replication seed as the simulator serves them (no HTTP, no cache)."""
    from lib.rewardbench import best_of_n
    from lib.simulate.replicate import replication_truth
    from lib.simulate.core.roles import Roles
    from lib.sources import load_demo

    truth = replication_truth(truth, seed)
    roles = roles if roles is not None else Roles(None, truth)
    if hasattr(roles, "answer_book"):
        del roles.answer_book  # one seed's answers only
    served = _Served(truth, roles, models)
    items = pd.concat([load_demo(src, size, seed) for src in DATASETS]).to_dict("records")
    candidates = best_of_n.sample_candidates(served.policy(), items, BON_SAMPLES, temperature=0.7, max_tokens=48,
                                             seed=seed, rule="squad")
    picks = pd.concat([best_of_n.pick(served.judge(m, parse_reward_spec(s).name), candidates)
                       for m, s in zip(models, specs(models))], ignore_index=True)
    return candidates, picks


def replicate_rows(truth, size: int, replicates: int, draws: str = "planted", seed: int = 0,
                   models=MODELS, first_seed: int = 0) -> pd.DataFrame:
    """The rows of `replicates` replicates with their truth (per served model, from its planted parameters)."""
    truths = {m: best_of_n_gain(for_model(truth, m), BON_SAMPLES) for m in models}
    rng, roles, rows = np.random.default_rng(seed), None, []
    if draws == "served":
        from lib.simulate.core.roles import Roles
        roles = Roles(None, truth)
    for r in range(replicates):
        if draws == "served":
            cands, picks = served_frames(truth, size, first_seed + r, models, roles)
        else:
            cands, picks = planted_frames(truth, size, rng, models)
        for row in best_of_n_findings(cands, picks, specs(models)):
            model = served_name(row["model"])
            rows.append({"replicate": first_seed + r if draws == "served" else r, "model": model,
                         "truth": truths[model], "estimate": row["estimate"], "ci_low": row["ci_low"],
                         "ci_high": row["ci_high"], "n_items": row["n_items"]})
    return pd.DataFrame(rows)


def report(rows: pd.DataFrame) -> pd.DataFrame:
    """Per served model: coverage with an exact (Clopper-Pearson) interval, the one-sided binomial p
    against 0.95, z = (estimate - truth) / (width / 3.92), the estimates' spread."""
    out = []
    rows = rows.dropna(subset=["ci_low"])
    for model, g in rows.groupby("model", sort=False):
        covered = (g.ci_low - 1e-9 <= g.truth) & (g.truth <= g.ci_high + 1e-9)
        k, n = int(covered.sum()), len(g)
        lo = beta.ppf(0.025, k, n - k + 1) if k else 0.0
        hi = beta.ppf(0.975, k + 1, n - k) if k < n else 1.0
        z = (g.estimate - g.truth) / ((g.ci_high - g.ci_low) / 3.92)
        out.append({"model": model, "truth": g.truth.mean(), "covered": k, "n": n, "coverage": k / n,
                    "cov_low": lo, "cov_high": hi, "p_below": binom.cdf(k, n, 0.95), "z_mean": z.mean(),
                    "z_sd": z.std(), "est_mean": g.estimate.mean(), "est_sd": g.estimate.std(),
                    "width": (g.ci_high - g.ci_low).mean()})
        o = out[-1]
        print(f"{model}: truth {o['truth']:+.4f}; coverage {k}/{n} = {k / n:.3f} [{lo:.3f}, {hi:.3f}] "
              f"(one-sided p against 0.95: {o['p_below']:.3f}); z mean {o['z_mean']:+.2f} sd {o['z_sd']:.2f}; "
              f"estimate mean {o['est_mean']:+.4f} sd {o['est_sd']:.4f}; mean width {o['width']:.4f}; "
              f"questions {g.n_items.mean():.1f}")
    return pd.DataFrame(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--truth", default="configs/known_truth_null.yaml")
    ap.add_argument("--replicates", type=int, default=1000)
    ap.add_argument("--size", type=int, default=10, help="questions per dataset (three datasets)")
    ap.add_argument("--draws", choices=("planted", "served"), default="planted")
    ap.add_argument("--seed", type=int, default=0, help="numpy seed of the planted draws")
    ap.add_argument("--first-seed", type=int, default=0, help="first replication seed of the served draws")
    ap.add_argument("--out", default="", help="a CSV file for the per-replicate rows")
    ap.add_argument("--rows", nargs="+", metavar="CSV",
                    help="only report the rows of earlier runs' --out files, together")
    args = ap.parse_args(argv)
    if args.rows:
        rows = pd.concat([pd.read_csv(f) for f in args.rows], ignore_index=True)
        print(f"{', '.join(args.rows)}: {rows['replicate'].nunique()} replicates")
        report(rows)
        return 0
    truth = load_truth(ROOT / args.truth)
    rows = replicate_rows(truth, args.size, args.replicates, args.draws, args.seed, first_seed=args.first_seed)
    if args.out:
        rows.to_csv(args.out, index=False)
    print(f"{args.truth}: {args.replicates} replicates ({args.draws} draws), {args.size} questions per dataset, "
          f"best-of-{BON_SAMPLES}")
    report(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
