"""Every row the RAG-RewardBench study writes to the run's findings table (lib.report.findings):
notebook 13's judge accuracy (`judge_findings`) and position consistency (`consistency_finding`), 14's
preference for the longer response (`length_findings`) and 15's best-of-N gain (`best_of_n_findings`).
Each row's measure is declared in `measures.py`."""
from __future__ import annotations

import pandas as pd

from lib.models.specs import parse_reward_spec
from lib.report.findings import declared_finding, slug
from lib.stats import clustered_mean

from .accuracy_tables import never_parsed, picked_longer, question_units, weighted_accuracy
from .judge import GENERATE_METHOD, LOGPROB_METHOD, judge_method


def judge_findings(results: pd.DataFrame, notebook: str = "13_rewardbench",
                   paper_values: dict | None = None) -> list[dict]:
    """Headline rows (lib.report.findings): each judge's overall accuracy (orders averaged, unparsed = wrong),
    categories weighted by the paper's counts as its Overall is (`accuracy_tables.weighted_accuracy`), n =
    units (a pair's two orders are one unit; pairs built from one question share it, so the
    question is the unit where questions repeat), n_judgments = verdicts, 95% bootstrap interval over
    units within categories (`lib.stats.cluster_bootstrap`: the Wilson interval over units where
    every unit gives the same accuracy, none below 10 units). The measure says when categories are
    missing and the weights renormalise over those present."""
    rows = []
    for rm, res in results[results["kind"] == "judge"].groupby("rm", sort=False):
        parsed = parse_reward_spec(res["spec"].iloc[0])
        method = judge_method(res)
        diagnostic = unparsed_diagnostic(res, parsed.target, method, notebook)
        if never_parsed(res):  # parse failures are a diagnostic, never an accuracy (unparsed = wrong)
            rows.append(diagnostic)
            continue
        w = weighted_accuracy(res)
        lo, hi = w["ci_low"], w["ci_high"]
        note = f"; {w['categories_note']}" if w["categories_note"] else ""
        unit = "pair" if w["n_items"] == len(res) else "question"
        rows.append(declared_finding("rewardbench", notebook,
                            f"judge overall accuracy, paper's category weights ({method}{note})", parsed.target,
                            w["n_items"], w["estimate"], None if pd.isna(lo) else lo, None if pd.isna(hi) else hi,
                            None, (paper_values or {}).get(res["spec"].iloc[0]), n_judgments=2 * len(res),
                             unit=unit, measure_id=f"judge_overall_accuracy.{slug(method)}", ci_note=w["ci_note"],
                             scale="share 0-1",
                             direction="higher = prefers the chosen response more (0.5 = chance; unparsed = wrong)",
                             no_interval="" if len(res) else "no pair judged"))
        rows += [consistency_finding(res, parsed.target, method, notebook), diagnostic]
    return rows


def unparsed_diagnostic(res: pd.DataFrame, model: str, method: str, notebook: str = "13_rewardbench") -> dict:
    """The share of a judge's verdicts that did not parse (two per pair), a pipeline diagnostic with a
    bootstrap 95% interval over questions."""
    share = (res["unparsed"].astype(float) / 2).to_numpy(float)
    c = clustered_mean(share, question_units(res), method="bootstrap", rate=False)
    return declared_finding("rewardbench", notebook, f"share of judge verdicts that did not parse ({method})", model,
                            c["n_items"], c["estimate"], c["ci_low"], c["ci_high"], None, n_judgments=2 * len(res),
                            unit="question", measure_id=f"judge_unparsed_share.{slug(method)}",
                            ci_note=c.get("ci_note", ""), kind="diagnostic", scale="share 0-1",
                            direction="higher = more replies without a readable verdict")


def consistency_finding(res: pd.DataFrame, model: str, method: str, notebook: str = "13_rewardbench") -> dict:
    """Position consistency of one judge (beyond the paper): the share of pairs, among those whose
    two orders both gave a verdict, where both orders chose the same response; one 0/1 per pair, with
    its interval over the pairs' questions (pairs built from one question are one unit, as 13's accuracy
    counts them: a cluster bootstrap, or Wilson's over pairs where each is its own question). No test:
    a judge blind to content and position would be consistent half the time, one that always names
    position 1 never, so no single null fits."""
    decided = res["consistent"].notna() if "consistent" in res else pd.Series(False, index=res.index)
    both = res.loc[decided, "consistent"].astype(float)
    questions = question_units(res)
    units = questions[decided]
    n_pairs = len(both)
    c = (clustered_mean(both.to_numpy(), units.to_numpy(), rate=True) if n_pairs else
         {"estimate": float("nan"), "ci_low": float("nan"), "ci_high": float("nan"), "n_items": 0, "ci_note": ""})
    return declared_finding("rewardbench", notebook, f"judge position consistency, pairs with both orders decided ({method})",
                   model, c["n_items"], c["estimate"], c["ci_low"], c["ci_high"], None, n_judgments=2 * n_pairs,
                   unit="pair" if c["n_items"] == n_pairs else "question",
                   measure_id=f"judge_position_consistency.{slug(method)}", ci_note=c.get("ci_note", ""),
                   n_attempted=max(questions.nunique(), c["n_items"]),
                   scale="share 0-1", direction="higher = the same response whichever position it is in",
                   no_interval="" if n_pairs else "no pair got a verdict in both orders")


def reward_method_name(spec: str) -> str:
    """How a reward model decides, as a reader names it: a judge's verdict method ("log-probability
    verdict"), else its kind ("implicit reward")."""
    parsed = parse_reward_spec(spec)
    if parsed.scalar_kind:  # 'implicit', 'implicit-mean', 'rm'
        return f"{parsed.scalar_kind} reward"
    return LOGPROB_METHOD if parsed.options.get("decide") == "logprob" else GENERATE_METHOD


def reward_method(spec: str) -> str:
    """How a reward model decides, as a measure_id part (`reward_method_name` as a slug)."""
    return slug(reward_method_name(spec))


def length_findings(results: pd.DataFrame, notebook: str = "14_rm_difficulty") -> list[dict]:
    """Per reward model: the share of verdicts picking the longer response over pairs of unequal
    length (orders averaged per pair; unparsed verdicts pick neither), with a cluster-bootstrap 95%
    interval over questions (pairs built from one question are one unit). No test: beyond the paper."""
    rows = []
    for rm, res in results.groupby("rm", sort=False):
        spec = res["spec"].iloc[0]
        # a judge's verdict method as its results say (a log-probability judge may fall back to top-k), as 13's rows
        method = slug(judge_method(res)) if res["kind"].iloc[0] == "judge" else reward_method(spec)
        readable = judge_method(res) if res["kind"].iloc[0] == "judge" else reward_method_name(spec)  # as 13's rows
        longer = picked_longer(res)
        keep = longer.notna()
        c = clustered_mean(longer[keep].to_numpy(float), question_units(res)[keep], method="bootstrap", rate=False)
        rows.append(declared_finding(
            "rewardbench", notebook, f"preference for the longer response ({readable})",
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
    spec_of = {parse_reward_spec(s).name: s for s in reward_models}
    mean_recall = candidates.groupby("item_id")["recall"].mean()
    rows = []
    for rm, p in picks.groupby("rm", sort=False):
        spec = spec_of.get(rm, rm)
        gain = (p.set_index("item_id")["recall"] - mean_recall.reindex(p["item_id"]).to_numpy()).round(12)
        c = clustered_mean(gain.to_numpy(float), list(gain.index), method="bootstrap", rate=False)
        rows.append(declared_finding(
            "rewardbench", notebook, f"best-of-N gain in answer recall ({reward_method_name(spec)})",
            parse_reward_spec(spec).target, c["n_items"], c["estimate"], c["ci_low"], c["ci_high"], None,
            n_judgments=int(candidates["item_id"].isin(gain.index).sum()), unit="question",
            measure_id=f"best_of_n_gain.{reward_method(spec)}", ci_note=c.get("ci_note", ""),
            scale="answer recall 0-1", direction="higher = the reward model's pick beats a random sample more",
            no_interval="" if len(gain) else "no question sampled"))
    return rows
