"""One entry point for every kind of reward model; what each said per pair (raw) and the per-pair
results rebuilt from that, so results can always be re-derived without a model call."""
from __future__ import annotations

import math

import pandas as pd

from lib.rewardbench.judge import judge_from_raw
from lib.models.specs import parse_reward_spec
from lib.rewardbench.scalar import scalar_from_raw

RESULT_KEYS = ["id", "category", "group", "subset", "chosen_model", "rejected_model",
               "chosen_score", "rejected_score"]
META = RESULT_KEYS[1:] + ["len_chosen", "len_rejected"]


def get_reward_model(spec: str, **models):
    """Reward model object for a spec ('judge:...', 'implicit:...', 'rm:...'); see `lib.models.specs`."""
    parsed = parse_reward_spec(spec)
    if parsed.kind == "judge":
        from lib.rewardbench.judge import GenerativeJudge
        return GenerativeJudge(parsed, **models)
    if parsed.kind == "implicit":
        from lib.rewardbench.implicit import ImplicitReward
        return ImplicitReward(parsed, **models)
    from lib.rewardbench.discriminative import DiscriminativeRM
    return DiscriminativeRM(parsed, **models)


def _plain(value):
    """JSON-friendly value: NaN becomes None."""
    return None if isinstance(value, float) and math.isnan(value) else value


def raw_records(rms, pairs: pd.DataFrame) -> list[dict]:
    """One record per (reward model, pair): its spec, name and kind, the pair's metadata, and what
    the model said (judge replies / log-probabilities, or the two scores)."""
    meta = pairs[RESULT_KEYS].copy()
    meta["len_chosen"] = pairs["chosen"].str.split().str.len()
    meta["len_rejected"] = pairs["rejected"].str.split().str.len()
    meta = {r["id"]: {k: _plain(v) for k, v in r.items() if k != "id"} for r in meta.to_dict("records")}
    records = []
    for rm in rms:
        spec = rm if isinstance(rm, str) else getattr(getattr(rm, "spec", None), "raw", "") or rm.name
        rm = get_reward_model(rm) if isinstance(rm, str) else rm
        for raw in rm.raw(pairs):
            if "replies_cr" in raw:  # the verdicts as parsed, for readers that import no study (18)
                got = judge_from_raw(raw)
                raw = {**raw, "choice_cr": got["choice_cr"], "choice_rc": got["choice_rc"]}
            records.append({"rm": rm.name, "kind": rm.kind, "spec": spec, **meta[raw["id"]], **raw})
    return records


def results_from_raw(records: list[dict]) -> pd.DataFrame:
    """Per-pair results, one row per (rm, pair), from raw records (no model call)."""
    rows = []
    if not records:
        return pd.DataFrame(columns=["rm", "kind", "spec", "id", "correct", *META, "len_diff"])
    for rec in records:
        outcome = judge_from_raw(rec) if rec["kind"] == "judge" else scalar_from_raw(rec)
        rows.append({"rm": rec["rm"], "kind": rec["kind"], "spec": rec["spec"], **outcome,
                     **{k: rec.get(k) for k in META}})
    out = pd.DataFrame(rows)
    for col in ("chosen_score", "rejected_score"):
        out[col] = pd.to_numeric(out[col], errors="coerce")
    out["len_diff"] = out["len_chosen"] - out["len_rejected"]
    return out


def evaluate(rms, pairs: pd.DataFrame) -> pd.DataFrame:
    """Long per-pair results of every reward model (specs or objects), one row per (rm, pair)."""
    return results_from_raw(raw_records(rms, pairs))
