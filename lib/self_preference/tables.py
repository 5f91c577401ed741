"""Tables of the self-preference study (v2 Tables 2-9, v1 Tables 3, 5, 9-14).

Every table keeps its denominators: rows asked, rows parsed, rows that could not be asked (missing
passage, same answer string) and rows never parsed, so a cell is never silently smaller.
Rates come with 95% intervals and a two-sided test against 50%, Holm-corrected over the cells of the
table (beyond the paper). One question gives several judgments (two orders, four factuality
combinations, several authors), so the question (dataset x item) is the unit: a cluster bootstrap
interval and a sign-flip test over questions (`lib.stats.clustered_mean`); Wilson and binomial only
where each question gives one judgment. v2 Table 3's margins are computed as the paper computes
them (`table3_margins`): "Aggregated" is the unweighted mean of a row's cells, "Average" one row of
column means over all evaluator x dataset rows; pooled rates over all pairs of a row are a
separate, labelled beyond-the-paper column.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats as sps

from lib import stats

from .pairwise import debiased_rate
from .pointwise import SCORES

# false_by keeps apart the human FALSE passages made with each model's false answer (Tables 6-9).
POINTWISE_KEYS = ["dataset", "evaluator", "setting", "factuality", "author", "false_by"]
AGGREGATED, AVERAGE, POOLED = "Aggregated", "Average", "Pooled (beyond the paper)"


def _first_value(result, *names):
    """Pick a statistic from a dict / one-row DataFrame whatever the exact column spelling."""
    if isinstance(result, pd.DataFrame):
        result = result.iloc[0].to_dict()
    for name in names:
        if name in result:
            return result[name]
    return np.nan


def _with_false_by(ratings: pd.DataFrame) -> pd.DataFrame:
    """Ratings with a `false_by` column ('' for true passages and banks without one)."""
    if "false_by" not in ratings:
        return ratings.assign(false_by="")
    return ratings.assign(false_by=ratings["false_by"].fillna("").astype(str))


def pointwise_summary(ratings: pd.DataFrame, keys=POINTWISE_KEYS) -> pd.DataFrame:
    """Mean and sd of the parsed scores per cell (v2 Tables 6-9), with parse-failure rate and the
    reply-token expected score (from the reply's top log-probabilities); false passages per author and per false-answer source (`false_by`)."""
    ratings = _with_false_by(ratings)
    def cell(g):
        s = g["score"].dropna()
        return pd.Series({"n": len(g), "n_parsed": len(s), "parse_fail_rate": 1 - len(s) / len(g),
                          "mean": s.mean(), "sd": s.std(ddof=1),
                          # from the reply's top log-probs, not the next-token score after ### (likelihood.py)
                          "mean_reply_token_expected": g["expected_score"].mean(),
                          "mean_attempts": g["attempts"].mean()})
    return ratings.groupby(keys, sort=False).apply(cell, include_groups=False).reset_index()


def fmt_mean_sd(mean, sd) -> str:
    """'3.85±0.47' as in the paper; '-' when the cell has no parsed score."""
    if pd.isna(mean):
        return "-"
    return f"{mean:.2f}" if pd.isna(sd) else f"{mean:.2f}±{sd:.2f}"


def pointwise_wide(summary: pd.DataFrame, setting: str, factuality: str) -> pd.DataFrame:
    """One of v2 Tables 6-9: rows dataset x evaluator, columns authors, cells mean±sd."""
    sub = summary[(summary["setting"] == setting) & (summary["factuality"] == factuality)].copy()
    sub["cell"] = [fmt_mean_sd(m, s) for m, s in zip(sub["mean"], sub["sd"])]
    fb = sub["false_by"] if "false_by" in sub else pd.Series("", index=sub.index)
    # A FALSE human passage exists once per model's false answer: one column each, as the paper reports.
    sub["column"] = [a if (not f or f == a) else f"{a} (false by {f})" for a, f in zip(sub["author"], fb)]
    authors = sorted(sub["column"].unique(), key=lambda a: (not a.startswith("human"), a))
    wide = sub.pivot_table(index=["dataset", "evaluator"], columns="column", values="cell",
                           aggfunc="first")
    # NaN here means the author wrote no passage for that dataset, unlike '-' (nothing parsed).
    return wide.reindex(columns=authors).fillna("n/a").reset_index()


def pointwise_tables(summary: pd.DataFrame, settings) -> dict:
    """v2 Tables 6-9: {(setting, factuality): wide table} for every setting, true then false."""
    return {(s, f): pointwise_wide(summary, s, f) for s in settings for f in ("true", "false")}


# v2 Table 2 and v1 Table 3 mark a Diff with a dagger at the raw p of its paired t-test, as the papers
# do (no multiplicity correction there); the findings' Holm family is separate (lib.report.findings).
DIFF_DAGGER_P = 0.05


def _human_minus(g: pd.DataFrame, author: str, factuality: str, human: pd.Series) -> dict:
    """Human (true) minus `author`'s passages of one factuality: means, paired t-test, dagger at raw
    p < DIFF_DAGGER_P (as the papers mark them)."""
    other = g[(g["author"] == author) & (g["factuality"] == factuality)].groupby("item_id")["score"].mean()
    both = pd.concat([human.rename("h"), other.rename("s")], axis=1).dropna()
    diff = both["h"].mean() - both["s"].mean() if len(both) else np.nan
    p, ci = np.nan, (np.nan, np.nan)
    if len(both) >= 3 and (both["h"] - both["s"]).std() > 0:
        p = _first_value(stats.ttest_table(both["h"].to_numpy(), both["s"].to_numpy(), paired=True),
                         "p", "p-val", "p_val")
        d = (both["h"] - both["s"]).to_numpy()  # the same interval as the test's, unrounded
        ci = sps.t.interval(0.95, len(d) - 1, loc=d.mean(), scale=sps.sem(d))
    return {"cell": fmt_mean_sd(other.mean(), other.std(ddof=1)), "n": len(both), "diff": diff, "p": p,
            "ci_low": float(ci[0]), "ci_high": float(ci[1]),
            "diff_fmt": "-" if pd.isna(diff) else f"{diff:+.2f}" + (" †" if p < DIFF_DAGGER_P else "")}


def _human_true(g: pd.DataFrame) -> pd.Series:
    """Human TRUE scores per item (one value per item)."""
    return g[(g["author"] == "human") & (g["factuality"] == "true")].groupby("item_id")["score"].mean()


def human_vs_self(ratings: pd.DataFrame) -> pd.DataFrame:
    """v2 Table 2: human-true vs self-true and self-false per dataset x evaluator x setting.

    Diff = human minus self, paired t-test over items where both scores parsed (the paper does not
    say paired or not; items are matched, so we pair), with its 95% interval (beyond the paper).
    A missing self author gives a row with n=0.
    """
    rows = []
    for (dataset, evaluator, setting), g in ratings.groupby(["dataset", "evaluator", "setting"], sort=False):
        human = _human_true(g)
        row = {"dataset": dataset, "evaluator": evaluator, "setting": setting,
               "human_true": fmt_mean_sd(human.mean(), human.std(ddof=1))}
        for fact in ("true", "false"):
            res = _human_minus(g, evaluator, fact, human)
            row.update({f"self_{fact}": res["cell"], f"n_{fact}": res["n"], f"diff_{fact}": res["diff"],
                        f"p_{fact}": res["p"], f"ci_low_{fact}": res["ci_low"], f"ci_high_{fact}": res["ci_high"],
                        f"diff_{fact}_fmt": res["diff_fmt"]})
        rows.append(row)
    return pd.DataFrame(rows)


def human_vs_authors(ratings: pd.DataFrame) -> pd.DataFrame:
    """v1 Table 3: per dataset x evaluator x setting, human TRUE passages vs each model author's TRUE
    passages: means (sd), Diff = human - model, paired t-test over items (dagger: raw p < 0.05)."""
    rows = []
    for (dataset, evaluator, setting), g in ratings.groupby(["dataset", "evaluator", "setting"], sort=False):
        human = _human_true(g)
        for author in sorted(a for a in g["author"].unique() if a != "human"):
            res = _human_minus(g, author, "true", human)
            rows.append({"dataset": dataset, "evaluator": evaluator, "setting": setting, "author": author,
                         "human_true": fmt_mean_sd(human.mean(), human.std(ddof=1)), "model_true": res["cell"],
                         "n": res["n"], "diff": res["diff"], "p": res["p"], "diff_fmt": res["diff_fmt"]})
    return pd.DataFrame(rows, columns=["dataset", "evaluator", "setting", "author", "human_true", "model_true",
                                       "n", "diff", "p", "diff_fmt"])


def score_distribution(ratings: pd.DataFrame) -> pd.DataFrame:
    """v1 Table 14: counts of each score 1..5 per cell, plus the unparsed count."""
    def cell(g):
        counts = {str(s): int((g["score"] == s).sum()) for s in SCORES}
        counts["other"] = int((g["score"].notna() & ~g["score"].isin(SCORES)).sum())
        counts["unparsed"] = int(g["score"].isna().sum())
        return pd.Series(counts)
    return _with_false_by(ratings).groupby(POINTWISE_KEYS, sort=False).apply(cell, include_groups=False).reset_index()


UNIT = "question"  # what the intervals and tests of this module resample


def question_ids(frame: pd.DataFrame) -> pd.Series:
    """The unit of every judgment: its question (dataset and item id; item ids alone may repeat)."""
    ds = frame["dataset"].astype(str) if "dataset" in frame else ""
    return ds + "|" + frame["item_id"].astype(str)


def rate_cell(values: pd.Series, clusters=None, seed: int = 0, method: str = "auto") -> dict:
    """Share of True among the non-missing values: n judgments, n_items units (`clusters`, one label
    per value; None = each value its own unit), interval and p against 0.5 from the clustered test
    (`method` as in `lib.stats.clustered_mean`: "auto", "bootstrap" or "gee")."""
    keep = values.notna().to_numpy()
    v = values[keep].astype(bool).astype(float).to_numpy()
    n, k = len(v), int(v.sum())
    if n == 0:
        return {"n": 0, "n_items": 0, "k": 0, "rate": np.nan, "ci_low": np.nan, "ci_high": np.nan, "p": np.nan,
                "ci_note": ""}
    units = None if clusters is None else np.asarray(clusters, dtype=object)[keep]
    c = stats.clustered_mean(v, units, null=0.5, seed=seed, method=method)
    # the rate is the estimate its interval belongs to (a GEE's differs from k / n)
    return {"n": n, "n_items": c["n_items"], "k": k, "rate": c["estimate"], "ci_low": c["ci_low"],
            "ci_high": c["ci_high"], "p": c["p"], "ci_note": c.get("ci_note", "")}


def balanced_rate_cell(pairs: pd.DataFrame, column: str, seed: int = 0) -> dict:
    """The order-balanced rate of `column` (mean of the two orders' rates, `debiased_rate`) with a
    question-clustered interval and test against 0.5: each judgment weighted by 1 / (2 x its order's
    count of parsed judgments), so order-dependent parse failures cannot tilt it toward one order."""
    from .pairwise import ORDERS

    g = pairs[pairs[column].notna()]
    counts = g["order"].value_counts()
    if len(g) == 0 or any(counts.get(o, 0) == 0 for o in ORDERS):
        return {"n": len(g), "n_items": int(question_ids(g).nunique()) if len(g) else 0, "rate": np.nan,
                "ci_low": np.nan, "ci_high": np.nan, "p": np.nan, "ci_note": "one order has no parsed judgment"}
    weight = len(g) / (len(ORDERS) * g["order"].map(counts).to_numpy(float))  # weighted mean = the balanced rate
    values = g[column].astype(bool).astype(float).to_numpy()
    c = stats.cluster_bootstrap(values, question_ids(g), null=0.5, seed=seed, rate=True, judgment_weights=weight)
    return {"n": len(g), "n_items": c["n_items"], "rate": c["estimate"], "ci_low": c["ci_low"],
            "ci_high": c["ci_high"], "p": c["p"], "ci_note": c["ci_note"]}


PREFS = {"self": "chose_a", "order": "chose_first", "fact": "chose_true"}
_PREF_COUNTS = ["n_pairs", "n_missing", "n_same_answer", "n_unparsed", "n_valid", "n_number_fallback"]
_PREF_STATS = ["n", "n_items", "k", "rate", "ci_low", "ci_high", "p", "ci_note", "debiased"]


def preference_table(pairs: pd.DataFrame, by, prefs=("self", "order", "fact"), method: str = "auto") -> pd.DataFrame:
    """Self / order / factual preference per group (v2 Table 3 caption), with counts and intervals.

    self = share choosing passage A over both orders and all combos; order = share choosing the first
    passage; fact = share choosing the true passage among factuality-asymmetric pairs. `*_debiased`
    averages the rate over the two orders (beyond the paper). `*_n` counts valid pairs, `*_n_items`
    questions; intervals and p resample questions (`method="gee"`: a GEE instead). Holm correction is
    over all cells of each preference column.
    """
    by = list(by)
    rows = []
    for key, g in pairs.groupby(by, sort=False, dropna=False):
        key = key if isinstance(key, tuple) else (key,)
        row = dict(zip(by, key))
        row.update({"n_pairs": len(g), "n_missing": int((g["status"] == "missing_passage").sum()),
                    "n_same_answer": int((g["status"] == "same_answer").sum()),
                    "n_unparsed": int(((g["status"] == "ok") & ~g["valid"]).sum()),
                    "n_valid": int(g["valid"].sum()),
                    "n_number_fallback": int((g["method"] == "number_fallback").sum())})
        for pref in prefs:
            cell = rate_cell(g[PREFS[pref]], question_ids(g), method=method)
            row.update({f"{pref}_{k}": v for k, v in cell.items()})
            row[f"{pref}_debiased"] = debiased_rate(g, PREFS[pref])
        rows.append(row)
    table = pd.DataFrame(rows, columns=by + _PREF_COUNTS + [f"{p}_{k}" for p in prefs for k in _PREF_STATS])
    for pref in prefs:
        col = f"{pref}_p"
        if col in table and table[col].notna().any():
            mask = table[col].notna()
            table.loc[mask, f"{pref}_p_holm"] = np.asarray(stats.holm(table.loc[mask, col].tolist()), dtype=float)
        else:
            table[f"{pref}_p_holm"] = np.nan
    return table


PAIR_OUTCOMES = ("passage missing", "same answer, undecidable", "reply unparsed", "decided by answer",
                 "decided by passage number")


def pair_status_table(scored: pd.DataFrame, by=("evaluator", "b_author")) -> pd.DataFrame:
    """Where each judged pair went, per evaluator and other author: its passages missing, the same
    answer in both (the design cannot tell them apart), a reply the rule could not read, or decided by
    the answer string or the passage number; the counts add up to `n_pairs`."""
    ok, valid = scored["status"] == "ok", scored["valid"].astype(bool)
    outcome = np.select([scored["status"] == "missing_passage", scored["status"] == "same_answer", ok & ~valid,
                         valid & (scored["method"] == "answer")], PAIR_OUTCOMES[:4], PAIR_OUTCOMES[4])
    counts = pd.crosstab([scored[c] for c in by], outcome).reindex(columns=list(PAIR_OUTCOMES), fill_value=0)
    return counts.assign(n_pairs=counts.sum(axis=1))[["n_pairs", *PAIR_OUTCOMES]].reset_index()


def style_table(scored: pd.DataFrame) -> pd.DataFrame:
    """Notebook 08's style preferences from `pairwise.ask_style_evaluators`' pairs: per kind, dataset,
    evaluator and author, the share using the styled passage (`style_*`, its own when the author is the
    evaluator) and the first one (`order_*`); an empty table when there are no pairs."""
    if not len(scored):
        return pd.DataFrame()
    pairs = scored.assign(is_self=scored["a_author"] == scored["evaluator"])
    table = preference_table(pairs, ["kind", "dataset", "evaluator", "a_author", "is_self"], prefs=("self", "order"))
    return table.rename(columns=lambda c: c.replace("self_", "style_"))


def preference_table_by_method(views: dict, by, **kw) -> pd.DataFrame:
    """`preference_table` of each method's pairs (keywords passed on, e.g. `prefs`), stacked with a `method` column."""
    return pd.concat([preference_table(v, by, **kw).assign(method=m) for m, v in views.items()], ignore_index=True)


def table3_margins(cells: pd.DataFrame, prefs=("self", "order", "fact"),
                   row_keys=("evaluator", "dataset"), col_key="b_author") -> pd.DataFrame:
    """v2 Table 3's margins as the paper computes them, from the cell table of `preference_table`:
    per row an "Aggregated" cell, the unweighted mean of the row's cells; one "Average" row, per
    column the mean over all evaluator x dataset rows (its Aggregated cell: the mean of the
    Aggregated column). No tests: the paper gives none for the margins."""
    row_keys = list(row_keys)
    rates = [f"{p}_rate" for p in prefs]
    if cells.empty:
        return pd.DataFrame(columns=row_keys + [col_key] + rates)
    agg = cells.groupby(row_keys, sort=False)[rates].mean().reset_index().assign(**{col_key: AGGREGATED})
    per_col = pd.concat([cells[[col_key] + rates], agg[[col_key] + rates]])
    avg = per_col.groupby(col_key, sort=False)[rates].mean().reset_index()
    avg = avg.assign(**{k: (AVERAGE if i == 0 else "") for i, k in enumerate(row_keys)})
    return pd.concat([agg, avg], ignore_index=True)[row_keys + [col_key] + rates]


def fmt_pct(rate, p_holm=np.nan) -> str:
    """'43' (percent) with a dagger when the Holm-corrected clustered test rejects 50%."""
    if pd.isna(rate):
        return "-"
    return f"{100 * rate:.0f}" + ("†" if (not pd.isna(p_holm) and p_holm < 0.05) else "")


def table3_wide(pref: pd.DataFrame, margins: pd.DataFrame | None = None, pooled: pd.DataFrame | None = None,
                row_keys=("evaluator", "dataset"), col_key="b_author") -> pd.DataFrame:
    """v2 Table 3 layout: cells 'self / order / fact (n=valid pairs)' in percent, one column per other
    author (dagger: Holm-corrected test over the cells, questions resampled); then the paper's margins
    (`table3_margins`: Aggregated column, Average row, one decimal as printed) and, when given, the
    pooled column of `preference_table(pairs, row_keys)` labelled beyond the paper."""
    if pref.empty:
        return pd.DataFrame(columns=list(row_keys))
    keys = list(row_keys)
    pref = pref.copy()
    pref["cell"] = [" / ".join(fmt_pct(r[f"{k}_rate"], r[f"{k}_p_holm"]) for k in ("self", "order", "fact"))
                    + f" (n={r['n_valid']})" for _, r in pref.iterrows()]
    parts = [pref[keys + [col_key, "cell"]]]
    if margins is not None and len(margins):
        m = margins.copy()
        m["cell"] = [" / ".join("-" if pd.isna(r[f"{k}_rate"]) else f"{100 * r[f'{k}_rate']:.1f}"
                                for k in ("self", "order", "fact")) for _, r in m.iterrows()]
        parts.append(m[keys + [col_key, "cell"]])
    if pooled is not None and len(pooled):
        p = pooled.copy()
        p["cell"] = [" / ".join(fmt_pct(r[f"{k}_rate"], r.get(f"{k}_p_holm", np.nan)) for k in ("self", "order", "fact"))
                     + f" (n={r['n_valid']})" for _, r in p.iterrows()]
        parts.append(p.assign(**{col_key: POOLED})[keys + [col_key, "cell"]])
    long = pd.concat(parts, ignore_index=True)
    wide = long.pivot_table(index=keys, columns=col_key, values="cell", aggfunc="first", sort=False)
    cols = sorted(wide.columns, key=lambda a: (a != "human", a in (AGGREGATED, POOLED), a == POOLED, a))
    wide = wide.reindex(columns=cols).reset_index()
    is_avg = wide[keys[0]] == AVERAGE
    return pd.concat([wide[~is_avg], wide[is_avg]], ignore_index=True).fillna("")


def knowledge_table(pairs: pd.DataFrame, knowledge: pd.DataFrame) -> pd.DataFrame:
    """v1 Table 5: factual preference and answer accuracy by knowledge level, plus overall.

    Answer accuracy (the paper does not define it) = share of valid replies whose answer carries the
    true answer under the pairs' `passage_rule` (default: the authors' symmetric match, as their
    code scores a reply), over pairs with at least one true passage.
    """
    merged = attach_knowledge(pairs, knowledge)
    rows = []
    for (dataset, evaluator), g in merged.groupby(["dataset", "evaluator"], sort=False):
        for level in ("none", "partial", "full", "unknown", "overall"):
            sub = g if level == "overall" else g[g["level"] == level]
            if level == "unknown" and sub.empty:
                continue
            fact = rate_cell(sub["chose_true"], question_ids(sub))
            acc_rows = sub[sub["valid"] & (sub["combo"] != "FF")]
            acc = rate_cell(acc_rows["mentions_true"].astype("boolean"), question_ids(acc_rows))
            rows.append({"dataset": dataset, "evaluator": evaluator, "level": level,
                         "n_items": sub["item_id"].nunique(), "n_asym_pairs": int((sub["a_fact"] != sub["b_fact"]).sum()),
                         **{f"fact_{k}": v for k, v in fact.items()},
                         "fact_debiased": debiased_rate(sub, "chose_true"),
                         **{f"acc_{k}": v for k, v in acc.items()}})
    table = pd.DataFrame(rows)
    if len(table) and table["fact_p"].notna().any():
        mask = table["fact_p"].notna() & (table["level"] != "overall")
        if mask.any():
            table.loc[mask, "fact_p_holm"] = np.asarray(stats.holm(table.loc[mask, "fact_p"].tolist()), dtype=float)
    return table


def attach_knowledge(pairs: pd.DataFrame, knowledge: pd.DataFrame, run: str = "main") -> pd.DataFrame:
    """Add the evaluator's knowledge level per item; items the file lacks get level 'unknown'.
    With several runs of a model (the release's second GPT run, '1000'), `run` picks one."""
    know = knowledge.copy()
    if "run" in know and run is not None and (know["run"] == run).any():
        know = know[know["run"] == run]
    keys = ["item_id"]
    model_col = next((c for c in ("evaluator", "model") if c in know.columns), None)
    if model_col:
        know = know.rename(columns={model_col: "evaluator"})
        keys.append("evaluator")
    know = know[keys + ["level"]].drop_duplicates(keys)
    merged = pairs.drop(columns=["level"], errors="ignore").merge(know, on=keys, how="left")
    merged["level"] = merged["level"].fillna("unknown").replace({"no": "none"})
    return merged
