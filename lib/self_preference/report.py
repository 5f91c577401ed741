"""Table views of notebooks 05 and 06 (so the notebooks hold parameters, calls and prose): the columns a
reader needs, the parse coverage line, and the v1 appendix tables. Their figures are in `figures.py`."""
from __future__ import annotations

import pandas as pd

TABLE2_COLUMNS = ["dataset", "evaluator", "setting", "human_true", "self_true", "self_false",
                  "diff_true_fmt", "diff_false_fmt", "n_true", "n_false"]
HMS_COLUMNS = ["dataset", "evaluator", "setting", "method", "n_true", "diff_true", "ci_low_true", "ci_high_true",
               "p_true", "n_false", "diff_false", "ci_low_false", "ci_high_false", "p_false"]
PREF_VIEW = r"^(method|dataset|evaluator|b_author|combo|order|n_valid|n_same_answer|n_unparsed|\w+_(n|n_items|rate|ci_low|ci_high|p|p_holm))$"


def pref_view(table: pd.DataFrame) -> pd.DataFrame:
    """The columns of a preference table a reader needs: keys, counts, rates, intervals, p."""
    return table.filter(regex=PREF_VIEW)


def coverage_line(ratings: pd.DataFrame) -> str:
    """One line: parse failures after retries and how often the reply-token expected score exists."""
    return (f"parse failures after retries: {1 - ratings['parsed'].mean():.1%}; reply-token expected score "
            f"available for {ratings['expected_score'].notna().mean():.1%} of replies")


V1_TABLES = {  # name: (combos kept, extra keys, preferences)
    "06_v1_table9_front": (None, [], ("order",)),
    "06_v1_table10_self_vs_order": (("TT", "FF"), ["order"], ("order", "self")),
    "06_v1_table11_fact_vs_self": (("TF", "FT"), [], ("fact", "self")),
    "06_v1_table13_both_false": (("FF",), ["order"], ("order", "self")),
}


def v1_tables(scored: pd.DataFrame) -> dict:
    """v1 Tables 9, 10, 11 and 13 from the scored pairs, per dataset x evaluator x other author."""
    from .tables import preference_table

    out = {}
    for name, (combos, extra, prefs) in V1_TABLES.items():
        pairs = scored if combos is None else scored[scored["combo"].isin(combos)]
        out[name] = preference_table(pairs, ["dataset", "evaluator", "b_author"] + extra, prefs=prefs)
    return out
