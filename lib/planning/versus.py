"""A plan against what the run did: per notebook x model, planned and booked requests and tokens, from
the cost ledger each notebook writes (data/runs/<run>/cache_stats/<notebook>_cost.csv)."""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from .designs import GENERATE, OPTIONS, TOPK


def actual(run_folder: Path) -> pd.DataFrame:
    """Booked requests and tokens per notebook x model (cached results included, as the ledger counts)."""
    parts = []
    for f in sorted((Path(run_folder) / "cache_stats").glob("*_cost.csv")):
        df = pd.read_csv(f)
        if len(df):
            parts.append(df.assign(notebook=f.name.removesuffix("_cost.csv")))
    if not parts:
        return pd.DataFrame(columns=["notebook", "model", "requests", "tokens_in", "tokens_out"])
    got = pd.concat(parts, ignore_index=True)
    return got.groupby(["notebook", "model"], as_index=False)[["requests", "tokens_in", "tokens_out"]].sum()


def versus(plan, run_folder: Path) -> pd.DataFrame:
    """Planned against booked, per notebook x model; tokens compared where every planned request
    reports its prompt tokens (generation and option log-probabilities: a likelihood reports only
    its continuation's, a perplexity none)."""
    rows = [{"notebook": r.notebook, "model": r.model, "planned": r.requests, "planned_in": r.tokens_in,
             "planned_out": r.tokens_out, "planned_out_max": r.tokens_out_max,
             "comparable": set(r.kinds) <= {GENERATE, OPTIONS, TOPK}} for r in plan.rows]
    planned = pd.DataFrame(rows)
    got = actual(run_folder).rename(columns={"requests": "booked", "tokens_in": "booked_in", "tokens_out": "booked_out"})
    both = planned.merge(got, on=["notebook", "model"], how="outer").fillna(
        {"planned": 0, "booked": 0, "comparable": False})
    return both


def summary(table: pd.DataFrame) -> dict:
    """Total requests planned and booked, and prompt / completion tokens over comparable rows."""
    table = table[table["notebook"].isin(set(table.loc[table["booked"] > 0, "notebook"]))]  # notebooks that ran
    comp = table[table["comparable"].astype(bool)]
    return {"planned": int(table["planned"].sum()), "booked": int(table["booked"].sum()),
            "requests_error": float(table["planned"].sum() / max(table["booked"].sum(), 1) - 1),
            "planned_in": int(comp["planned_in"].sum()), "booked_in": int(comp["booked_in"].sum()),
            "tokens_in_error": float(comp["planned_in"].sum() / max(comp["booked_in"].sum(), 1) - 1),
            "planned_out": int(comp["planned_out"].sum()), "planned_out_max": int(comp["planned_out_max"].sum()),
            "booked_out": int(comp["booked_out"].sum())}
