"""Notebook 08's headline quantities for the run's findings table (lib.report.findings): the preference for
a styled passage (v2 appendix A, Tables 4 and 5) in the paper's setting, the evaluator's own passages."""
from __future__ import annotations

import pandas as pd

from lib.report.measures import declared_finding

from .tables import UNIT

# v2 Tables 4 and 5 name these preferences; `kind` as lib.self_preference.pairwise.STYLE_COMPARISONS has it
STYLE_LABELS = {"gen_by_qa": "gen-by-QA preference rate (own QA-written passage vs the human one)",
                "long": "long-passage preference rate (own long passage vs own normal one)"}


def style_findings(style_table: pd.DataFrame, specs: dict, notebook: str = "08_writing_style") -> list[dict]:
    """One row per kind x dataset x evaluator of `style_table` (notebook 08's, `style_*` columns of
    `tables.preference_table`) where the styled passage is the evaluator's own (`is_self`): the share
    of valid pairs (both orders) that used the styled passage, interval and test against 50% over
    questions. `specs` maps author names to evaluator specs."""
    rows = []
    if style_table is None or style_table.empty:
        return rows
    for r in style_table[style_table["is_self"].astype(bool)].to_dict("records"):
        label = STYLE_LABELS.get(r["kind"], f"{r['kind']} preference rate")
        rows.append(declared_finding("self-preference", notebook, f"{label} ({r['dataset']})",
                            specs.get(r["evaluator"], r["evaluator"]), int(r["style_n_items"]), r["style_rate"],
                            _opt(r["style_ci_low"]), _opt(r["style_ci_high"]), _opt(r["style_p"]),
                            n_judgments=max(int(r["style_n"]), int(r["style_n_items"])), unit=UNIT,
                            measure_id=f"style_preference.{r['kind']}.{r['dataset']}", scale="share 0-1",
                            direction="higher = prefers the styled passage more (0.5 = chance)",
                            no_interval="" if int(r["style_n_items"]) else "no pair gave a readable choice"))
    return rows


def _opt(x):
    """None for a missing number (lib.report.findings takes None as 'no value')."""
    return None if x is None or pd.isna(x) else float(x)
