"""Each reply of a run against the simulator's own probability for that very prompt: the judgment-level
check behind the papers'-size diagnosis (docs/known_truth.md, "The papers' sizes").

A findings row compares an estimate with the planted truth, so its error holds the question effects'
draw as well as the replies' draws, and a miss at the papers' n says little about why. Here each parsed
06 choice and 05 score is compared with what the simulator meant to draw for that prompt (its roles of
the shown passages and the question effect included): the sum of (observed - expected) over a cell,
divided by the square root of the summed variances, is a z-score with no between-question noise.
It is N(0, 1) when the server reads every passage's role as the run's data say and the pipeline reads
every reply as it was drawn; a role looked up wrongly (a copy read as another item, an own text not
recognised) or a parser that misreads a reply moves it by many units at the papers' sizes.

`sized_run` makes such a run in-process at a size drawn with replacement (02, 05, 06 through the
studies' own code, as `replicate.py` does), `row_z` puts every findings row against its truth in
z-units. `python -m lib.simulate.reply_check --size 700 --seeds 0,1,2` prints both per seed.
"""
from __future__ import annotations

import argparse
import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

from .core.roles import Roles, norm
from .core.scratch import own_cache
from .core.truth import Design
from .core.truth_file import Truth, load_truth
from .replies import Replier
from .truth import measure_truths

SCORES = np.arange(1, 6)
DATASETS = ("nq", "marco", "triviaqa")


def replier_of(run_dir: Path, truth: Truth) -> Replier:
    """A replier over a finished run's data, with the texts the simulator wrote in it (its record)."""
    roles = Roles(run_dir, truth)
    own = Path(run_dir) / "simulator_own_texts.jsonl"
    for line in own.read_text(encoding="utf-8").splitlines() if own.exists() else ():
        r = json.loads(line)
        roles.own[norm(r["text"])] = r["item_id"]
        roles.own_style[norm(r["text"])] = r["style"]
    roles.refresh()
    roles._derive_own_false()  # the own texts were added after the bank was read
    return Replier(truth, roles)


def _z(obs, exp, var) -> float:
    return float((np.sum(obs) - np.sum(exp)) / np.sqrt(np.sum(var)))


def pair_z(pairs: pd.DataFrame, replier: Replier, own_author: str = "sim") -> pd.DataFrame:
    """06: per combo, the share of parsed choices naming the simulator's own passage, observed and
    expected from the simulator's probability of each prompt, and the z-score of the difference."""
    p = pairs[(pairs["status"] == "ok") & pairs["chose_first"].notna()]
    q1 = np.array([replier.pair_choice({"question": r.question, "passage_1": r.text_1, "passage_2": r.text_2})[0]
                   for r in p.itertuples()])
    own_first = (p["author_1"] == own_author).to_numpy()
    first = p["chose_first"].astype(float).to_numpy()
    t = pd.DataFrame({"cell": p["combo"].to_numpy(), "obs": np.where(own_first, first, 1 - first),
                      "exp": np.where(own_first, q1, 1 - q1)})
    t["var"] = t["exp"] * (1 - t["exp"])
    parts = [("06 chose own", t)] + [(f"06 chose own {c}", g) for c, g in t.groupby("cell")]
    return pd.DataFrame([{"cell": name, "n": len(g), "observed": g["obs"].mean(), "expected": g["exp"].mean(),
                          "z": _z(g["obs"], g["exp"], g["var"])} for name, g in parts])


def rating_z(ratings: pd.DataFrame, replier: Replier) -> pd.DataFrame:
    """05: per setting x author x factuality, the mean parsed score, observed and expected from the
    simulator's score distribution of each prompt, and the z-score of the difference."""
    r = ratings.assign(s=pd.to_numeric(ratings["score"], errors="coerce")).dropna(subset=["s"])
    probs = np.array([replier.rating_probs({"question": x.question if x.setting == "rag" else None,
                                            "passage": x.text}) for x in r.itertuples()])
    mean = probs @ SCORES
    r = r.assign(exp=mean, var=probs @ SCORES ** 2 - mean ** 2)
    return pd.DataFrame([{"cell": f"05 {s} {a} {f}", "n": len(g), "observed": g["s"].mean(), "expected": g["exp"].mean(),
                          "z": _z(g["s"], g["exp"], g["var"])}
                         for (s, a, f), g in r.groupby(["setting", "author", "factuality"])])


def flagged(cells: pd.DataFrame, limit: float = 4.0) -> pd.DataFrame:
    """The cells whose |z| exceeds `limit`: a defect in a role look-up or a parser, not a draw (the
    z-scores are N(0, 1) when both are right; 4 is passed by chance about once in 16,000 cells)."""
    return cells[cells["z"].abs() > limit]


def with_texts(pairs: pd.DataFrame, bank: pd.DataFrame, author: str = "sim") -> pd.DataFrame:
    """06's pairs file stores no passage texts: add them from the bank (the pairs are built from it)."""
    if "text_1" in pairs:
        return pairs
    from lib.self_preference.pairwise import build_pairs

    texts = build_pairs(bank, author)[["item_id", "combo", "order", "text_1", "text_2"]]
    return pairs.merge(texts, on=["item_id", "combo", "order"], how="left", validate="one_to_one")


def run_z(run_dir: Path, truth: Truth) -> pd.DataFrame:
    """The judgment-level check of a finished run folder (05's and 06's raw files, as the notebooks write them)."""
    from lib.self_preference.bank import load_bank

    run_dir = Path(run_dir)
    replier = replier_of(run_dir, truth)
    out = []
    f = run_dir / "pointwise_ratings.jsonl"
    if f.exists():
        from lib.self_preference.pointwise import parse_score

        r = pd.read_json(f, lines=True)
        r["score"] = [parse_score(x[0]).value if x else None for x in r["responses"]]
        out.append(rating_z(r[r["style"] == "normal"], replier))
    f = run_dir / "generation_pairs.jsonl"
    if f.exists():
        pairs = with_texts(pd.read_json(f, lines=True), load_bank(run_dir / "passage_bank.jsonl"))
        out.append(pair_z(pairs, replier))
    return pd.concat(out, ignore_index=True)


def sized_run(truth: Truth, n_items: int, seed: int, run_dir: Path, settings=("normal", "rag"),
              datasets=DATASETS) -> tuple:
    """(ratings, pairs) of 02, 05 and 06 run in-process on `n_items` questions per dataset drawn with
    replacement (copies as in `validate --size paper`), against a fresh simulator and an empty cache:
    the replications' own steps (replicate_steps.py) on these items."""
    from lib.sources import prepare_items, save_items

    from . import replicate_steps as S
    from .server import SimServer

    run_dir = Path(run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    items, _ = prepare_items(list(datasets), n_items, seed, replace=True)
    save_items(items, run_dir / "items.jsonl")
    with own_cache(run_dir / "cache"), SimServer(truth, run_dir) as sim:
        run = S.SeedRun(run_dir.name, run_dir, sim.url, seed, n_items, memo={"items": items})
        S.nb02(run)
        return S.ratings(run, tuple(settings)), S.generation_pairs(run)


def row_z(ratings: pd.DataFrame, pairs: pd.DataFrame, truth: Truth, settings=("normal", "rag")) -> pd.DataFrame:
    """05's and 06's findings rows against their truths, with z = (estimate - truth) / (interval width / 3.92)."""
    from lib.report.findings import adjust
    from lib.self_preference import findings_rows, likelihood

    from .validate import compare

    rows = findings_rows.pointwise_findings(likelihood.human_minus_self_methods(ratings), {"sim": "sim"})
    rows += findings_rows.preference_findings({"paper (parsed reply)": pairs}, {"sim": "sim"})
    table = compare(adjust(pd.DataFrame(rows)), measure_truths(truth, Design(datasets=DATASETS, settings=settings)))
    return table.assign(z=(table["estimate"] - table["truth"]) / ((table["ci_high"] - table["ci_low"]) / 3.92))


def main(argv=None) -> int:
    """Seeds of `sized_run`: both checks per seed, printed as two tables (z per row / cell and seed)."""
    import tempfile

    ap = argparse.ArgumentParser(prog="python -m lib.simulate.reply_check", description=__doc__.split("\n\n")[0])
    ap.add_argument("--truth", default="configs/known_truth.yaml")
    ap.add_argument("--size", type=int, default=300, help="questions per dataset, drawn with replacement")
    ap.add_argument("--seeds", default="0", help="comma-separated; each moves the truth file's seed")
    ap.add_argument("--run", help="check this finished run folder instead (its replies, its truth file's seed)")
    args = ap.parse_args(argv)
    base = load_truth(args.truth)
    pd.set_option("display.width", 200)
    if args.run:
        print(run_z(Path(args.run), base).round(4).to_string(index=False))
        return 0
    rows, cells = [], []
    for seed in [int(s) for s in args.seeds.split(",")]:
        truth = replace(base, seed=base.seed + 1000 * (seed + 1))
        with tempfile.TemporaryDirectory() as tmp:
            ratings, pairs = sized_run(truth, args.size, seed, Path(tmp))
            rep = replier_of(Path(tmp), truth)
            cells.append(pd.concat([rating_z(ratings, rep), pair_z(pairs, rep)]).assign(seed=seed))
        rows.append(row_z(ratings, pairs, truth).assign(seed=seed))
    rows, cells = pd.concat(rows), pd.concat(cells)
    print(rows.pivot_table(index="measure_id", columns="seed", values="z").round(2).to_string())
    print(cells.pivot_table(index="cell", columns="seed", values="z").round(2).to_string())
    for name, z in (("findings rows", rows["z"]), ("reply cells", cells["z"])):
        print(f"{name}: {len(z)} z-scores, mean {z.mean():+.3f}, sd {z.std():.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
