"""Every row a validate run's notebooks must write: the measures with a planted truth (the truth
functions' ids for the run's design) of the notebooks the run asked for, per served model, as the
run's parameters ask for them: a likelihood reading of 05-07 only when an evaluator is served as a
base LM (`;base`), a RAG-RewardBench row once per reward model, under that judge's own method. A row
that is expected and absent (a notebook that drops a measure or renames its id) fails the check by
name; a row the run wrote with no truth is not expected and stays out of the check."""
from __future__ import annotations

import math

import pandas as pd

from lib.report.measures import find_or_none

RM_STUDY = "rewardbench"  # its rows come from the run's reward models, one set per judge
# ids that stand for one another: 03 writes its perplexity difference under the test it ran (paired
# where every item has both texts, Welch otherwise), and either satisfies the other
ALTERNATIVES = {".welch_t": ".paired_t"}
# notebooks whose rows re-read another notebook's records, named in the id (`<arm>.<source>.<quantity>`):
# such a row is expected only when its source notebook ran too
READERS = ("18_mitigation",)


def _source_ran(measure_id: str, notebook: str, notebooks) -> bool:
    """Whether the records a row reads were written in this run (always, for a notebook reading none)."""
    if notebook not in READERS:
        return True
    source = measure_id.split(".")[1] if measure_id.count(".") >= 2 else ""
    return any(str(n).startswith(source + "_") for n in notebooks)


def _requirement(measure_id: str) -> str:
    """The id a row satisfies: its own, or the one its alternative stands for."""
    for alt, main in ALTERNATIVES.items():
        if measure_id.endswith(alt):
            return measure_id[: -len(alt)] + main
    return measure_id


def _served(spec: str) -> str:
    from .rewardbench.truth import served_name

    return served_name(spec)


def rm_judges(params: dict) -> list[tuple[str, str]]:
    """(served model, how it decides: the registry's `Measure.method`) of each reward model the run
    names: a judge with `;logprob` reads log-probabilities ("likelihood"), any other generates a verdict."""
    from lib.models.specs import parse_reward_spec

    out = []
    for spec in params.get("reward_models") or []:
        parsed = parse_reward_spec(str(spec))
        method = "likelihood" if parsed.options.get("decide") == "logprob" else "generate-and-parse"
        out.append((_served(parsed.target), method))
    return out


def expected_rows(truths_of: dict, notebooks, params: dict) -> list[tuple[str, str, str]]:
    """[(served model, measure_id, notebook)] the run must write, for the notebooks it ran."""
    base = any(";base" in str(e) for e in params.get("evaluators") or [])
    main = _served(str(params.get("model", "sim")))
    judges = rm_judges(params)
    out = []
    for model, truths in truths_of.items():
        for mid, (nb, truth, _null) in truths.items():
            if nb not in notebooks or truth is None or (isinstance(truth, float) and math.isnan(truth)):
                continue
            if not _source_ran(mid, nb, notebooks):
                continue
            m = find_or_none(mid)
            if m is None:
                continue
            if m.study == RM_STUDY:
                if (model, m.method) in judges:
                    out.append((model, mid, nb))
            elif model == main and (m.method != "likelihood" or base):
                out.append((model, mid, nb))
    return sorted(set(out))


def missing_rows(findings: pd.DataFrame, expected, truths_of: dict, columns) -> pd.DataFrame:
    """A validation row (estimate blank, `missing` 1) for each expected row the findings lack."""
    have = set(zip(findings["model"].map(_served), findings["measure_id"].map(_requirement))) if len(findings) else set()
    rows, seen = [], set()
    for model, mid, nb in expected:
        need = (model, _requirement(mid))
        if need in have or need in seen:
            continue
        seen.add(need)
        _, truth, null = truths_of[model][mid]
        rows.append({**dict.fromkeys(columns, math.nan), "measure_id": mid, "notebook": nb, "truth": truth,
                     "null": null, "model": model, "missing": 1.0})
    return pd.DataFrame(rows, columns=[*columns, "model", "missing"])
