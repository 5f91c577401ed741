"""The planted parameters of the simulated judge: one YAML file (configs/known_truth*.yaml), read and
validated against the schema of its sections here (pydantic), so a misspelled or out-of-range
parameter stops with one message naming it; and the truth of each served model (the file's `models`
section: one set of section values per served model name)."""
from __future__ import annotations

import dataclasses
import math
from dataclasses import field
from pathlib import Path
from typing import Annotated, Literal

import yaml
from pydantic import Field, TypeAdapter, ValidationError, field_validator

from .likelihood_params import Knowledge, Perplexity
from .schema import Probability, Sd, Share, one_line, section
from .truth_error import TruthError
from .utility_model import Utility

RM_CATEGORIES = ("helpful", "reason", "citation", "harmless", "abstain", "conflict")
Category = Literal["helpful", "reason", "citation", "harmless", "abstain", "conflict"]
BASE_MODEL = "sim"  # the served model name the file's own sections describe


@section
class Pointwise:
    """Notebook 05: P(score s) is proportional to exp(-(s - mu)^2 / (2 spread^2)) over s = 1..5, with
    mu = base + own_shift [own passage] + true_shift [true passage] + a question effect (sd question_sd)
    + a passage effect (sd passage_sd, drawn once per passage text: two passages of one question differ
    by more than their roles, so a reading with no reply-level draw still varies between questions)."""

    base: float = 2.5
    own_shift: float = 0.6
    true_shift: float = 1.0
    spread: Annotated[float, Field(gt=0)] = 0.7
    question_sd: Sd = 0.3
    passage_sd: Sd = 0.2

    @property
    def rating_sd(self) -> float:
        """Sd of the latent rating around its planted mean: question and passage effects together."""
        return math.hypot(self.question_sd, self.passage_sd)


@section
class Pairwise:
    """Notebooks 06 and 08: log-odds of choosing passage 1 = position + self (own1 - own2) + factual
    (true1 - true2) + style (styled1 - styled2) + a question effect on the own passage's side; a
    styled passage is one the simulator wrote as a gen-by-QA or long passage. 08's pairs (a styled
    passage shown) add length (words1 - words2) / 100; 06's pairs, both of normal style, carry none."""

    position: float = 0.4
    self: float = 0.6
    factual: float = 1.5
    style: float = 0.0
    length: float = 0.0  # log-odds per 100 words toward the longer passage of 08's pairs (self_preference/style_length.py)


@section
class RewardBench:
    """Notebook 13: log-odds of naming the chosen response = logit(accuracy[category]) + position
    (chosen shown first: +, second: -) + length (chosen minus rejected words / 100) + a pair effect."""

    accuracy: dict[Category, Probability] = field(default_factory=lambda: {c: 0.75 for c in RM_CATEGORIES})
    position: float = 0.4
    length: float = 0.0  # log-odds per 100 words toward the longer response (lib/simulate/rewardbench/length.py)


@section
class Answers:
    """Notebook 15: P(an answer states the gold answer) given good evidence (the item's true passage is
    among the references, no false passage) or bad evidence, as log-odds logit(p) + a question
    effect; the knockout judge decides between two answers with `rewardbench.accuracy[judge_category]`
    when one is right and the other wrong, and by position alone when both are alike."""

    good: Probability = 0.6
    bad: Probability = 0.2
    judge_category: Category = "helpful"


@section
class Truth:
    """Every planted parameter (docs/known_truth.md lists them)."""

    name: str = "known_truth"
    seed: int = 0
    icc: Share = 0.15
    format_failure: Share = 0.05
    self_recognition: Literal["normal", "inverted"] = "normal"
    pointwise: Pointwise = field(default_factory=Pointwise)
    pairwise: Pairwise = field(default_factory=Pairwise)
    rewardbench: RewardBench = field(default_factory=RewardBench)
    perplexity: Perplexity = field(default_factory=Perplexity)
    knowledge: Knowledge = field(default_factory=Knowledge)
    utility: Utility = field(default_factory=Utility)  # notebooks 09-12 (utility_model)
    answers: Answers = field(default_factory=Answers)  # notebook 15
    models: dict[str, dict] = field(default_factory=dict)  # a second served model's sections (`for_model`)

    @field_validator("models")
    @classmethod
    def _not_the_base(cls, models: dict) -> dict:
        if BASE_MODEL in models:
            raise ValueError(f"'{BASE_MODEL}' is described by the file's own sections")
        return models

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
_OWN = ("models", "seed", "name")  # the file's own keys, which a model section may not set
_SCHEMA = TypeAdapter(Truth)


def validated(raw, where) -> Truth:
    """A Truth from a mapping of sections (an empty section: its defaults), or a TruthError naming
    `where` and the field."""
    if not isinstance(raw, dict):
        raise TruthError(f"{where}: a truth file must be a YAML mapping (see configs/known_truth.yaml).")
    try:
        return _SCHEMA.validate_python({k: v for k, v in raw.items() if not (k in _SECTIONS and v is None)})
    except ValidationError as e:
        raise one_line(e, str(where), Truth) from None


def load_truth(path) -> Truth:
    """Read and validate a truth file, and the truth of every model it names."""
    path = Path(path)
    if not path.exists():
        raise TruthError(f"truth file {path} does not exist; see configs/known_truth.yaml for the layout.")
    truth = validated(yaml.safe_load(path.read_text()) or {}, path)
    for name in truth.models:
        for_model(truth, name, where=path)
    return truth


def for_model(truth, name: str, where="truth"):
    """The truth of one served model: the file's sections with that model's section values over them
    (a model the file does not name, or 'sim', gets the file's own); a TruthError names the model's
    field that fails the schema."""
    over = (truth.models or {}).get(name)
    if not over:
        return truth
    own = sorted(k for k in over if k in _OWN) if isinstance(over, dict) else []
    if own:
        raise TruthError(f"{where}: models.{name}: {own} are the file's own; a model section sets sections and rates.")
    raw = {k: v for k, v in dataclasses.asdict(truth).items() if k != "models"}
    for key, value in (over.items() if isinstance(over, dict) else ()):
        if isinstance(value, dict) and isinstance(raw.get(key), dict):
            merged = {**raw[key], **value}
            if isinstance(raw[key].get("accuracy"), dict) and isinstance(value.get("accuracy"), dict):
                merged["accuracy"] = {**raw[key]["accuracy"], **value["accuracy"]}  # merged, not replaced
            raw[key] = merged
        else:
            raw[key] = value
    return validated(raw if isinstance(over, dict) else over, f"{where}: models.{name}")


def model_names(truth) -> list[str]:
    """Every model name the truth file describes, 'sim' first."""
    return [BASE_MODEL, *[m for m in (truth.models or {}) if m != BASE_MODEL]]
