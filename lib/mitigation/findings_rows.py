"""Notebook 18's findings rows: one per arm, source, quantity and model (after minus before on the
same units, its clustered interval and test; Holm over the study's own family, lib.report.findings),
and the self-preference decomposition."""
from __future__ import annotations

import pandas as pd

from lib.models.specs import SpecError, parse_reward_spec
from lib.report.findings import declared_finding, slug

from .measures import NB, STUDY



def _model(name: str, source: str, specs: dict) -> str:
    """A row's model: 13's rows name the judge's model as 13's own rows do (a reward spec's target),
    the others the evaluator's spec."""
    if source == "13":
        try:
            return parse_reward_spec(str(name)).target
        except SpecError:  # not a reward spec of a model (a table written by hand): as given
            return str(name)
    return specs.get(name, name)


def reward_reading(model: str) -> str | None:
    """13's reward model as 13's own ids name its kind: 'implicit_mean_reward', 'generate_and_parse',
    '' for the log-probability judge; None for a name that is no reward spec."""
    try:
        parsed = parse_reward_spec(str(model))
    except SpecError:
        return None
    # as 13's `findings_rows.reward_method` names it (this package imports no study)
    if parsed.scalar_kind:
        return slug(f"{parsed.scalar_kind} reward")
    return "" if parsed.options.get("decide") == "logprob" else GENERATED


def _reading(r: dict) -> str:
    """The reward model's kind where 13's readings of one model would share an id: length control reads
    the log-probability judge (`length_control.13.accuracy`), each scalar reward model and the
    generate-and-parse judge of the same model, whose ids add their kind as 13's own rows do
    (`length_control.13.accuracy.implicit_mean_reward`, `length_control.13.accuracy.generate_and_parse`)."""
    if r["source"] != "13" or r["arm"] != "length_control":
        return ""
    return reward_reading(r["model"]) or ""


GENERATED = "generate_and_parse"  # 13's generated verdicts, as its own ids name them


ARM_NAMES = {"balanced": "balanced calibration", "contextual": "contextual calibration",
             "temperature": "temperature scaling", "length_control": "length control",
             "order_averaged": "listwise order averaging"}
QUANTITY_NAMES = {"human_minus_self_rag": "human minus own rating, RAG prompt",
                  "human_minus_self_normal": "human minus own rating, normal prompt",
                  "self": "self-preference rate", "factual": "factual preference rate",
                  "position": "first-position rate", "accuracy": "judge accuracy",
                  "gt_hit": "share of questions with a ground-truth passage selected",
                  "first_shown": "first-shown passage selected",
                  "long": "long-passage preference rate (own long against own normal passage)"}


def _name(r: dict, reading: str) -> str:
    """A row's readable measure: 'contextual calibration of 05, human minus own rating, RAG prompt: after
    minus before' (the run README and compare's tables show it as it is)."""
    arm = f"{ARM_NAMES.get(r['arm'], r['arm'])} of {r['source']}"
    if r["quantity"] == "flipped":
        return f"{arm}: share of {'passages' if r['arm'] == 'order_averaged' else 'verdicts'} flipped"
    kind = f", {reading.replace('_', ' ')}" if reading else ""
    return f"{arm}, {QUANTITY_NAMES.get(r['quantity'], r['quantity'])}{kind}: after minus before"


def _scale(arm: str, source: str) -> str:
    return "rating points" if source == "05" else "share 0-1"


def mitigation_findings(table: pd.DataFrame, decomposition: pd.DataFrame, specs: dict | None = None) -> list[dict]:
    """Findings rows of the arms' table (arms.TABLE_COLUMNS) and the decomposition rows
    (decomposition.COLUMNS); `specs` maps a short model name to its spec."""
    specs = specs or {}
    rows = []
    for r in table.to_dict("records"):
        reading = _reading(r)
        mid = f"{r['arm']}.{r['source']}.{r['quantity']}" + (f".{reading}" if reading else "")
        flipped = r["quantity"] == "flipped"
        rows.append(declared_finding(
            STUDY, NB, _name(r, reading), _model(r["model"], r["source"], specs),
            int(r["n"]), r["diff"], r["ci_low"], r["ci_high"], None if flipped else r["p"], measure_id=mid,
            n_judgments=max(int(r["n_judgments"]), int(r["n"])), ci_note=r["ci_note"] or "",
            scale=_scale(r["arm"], r["source"]),
            direction="more verdicts changed" if flipped else "after minus before"))
    for r in decomposition.to_dict("records"):
        tested = r["quantity"] == "harmful_excess"
        rows.append(declared_finding(
            STUDY, NB, f"self-preference {r['quantity']}", specs.get(r["model"], r["model"]), int(r["n"]),
            r["estimate"], r["ci_low"], r["ci_high"], r["p"] if tested else None,
            measure_id=f"self_decomposition.06.{r['quantity']}", n_judgments=max(int(r["n_judgments"]), int(r["n"])),
            ci_note=r["ci_note"] or "", scale="share 0-1",
            direction="own wrong chosen more than another's wrong" if tested else "higher: chosen more often"))
    return rows
