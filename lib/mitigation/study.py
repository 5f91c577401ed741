"""Notebook 18's tables from the run folder: every arm's before / after table, the decomposition, and
one sentence per part that could not be read (its notebook not run, no likelihood, a failed fit)."""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from . import arms, inputs
from .decomposition import decomposition_rows
from .length_control import length_rows
from .replies import priors
from .style_length import style_design, style_length_rows


def mitigation_tables(folder: Path, content_free: pd.DataFrame, temperature: float = 2.0,
                      n_boot: int = 400) -> tuple[pd.DataFrame, pd.DataFrame, list[str]]:
    """(arms table, decomposition table, notes) of one run folder; `content_free` is `replies.reparse`'s table."""
    ratings, pairs = inputs.pointwise_ratings(folder), inputs.pairwise_choices(folder)
    parsed, judge, runs = inputs.parsed_pairs(folder), inputs.judge_records(folder), inputs.k_runs(folder)
    styles = inputs.style_pairs(folder)
    pw_prior, judge_prior = priors(content_free)
    notes = [f"{what}: nothing to read ({why})." for what, got, why in (
        ("05's likelihood ratings", ratings, "notebook 05 not run or likelihood scoring off"),
        ("06's likelihood choices", pairs, "notebook 06 not run or likelihood scoring off"),
        ("13's log-probability judges", arms.judge_probs(judge), "notebook 13 not run or no judge:<spec>;logprob"),
        ("12's k-sampling runs", arms.order_units(runs), "notebook 12 not run or fewer than 2 sampled runs"),
        ("08's long-passage pairs", style_design(styles), "notebook 08 not run or no parsed own long-passage pair"))
        if not len(got)]
    lengths, failed = length_rows(judge, n_boot=n_boot)
    style_lengths, style_failed = style_length_rows(styles, n_boot=n_boot)
    # a server without likelihoods or log-probabilities leaves every arm empty: an empty table, not an error
    made = [t for t in (
        arms.balanced_pairwise(pairs), arms.balanced_judge(judge), arms.contextual_judge(judge, judge_prior),
        arms.contextual_pointwise(ratings, pw_prior), arms.temperature_pointwise(ratings, temperature), lengths,
        style_lengths, arms.order_averaged(runs))
        if len(t)]
    table = pd.concat(made, ignore_index=True) if made else arms._empty()
    return table.reindex(columns=arms.TABLE_COLUMNS), decomposition_rows(parsed), notes + failed + style_failed


def content_free_inputs(folder: Path) -> tuple[list[str], list[str]]:
    """(05's settings, 13's log-probability judge specs) found in the run folder: what to ask
    content-free inputs for."""
    ratings = inputs.pointwise_ratings(folder)
    judges = arms.judge_probs(inputs.judge_records(folder))
    return sorted(ratings["setting"].unique()) if len(ratings) else [], sorted(judges["spec"].unique()) if len(judges) else []
