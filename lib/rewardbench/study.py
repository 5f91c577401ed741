"""Glue the three reward-model notebooks share: which pairs to use, their per-pair results and notebook
13's tables; `python -m lib.rewardbench.study reparse <run>` rebuilds those tables from the stored replies.
Each notebook's work is one function here (`reward_model_accuracy`, `rm_difficulty`,
`best_of_n_selection`), called by the notebook and by the known-truth replications alike
(lib/simulate/replicate_steps.py): the model calls and what the findings rows need, ending with them."""
from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from lib.models.specs import parse_dataset_spec, parse_reward_spec
from lib.rewardbench import demo_pairs, loader, accuracy_tables, registry
from lib.rewardbench.family_preference import rm_families, self_preference_table
from lib.rewardbench.model_loop import for_each_model
from lib.rewardbench.replies import RAW_FILE, reparse, write_raw


def study_pairs(pairs_path: str = "", n_per_category: int = 0, seed: int = 0,
                bank: pd.DataFrame | None = None) -> pd.DataFrame:
    """Pairs for a run: '' = our demo pairs (rebuilt with the false passages of a passage-bank table
    `bank` when one is given), 'hf:<dataset id>' = the published benchmark online, else files or a
    folder. `n_per_category` > 0 keeps a seeded sample of that many pairs per category."""
    if not pairs_path:
        if bank is not None and len(bank):
            files = [p for p in sorted(demo_pairs.DEMO_PAIRS.parent.glob("*.jsonl"))
                     if p.stem in ("nq", "marco", "triviaqa")]
            fp = demo_pairs.false_passages_from_bank(bank)
            rows = demo_pairs.build_demo_pairs(demo_pairs.read_demo_items(files), seed=0,
                                               false_passages=fp)
            pairs = loader._finish([loader.normalize_row(r, r["id"]) for r in rows])
        else:
            pairs = loader.load_pairs(demo_pairs.DEMO_PAIRS)
    elif parse_dataset_spec(str(pairs_path)) is not None:
        pairs = loader.load_hub(parse_dataset_spec(str(pairs_path)).name)
    else:
        pairs = loader.load_pairs(pairs_path)
    return per_category(pairs, n_per_category, seed)


def per_category(pairs: pd.DataFrame, n_per_category: int = 0, seed: int = 0) -> pd.DataFrame:
    """A seeded sample of `n_per_category` pairs per category (0: every pair), sorted by category and id."""
    if n_per_category:
        shuffled = pairs.sort_values("id").sample(frac=1.0, random_state=seed)
        pairs = shuffled.groupby("category", sort=False).head(n_per_category).sort_values(
            ["category", "id"])
    return pairs.reset_index(drop=True)


def pair_results(reward_models, pairs: pd.DataFrame, path=None, models: dict | None = None) -> pd.DataFrame:
    """Per-pair results of every reward model, computed through the cached model layer (a re-run
    under any run name makes no model call, and a changed prompt, pair or parser always takes
    effect). With `path`, what each model said per pair (judge replies, log-probabilities,
    scores) is written there as JSON lines, for `reparse`. `models` maps a spec to the model
    objects to use ({'model': ..., 'ref_model': ...}) instead of loading them."""
    for spec in reward_models:
        parse_reward_spec(spec)  # a bad spec fails before any model runs
    parts = for_each_model(reward_models, lambda rm, _name, _spec: registry.raw_records([rm], pairs), models)
    records = [rec for part in parts for rec in part]
    if path:
        write_raw(records, path)
    return registry.results_from_raw(records)


def study_tables(results: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Notebook 13's tables from per-pair results: long accuracies, Table 2, judge biases and the
    self-preference split (the same whether results are fresh or re-parsed)."""
    long = accuracy_tables.accuracy_table(results)
    specs = list(dict.fromkeys(results["spec"]))
    return {"rewardbench_accuracy_long": long, "rewardbench_table2": accuracy_tables.paper_table(long),
            "rewardbench_judges": accuracy_tables.judge_table(results),
            "rewardbench_self_preference": self_preference_table(results, rm_families(specs))}


def judge_agreement(results: pd.DataFrame) -> pd.DataFrame:
    """Generate-and-parse judge vs `;logprob` judge of the same model (beyond the paper): share of
    verdicts (pair x order) that agree among those where the generated reply parsed, with a 95%
    interval over pairs (a pair's two orders are one unit)."""
    import numpy as np

    from lib.stats import clustered_mean

    judges = results[results["kind"] == "judge"]
    by_spec = {s: parse_reward_spec(s) for s in judges["spec"].unique()}
    rows = []
    for gen_spec, gen in by_spec.items():
        if gen.options.get("decide", "generate") != "generate":
            continue
        for lp_spec, lp in by_spec.items():
            if lp.options.get("decide") != "logprob" or lp.target != gen.target:
                continue
            a = judges[judges["spec"] == gen_spec].set_index("id")
            b = judges[judges["spec"] == lp_spec].set_index("id").reindex(a.index)
            same, ids = [], []
            for order in ("cr", "rc"):
                parsed = a[f"choice_{order}"].notna() & b[f"choice_{order}"].notna()
                same += list(a.loc[parsed, f"choice_{order}"] == b.loc[parsed, f"choice_{order}"])
                ids += list(a.index[parsed])
            n, k = len(same), int(sum(same))
            c = clustered_mean(np.asarray(same, float), ids) if n else {}
            lo, hi = c.get("ci_low", float("nan")), c.get("ci_high", float("nan"))
            rows.append({"generate": a["rm"].iloc[0] if len(a) else gen_spec, "logprob": lp_spec,
                         "pairs": len(a), "verdicts": 2 * len(a), "parsed_verdicts": n,
                         "agree": k / n if n else float("nan"), "ci_low": lo, "ci_high": hi})
    return pd.DataFrame(rows, columns=["generate", "logprob", "pairs", "verdicts", "parsed_verdicts",
                                       "agree", "ci_low", "ci_high"])


@dataclass
class PairStudy:
    """Notebook 13's or 14's results: the pairs, every reward model's per-pair results, the findings rows."""

    pairs: pd.DataFrame
    results: pd.DataFrame
    rows: list[dict]


def reward_model_accuracy(reward_models, pairs_path: str = "", n_per_category: int = 0, seed: int = 0,
                          bank: pd.DataFrame | None = None, replies_path=None,
                          models: dict | None = None) -> PairStudy:
    """Notebook 13: every reward model on the pairs (`study_pairs`), what each said written to
    `replies_path` for `reparse`; judge accuracy and position consistency rows."""
    from lib.rewardbench.findings_rows import judge_findings

    pairs = study_pairs(pairs_path, n_per_category, seed, bank=bank)
    results = pair_results(reward_models, pairs, replies_path, models)
    return PairStudy(pairs, results, judge_findings(results))


def rm_difficulty(reward_models, pairs_path: str = "", n_per_category: int = 0, seed: int = 0,
                  bank: pd.DataFrame | None = None, models: dict | None = None) -> PairStudy:
    """Notebook 14: 13's pairs and results again (cached replies: no new model call after 13); the
    preference for the longer response per reward model."""
    from lib.rewardbench.findings_rows import length_findings

    pairs = study_pairs(pairs_path, n_per_category, seed, bank=bank)
    results = pair_results(reward_models, pairs, models=models)
    return PairStudy(pairs, results, length_findings(results))


@dataclass
class BestOfN:
    """Notebook 15's results: the questions, the policy's sampled candidates, each reward model's
    pick per question, the findings rows."""

    items: list[dict]
    candidates: pd.DataFrame
    picks: pd.DataFrame
    rows: list[dict]


def best_of_n_selection(reward_models, policy_model: str, datasets, n_items: int, n_samples: int,
                        temperature: float = 0.7, max_tokens: int = 48, seed: int = 0, recall_rule: str = "squad",
                        models: dict | None = None, policy=None) -> BestOfN:
    """Notebook 15 (Figure 6): `n_samples` answers of the policy to `n_items` demo questions per dataset,
    the one each reward model picks (a reward model its server cannot serve is left out, said), the gain
    rows. `policy` replaces the model loaded from `policy_model`."""
    from lib.models import get_model
    from lib.rewardbench import best_of_n
    from lib.rewardbench.findings_rows import best_of_n_findings
    from lib.sources import load_demo

    items = pd.concat([load_demo(src, n_items, seed) for src in datasets]).to_dict("records")
    candidates = best_of_n.sample_candidates(policy or get_model(policy_model), items, n_samples,
                                             temperature=temperature, max_tokens=max_tokens, seed=seed,
                                             rule=recall_rule)
    picks = best_of_n.pick_every(reward_models, candidates, models)
    return BestOfN(items, candidates, picks, best_of_n_findings(candidates, picks, reward_models))


def main(argv=None) -> int:
    """python -m lib.rewardbench.study reparse <run name>: rewrite notebook 13's tables of that run
    from its raw replies, without model calls."""
    import argparse

    from lib.report.outputs import RunOutputs

    ap = argparse.ArgumentParser(prog="python -m lib.rewardbench.study", description=main.__doc__)
    ap.add_argument("command", choices=["reparse"])
    ap.add_argument("run_name")
    args = ap.parse_args(argv)
    out = RunOutputs(args.run_name, "13_rewardbench")
    results = reparse(out.path(RAW_FILE))
    for name, table in study_tables(results).items():
        out.table(table, name, float_format="%.1f" if name == "rewardbench_table2" else "%.3f")
    print(study_tables(results)["rewardbench_table2"].to_string())
    print(f"re-parsed {len(results)} (reward model, pair) rows of {out.path(RAW_FILE)}; tables in {out.table_dir}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
