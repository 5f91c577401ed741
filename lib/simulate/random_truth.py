"""Random planted-parameter files for `validate --random N`: every parameter drawn from a declared
range (RANGES), so the check is tried on truths unlike the project's own files. Every effect's range
holds its null inside, so over the draws each effect lands on both sides of it (the drawer alternates
the side per draw and parameter, so even two draws see both), and one draw in NULL_EVERY plants
every effect of a section at its null exactly."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import yaml

from .core.truth_file import RM_CATEGORIES, load_truth

NULL_EVERY = 5  # every 5th draw plants one study's effects at their nulls (a false detection shows)
# (low, high) of each planted parameter; (null, low, high) for an effect with a null: its side
# alternates between draws, its size is uniform on the chosen side
RANGES = {
    "icc": (0.0, 0.4),
    "format_failure": (0.0, 0.2),
    "pointwise": {"base": (2.0, 4.0), "own_shift": (0.0, -1.0, 1.0), "true_shift": (0.0, -1.2, 1.2),
                  "spread": (0.6, 1.0), "question_sd": (0.0, 0.8)},
    "pairwise": {"position": (0.0, -1.0, 1.0), "self": (0.0, -1.2, 1.2), "factual": (0.0, -2.0, 2.0),
                 "style": (0.0, -1.5, 1.5)},
    "rewardbench": {"accuracy": (0.5, 0.3, 0.95), "position": (0.0, -1.0, 1.0), "length": (0.0, -2.5, 2.5)},
    "perplexity": {"own_logprob": (-3.2, -1.8), "other_logprob": (-3.2, -1.8), "text_sd": (0.1, 0.4)},
    "knowledge": {"accuracy": (0.2, 0.85), "question_sd": (0.5, 2.0)},
    "utility": {"select": (-3.0, 3.0), "position": (0.0, -1.0, 1.0), "answer_good": (-2.0, 2.0),
                "answer_bad": (-2.0, 2.0), "answer_partial": (0.0, 0.8), "answer_keep": (0.2, 0.8)},
    "answers": {"good": (0.1, 0.9), "bad": (0.1, 0.9)},
}
KNOWLEDGE_SETS = ("nq", "marco", "triviaqa")
UTILITY_ROLES = ("ground_truth", "counterfactual", "distractor")


class _Drawer:
    """Draws of one file: uniform in a range, or an effect on the side its turn gives."""

    def __init__(self, seed: int, index: int):
        self.rng, self.index, self.turn = np.random.default_rng([seed, index]), index, 0

    def uniform(self, low: float, high: float) -> float:
        return round(float(self.rng.uniform(low, high)), 3)

    def effect(self, null: float, low: float, high: float) -> float:
        # sides alternate with the draw index, shifted per parameter so a draw mixes both sides
        self.turn += 1
        above = (self.index + self.turn) % 2 == 0
        return self.uniform(null, high) if above else self.uniform(low, null)

    def pick(self, r):
        return self.effect(*r) if len(r) == 3 else self.uniform(*r)


def draw_truth(seed: int, index: int) -> dict:
    """One random truth file (as a mapping) of draw `index` under `seed`."""
    d, R = _Drawer(seed, index), RANGES
    nulled = ("pointwise", "pairwise", "rewardbench", "utility")[index // NULL_EVERY % 4] \
        if index % NULL_EVERY == NULL_EVERY - 1 else None

    def section(name, keys):
        return {k: (R[name][k][0] if nulled == name and len(R[name][k]) == 3 else d.pick(R[name][k])) for k in keys}

    pointwise = section("pointwise", ("base", "own_shift", "true_shift", "spread", "question_sd"))
    pairwise = section("pairwise", ("position", "self", "factual", "style"))

    # the length term comes from a stream of its own, so adding it left every other draw as it was
    lengths = _Drawer(seed + 7919, index)

    def judge():
        acc = R["rewardbench"]["accuracy"]
        return {"accuracy": {c: 0.5 if nulled == "rewardbench" else d.pick(acc) for c in RM_CATEGORIES},
                "position": 0.0 if nulled == "rewardbench" else d.pick(R["rewardbench"]["position"]),
                "length": 0.0 if nulled == "rewardbench" else lengths.pick(R["rewardbench"]["length"])}
    rb, second = judge(), judge()
    sd = d.uniform(*R["perplexity"]["text_sd"])
    perplexity = {"own_logprob": d.uniform(*R["perplexity"]["own_logprob"]),
                  "other_logprob": d.uniform(*R["perplexity"]["other_logprob"]), "text_sd": sd, "filler": -0.05}
    knowledge = {"accuracy": {s: d.uniform(*R["knowledge"]["accuracy"]) for s in KNOWLEDGE_SETS},
                 "question_sd": d.uniform(*R["knowledge"]["question_sd"])}
    U = R["utility"]
    if nulled == "utility":
        same = d.uniform(*U["select"])
        utility = {"select_utility": dict.fromkeys(UTILITY_ROLES, same), "select_relevance": dict.fromkeys(UTILITY_ROLES, same),
                   "position": 0.0, "answer_good": (g := d.uniform(*U["answer_good"])), "answer_bad": g}
    else:
        utility = {"select_utility": {r: d.uniform(*U["select"]) for r in UTILITY_ROLES},
                   "select_relevance": {r: d.uniform(*U["select"]) for r in UTILITY_ROLES},
                   "position": d.pick(U["position"]), "answer_good": d.uniform(*U["answer_good"]),
                   "answer_bad": d.uniform(*U["answer_bad"])}
    utility.update(answer_partial=d.uniform(*U["answer_partial"]), answer_keep=d.uniform(*U["answer_keep"]))
    answers = {"good": d.uniform(*R["answers"]["good"]), "bad": d.uniform(*R["answers"]["bad"]),
               "judge_category": RM_CATEGORIES[int(d.rng.integers(len(RM_CATEGORIES)))]}
    return {"name": f"random_{seed}_{index}", "seed": int(seed * 1000 + index),
            "icc": d.uniform(*R["icc"]), "format_failure": d.uniform(*R["format_failure"]),
            "self_recognition": "normal", "pointwise": pointwise, "pairwise": pairwise, "rewardbench": rb,
            "perplexity": perplexity, "knowledge": knowledge, "utility": utility, "answers": answers,
            "models": {"sim_b": {"rewardbench": second}}}


def write_truths(folder, n: int, seed: int = 0) -> list[Path]:
    """Write n random truth files into `folder` (each checked by the truth file's own reader)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for i in range(n):
        path = folder / f"random_{seed}_{i}.yaml"
        path.write_text("# drawn by lib.simulate random_truth (validate --random)\n"
                        + yaml.safe_dump(draw_truth(seed, i), sort_keys=False))
        load_truth(path)
        out.append(path)
    return out
