"""Notebook 18's figure: each arm's reading before and after, per source and quantity, one panel per
model (the only module of the study that imports matplotlib)."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd


def before_after_figure(table: pd.DataFrame):
    """Dumbbells from before (open) to after (filled) per arm / source / quantity, with the paired
    difference's 95% interval drawn around the after point; a panel per model."""
    shown = table[table["quantity"] != "flipped"].dropna(subset=["before", "after"])
    models = list(dict.fromkeys(shown["model"])) or ["(no rows)"]
    fig, axes = plt.subplots(1, len(models), figsize=(5 * len(models), 0.35 * max(len(shown) // max(len(models), 1), 3) + 1.2),
                             squeeze=False)
    for ax, model in zip(axes[0], models):
        part = shown[shown["model"] == model].reset_index(drop=True)
        y = np.arange(len(part))
        ax.hlines(y, part["before"], part["after"], color="0.6")
        ax.plot(part["before"], y, "o", mfc="white", color="C0", label="before")
        ax.plot(part["after"], y, "o", color="C1", label="after")
        lo, hi = part["before"] + part["ci_low"], part["before"] + part["ci_high"]
        ok = lo.notna() & hi.notna()
        ax.hlines(y[ok], lo[ok], hi[ok], color="C1", lw=3, alpha=0.35)
        ax.set_yticks(y, [f"{a} {s} {q}" for a, s, q in zip(part["arm"], part["source"], part["quantity"])])
        ax.invert_yaxis()
        ax.set(title=str(model), xlabel="reading (rates: share; 05: rating points)")
        ax.legend(loc="best", fontsize="small")
    fig.tight_layout()
    return fig
