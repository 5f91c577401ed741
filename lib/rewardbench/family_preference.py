"""Beyond the paper: does a reward model prefer responses written by its own model family?

The self-preference lens of our core study, applied to pairs whose responses carry their authors
(`chosen_model` / `rejected_model`). Among pairs where exactly one response comes from the judge's
family, we report how often the judge picks that response, split by whether it is the chosen or
the rejected one. Against accuracy on the same split, a self-preferring judge is right more often
when its family wrote the chosen response and wrong more often when its family wrote the rejected one.
"""
from __future__ import annotations

import re

import numpy as np
import pandas as pd

from lib.stats import bootstrap_ci

# families whose model names do not start with the family word
_ALIASES = {"meta": "llama", "mixtral": "mistral", "chatgpt": "gpt", "o1": "gpt", "o3": "gpt",
            "smollm": "smollm", "tulu": "llama", "nemotron": "llama"}


def family(model_name: str) -> str:
    """Model family from a name: 'Llama-3.1-8B-Instruct' -> 'llama', 'gpt-4o-mini' -> 'gpt'."""
    name = str(model_name).lower().split("/")[-1]
    if re.match(r"o\d", name):
        return "gpt"
    words = re.findall(r"[a-z]+", name)
    if not words:
        return ""
    head = words[1] if words[0] == "meta" and len(words) > 1 else words[0]
    return _ALIASES.get(head, head)


def self_preference_table(results: pd.DataFrame, rm_family: dict[str, str]) -> pd.DataFrame:
    """Per rm: pairs where its family wrote exactly one response; how often it picks that one."""
    rows = []
    for rm, res in results.groupby("rm", sort=False):
        fam = rm_family.get(rm, "")
        own_c = res["chosen_model"].map(family) == fam
        own_r = res["rejected_model"].map(family) == fam
        for label, mask, picks_own in (("own is chosen", own_c & ~own_r, res["correct"]),
                                       ("own is rejected", own_r & ~own_c, res["p_rejected"])):
            part = picks_own[mask]
            low, high = bootstrap_ci(part) if len(part) > 1 else (np.nan, np.nan)
            rows.append({"rm": rm, "family": fam, "split": label, "pairs": int(mask.sum()),
                         "picks_own": part.mean() if len(part) else np.nan,
                         "ci_low": low, "ci_high": high})
    return pd.DataFrame(rows)


def rm_families(specs) -> dict[str, str]:
    """Table name -> model family for reward-model specs (a hub id's last part for `rm:`)."""
    from lib.models.specs import parse_reward_spec

    out = {}
    for spec in specs:
        parsed = parse_reward_spec(spec)
        out[parsed.name] = family(parsed.model.model if parsed.model is not None else parsed.head)
    return out
