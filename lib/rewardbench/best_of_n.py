"""Best-of-N sampling (section 4.3, Figure 6): sample N answers, let a reward model pick one,
score the pick by answer recall, and compare with a random pick (the mean over the N samples).

Answer recall (Adlakha et al. 2024, used by the paper because answers are long): the share of the
gold answer's tokens that occur in the response, the best over the answer and its aliases. Tokens
come from a named normalization of `lib.textmatch`: `squad` (default: lower case, punctuation and
articles dropped, as Adlakha et al.) or `whole_word` (lower case, non-alphanumerics split).

Figure 6 correlates best-of-N gains with accuracy on the multi-hop reasoning subset (`reason`);
`accuracy_for_figure6` uses that subset when the pairs have it, else overall accuracy, and says which.
"""
from __future__ import annotations

import random

import pandas as pd
from scipy import stats as sps

from lib.prompts.rag_rewardbench import (TABLE5_GENERATION_SYSTEM, TABLE5_GENERATION_USER, fill,
                                         format_references)
from lib.stats import bootstrap_ci, shown_interval
from lib.textmatch import squad_normalize, word_normalize

RECALL_RULES = {"squad": squad_normalize, "whole_word": word_normalize}
FIGURE6_SUBSET = "reason"  # the paper's Figure 6: accuracy on the multi-hop reasoning subset


def answer_recall(response: str, answers, rule: str = "squad") -> float:
    """Best share of a gold answer's tokens found in the response (0 when no answer has tokens);
    `rule` names the normalization ('squad' or 'whole_word')."""
    if rule not in RECALL_RULES:
        raise ValueError(f"Unknown recall rule {rule!r}: choose one of {sorted(RECALL_RULES)}.")
    norm = RECALL_RULES[rule]
    got = set(norm(response).split())
    scores = [sum(t in got for t in toks) / len(toks) for toks in (norm(a).split() for a in answers) if toks]
    return max(scores, default=0.0)


def accuracy_for_figure6(long: pd.DataFrame) -> tuple[pd.DataFrame, str]:
    """(rm, accuracy) on the `reason` category when the pairs have it (as Figure 6), else overall;
    and a label saying which."""
    part = long[(long["level"] == "category") & (long["name"] == FIGURE6_SUBSET)]
    if len(part):
        return part[["rm", "accuracy"]].reset_index(drop=True), "multi-hop reasoning subset, as the paper"
    part = long[long["level"] == "overall"]
    return part[["rm", "accuracy"]].reset_index(drop=True), "overall, these pairs have no multi-hop reasoning subset"


def bon_prompt(item: dict, n_negatives: int = 2, seed: int = 0) -> dict:
    """Table 5 prompt over the item's true passage and some negatives, in a seeded order."""
    refs = [{"title": item.get("title", ""), "text": item["human_passage"]},
            *list(item.get("negatives", []))[:n_negatives]]
    random.Random(f"{seed}:{item['id']}").shuffle(refs)
    return {"system": TABLE5_GENERATION_SYSTEM,
            "prompt": fill(TABLE5_GENERATION_USER, docs=format_references(refs),
                           question=item["question"])}


def sample_candidates(policy, items: list[dict], n: int, temperature: float = 0.7,
                      max_tokens: int = 64, n_negatives: int = 2, seed: int = 0,
                      rule: str = "squad") -> pd.DataFrame:
    """N sampled answers per item from a chat policy model, each with its answer recall."""
    from lib.models.types import Request

    prompts = [bon_prompt(it, n_negatives, seed) for it in items]
    reqs = [Request(messages=[{"role": "system", "content": p["system"]},
                              {"role": "user", "content": p["prompt"]}],
                    max_tokens=max_tokens, temperature=temperature, sample=k, seed=seed)
            for p in prompts for k in range(n)]
    outs = policy.generate(reqs, desc=f"best-of-{n} samples")
    rows = []
    for i, (it, p) in enumerate(zip(items, prompts)):
        for k in range(n):
            text = outs[i * n + k].text
            rows.append({"item_id": it["id"], "sample": k, "system": p["system"], "prompt": p["prompt"],
                         "response": text,
                         "recall": answer_recall(text, [it["answer"], *it.get("aliases", [])], rule)})
    return pd.DataFrame(rows)


def pick(rm, candidates: pd.DataFrame) -> pd.DataFrame:
    """The candidate each reward model picks per item: the argmax of a scalar score (first on ties),
    or for a judge a knockout where the challenger replaces the champion only when it wins more
    verdicts over both orders (a tie keeps the champion); 2(N-1) judge calls per item."""
    picks = []
    groups = list(candidates.groupby("item_id", sort=False))
    if rm.kind == "judge":
        champion = {iid: 0 for iid, _ in groups}
        n = max(len(g) for _, g in groups)
        for challenger in range(1, n):
            # one batched round: every item's champion against its next challenger, both orders
            todo = [(iid, g) for iid, g in groups if challenger < len(g)]
            margins = rm.compare([(g.iloc[0]["prompt"], g.iloc[champion[iid]]["response"],
                                   g.iloc[challenger]["response"]) for iid, g in todo],
                                 desc=f"{rm.name} knockout round {challenger}")
            for (iid, _), m in zip(todo, margins):
                if m < 0:
                    champion[iid] = challenger
        for iid, g in groups:
            picks.append(g.iloc[champion[iid]])
    else:
        scores = rm.score(list(zip(candidates["system"], candidates["prompt"])),
                          list(candidates["response"]), desc=f"{rm.name} scores candidates")
        scored = candidates.assign(rm_score=scores)
        for iid, g in scored.groupby("item_id", sort=False):
            picks.append(g.loc[g["rm_score"].idxmax()])
    return pd.DataFrame(picks).assign(rm=rm.name).reset_index(drop=True)


def pick_every(reward_models, candidates: pd.DataFrame, models: dict | None = None) -> pd.DataFrame:
    """The picks of every reward model (specs); one whose model cannot give what it needs (an implicit
    reward model on a server without prompt log-probabilities) is left out and said so, as notebook
    13's tables do. `models` maps a spec to model objects to use instead of loading them."""
    from .model_loop import for_each_model

    parts = for_each_model(reward_models, lambda rm, _name, _spec: pick(rm, candidates), models,
                           left_out_of="the best-of-N table")
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=[*candidates.columns, "rm"])


BON_COLUMNS = ["rm", "items", "recall_pick", "recall_random", "recall_oracle", "gain", "gain_ci_low", "gain_ci_high"]


def bon_table(candidates: pd.DataFrame, picks: pd.DataFrame) -> pd.DataFrame:
    """Per rm: mean recall of its picks, of a random pick, of the best sample, and the gain."""
    per_item = candidates.groupby("item_id")["recall"].agg(random="mean", oracle="max")
    rows = []
    for rm, p in picks.groupby("rm", sort=False):
        joined = p.set_index("item_id")[["recall"]].join(per_item)
        gain = (joined["recall"] - joined["random"]).round(12)  # no 1e-17 leftovers of 1/3
        low, high, _ = shown_interval(len(gain), *bootstrap_ci(gain))  # as findings shows it
        rows.append({"rm": rm, "items": len(joined), "recall_pick": joined["recall"].mean(),
                     "recall_random": joined["random"].mean(), "recall_oracle": joined["oracle"].mean(),
                     "gain": gain.mean(), "gain_ci_low": low, "gain_ci_high": high})
    return pd.DataFrame(rows, columns=BON_COLUMNS)


def accuracy_gain_correlation(table: pd.DataFrame) -> dict:
    """Pearson r between reward-model accuracy and best-of-N gain (NaN with fewer than 3 models)."""
    t = table.dropna(subset=["accuracy", "gain"])
    if len(t) < 3 or t["accuracy"].nunique() < 2 or t["gain"].nunique() < 2:
        return {"n_models": len(t), "pearson_r": float("nan"), "p": float("nan")}
    r, p = sps.pearsonr(t["accuracy"], t["gain"])
    return {"n_models": len(t), "pearson_r": float(r), "p": float(p)}
