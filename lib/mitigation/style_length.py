"""Length control of 08's long passages (beyond the papers): the same 0/1 logistic fit as 13's generated
verdicts (`length_control.length_controlled`, statsmodels Logit), on the evaluator's own pairs of an
author's long rewrite against its normal one, the pairs 08's findings rows read (`is_self`).

One row per parsed verdict of a pair in one order: y = 1 where the reply used passage 1; regressors
position (the intercept), quality (+1 where passage 1 is the long passage, -1 where it is the normal
one: the style preference, one term), authorship (own passage 1 minus own passage 2, where it varies:
never on these pairs, both passages the evaluator's) and the length difference (passage 1 minus passage
2, per 100 words). Before: the share of verdicts naming the long passage; after: the mean fitted
probability of naming it with the length term at 0. A long rewrite is longer than its normal one in
every pair, so the length term is told from the style term only by how much longer it is: the fit
reads it from the spread of the differences (mostly between datasets, whose passages differ in
length), and one style term is pooled over datasets (a term per dataset would leave no spread).
A fit that fails is said and not reported."""
from __future__ import annotations

import numpy as np
import pandas as pd

from .arms import TABLE_COLUMNS
from .length_control import DESIGN_COLUMNS, N_BOOT, PER_WORDS, fitted_rows

KINDS = ("long",)  # 08's kinds length-controlled (gen-by-QA passages: authorship would be the style term)
STYLE_COLUMNS = DESIGN_COLUMNS[:-1] + ["own", "length"]


def style_design(records: pd.DataFrame, kind: str = "long") -> pd.DataFrame:
    """08's parsed verdicts on the evaluator's own `kind` pairs as regression rows: question, model
    (the evaluator), category (one), y, position, quality (toward the styled passage), own, length."""
    if not len(records) or "kind" not in records:
        return pd.DataFrame(columns=STYLE_COLUMNS)
    g = records[(records["kind"] == kind) & (records["a_author"] == records["evaluator"])
                & records["choice"].notna()]
    sign = np.where(g["order"] == "a_first", 1.0, -1.0)  # passage 1 is A (the styled one) or B
    own = (g["a_author"] == g["evaluator"]).astype(float) - (g["b_author"] == g["evaluator"]).astype(float)
    return pd.DataFrame({"question": g["question"], "model": g["evaluator"], "category": "",
                         "y": (g["choice"].astype(float) == 1).astype(float), "pos": 1.0, "quality": sign,
                         "own": sign * own.to_numpy(float),
                         "length": sign * (g["len_a"].astype(float) - g["len_b"].astype(float)).to_numpy() / PER_WORDS},
                        columns=STYLE_COLUMNS).reset_index(drop=True)


def style_length_rows(records: pd.DataFrame, n_boot: int = N_BOOT) -> tuple[pd.DataFrame, list[str]]:
    """One row per evaluator and kind of 08 (the long-passage preference before and after length
    control), and one sentence per failed fit."""
    rows, notes = [], []
    for kind in KINDS:
        got, failed = fitted_rows(style_design(records, kind), True, "08", kind,
                                  "{model}: 08's " + kind + "-passage length model did not fit (separated verdicts, "
                                  "no spread in length or a singular design); its length-controlled rate is not "
                                  "reported.", n_boot)
        rows, notes = rows + got, notes + failed
    return pd.DataFrame(rows, columns=TABLE_COLUMNS), notes
