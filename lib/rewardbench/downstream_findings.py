"""Findings rows of notebooks 14 (length preference) and 15 (best-of-N gain): one row per reward
model, declared in lib.rewardbench.measures, n = independent units (questions), intervals over them."""
from __future__ import annotations

import pandas as pd

from lib.models.specs import parse_reward_spec

from .accuracy_tables import picked_longer, question_units


def reward_method(spec: str) -> str:
    """How a reward model decides, as a measure_id part: a judge's verdict method, else its kind."""
    from lib.report.findings import slug

    from .judge import GENERATE_METHOD, LOGPROB_METHOD

    parsed = parse_reward_spec(spec)
    if parsed.kind != "judge":  # 'implicit_reward', 'implicit_mean_reward', 'rm_reward'
        return slug(f"{parsed.name.split(':', 1)[0]} reward")
    return slug(LOGPROB_METHOD if parsed.options.get("decide") == "logprob" else GENERATE_METHOD)


def length_findings(results: pd.DataFrame, notebook: str = "14_rm_difficulty") -> list[dict]:
    """Per reward model: the share of verdicts picking the longer response over pairs of unequal
    length (orders averaged per pair; unparsed verdicts pick neither), with a cluster-bootstrap 95%
    interval over questions (pairs built from one question are one unit). No test: beyond the paper."""
    from lib.report.measures import declared_finding
    from lib.stats import clustered_mean

    from lib.report.findings import slug

    from .measures import judge_method

    rows = []
    for rm, res in results.groupby("rm", sort=False):
        spec = res["spec"].iloc[0]
        # a judge's verdict method as its results say (a log-probability judge may fall back to top-k), as 13's rows
        method = slug(judge_method(res)) if res["kind"].iloc[0] == "judge" else reward_method(spec)
        longer = picked_longer(res)
        keep = longer.notna()
        c = clustered_mean(longer[keep].to_numpy(float), question_units(res)[keep], method="bootstrap", rate=False)
        rows.append(declared_finding(
            "rewardbench", notebook, f"preference for the longer response ({method})",
            parse_reward_spec(spec).target, c["n_items"], c["estimate"], c["ci_low"], c["ci_high"], None,
            n_judgments=2 * int(keep.sum()), unit="question", measure_id=f"rm_prefers_longer.{method}",
            ci_note=c.get("ci_note", ""), scale="share 0-1",
            direction="higher = picks the longer response more (0.5 = no length preference)",
            no_interval="" if keep.any() else "no pair of unequal length"))
    return rows


def best_of_n_findings(candidates: pd.DataFrame, picks: pd.DataFrame, reward_models,
                       notebook: str = "15_best_of_n") -> list[dict]:
    """Per reward model: the best-of-N gain (recall of its pick minus the mean recall of the N
    samples), one value per question, with a bootstrap 95% interval over questions. No test."""
    from lib.report.measures import declared_finding
    from lib.stats import clustered_mean

    spec_of = {parse_reward_spec(s).name: s for s in reward_models}
    mean_recall = candidates.groupby("item_id")["recall"].mean()
    rows = []
    for rm, p in picks.groupby("rm", sort=False):
        spec = spec_of.get(rm, rm)
        gain = (p.set_index("item_id")["recall"] - mean_recall.reindex(p["item_id"]).to_numpy()).round(12)
        c = clustered_mean(gain.to_numpy(float), list(gain.index), method="bootstrap", rate=False)
        rows.append(declared_finding(
            "rewardbench", notebook, f"best-of-N gain in answer recall ({reward_method(spec)})",
            parse_reward_spec(spec).target, c["n_items"], c["estimate"], c["ci_low"], c["ci_high"], None,
            n_judgments=int(candidates["item_id"].isin(gain.index).sum()), unit="question",
            measure_id=f"best_of_n_gain.{reward_method(spec)}", ci_note=c.get("ci_note", ""),
            scale="answer recall 0-1", direction="higher = the reward model's pick beats a random sample more",
            no_interval="" if len(gain) else "no question sampled"))
    return rows
