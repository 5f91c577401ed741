"""Likelihood scoring beside generate-and-parse (beyond the papers): one forward pass per judgment,
no parse failures.

- Pointwise (notebook 05): after the paper's B.1 prompt and the assistant prefix `###` (the paper's
  reply format is `###<number>***`), the next-token distribution over "1".."5". Reported: the five
  probabilities, their total (`lik_mass`: how much the model wanted to answer in the format), the
  argmax score and the expected score sum(s * p(s)) renormalized over 1..5. (Base LMs without a
  chat template read the prompt as raw text; there the reply's prefix starts on a new line.)
- Generation phase (notebook 06): after the B.1 prompt and the reply prefix `Answer:` (the paper's
  format is `Answer: <short answer>;`, so the answer is what follows "Answer:"; our choice), the
  summed log-probability of " <answer of passage 1>" vs " <answer of passage 2>". The likelier one is
  the passage used. A labelled option divides each sum by the answer's word count (the model layer
  returns no token counts with option log-probabilities). Pairs whose two passages carry the same
  answer string cannot be told apart this way: they are counted as undecidable (status
  'same_answer'), never guessed.

Models whose server gives no prompt log-probabilities raise `lib.models.LikelihoodUnavailable`; the
`*_evaluators` helpers catch it per evaluator, leave that evaluator's likelihood columns empty and
return one sentence saying so.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy import stats as sps

from lib import stats
from lib.prompts import self_preference as sp

from .model_loop import for_each_model
from .pairwise import derive_preferences
from .pointwise import SCORES, pointwise_prompt

SCORE_PREFIX = "###"
ANSWER_PREFIX = "Answer:"
CHOICE_VARIANTS = {"sum": "lik_choice", "per_word": "lik_choice_norm"}
RATING_COLUMNS = ["lik_probs", "lik_mass", "lik_argmax", "lik_expected"]
PAIR_COLUMNS = ["lik_lp_1", "lik_lp_2", "lik_choice", "lik_choice_norm"]


def score_from_logprobs(logprobs) -> dict:
    """From log P("1".."5"): the five probabilities, their mass, the argmax score and the expected
    score renormalized over 1..5."""
    lp = np.asarray(logprobs, dtype=float)
    if lp.shape != (len(SCORES),):
        raise ValueError(f"need {len(SCORES)} log-probabilities (scores 1..5), got {list(logprobs)!r}")
    probs = np.exp(lp)
    w = np.exp(lp - lp.max())  # renormalized over 1..5 without underflow
    return {"lik_probs": [float(p) for p in probs], "lik_mass": float(probs.sum()),
            "lik_argmax": int(SCORES[int(np.argmax(lp))]),
            "lik_expected": float((w * np.array(SCORES)).sum() / w.sum())}


def _item(model, prompt: str, prefix: str, options: list[str], chat: bool | None) -> tuple:
    """An option_logprobs item: chat messages with the prefix opening the assistant turn, or raw
    text for base LMs, where the reply starts on a new line after the prompt."""
    req = model.request(prompt, chat=chat)
    if req.messages is not None:
        return req.messages, prefix, options
    return req.prompt, "\n" + prefix, options


def rate_likelihood(model, ratings: pd.DataFrame, chat: bool | None = None) -> pd.DataFrame:
    """Likelihood ratings for every row of a `rate_passages` table (same prompt per row); raises
    LikelihoodUnavailable where the model gives no prompt log-probabilities."""
    items = [_item(model, pointwise_prompt(r["setting"], r["question"], r["text"]), SCORE_PREFIX,
                   [str(s) for s in SCORES], chat) for r in ratings.to_dict("records")]
    lps = model.option_logprobs(items, desc=f"pointwise likelihood {model.name}") if items else []
    found = pd.DataFrame([score_from_logprobs(lp) for lp in lps], columns=RATING_COLUMNS, index=ratings.index)
    return ratings.drop(columns=RATING_COLUMNS, errors="ignore").join(found)


def _for_evaluators(table: pd.DataFrame, evaluators, author_names, fn, columns):
    """Apply fn(model, rows of that evaluator) per evaluator; an unavailable one keeps NaN columns."""
    from lib.models import LikelihoodUnavailable

    notes = []

    def one(model, name, spec):
        rows = table[table["evaluator"] == name]
        try:
            return fn(model, rows)
        except LikelihoodUnavailable as e:
            notes.append(f"Likelihood scoring is unavailable for {spec} ({e}); its likelihood columns stay empty.")
            return rows.assign(**{c: np.nan for c in columns})

    done = for_each_model(evaluators, author_names, one, ignore_index=False)
    rest = table[~table.index.isin(done.index)]
    parts = [done] if len(done) else []  # no evaluator: every row keeps empty likelihood columns
    return pd.concat(parts + [rest.assign(**{c: np.nan for c in columns})]).sort_index(), notes


def rate_evaluators_likelihood(ratings: pd.DataFrame, evaluators, author_names=None, chat=None):
    """(ratings with the likelihood columns, notes on evaluators where it is unavailable)."""
    return _for_evaluators(ratings, evaluators, author_names, lambda m, r: rate_likelihood(m, r, chat),
                           RATING_COLUMNS)


def mean_cell(values) -> dict:
    """n, mean and t-based 95% interval of the non-missing values (one value per item)."""
    v = pd.to_numeric(pd.Series(values), errors="coerce").dropna().to_numpy(float)
    n = len(v)
    mean = float(v.mean()) if n else np.nan
    if n < 2 or v.std(ddof=1) == 0:
        return {"n": n, "mean": mean, "ci_low": mean if n >= 2 else np.nan, "ci_high": mean if n >= 2 else np.nan}
    lo, hi = sps.t.interval(0.95, n - 1, loc=mean, scale=sps.sem(v))
    return {"n": n, "mean": mean, "ci_low": float(lo), "ci_high": float(hi)}


# Two different "expected scores" exist in 05: the one from the top log-probabilities of the generated
# reply's score token (pointwise.expected_score, column expected_score) and this module's, from the
# next-token distribution right after "###" (column lik_expected). Their names say which.
RATING_METHODS = {"paper (parsed reply)": "score", "next-token argmax after ###": "lik_argmax",
                  "next-token expected score after ###": "lik_expected"}
PRIMARY_RATING = next(iter(RATING_METHODS))  # the paper's reading of a rating; the others are secondary
EXPECTED_SCORE_NAMES = {"expected_score": "reply-token expected score (top log-probs of the reply)",
                        "lik_expected": "next-token expected score after ###"}
METHOD_KEYS = ["dataset", "evaluator", "author", "factuality", "setting"]


def method_table(ratings: pd.DataFrame, keys=METHOD_KEYS) -> pd.DataFrame:
    """Paper method vs likelihood method per cell: n, mean and 95% interval of each."""
    keys = [k for k in keys if k in ratings]
    rows = []
    for key, g in ratings.groupby(keys, sort=False):
        row = dict(zip(keys, key if isinstance(key, tuple) else (key,)))
        for label, col in RATING_METHODS.items():
            cell = mean_cell(g[col]) if col in g else mean_cell([])
            row.update({f"{label}: {k}": v for k, v in cell.items()})
        rows.append(row)
    return pd.DataFrame(rows)


def _agreement_ci(agree: np.ndarray, rows: pd.DataFrame) -> tuple[float, float]:
    """95% interval of an agreement share, the item resampled (an item gives several ratings/pairs)."""
    if not len(agree):
        return np.nan, np.nan
    from .tables import question_ids

    c = stats.clustered_mean(agree.astype(float), question_ids(rows) if "item_id" in rows else None)
    return c["ci_low"], c["ci_high"]


def method_tables(ratings: pd.DataFrame) -> dict:
    """Notebook 05's two likelihood tables by file name ({} when no rating has a likelihood score)."""
    if "lik_argmax" not in ratings or not ratings["lik_argmax"].notna().any():
        return {}
    return {"05_likelihood_vs_paper": method_table(ratings), "05_likelihood_agreement": rating_agreement(ratings)}


def rating_agreement(ratings: pd.DataFrame, by=("evaluator", "setting")) -> pd.DataFrame:
    """Agreement of the parsed score with the likelihood score on rows whose reply parsed: exact
    match with the argmax (95% interval over items), Spearman and Pearson correlation with the
    next-token expected score."""
    by = [k for k in by if k in ratings]
    rows = []
    for key, g in ratings.groupby(by, sort=False):
        both = g[["score", "lik_argmax", "lik_expected"]].apply(pd.to_numeric, errors="coerce").dropna()
        n, k = len(both), int((both["score"] == both["lik_argmax"]).sum())
        lo, hi = _agreement_ci((both["score"] == both["lik_argmax"]).to_numpy(), g.loc[both.index])
        row = dict(zip(by, key if isinstance(key, tuple) else (key,)))
        row.update({"n_rows": len(g), "n_both": n, "exact_match": k / n if n else np.nan,
                    "exact_match_ci_low": lo, "exact_match_ci_high": hi})
        for name, fn in (("spearman", sps.spearmanr), ("pearson", sps.pearsonr)):
            ok = n >= 3 and both["score"].nunique() > 1 and both["lik_expected"].nunique() > 1
            r, p = fn(both["score"], both["lik_expected"]) if ok else (np.nan, np.nan)
            row.update({f"{name}_r": float(r), f"{name}_p": float(p)})
        rows.append(row)
    return pd.DataFrame(rows)


def human_minus_self_methods(ratings: pd.DataFrame, pooled: bool = True) -> pd.DataFrame:
    """v2 Table 2's Diff (human true minus self) under the paper method and both likelihood scores;
    with `pooled`, also over all datasets at once (dataset "all", beyond the paper: the largest n)."""
    from .tables import human_vs_self

    # the pooled view keys each question by dataset and item id: item ids alone repeat across datasets
    views = [ratings] + ([ratings.assign(dataset="all", item_id=ratings["dataset"].astype(str) + "|" + ratings["item_id"].astype(str))]
                         if pooled and ratings["dataset"].nunique() > 1 else [])
    parts = [human_vs_self(view.assign(score=pd.to_numeric(view[col], errors="coerce"))).assign(method=label)
             for view in views for label, col in RATING_METHODS.items() if col in view]
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


# --- generation phase -------------------------------------------------------------------------

def choose_from_logprobs(lp_1: float, lp_2: float, len_1: int = 1, len_2: int = 1) -> tuple:
    """(choice by summed log-prob, choice by per-length log-prob): 1, 2 or None on an exact tie."""
    def pick(a, b):
        return None if (a == b or math.isnan(a) or math.isnan(b)) else (1 if a > b else 2)
    return pick(lp_1, lp_2), pick(lp_1 / max(len_1, 1), lp_2 / max(len_2, 1))


def _words(text: str) -> int:
    return max(len(str(text).split()), 1)


def choose_likelihood(model, pairs: pd.DataFrame, chat: bool | None = None) -> pd.DataFrame:
    """Likelihood choice for every 'ok' pair with two different answer strings (design 'answer');
    the others get no choice. Raises LikelihoodUnavailable where the server gives no log-probabilities."""
    pairs = pairs.copy()
    todo = pairs.index[(pairs["status"] == "ok") & (pairs["design"] == "answer")].tolist()
    items = [_item(model, sp.generation_phase_prompt(pairs.at[i, "question"], pairs.at[i, "text_1"],
                                                     pairs.at[i, "text_2"]), ANSWER_PREFIX,
                   [" " + str(pairs.at[i, "ans_1"]).strip(), " " + str(pairs.at[i, "ans_2"]).strip()], chat)
             for i in todo]
    lps = model.option_logprobs(items, desc=f"pairs likelihood {model.name}") if items else []
    for c in PAIR_COLUMNS:
        pairs[c] = np.nan
    pairs["lik_choice"] = pd.array([None] * len(pairs), dtype="Int64")
    pairs["lik_choice_norm"] = pd.array([None] * len(pairs), dtype="Int64")
    for i, (lp1, lp2) in zip(todo, lps):
        both = choose_from_logprobs(lp1, lp2, _words(pairs.at[i, "ans_1"]), _words(pairs.at[i, "ans_2"]))
        pairs.loc[i, ["lik_lp_1", "lik_lp_2"]] = [lp1, lp2]
        pairs.at[i, "lik_choice"], pairs.at[i, "lik_choice_norm"] = both
    return pairs


def choose_evaluators_likelihood(scored: pd.DataFrame, evaluators, author_names=None, chat=None):
    """(scored pairs with the likelihood columns, notes on evaluators where it is unavailable)."""
    return _for_evaluators(scored, evaluators, author_names, lambda m, p: choose_likelihood(m, p, chat),
                           PAIR_COLUMNS)


def generation_phase_pairs(bank: pd.DataFrame, evaluators, author_names=None, likelihood_scoring: bool = True,
                           **ask_kw) -> pd.DataFrame:
    """The generation-phase pairs asked of every evaluator (`pairwise.ask_evaluators`, the paper's
    method), then, with `likelihood_scoring`, decided by likelihood too (notes on evaluators where
    that is unavailable are printed): the one start of notebooks 06 and 07."""
    from .pairwise import ask_evaluators

    scored = ask_evaluators(bank, evaluators, author_names, **ask_kw)
    if likelihood_scoring:
        scored, notes = choose_evaluators_likelihood(scored, evaluators, author_names)
        for note in notes:
            print(note)
    return scored


def likelihood_view(pairs: pd.DataFrame, variant: str = "sum") -> pd.DataFrame:
    """The pairs as the likelihood method decides them, in the columns `preference_table` reads:
    same-answer 'ok' pairs become status 'same_answer' (undecidable), the choice is the likelihood's."""
    col = CHOICE_VARIANTS[variant]
    view = pairs.copy()
    undecidable = (view["status"] == "ok") & (view["design"] != "answer")
    view.loc[undecidable, "status"] = "same_answer"
    choice = view[col] if col in view else pd.Series(pd.NA, index=view.index)
    view["choice"] = pd.array(choice.where(view["status"] == "ok"), dtype="Int64")
    view["method"] = np.where(view["choice"].notna(), f"likelihood_{variant}",
                              np.where(view["status"] == "ok", "unparsed", view["status"]))
    return derive_preferences(view)


def method_views(scored: pd.DataFrame) -> tuple[dict, pd.DataFrame | None]:
    """Notebook 06's methods: {label: pairs as that method decides them}, the paper's first, and the
    agreement table of the two choices (None when no pair has a likelihood choice)."""
    views = {"paper (parsed reply)": scored}
    if "lik_choice" not in scored or not scored["lik_choice"].notna().any():
        print("Likelihood choices did not run (switched off, unavailable, or no pair with two answer strings).")
        return views, None
    for variant in CHOICE_VARIANTS:
        views[f"likelihood {variant}"] = likelihood_view(scored, variant)
    return views, pd.concat([choice_agreement(scored, variant=v) for v in CHOICE_VARIANTS], ignore_index=True)


def choice_agreement(pairs: pd.DataFrame, by=("evaluator",), variant: str = "sum") -> pd.DataFrame:
    """Share of pairs where the likelihood choice equals the parsed reply's choice, among pairs
    where both decided (the same pairs for both methods), with a 95% interval over questions."""
    col = CHOICE_VARIANTS[variant]
    by = [k for k in by if k in pairs]
    rows = []
    for key, g in pairs.groupby(by, sort=False):
        both = g[g["choice"].notna() & g[col].notna()] if col in g else g.iloc[:0]
        n = len(both)
        same = (both["choice"].astype(int) == both[col].astype(int)).to_numpy() if n else np.array([])
        k = int(same.sum())
        lo, hi = _agreement_ci(same, both)
        row = dict(zip(by, key if isinstance(key, tuple) else (key,)))
        row.update({"variant": variant, "n_parsed": int(g["valid"].sum()),
                    "n_undecidable": int(((g["status"] == "ok") & (g["design"] != "answer")).sum()),
                    "n_both": n, "agree": k / n if n else np.nan, "ci_low": lo, "ci_high": hi})
        rows.append(row)
    return pd.DataFrame(rows)


def asymmetry(pairs: pd.DataFrame, seed: int = 0) -> dict:
    """P(chose the true passage | TF) - P(chose it | FT) over valid pairs, questions resampled: what a
    choice between two different answers says about the own passage (= 2 x own-passage rate on
    TF/FT - 1 when both are equally many). Null 0 (sign-flip test over questions)."""
    from .tables import question_ids

    tf = pairs[pairs["valid"].astype(bool) & pairs["combo"].isin(["TF", "FT"])]
    c = stats.cluster_bootstrap(tf["chose_true"].astype(float).to_numpy(), question_ids(tf),
                                contrast=np.where(tf["combo"] == "TF", 1, -1), seed=seed)
    if not ((tf["combo"] == "TF").any() and (tf["combo"] == "FT").any()):
        c.update(estimate=np.nan, ci_low=np.nan, ci_high=np.nan, p=np.nan)
    return c
