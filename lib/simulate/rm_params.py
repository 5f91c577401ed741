"""Planted parameters of the reward-model part (notebooks 14-15) and of the second simulated model:
the `answers` section of a truth file and its `models` section (one truth section per served model
name), read and checked here so truth_file.py only gains two fields."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

BASE_MODEL = "sim"  # the served model name the file's own sections describe


@dataclass(frozen=True)
class Answers:
    """Notebook 15: P(an answer states the gold answer) given good evidence (the item's true passage is
    among the references, no false passage) or bad evidence, as log-odds logit(p) + a question
    effect; the knockout judge decides between two answers with `rewardbench.accuracy[judge_category]`
    when one is right and the other wrong, and by position alone when both are alike."""

    good: float = 0.6
    bad: float = 0.2
    judge_category: str = "helpful"


def check_answers(a: Answers, categories, path) -> None:
    """Ranges of the answers section (a TruthError names the key)."""
    from .truth_file import TruthError

    for key in ("good", "bad"):
        if not 0 < getattr(a, key) < 1:
            raise TruthError(f"{path}: answers.{key} must be in (0, 1), got {getattr(a, key)}.")
    if a.judge_category not in categories:
        raise TruthError(f"{path}: answers.judge_category must be one of {list(categories)}, got {a.judge_category!r}.")


def check_models(truth, path) -> None:
    """Every model section names known sections and keys, and gives a valid truth."""
    from .truth_file import TruthError, check

    if not isinstance(truth.models, dict):
        raise TruthError(f"{path}: models must map a model name to its sections (see configs/known_truth.yaml).")
    for name in truth.models:
        if name == BASE_MODEL:
            raise TruthError(f"{path}: models.{name}: '{BASE_MODEL}' is described by the file's own sections.")
        check(for_model(truth, name), f"{path} (models.{name})")


def for_model(truth, name: str):
    """The truth of one served model: the file's sections with that model's section values over them
    (a model the file does not name, or 'sim', gets the file's own)."""
    from .truth_file import TruthError, _SECTIONS, _known

    over = (truth.models or {}).get(name)
    if not over:
        return truth
    _known(f"models.{name}", over, type(truth), "the model section")
    changes = {}
    for key, value in over.items():
        if key in ("models", "seed", "name"):
            raise TruthError(f"models.{name}: '{key}' is the file's own; a model section sets sections and rates.")
        if key in _SECTIONS:
            section = getattr(truth, key)
            _known(f"models.{name}", value, type(section), f"'{key}'")
            merged = dict(value)
            if isinstance(getattr(section, "accuracy", None), dict) and "accuracy" in merged:
                merged["accuracy"] = {**section.accuracy, **merged["accuracy"]}
            changes[key] = dataclasses.replace(section, **merged)
        else:
            changes[key] = value
    return dataclasses.replace(truth, models={}, **changes)


def model_names(truth) -> list[str]:
    """Every model name the truth file describes, 'sim' first."""
    return [BASE_MODEL, *[m for m in (truth.models or {}) if m != BASE_MODEL]]
