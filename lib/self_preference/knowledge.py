"""Knowledge probe (section 3.1): each question asked 5 times; the model has full knowledge if all 5
replies are correct, none if none is, partial otherwise.

As the authors ran it (shared/papers/authors-code-notes.md): the prompt is the question plus
" Short answer with less than 5 words:", and a reply is correct under their symmetric match
(`lib.textmatch` rule `authors`) with the true answer. `rescore_knowledge` re-scores the replies a
release knowledge file recorded, to show that our matcher is theirs; `rescored_levels` gives the
levels from our counts, which the paper check sets beside v1 Table 1.
"""
from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from lib.prompts import self_preference as P
from lib.records import DataError, field, read_records, write_records
from lib.textmatch import check_rule, matches

from .columns import KNOWLEDGE_LEVELS
from .release import read_release_knowledge

KNOWLEDGE_RULE = "authors"


def knowledge_level(n_correct: int, n_samples: int = 5) -> str:
    """'none' if never correct, 'full' if always, else 'partial' (section 3.1)."""
    n = int(n_correct)
    if not 0 <= n <= n_samples:
        raise DataError(f"n_correct={n} is outside 0..{n_samples}.")
    return "none" if n == 0 else "full" if n == n_samples else "partial"


def is_correct(reply: str, answer: str, aliases=(), rule: str = KNOWLEDGE_RULE) -> bool:
    """Whether one probe reply is correct under the named rule (the authors' lower-case both first)."""
    return matches(str(reply or ""), str(answer), rule=rule, aliases=aliases)


def probe(model, items: pd.DataFrame, author: str, n_samples: int = 5, temperature: float = 1.0,
          max_tokens: int = 32, chat: bool | None = None, rule: str = KNOWLEDGE_RULE,
          use_aliases: bool = False) -> pd.DataFrame:
    """Ask every question n_samples times (sample index 0..n-1, so each is cached apart) and
    score each reply; one row per item with responses, correct flags, n_correct and level."""
    reqs, keys = [], []
    for _, it in items.iterrows():
        text = P.knowledge_probe_prompt(it["question"])
        for s in range(n_samples):
            reqs.append(model.request(text, chat=chat, max_tokens=max_tokens, temperature=temperature, sample=s))
            keys.append(it["id"])
    outs = model.generate(reqs, desc=f"{author}: knowledge probe")
    return score_responses(items, author, keys, [o.text or "" for o in outs], n_samples, rule, use_aliases)


def score_responses(items: pd.DataFrame, author: str, keys: list, texts: list, n_samples: int = 5,
                    rule: str = KNOWLEDGE_RULE, use_aliases: bool = False) -> pd.DataFrame:
    """Group replies per item, match them against the answer (and aliases when asked), give the level."""
    check_rule(rule)
    by_id = {it["id"]: it for _, it in items.iterrows()}
    got: dict = {}
    for key, text in zip(keys, texts):
        got.setdefault(key, []).append(text)
    rows = []
    for key, replies in got.items():
        it = by_id[key]
        if len(replies) != n_samples:
            raise ValueError(f"item {key}: {len(replies)} replies, expected {n_samples}.")
        aliases = it["aliases"] if use_aliases else ()
        correct = [is_correct(r, it["answer"], aliases, rule) for r in replies]
        rows.append({"item_id": key, "dataset": it["source"], "model": author, "run": "main",
                     "question": it["question"], "answer": it["answer"], "responses": replies,
                     "correct": correct, "n_samples": n_samples, "n_correct": sum(correct),
                     "level": knowledge_level(sum(correct), n_samples), "rule": rule})
    return pd.DataFrame(rows)


def _knowledge_from_file(path: Path) -> pd.DataFrame:
    """One knowledge file: our JSONL (one row per model and item) or a release JSON."""
    recs = read_records(path)
    if isinstance(recs, dict):
        return read_release_knowledge(path)
    if not recs:
        raise DataError(f"{path}: knowledge file is empty.")
    for i, rec in enumerate(recs):
        for f in ("item_id", "model", "n_correct"):
            field(rec, f, path, rec.get("item_id", i) if isinstance(rec, dict) else i)
    df = pd.DataFrame(recs)
    if "dataset" not in df:
        df["dataset"] = df["item_id"].map(lambda s: str(s).split("-")[0])
    if "run" not in df:
        df["run"] = "main"
    return df


def load_knowledge(path) -> pd.DataFrame:
    """Knowledge levels, one row per (model, run, item): item_id, n_correct (0..5), level
    (none / partial / full), dataset, model, run; from our knowledge JSONL, a release
    '*_knowledge_scale_of_5_*.json', or a folder of those. Release model names become the passage
    files' author names (`openai` -> `gpt`); the `_1000_openai` file is GPT's run '1000'."""
    path = Path(path)
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if "knowledge" in p.name
                       and p.suffix in (".json", ".jsonl"))
        if not files:
            raise DataError(f"{path}: folder holds no knowledge files (names containing 'knowledge').")
        df = pd.concat([_knowledge_from_file(p) for p in files], ignore_index=True)
    else:
        df = _knowledge_from_file(path)
    df["n_correct"] = df["n_correct"].astype(int)
    n_samples = df["n_samples"].fillna(5).astype(int) if "n_samples" in df else pd.Series(5, index=df.index)
    df["level"] = [knowledge_level(n, s) for n, s in zip(df["n_correct"], n_samples)]
    front = ["item_id", "n_correct", "level", "dataset", "model", "run"]
    return df[front + [c for c in df.columns if c not in front]]


def rescore_knowledge(path, rule: str | None = None) -> pd.DataFrame:
    """Re-score the replies a release knowledge file (or folder) recorded with our matcher: one row
    per item with item_id, model, run, rule, n_replies, n_correct_release, n_correct_ours, agree.
    `rule=None` uses the rule each file was scored with (`release.knowledge_file_rule`: `authors`,
    or `authors_cased` for the `_1000_openai` run); replies are cut per item as `cut_replies` says.
    Warns, naming the items, where ours differs from the release's count."""
    know = load_knowledge(path)
    if "responses" not in know or "ground_truth" not in know:
        raise DataError(f"{path}: no recorded replies ('ai_answers') to re-score.")
    know = know[know["ground_truth"].notna().to_numpy()].reset_index(drop=True)
    rules = [check_rule(rule or scored or KNOWLEDGE_RULE)
             for scored in know.get("scored_by", pd.Series([None] * len(know)))]
    ours = [sum(is_correct(r, truth, (), used) for r in (replies or []))
            for replies, truth, used in zip(know["responses"], know["ground_truth"], rules)]
    out = know[["item_id", "model", "run", "n_replies"]].assign(
        rule=rules, n_correct_release=know["n_correct"], n_correct_ours=ours)
    out["agree"] = out["n_correct_release"] == out["n_correct_ours"]
    bad = out[~out["agree"]]
    if len(bad):
        named = "; ".join(f"{r.item_id} ({r.model}, run {r.run}): release {r.n_correct_release}, "
                          f"ours {r.n_correct_ours}" for r in bad.head(10).itertuples())
        warnings.warn(f"{path}: our matcher differs from the release's count on {len(bad)} of "
                      f"{len(out)} items: {named}" + (" ..." if len(bad) > 10 else ""), stacklevel=2)
    return out


def rescored_levels(path) -> pd.DataFrame:
    """Knowledge levels from OUR matcher's counts on the recorded replies (rows without replies
    keep the release's count), with `counted_by` = 'ours' or 'release' per row."""
    know = load_knowledge(path)
    if "responses" not in know or "ground_truth" not in know:  # our own probe files: counts are ours
        return know.assign(counted_by="file")
    has = know["n_replies"].fillna(0).astype(int).gt(0) & know["ground_truth"].notna()
    know = know.assign(counted_by=np.where(has, "ours", "release"))
    if has.any():
        with warnings.catch_warnings():  # rescore's warning is raised once by the caller's own check
            warnings.simplefilter("ignore")
            ours = rescore_knowledge(path).set_index(["model", "run", "item_id"])["n_correct_ours"]
        keys = list(zip(know["model"], know["run"], know["item_id"]))
        know.loc[has, "n_correct"] = [int(ours.loc[k]) for k, h in zip(keys, has) if h]
        know["level"] = [knowledge_level(n, s) for n, s in zip(know["n_correct"], know["n_replies"].clip(lower=5))]
    return know


def level_shares(knowledge: pd.DataFrame) -> pd.DataFrame:
    """Percent of items at each knowledge level per dataset, model and run (v2 Table 1 left, v1 Table 1)."""
    keys = ["dataset", "model"] + (["run"] if "run" in knowledge else [])
    counts = (knowledge.groupby(keys)["level"].value_counts()
              .unstack(fill_value=0).reindex(columns=list(KNOWLEDGE_LEVELS), fill_value=0))
    shares = counts.div(counts.sum(axis=1), axis=0).mul(100).round(1)
    shares.columns = [f"{c} (%)" for c in shares.columns]
    return shares.assign(n=counts.sum(axis=1)).reset_index()


def save_knowledge(knowledge: pd.DataFrame, path) -> Path:
    """Write probe results as JSONL that `load_knowledge` reads back."""
    return write_records(path, knowledge)
