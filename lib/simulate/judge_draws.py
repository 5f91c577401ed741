"""Notebook 13's verdicts drawn straight from the simulator, many seeds in minutes: each judge request
the replication's generative judges send (`judge_messages` of every pair in both orders, temperature
0, request seed 0, the model's name) is answered by the server's own replier of that model with the
server's own draw key (`server.draw_key`), with no HTTP, no results cache and no notebook code, so
the draws are the served ones (a replication seed's estimates
are reproduced to the last digit: tests/simulate/test_judge_draws.py). Each seed is a replication
seed (`replicate.one_replication`'s truth seed and pairs); per seed, every judge's accuracy with the
finding's interval (`weighted_accuracy`) and compare's paired difference of the first two judges
(`lib.compare.paired.difference`), each against its truth.

    python -m lib.simulate.judge_draws --truth configs/known_truth_null.yaml --size 30 --seeds 1000
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

from .core.truth_file import for_model
from .rewardbench.truth import judge_truths

MID = "judge_overall_accuracy.generate_and_parse"


def seed_verdicts(truth, seed: int, size: int, models=("sim", "sim_b"), roles=None, demo=None) -> dict:
    """{model: per-pair results (id, category, question, order_outcome's columns)} of one replication
    seed: its truth seed and its `size` pairs per category, each judge's verdicts as the server draws
    them (its draw key, its replier of that model). `roles` and `demo` (the demo pairs,
    `study.study_pairs("")`), when given, are reused across seeds: neither depends on the seed."""
    from lib.rewardbench import study
    from lib.rewardbench.judge import judge_messages, order_outcome, parse_choice

    from .replicate import replication_truth
    from .replies import Replier
    from .core.roles import Roles
    from .server import draw_key
    from .tasks import recognise

    truth = replication_truth(truth, seed)
    roles = roles if roles is not None else Roles(None, truth)
    pairs = study.per_category(demo if demo is not None else study.study_pairs(""), size, seed)
    repliers = {m: Replier(for_model(truth, m), roles) for m in models}  # as SimServer's, for any name
    rows = {m: [] for m in models}
    for r in pairs.to_dict("records"):
        for m in models:
            choices = []
            for a, b in ((r["chosen"], r["rejected"]), (r["rejected"], r["chosen"])):
                # the body the generative judge sends (lib.models' OpenAI backend): temperature 0, seed 0
                body = {"model": m, "messages": judge_messages(r["prompt"], a, b), "temperature": 0.0, "seed": 0}
                text, _ = repliers[m].reply(recognise(body["messages"], None), draw_key(body), 0)
                choices.append(parse_choice(text))
            rows[m].append({"id": r["id"], "category": r["category"], "question": r["question"],
                            **order_outcome(*choices)})
    return {m: pd.DataFrame(v) for m, v in rows.items()}


def seed_rows(truth, seed: int, size: int, models=("sim", "sim_b"), roles=None, demo=None) -> list[dict]:
    """One seed's rows: each judge's weighted accuracy and the first two judges' paired difference,
    with estimate, interval, truth and whether the interval covers it."""
    from lib.compare.paired import difference
    from lib.report import measures
    from lib.rewardbench import study
    from lib.rewardbench.accuracy_tables import question_units, weighted_accuracy

    from .rewardbench.length import pair_lengths

    parts = seed_verdicts(truth, seed, size, models, roles, demo)
    lengths = pair_lengths(study.per_category(demo if demo is not None else study.study_pairs(""), size, seed))
    truths = {m: judge_truths(for_model(truth, m), tuple(dict.fromkeys(parts[m]["category"])), pairs=lengths)["accuracy"]
              for m in models}
    out = []
    for m, part in parts.items():
        w = weighted_accuracy(part)
        out.append({"seed": seed, "row": m, "truth": truths[m], "estimate": w["estimate"],
                    "ci_low": w["ci_low"], "ci_high": w["ci_high"], "n": w["n_items"]})
    if len(models) > 1:
        a, b = models[:2]
        units = {m: pd.DataFrame({"unit_id": p["id"], "stratum": p["category"], "value": p["correct"],
                                  "cluster": question_units(p)}) for m, p in parts.items()}
        d = difference(units[a], units[b], measures.find(MID))
        # compare's sign-flip p (Holm over its one paired row leaves it as it is)
        out.append({"seed": seed, "row": f"{a} - {b}", "truth": truths[a] - truths[b], "estimate": d["estimate"],
                    "ci_low": d["ci_low"], "ci_high": d["ci_high"], "n": d["n_items"], "p": d["p"]})
    for row in out:
        row["covered"] = bool(row["ci_low"] - 1e-9 <= row["truth"] <= row["ci_high"] + 1e-9)
    return out


def summary(rows: pd.DataFrame) -> pd.DataFrame:
    """Per row: seeds, coverage, mean error, sd of the estimate over seeds, mean half-width / 1.96 (the
    standard error the intervals imply), the sd of (estimate - truth) / that standard error, and for
    the paired difference the share of seeds with p < 0.05 (under a null truth: false detection)."""
    rows = rows.assign(err=rows["estimate"] - rows["truth"], se=(rows["ci_high"] - rows["ci_low"]) / 3.92)
    rows["z"] = rows["err"] / rows["se"]
    rows["significant"] = (rows["p"] < 0.05).where(rows["p"].notna()) if "p" in rows else float("nan")
    return rows.groupby("row", sort=False).agg(seeds=("seed", "size"), covered=("covered", "sum"),
                                               coverage=("covered", "mean"), mean_error=("err", "mean"),
                                               sd_estimate=("estimate", "std"), mean_se=("se", "mean"),
                                               z_sd=("z", "std"), p_below_05=("significant", "mean")).reset_index()


def main(argv=None) -> int:
    from .core.truth_file import load_truth

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--truth", default="configs/known_truth_null.yaml")
    ap.add_argument("--size", type=int, default=30, help="RM pairs per category")
    ap.add_argument("--seeds", type=int, default=100)
    ap.add_argument("--first-seed", type=int, default=0)
    ap.add_argument("--models", default="sim,sim_b", help="served names; the first two are paired")
    ap.add_argument("--out", default="", help="a CSV file for the per-seed rows")
    args = ap.parse_args(argv)
    truth, models = load_truth(Path(args.truth)), tuple(m.strip() for m in args.models.split(",") if m.strip())
    from lib.rewardbench import study

    from .core.roles import Roles

    roles, demo, rows = Roles(None, truth), study.study_pairs(""), []
    for s in range(args.first_seed, args.first_seed + args.seeds):
        rows += seed_rows(truth, s, args.size, models, roles, demo)
    table = pd.DataFrame(rows)
    if args.out:
        table.to_csv(args.out, index=False)
    print(f"{args.truth}, {args.size} pairs per category, seeds {args.first_seed}-{args.first_seed + args.seeds - 1}")
    print(summary(table).to_markdown(index=False, floatfmt=".4f"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
