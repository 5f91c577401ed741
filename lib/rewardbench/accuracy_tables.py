"""Accuracy tables of reward models: per subset, category, group and overall, as in Table 2.

Table 2's averages are weighted by example counts: a category is the count-weighted mean of its
subsets; Helpful / Harmless and Overall weigh their categories by the paper's category counts
(Table 4, `categories.category_weights`), so a sample with equally many pairs per category averages
as the paper's full benchmark does. The pair is the unit (a judge's two orders are one pair): every
accuracy carries a 95% percentile bootstrap interval over questions (pairs built from one question are one
unit; none below 10 questions, as in findings), resampled within each category for
the weighted averages (`lib.stats.cluster_bootstrap`, 2000 resamples, seed 0) - beyond the paper,
which reports none.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from lib.rewardbench.categories import CATEGORIES, GROUPS, category_weights
from lib.stats import cluster_bootstrap, clustered_mean, shown_interval

LEVELS = ("subset", "category", "group", "overall")


def weighted_mean(values, counts) -> float:
    """Count-weighted mean (NaN when there is nothing to weigh)."""
    values, counts = np.asarray(values, float), np.asarray(counts, float)
    return float((values * counts).sum() / counts.sum()) if counts.sum() else float("nan")


def _ci(values, units) -> tuple[float, float, int]:
    """(low, high, questions): a bootstrap 95% interval of a mean over its questions (`units`, one per
    value: pairs built from one question are one unit), shown as findings show it (none below 10
    questions or of zero width: `lib.stats.shown_interval`)."""
    values = np.asarray(values, float)
    keep = ~np.isnan(values)
    if keep.sum() < 2:
        return float("nan"), float("nan"), int(pd.Series(np.asarray(units)[keep]).nunique())
    c = clustered_mean(values[keep], np.asarray(units)[keep], method="bootstrap", rate=False)
    low, high, _ = shown_interval(c["n_items"], c["ci_low"], c["ci_high"])
    return low, high, int(c["n_items"])


NEVER_PARSED = "no verdict parsed: every reply of this judge was unreadable"


def never_parsed(res: pd.DataFrame) -> bool:
    """Whether a generative judge parsed none of its verdicts: its accuracy would count only parse
    failures (unparsed = wrong), so no accuracy is shown for it."""
    return (len(res) > 0 and "unparsed" in res and (res["kind"] == "judge").all()
            and int(res["unparsed"].sum()) >= 2 * len(res))


def question_units(part: pd.DataFrame) -> pd.Series:
    """The unit each pair belongs to: its question, since pairs built from one question are
    correlated (each demo question yields one pair per scenario, ids '<item>:<scenario>'); the
    `question` text where the pairs carry it, else the id before ':', else the pair id."""
    if "question" in part and part["question"].notna().all():
        return part["question"].astype(str)
    if "id" in part:
        return part["id"].astype(str).str.split(":", n=1).str[0]
    return pd.Series(np.arange(len(part)).astype(str), index=part.index)


def categories_note(part: pd.DataFrame) -> str:
    """'' when all six categories are present, else which are, with the weights renormalised over them."""
    present = [c for c in CATEGORIES if c in set(part["category"])]
    if len(present) == len(CATEGORIES):
        return ""
    return f"{len(present)} of {len(CATEGORIES)} categories ({', '.join(present)}), weights renormalised over them"


def weighted_accuracy(part: pd.DataFrame, seed: int = 0) -> dict:
    """Accuracy of a set of pairs averaged over its categories with the paper's category weights,
    with a bootstrap interval over questions (`question_units`) resampled within each category;
    `categories_note` says when categories are missing and the weights renormalise."""
    counts = part["category"].value_counts().to_dict()
    out = cluster_bootstrap(part["correct"].to_numpy(float), question_units(part),
                            strata=part["category"], weights=category_weights(counts), seed=seed)
    out["categories_note"] = categories_note(part)
    return out


def accuracy_table(results: pd.DataFrame) -> pd.DataFrame:
    """Long table: rm, kind, level, name, n (pairs), accuracy, ci_low, ci_high (accuracy in [0, 1])."""
    rows = []
    for (rm, kind), res in results.groupby(["rm", "kind"], sort=False):
        sub = res.groupby("subset")["correct"].agg(["mean", "size"])
        cat_of_subset = res.groupby("subset")["category"].first()
        for s in sub.index:
            rows.append(_row(rm, kind, "subset", s, res[res["subset"] == s], sub.loc[s, "mean"]))
        for cat, part in res.groupby("category"):
            s = sub.loc[cat_of_subset[cat_of_subset == cat].index]
            rows.append(_row(rm, kind, "category", cat, part, weighted_mean(s["mean"], s["size"])))
        for name, part in [*res.groupby("group"), ("Overall", res)]:
            w = weighted_accuracy(part)
            rows.append({"rm": rm, "kind": kind, "level": "overall" if name == "Overall" else "group",
                         "name": name, "n": len(part), "n_items": w["n_items"], "accuracy": w["estimate"],
                         "ci_low": w["ci_low"], "ci_high": w["ci_high"]})
        if never_parsed(res):  # parse failures are no accuracy: the rows say why instead
            for r in rows:
                if r["rm"] == rm and r["kind"] == kind:
                    r.update(accuracy=np.nan, ci_low=np.nan, ci_high=np.nan, no_interval=NEVER_PARSED)
    # the columns also when no reward model gave results (all left out for a capability): tables stay empty, not broken
    return pd.DataFrame(rows, columns=LONG_COLUMNS)


LONG_COLUMNS = ["rm", "kind", "level", "name", "n", "n_items", "accuracy", "ci_low", "ci_high", "no_interval"]


def _row(rm, kind, level, name, part, acc) -> dict:
    """One accuracy row with its bootstrap interval over the questions of `part`."""
    low, high, questions = _ci(part["correct"], question_units(part))
    return {"rm": rm, "kind": kind, "level": level, "name": name, "n": len(part), "n_items": questions,
            "accuracy": acc, "ci_low": low, "ci_high": high, "no_interval": ""}


def paper_table(long: pd.DataFrame) -> pd.DataFrame:
    """Table 2 layout, accuracies in percent: one row per reward model, ranked by Overall."""
    cols = {}
    for group in GROUPS:
        for cat, (grp, col) in CATEGORIES.items():
            if grp == group:
                cols[(group, col)] = ("category", cat)
        cols[(group, "Avg.")] = ("group", group)
    cols[("Overall", "")] = ("overall", "Overall")
    out = {}
    for rm, part in long.groupby("rm", sort=False):
        acc = part.set_index(["level", "name"])["accuracy"]
        out[rm] = {k: 100 * acc.get(v, np.nan) for k, v in cols.items()}
    table = pd.DataFrame.from_dict(out, orient="index")
    table.columns = pd.MultiIndex.from_tuples(table.columns)
    table.index.name = "Model"
    return table.sort_values(("Overall", ""), ascending=False).round(1)


def judge_table(results: pd.DataFrame) -> pd.DataFrame:
    """Per generative judge: accuracy (orders averaged), position consistency, unparsed verdicts,
    and how often the response shown first wins among parsed verdicts."""
    rows = []
    for rm, res in results[results["kind"] == "judge"].groupby("rm", sort=False):
        parsed = 2 * len(res) - int(res["unparsed"].sum())
        both = res["consistent"].dropna()
        low, high, questions = _ci(res["correct"], question_units(res))
        dead = never_parsed(res)
        rows.append({"rm": rm, "pairs": len(res), "n_items": questions,
                     "accuracy": np.nan if dead else res["correct"].mean(),
                     "ci_low": np.nan if dead else low, "ci_high": np.nan if dead else high,
                     "position_consistency": both.mean() if len(both) else np.nan,
                     "pairs_both_parsed": len(both),
                     "unparsed_verdicts": int(res["unparsed"].sum()),
                     "unparsed_rate": res["unparsed"].sum() / (2 * len(res)),
                     "first_position_rate": res["n_first"].sum() / parsed if parsed else np.nan})
    return pd.DataFrame(rows)


def picked_longer(results: pd.DataFrame) -> pd.Series:
    """Share of verdicts picking the longer response (NaN for equal lengths)."""
    longer = np.where(results["len_diff"] > 0, results["correct"], results["p_rejected"])
    return pd.Series(np.where(results["len_diff"] == 0, np.nan, longer), index=results.index)


def binned_accuracy(results: pd.DataFrame, column: str, bins: int = 3) -> pd.DataFrame:
    """Accuracy with CI per rm and quantile bin of `column` (rows where it is known)."""
    known = results.dropna(subset=[column]).copy()
    if known.empty:
        return pd.DataFrame(columns=["rm", "bin", "n", "n_items", "accuracy", "ci_low", "ci_high", "mid"])
    edges = np.unique(np.quantile(known[column], np.linspace(0, 1, bins + 1)))
    if len(edges) < 2:
        edges = np.array([known[column].min() - 0.5, known[column].max() + 0.5])
    known["bin"] = pd.cut(known[column], edges, include_lowest=True, duplicates="drop")
    rows = []
    for (rm, interval), part in known.groupby(["rm", "bin"], observed=True, sort=True):
        if never_parsed(known[known["rm"] == rm]):  # no parsed verdict: nothing to plot, not accuracy 0
            continue
        low, high, questions = _ci(part["correct"], question_units(part))
        rows.append({"rm": rm, "bin": str(interval), "n": len(part), "n_items": questions,
                     "accuracy": part["correct"].mean(), "ci_low": low, "ci_high": high,
                     "mid": float(part[column].mean())})
    return pd.DataFrame(rows, columns=["rm", "bin", "n", "n_items", "accuracy", "ci_low", "ci_high", "mid"])


def length_bias_table(results: pd.DataFrame) -> pd.DataFrame:
    """Per rm: how often it prefers the longer response (0.5 = no length preference), with CI."""
    rows = []
    for rm, res in results.groupby("rm", sort=False):
        longer = picked_longer(res).dropna()
        low, high, _ = _ci(longer, question_units(res).loc[longer.index])
        rows.append({"rm": rm, "pairs_unequal_length": len(longer),
                     "prefers_longer": longer.mean() if len(longer) else np.nan,
                     "ci_low": low, "ci_high": high,
                     "mean_len_diff": res["len_diff"].mean()})
    return pd.DataFrame(rows)


def score_gap(results: pd.DataFrame) -> pd.Series:
    """Chosen minus rejected annotation score of each pair (NaN where pairs carry no scores)."""
    return results["chosen_score"] - results["rejected_score"]


def _words(texts: pd.Series) -> pd.Series:
    """Length in white-space words (the paper counts tokens of an unnamed tokenizer)."""
    return texts.fillna("").str.split().str.len()


def table4(pairs: pd.DataFrame) -> pd.DataFrame:
    """The paper's Table 4 for the loaded pairs: per category and subset, the number of pairs and
    the mean length of prompt, chosen and rejected response (in words: the paper's tokenizer is not
    named), with a 'total' row per category and the published count beside it."""
    from lib.rewardbench.categories import PUBLISHED_COUNTS

    df = pairs.assign(prompt_len=_words(pairs["prompt"]), chosen_len=_words(pairs["chosen"]),
                      rejected_len=_words(pairs["rejected"]))
    rows = []
    for cat, part in df.groupby("category", sort=False):
        for name, sub in [("total", part), *part.groupby("subset", sort=True)]:
            rows.append({"category": cat, "subset": name, "n": len(sub),
                         "published_n": PUBLISHED_COUNTS.get(cat, np.nan) if name == "total" else np.nan,
                         "prompt_len": sub["prompt_len"].mean(), "chosen_len": sub["chosen_len"].mean(),
                         "rejected_len": sub["rejected_len"].mean()})
    order = {c: i for i, c in enumerate(CATEGORIES)}
    out = pd.DataFrame(rows)
    return out.sort_values("category", key=lambda s: s.map(order).fillna(len(order)), kind="stable").reset_index(drop=True)
