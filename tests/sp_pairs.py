"""Synthetic generation-phase pairs for the statistics tests: every question x TT/TF/FT/FF x both orders."""
import pandas as pd

from lib.self_preference import pairwise as pr


def all_combo_pairs(n_items: int, paper, lik) -> pd.DataFrame:
    """Pairs in `score_pairs` columns; paper(a_pos, true_pos, asym) and lik(...) give each method's
    choice (1, 2 or None); the likelihood decides only pairs with two answers (asym)."""
    rows = []
    for i in range(n_items):
        for combo in pr.COMBOS:
            for order in pr.ORDERS:
                a_fact, b_fact = ("true" if combo[0] == "T" else "false"), ("true" if combo[1] == "T" else "false")
                a_pos, asym = (1 if order == "a_first" else 2), a_fact != b_fact
                true_pos = a_pos if a_fact == "true" else 3 - a_pos
                choice = lik(a_pos, true_pos, asym) if asym else None
                rows.append({"item_id": f"q{i}", "dataset": "nq", "evaluator": "smollm2", "b_author": "human",
                             "combo": combo, "order": order, "a_fact": a_fact, "b_fact": b_fact, "status": "ok",
                             "design": "answer" if asym else "number", "method": "answer",
                             "choice": paper(a_pos, true_pos, asym), "lik_choice": choice, "lik_choice_norm": choice})
    df = pd.DataFrame(rows)
    for c in ("choice", "lik_choice", "lik_choice_norm"):
        df[c] = pd.array(df[c], dtype="Int64")
    return pr.derive_preferences(df)
