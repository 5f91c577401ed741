"""The planted parameters of the simulated judge: one YAML file (configs/known_truth*.yaml), read and
checked here, so a misspelled or out-of-range parameter stops with one message naming it; and the truth
of each served model (the file's `models` section: one set of section values per served model name)."""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from .likelihood_params import Knowledge, Perplexity, check_sections
from .truth_error import TruthError
from .utility_model import Utility

RM_CATEGORIES = ("helpful", "reason", "citation", "harmless", "abstain", "conflict")
BASE_MODEL = "sim"  # the served model name the file's own sections describe


@dataclass(frozen=True)
class Pointwise:
    """Notebook 05: P(score s) is proportional to exp(-(s - mu)^2 / (2 spread^2)) over s = 1..5, with
    mu = base + own_shift [own passage] + true_shift [true passage] + a question effect (sd question_sd)
    + a passage effect (sd passage_sd, drawn once per passage text: two passages of one question differ
    by more than their roles, so a reading with no reply-level draw still varies between questions)."""

    base: float = 2.5
    own_shift: float = 0.6
    true_shift: float = 1.0
    spread: float = 0.7
    question_sd: float = 0.3
    passage_sd: float = 0.2

    @property
    def rating_sd(self) -> float:
        """Sd of the latent rating around its planted mean: question and passage effects together."""
        return math.hypot(self.question_sd, self.passage_sd)


@dataclass(frozen=True)
class Pairwise:
    """Notebooks 06 and 08: log-odds of choosing passage 1 = position + self (own1 - own2) + factual
    (true1 - true2) + style (styled1 - styled2) + a question effect on the own passage's side; a
    styled passage is one the simulator wrote as a gen-by-QA or long passage."""

    position: float = 0.4
    self: float = 0.6
    factual: float = 1.5
    style: float = 0.0


@dataclass(frozen=True)
class RewardBench:
    """Notebook 13: log-odds of naming the chosen response = logit(accuracy[category]) + position
    (chosen shown first: +, second: -) + a pair effect."""

    accuracy: dict = field(default_factory=lambda: {c: 0.75 for c in RM_CATEGORIES})
    position: float = 0.4


@dataclass(frozen=True)
class Answers:
    """Notebook 15: P(an answer states the gold answer) given good evidence (the item's true passage is
    among the references, no false passage) or bad evidence, as log-odds logit(p) + a question
    effect; the knockout judge decides between two answers with `rewardbench.accuracy[judge_category]`
    when one is right and the other wrong, and by position alone when both are alike."""

    good: float = 0.6
    bad: float = 0.2
    judge_category: str = "helpful"


@dataclass(frozen=True)
class Truth:
    """Every planted parameter (docs/known_truth.md lists them)."""

    name: str = "known_truth"
    seed: int = 0
    icc: float = 0.15
    format_failure: float = 0.05
    self_recognition: str = "normal"
    pointwise: Pointwise = field(default_factory=Pointwise)
    pairwise: Pairwise = field(default_factory=Pairwise)
    rewardbench: RewardBench = field(default_factory=RewardBench)
    perplexity: Perplexity = field(default_factory=Perplexity)
    knowledge: Knowledge = field(default_factory=Knowledge)
    utility: Utility = field(default_factory=Utility)  # notebooks 09-12 (utility_model)
    answers: Answers = field(default_factory=Answers)  # notebook 15
    models: dict = field(default_factory=dict)  # a second served model's sections (`for_model`)

    @property
    def question_sd(self) -> float:
        """Sd of the question effect on the logit scale implied by the ICC of a latent-logistic
        model: icc = s^2 / (s^2 + pi^2 / 3)."""
        return math.sqrt(self.icc / (1 - self.icc) * math.pi ** 2 / 3)

    @property
    def inverted(self) -> bool:
        """The planted defect: the simulator takes others' texts as its own and its own as others'."""
        return self.self_recognition == "inverted"


_SECTIONS = {"pointwise": Pointwise, "pairwise": Pairwise, "rewardbench": RewardBench, "perplexity": Perplexity,
             "knowledge": Knowledge, "utility": Utility, "answers": Answers}


def _known(path, raw, cls, where: str = "") -> dict:
    """`raw` as a mapping whose keys are all fields of `cls`, else a TruthError naming the key."""
    raw = raw or {}
    if not isinstance(raw, dict):
        raise TruthError(f"{path}: {where or 'a truth file'} must be a YAML mapping (see configs/known_truth.yaml).")
    allowed = set(cls.__dataclass_fields__)
    unknown = sorted(set(raw) - allowed)
    if unknown:
        raise TruthError(f"{path}: unknown key(s) {unknown}{' under ' + where if where else ''}; "
                         f"allowed: {sorted(allowed)}.")
    return raw


def load_truth(path) -> Truth:
    """Read and check a truth file."""
    path = Path(path)
    if not path.exists():
        raise TruthError(f"truth file {path} does not exist; see configs/known_truth.yaml for the layout.")
    raw = _known(path, yaml.safe_load(path.read_text()), Truth)
    sections = {k: cls(**_known(path, raw.get(k), cls, f"'{k}'")) for k, cls in _SECTIONS.items()}
    truth = Truth(**{k: v for k, v in raw.items() if k not in _SECTIONS}, **sections)
    check(truth, path)
    return truth


def check(truth: Truth, path="truth") -> None:
    """Ranges: probabilities in their intervals, a known self-recognition mode, known RM categories."""
    if not 0 <= truth.icc < 1:
        raise TruthError(f"{path}: icc must be in [0, 1), got {truth.icc}.")
    if not 0 <= truth.format_failure < 1:
        raise TruthError(f"{path}: format_failure must be in [0, 1), got {truth.format_failure}.")
    if truth.self_recognition not in ("normal", "inverted"):
        raise TruthError(f"{path}: self_recognition must be 'normal' or 'inverted', got {truth.self_recognition!r}.")
    if truth.pointwise.spread <= 0 or truth.pointwise.question_sd < 0 or truth.pointwise.passage_sd < 0:
        raise TruthError(f"{path}: pointwise.spread must be > 0, question_sd and passage_sd >= 0.")
    truth.utility.check(path)
    acc = truth.rewardbench.accuracy
    bad = sorted(set(acc) - set(RM_CATEGORIES))
    if bad:
        raise TruthError(f"{path}: rewardbench.accuracy has unknown categories {bad}; use {list(RM_CATEGORIES)}.")
    for cat, p in acc.items():
        if not 0 < p < 1:
            raise TruthError(f"{path}: rewardbench.accuracy.{cat} must be in (0, 1), got {p}.")
    check_sections(truth.perplexity, truth.knowledge, path, TruthError)
    check_answers(truth.answers, RM_CATEGORIES, path)
    check_models(truth, path)


def check_answers(a: Answers, categories, path) -> None:
    """Ranges of the answers section (a TruthError names the key)."""
    for key in ("good", "bad"):
        if not 0 < getattr(a, key) < 1:
            raise TruthError(f"{path}: answers.{key} must be in (0, 1), got {getattr(a, key)}.")
    if a.judge_category not in categories:
        raise TruthError(f"{path}: answers.judge_category must be one of {list(categories)}, got {a.judge_category!r}.")


def check_models(truth, path) -> None:
    """Every model section names known sections and keys, and gives a valid truth."""
    if not isinstance(truth.models, dict):
        raise TruthError(f"{path}: models must map a model name to its sections (see configs/known_truth.yaml).")
    for name in truth.models:
        if name == BASE_MODEL:
            raise TruthError(f"{path}: models.{name}: '{BASE_MODEL}' is described by the file's own sections.")
        check(for_model(truth, name), f"{path} (models.{name})")


def for_model(truth, name: str):
    """The truth of one served model: the file's sections with that model's section values over them
    (a model the file does not name, or 'sim', gets the file's own)."""
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
