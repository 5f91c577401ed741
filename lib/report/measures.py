"""The measure registry: every findings measure declared once, next to the code that computes it.

Each study package has a `measures` module with a `MEASURES` tuple of `Measure`s (and, for the bias
card, `CARD` rows). Generic layers (findings, compare, profile, the runner) read them from here and
hold no measure id or notebook name of their own. A declaration's `pattern` is a measure_id, or a
family of them with `{field}` parts (`human_minus_self.{dataset}.{setting}.self_{fact}.{method}`);
a measure_id belongs to the first declaration whose pattern matches it.
"""
from __future__ import annotations

import importlib
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Callable

import pandas as pd

# the study packages that declare measures, in findings order
STUDY_MODULES = ("lib.self_preference.measures", "lib.utility.measures", "lib.rewardbench.measures",
                 "lib.mitigation.measures")
# per-unit values a measure's `units` function returns (one row per measure_id, model and unit)
UNIT_COLUMNS = ["measure_id", "model", "unit_id", "stratum", "value"]
# a reader may add `cluster`: what intervals resample when several units share a source (the question
# several pairs were built from); without it, or blank, the unit itself
CLUSTERED_UNIT_COLUMNS = UNIT_COLUMNS + ["cluster"]
READINGS = ("primary", "secondary")
# one judgment as the inspector (lib.inspect) shows it, what a `Judgments.read` returns: `counted` says
# whether it enters the findings row (a unit with a counted judgment is one of n); `pair_id` joins a
# pairwise judgment's two orders; `flipped` marks a pair whose verdict changed with the order;
# `own_chosen` / `false_chosen` whether the chosen passage is the judge's own / the false one; `prompt` is
# the text or a function of no argument that gives it (called only for the judgments a page shows)
JUDGMENT_COLUMNS = ["measure_id", "model", "unit_id", "stratum", "counted", "pair_id", "order", "prompt", "reply",
                    "attempts", "parsed", "reason", "author_1", "fact_1", "author_2", "fact_2", "own_chosen",
                    "false_chosen", "flipped"]


@dataclass(frozen=True)
class Judgments:
    """Where a measure's judgments are kept in a run and how the inspector reads them: the records file
    in the run folder, the record fields whose values name the unit n counts, and the reader."""

    records: str  # file name in the run folder (the notebook writes it)
    unit_key: tuple[str, ...]  # record fields that make the unit id (joined by "|")
    # read(run_folder, measure_id, notebook_parameters) -> JUDGMENT_COLUMNS, every model of the run
    read: Callable[[Path, str, dict], pd.DataFrame]
    pairwise: bool = False  # judgments come in two orders of one pair, shown side by side


@dataclass(frozen=True)
class Measure:
    """One findings measure (or a family of them): what it is, how it reads, how runs pair on it."""

    pattern: str  # measure_id, or a family with {field} parts
    name: str  # readable name
    study: str
    notebook: str  # the notebook that writes its rows
    unit: str  # the independent unit n counts: question, item, pair
    null: float | None  # the value of "no effect" (None: no null, no test)
    reading: str = "primary"  # "primary": the paper's reading; "secondary": beyond the paper
    holm: bool = True  # whether its tested rows enter a Holm family (`holm_family`)
    # the Holm family its tested rows enter: "" is the study's own family, which holds only primary
    # readings (one reading per quantity); a secondary reading with a test names its own family, so
    # it is tested beside the other secondary readings, never beside the reading it repeats
    family: str = ""
    method: str = "generate-and-parse"  # how a reply is read: "generate-and-parse" (the papers') or "likelihood"
    axis: str = ""  # how to read its axis in a figure
    # per-unit values for paired differences across runs: units(run_folder, notebook_parameters) -> UNIT_COLUMNS
    units: Callable[[Path, dict], pd.DataFrame] | None = None
    unit_key: str = ""  # the unit paired values are keyed on, when it differs from `unit`
    # weights of the strata of paired units ({stratum: count} -> {stratum: weight}); None: unstratified
    strata_weights: Callable[[dict], dict] | None = None
    # the simulator's function that gives its truth, "module:function" ({measure_id: (notebook, truth,
    # null)}): a name, never an import (studies may not import lib.simulate), resolved by the simulator
    truth: str = ""
    # why the simulator (lib.simulate) plants no truth for it, when `truth` is empty
    # (tests/simulate/test_truth_registry.py: exactly one of the two)
    no_truth: str = ""
    # the judgments behind its rows (lib.inspect), or why a run keeps none ("" when `judgments` is given;
    # tests/inspect/test_registry_judgments.py: one or the other)
    judgments: Judgments | None = None
    no_judgments: str = ""

    def __post_init__(self):
        if self.reading not in READINGS:
            raise ValueError(f"{self.pattern}: reading must be one of {READINGS}, got {self.reading!r}.")

    @property
    def primary(self) -> bool:
        """Whether this is the paper's reading (findings' `primary`)."""
        return self.reading == "primary"

    @property
    def holm_family(self) -> str:
        """The family its tested rows enter (findings' `family`): "" without a null or outside Holm, else
        the declared `family`, or the study's for a primary reading and none for a secondary one."""
        if self.null is None or not self.holm:
            return ""
        return self.family or (self.study if self.primary else "")

    @property
    def kind(self) -> str:
        """The family's first id part: 'human_minus_self' of 'human_minus_self.{dataset}...'."""
        return re.split(r"[.{]", self.pattern)[0].rstrip("_")

    def matches(self, measure_id: str) -> bool:
        """Whether a measure_id belongs to this declaration."""
        return _regex(self.pattern).fullmatch(str(measure_id)) is not None


@dataclass(frozen=True)
class Reference:
    """One printed number of a paper for a card row, in the row's own scale."""

    paper: str
    table: str
    row: str
    column: str
    model: str  # the paper's model behind the number
    scale: float = 1.0  # printed value x scale = the row's scale (percent -> share: 0.01)

    def cell(self):
        """The published cell this reference reads (KeyError if published.py lacks it)."""
        from lib.paper_check import published as pub

        for c in pub.PROFILE_REFERENCES + pub.PUBLISHED:
            if (c.paper, c.table, c.row, c.column) == (self.paper, self.table, self.row, self.column):
                return c
        raise KeyError(f"{self.paper} {self.table} {self.row} / {self.column} is not in lib/paper_check/published.py")

    @property
    def value(self) -> float:
        """The printed value in the row's scale."""
        return round(self.cell().value * self.scale, 10)

    def source(self) -> str:
        """Where the number is printed, e.g. 'self-preference-v1 Table 9, NQ / GPT / G & H, Front Preference'."""
        return f"{self.paper} {self.table}, {self.row}, {self.column}"


@dataclass(frozen=True)
class CardRow:
    """One row of the bias card (lib.profile): the findings measure_ids that give it, preferred first."""

    key: str
    label: str  # what is measured, in words
    measure_ids: tuple[str, ...]
    kind: str  # how a sentence reads it: diff_self, rate, asymmetry, f1, share, accuracy, consistency
    null: float | None  # the value of "no bias" / chance (None: no null)
    references: tuple[Reference, ...] = field(default_factory=tuple)
    reference_note: str = ""  # why there is no reference, or how the paper's measure differs
    phrase: str = ""  # the sentence's core, "{value}" = the formatted estimate (diff_self: chosen by sign)
    missing: str = "its parameters did not ask for it"  # why the notebook can run and give no row

    @property
    def notebook(self) -> str:
        """The notebook that writes the row's measures (from the registry)."""
        return find(self.measure_ids[0]).notebook


@lru_cache(maxsize=None)
def _regex(pattern: str) -> re.Pattern:
    parts = re.split(r"(\{\w+\})", pattern)
    return re.compile("".join("[^.]+" if p.startswith("{") else re.escape(p) for p in parts))


def _modules():
    return [importlib.import_module(m) for m in STUDY_MODULES]


def all_measures() -> tuple[Measure, ...]:
    """Every declared measure, study by study in findings order."""
    return tuple(m for mod in _modules() for m in mod.MEASURES)


def card_rows() -> tuple[CardRow, ...]:
    """The bias card's rows, as the studies declare them."""
    return tuple(r for mod in _modules() for r in getattr(mod, "CARD", ()))


def mitigations() -> dict[str, tuple[str, ...]]:
    """{card row key: the findings measure_ids of the change a mitigation makes to it, preferred first},
    as the studies declare them (`MITIGATES` in a measures module)."""
    out: dict[str, tuple[str, ...]] = {}
    for mod in _modules():
        for key, ids in getattr(mod, "MITIGATES", {}).items():
            out[key] = out.get(key, ()) + tuple(ids)
    return out


def find(measure_id: str) -> Measure:
    """The declaration a measure_id belongs to (KeyError naming the id when none does)."""
    for m in all_measures():
        if m.matches(measure_id):
            return m
    raise KeyError(f"No declared measure matches {measure_id!r}: declare it in the study's measures module.")


def find_or_none(measure_id: str) -> Measure | None:
    """The declaration a measure_id belongs to, or None."""
    try:
        return find(measure_id)
    except KeyError:
        return None


def secondary_family(study: str) -> str:
    """The name of a study's Holm family of secondary readings (a `Measure.family`)."""
    return f"{study}, secondary readings"


def holm_family(measure_id: str, study: str, primary: bool = True) -> str:
    """The Holm family a tested findings row enters: its declaration's (`Measure.holm_family`); a row
    no declaration matches (a test's, an older run's) by its own reading: the study's family when
    primary, none when secondary."""
    m = find_or_none(measure_id)
    if m is None:
        return study if primary else ""
    return m.holm_family


def finding_notebooks() -> list[str]:
    """The notebooks that write findings rows, in order."""
    return sorted({m.notebook for m in all_measures()})


def paired() -> list[Measure]:
    """The measures whose per-unit values can be paired across runs (they declare `units`)."""
    return [m for m in all_measures() if m.units is not None]


def notebook_parameters(folder: Path, notebook: str) -> dict:
    """The parameters a notebook ran with, from the run's manifest ({} without one)."""
    import json

    path = Path(folder) / "manifest.json"
    if not path.exists():
        return {}
    for entry in json.loads(path.read_text()).get("notebooks", []):
        if Path(entry["notebook"]).stem == notebook:
            return entry.get("parameters") or {}
    return {}


def run_units(folder: Path) -> pd.DataFrame:
    """Every per-unit value a run's records give for the paired measures, with `notebook` and `unit`;
    a value whose measure_id belongs to another declaration than the reader's is dropped."""
    parts, seen = [], set()
    for m in paired():
        if m.units in seen:  # one reader may serve several declarations of a family
            continue
        seen.add(m.units)
        got = m.units(Path(folder), notebook_parameters(folder, m.notebook))
        if len(got):
            owner = got["measure_id"].map(lambda i: find(i).notebook)
            got = got[owner == m.notebook]
        parts.append(got.reindex(columns=CLUSTERED_UNIT_COLUMNS).assign(notebook=m.notebook, unit=m.unit_key or m.unit))
    if not parts:
        return pd.DataFrame(columns=CLUSTERED_UNIT_COLUMNS + ["notebook", "unit"])
    return pd.concat(parts, ignore_index=True)
