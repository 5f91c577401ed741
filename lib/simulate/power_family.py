"""Holm family sizes for `make power`, counted from the measure registry (lib.report.measures) at the
design of a runner config, not assumed.

The findings' rule (lib.report.findings.in_family): Holm per run and study over the tested rows
(a declared null), primary, not pooled and not smoke; every model a notebook runs writes its own rows.
Compare's paired differences (lib.compare.paired) follow the same rule over the measures that declare
per-unit values, once per pair of compared entries. A declaration's `{field}` parts expand to the
values the config asks for (`design_of`): datasets, settings, styles, utility sources, and so on.
Rows below the smoke size (findings.SMOKE_N units) leave the family; the count here is the family at
a size of at least that many units, the sizes the power table is about.
"""
from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from lib.report import measures as R

# style passages of notebook 02 (its `styles`) -> the `kind` of 08's rows (pairwise.STYLE_COMPARISONS)
STYLE_KINDS = {"qa": "gen_by_qa", "long": "long"}
# where a notebook's parameters list the models whose rows it writes: (notebook, key); 03 writes one
# row per author of the passage bank (02's `authors`); without the key, one model (the run's)
MODEL_KEYS = {"03_perplexity": ("02_passage_bank", "authors"), "04_knowledge_probe": ("04_knowledge_probe", "models"),
              **{nb: (nb, "evaluators") for nb in ("05_pointwise_reranking", "06_generation_phase",
                                                   "07_knowledge_stratified", "08_writing_style")},
              **{nb: (nb, "models") for nb in ("11_utility_factors", "12_utility_for_answering")},
              **{nb: (nb, "reward_models") for nb in ("13_rewardbench", "14_rm_difficulty", "15_best_of_n")}}


class FamilyError(ValueError):
    """A family that cannot be counted: names the field or study and the fix."""


@dataclass(frozen=True)
class FamilyDesign:
    """What a run asks, as far as Holm's families depend on it: the values of every `{field}` of a
    declared measure_id, and the number of models whose rows each notebook writes (default 1)."""

    fields: dict = field(default_factory=dict)  # field -> tuple of values
    models: dict = field(default_factory=dict)  # notebook -> number of models

    def n_models(self, notebook: str) -> int:
        """Models whose rows one notebook writes."""
        return int(self.models.get(notebook, 1))


def _fields(pattern: str) -> list[str]:
    return re.findall(r"\{(\w+)\}", pattern)


def expand(pattern: str, fields: dict) -> list[str]:
    """Every measure_id a declaration's pattern takes at the design's field values."""
    names = _fields(pattern)
    missing = [n for n in names if not fields.get(n)]
    if missing:
        raise FamilyError(f"{pattern}: no values for {missing} in the design; pass them with "
                          f"--design {missing[0]}=a,b (see docs/power.md).")
    return [pattern.format(**dict(zip(names, combo))) for combo in itertools.product(*(fields[n] for n in names))]


def tested(study: str, paired: bool = False, family: str = "") -> list[R.Measure]:
    """The declarations whose rows enter one Holm family of a study (`Measure.holm_family`; "" is the
    study's own family of primary readings; with `paired`: only those compare pairs, the ones with a
    per-unit reader)."""
    family = family or study
    return [m for m in R.all_measures() if m.study == study and m.holm_family == family
            and (m.units is not None or not paired)]


def family_size(study: str, design: FamilyDesign, paired: bool = False, measure_id: str | None = None) -> int:
    """Tested rows in the Holm family of a row of one study at the design (the family its declaration
    names: a secondary reading's is the study's secondary family): findings rows (every model's), or with
    `paired` compare's paired differences (each pair of a notebook's models). A headline row whose
    measure_id (None: not declared) is not one of them counts as one more row."""
    declared = R.find_or_none(measure_id) if measure_id else None
    family = declared.holm_family if declared is not None and declared.study == study else ""
    total, found = 0, False
    for m in tested(study, paired, family):
        ids = expand(m.pattern, design.fields)
        k = design.n_models(m.notebook)
        total += len(ids) * (math.comb(max(k, 2), 2) if paired else k)  # the row compares two at least
        found = found or (measure_id is not None and measure_id in ids)
    return total + (0 if found else 1)


def _param(cfg: dict, notebook: str, key: str, default=None):
    per = (cfg.get("per_notebook") or {}).get(notebook) or {}
    return per.get(key, (cfg.get("parameters") or {}).get(key, default))


def _count_models(cfg: dict, notebook: str) -> int:
    """Models whose rows a notebook writes: its list of evaluators / models / generative judges."""
    source, key = MODEL_KEYS.get(notebook, (notebook, ""))
    got = _param(cfg, source, key) if key else None
    if not got:
        return 1
    if key == "reward_models":  # the generative judges' rows ('judge:' specs read by their replies)
        return sum(str(s).startswith("judge:") and ";logprob" not in str(s) for s in got)
    return len(got)


def design_of(config, extra: dict | None = None) -> FamilyDesign:
    """The family design of a runner config (configs/paper.yaml, ...): 01's datasets, 05's settings,
    02's styles, 09's utility sources, the models of every notebook; `extra` adds or replaces fields."""
    from lib.simulate.utility.truth import JUDGMENTS, LISTWISE
    from lib.sources.common import SOURCES

    cfg = yaml.safe_load(Path(config).read_text()) or {}
    fields = {
        "dataset": tuple(_param(cfg, "01_dataset", "datasets") or SOURCES),
        "setting": tuple(_param(cfg, "05_pointwise_reranking", "settings") or ("normal", "rag")),
        "fact": ("true", "false"),
        "test": ("t_test",),  # 03: one paired t-test per dataset and author (slug of pingouin's "T-test")
        "kind": tuple(STYLE_KINDS[s] for s in (_param(cfg, "02_passage_bank", "styles") or ("long", "qa"))),
        "source": tuple(_param(cfg, "09_utility_benchmarks", "datasets") or ("nq", "hotpotqa", "marco")),
        "judgment": JUDGMENTS,
        "form": LISTWISE,
    }
    fields.update(extra or {})
    notebooks = {m.notebook for m in R.all_measures()} | set(MODEL_KEYS)
    return FamilyDesign(fields, {nb: _count_models(cfg, nb) for nb in sorted(notebooks)})
