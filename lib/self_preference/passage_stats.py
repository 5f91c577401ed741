"""Passage statistics of v1 Table 2 and v2 Table 1 (right): lengths in words, perplexity per author,
and the t-test of human against each model author."""
from __future__ import annotations

import numpy as np
import pandas as pd


def words(text) -> int:
    """Whitespace word count, the length unit of the paper's tables."""
    return len(str(text).split())


def length_stats(items: pd.DataFrame) -> pd.DataFrame:
    """Per source: item count, query and passage length in words (mean, sd), like v1 Table 2."""
    df = items.assign(q_len=items["question"].map(words), p_len=items["human_passage"].map(words))
    out = df.groupby("source").agg(n=("id", "size"), query_len_mean=("q_len", "mean"),
                                   query_len_sd=("q_len", "std"), passage_len_mean=("p_len", "mean"),
                                   passage_len_sd=("p_len", "std"))
    return out.round(2).reset_index()


def bank_length_stats(bank: pd.DataFrame) -> pd.DataFrame:
    """Per dataset and author, true normal passages of a bank: query and passage length in words
    (mean, sd), as v1 Table 2 reports them for the release."""
    sub = bank[(bank["factuality"] == "true") & (bank["style"] == "normal")].drop_duplicates(["item_id", "author"])
    sub = sub.assign(q_len=sub["question"].map(words), p_len=sub["text"].map(words))
    out = sub.groupby(["dataset", "author"], sort=False).agg(
        n=("item_id", "size"), query_len_mean=("q_len", "mean"), query_len_sd=("q_len", "std"),
        passage_len_mean=("p_len", "mean"), passage_len_sd=("p_len", "std"))
    return out.reset_index()


def author_stats(df: pd.DataFrame) -> pd.DataFrame:
    """Per dataset and author: passages, mean / sd perplexity and length in words (v2 Table 1
    right, v1 Table 2). Needs columns dataset, author, ppl; length only when `text` is present."""
    d = df.assign(words=df["text"].str.split().str.len()) if "text" in df else df.assign(words=float("nan"))
    out = d.groupby(["dataset", "author"], sort=False).agg(
        n=("ppl", "size"), ppl_mean=("ppl", "mean"), ppl_sd=("ppl", "std"),
        words_mean=("words", "mean"), words_sd=("words", "std"))
    return out.round(2).reset_index()


def ppl_tests(df: pd.DataFrame, paired: bool = True, pooled: bool = False) -> pd.DataFrame:
    """Human vs each model author, per dataset (and over all datasets as "all" when `pooled`):
    pingouin t-test of perplexity. Paired over the items both have when `paired`, else Welch over
    all passages of each. `diff` is human minus model with its 95% interval (`diff_ci_low`, `diff_ci_high`)."""
    from lib.stats import shown_interval, ttest_table

    rows = []
    groups = list(df.groupby("dataset", sort=False))
    if pooled:  # beyond the paper: every dataset at once, the largest sample
        groups.append(("all", df))
    for dataset, sub in groups:
        # one value per item and author, so a file read twice cannot pair an item with itself
        per_item = sub.groupby(["author", "item_id"], sort=False)["ppl"].mean()
        human = per_item.loc["human"] if "human" in per_item.index.get_level_values(0) else pd.Series(dtype=float)
        for author in [a for a in sub["author"].unique() if a != "human"]:
            model = per_item.loc[author]
            if paired:
                common = human.index.intersection(model.index)
                a, b = human.loc[common].to_numpy(), model.loc[common].to_numpy()
            else:
                a, b = human.to_numpy(), model.to_numpy()
            if min(len(a), len(b)) < 2:
                continue
            res = ttest_table(a, b, paired=paired).iloc[0].to_dict()
            ci = res.pop("CI95", res.pop("CI95%", (np.nan, np.nan)))
            # the interval as findings shows it: none below 10 items (lib.stats.shown_interval)
            low, high, why = shown_interval(min(len(a), len(b)), float(ci[0]), float(ci[1]))
            rows.append({"dataset": dataset, "author": author, "n_items": min(len(a), len(b)), "n_human": len(a),
                         "n_model": len(b), "ppl_human": a.mean(), "ppl_model": b.mean(),
                         "diff": a.mean() - b.mean(), "diff_ci_low": low, "diff_ci_high": high, **res,
                         "no_interval": why})
    return pd.DataFrame(rows)
