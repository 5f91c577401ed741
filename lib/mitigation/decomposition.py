"""Self-preference decomposed (06's true / false combinations, the paper's parsed choices): voting for
one's own wrong passage (harmful: own false, other true, combination FT) beside voting for another
author's wrong passage (the baseline: own true, other false, TF), per question, evaluator and other
author. With two passages the legitimate part (own true chosen over another's false) is one minus the
baseline, so the harmful excess H - B also equals the legitimate part minus its own baseline."""
from __future__ import annotations

import pandas as pd

from lib.stats import clustered_mean

from .paired import paired_difference

UNIT = ["question", "evaluator", "b_author"]
COLUMNS = ["quantity", "model", "n", "n_judgments", "estimate", "ci_low", "ci_high", "p", "ci_note"]


def decomposition_units(pairs: pd.DataFrame) -> pd.DataFrame:
    """Per question, evaluator and other author: harmful = share choosing the own passage in FT (own
    false), baseline = share choosing the other's passage in TF (other false), legitimate = share
    choosing the own passage in TF (own true), each over both orders."""
    if not len(pairs):
        return pd.DataFrame(columns=UNIT + ["harmful", "baseline", "legitimate"])
    own = pairs.groupby(UNIT + ["combo"])["chose_a"].mean().unstack("combo")
    for combo in ("FT", "TF"):
        if combo not in own:
            own[combo] = float("nan")
    got = pd.DataFrame({"harmful": own["FT"], "baseline": 1 - own["TF"], "legitimate": own["TF"]})
    # a unit lacking either combination leaves the comparison: every part is read on the same units
    return got.dropna(subset=["harmful", "baseline"]).reset_index()


def decomposition_rows(pairs: pd.DataFrame) -> pd.DataFrame:
    """Harmful and legitimate rates (no test), and the harmful excess H - B paired on the question
    (clustered interval, tested against 0: the baseline own-wrong vs another's-wrong comparison)."""
    u = decomposition_units(pairs)
    rows = []
    for model, g in u.groupby("evaluator", sort=False):
        for q in ("harmful", "baseline", "legitimate"):
            c = clustered_mean(g[q].to_numpy(float), g["question"], method="bootstrap")
            rows.append({"quantity": q, "model": model, "n": c["n_items"], "n_judgments": c["n_judgments"],
                         "estimate": c["estimate"], "ci_low": c["ci_low"], "ci_high": c["ci_high"], "p": float("nan"),
                         "ci_note": c["ci_note"]})
        d = paired_difference(g["baseline"], g["harmful"], g["question"])
        rows.append({"quantity": "harmful_excess", "model": model, "n": d["n"], "n_judgments": d["n_judgments"],
                     "estimate": d["diff"], "ci_low": d["ci_low"], "ci_high": d["ci_high"], "p": d["p"],
                     "ci_note": d["ci_note"]})
    return pd.DataFrame(rows, columns=COLUMNS)
