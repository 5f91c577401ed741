"""The content-free inputs of contextual calibration and the one model call this study makes: each
prompt of 05 (both settings) and 13 with its question, passage or responses replaced by a
content-free string, read as the next-token probabilities of the same options the notebooks read
(05: "1".."5" after "###"; 13: "Choose 1" / "Choose 2"). The prior is the mean of the options'
probabilities over the content-free strings (Zhao et al. 2021 average "N/A", "" and "[MASK]"). The
prompts are the papers' verbatim prompts from lib.prompts, filled and wrapped the way 05 and 13 wrap
them, so the prior is read in the same context as the verdicts it corrects."""
from __future__ import annotations

import numpy as np

from lib.prompts import self_preference as sp
from lib.prompts.rag_rewardbench import TABLE6_JUDGE_SYSTEM, TABLE6_JUDGE_USER, fill

from .calibration import option_probs

CONTENT_FREE = ("N/A", "", "[MASK]")
SCORE_OPTIONS = ["1", "2", "3", "4", "5"]
SCORE_PREFIX = "###"  # 05's likelihood ratings read the score after the reply's "###"
JUDGE_OPTIONS = ["Choose 1", "Choose 2"]  # 13's two allowed replies (RAG-RewardBench Table 6)


def pointwise_prompt(setting: str, text: str) -> str:
    """05's B.1 prompt of one setting with question and passage both `text`."""
    return sp.pointwise_baseline_prompt(text) if setting == "normal" else sp.pointwise_rag_prompt(text, text)


def judge_prompt(model, text: str):
    """13's Table 6 judge prompt with prompt and both responses `text`: chat messages, or one raw
    text for a base LM (as 13's judge sends it)."""
    messages = [{"role": "system", "content": TABLE6_JUDGE_SYSTEM},
                {"role": "user", "content": fill(TABLE6_JUDGE_USER, prompt=text, response1=text, response2=text)}]
    return messages if model.is_chat else "\n\n".join(m["content"] for m in messages)


def pointwise_items(model, setting: str) -> list[tuple]:
    """option_logprobs items of 05's content-free ratings (a base LM's reply starts on a new line)."""
    items = []
    for text in CONTENT_FREE:
        req = model.request(pointwise_prompt(setting, text))
        context, prefix = (req.messages, SCORE_PREFIX) if req.messages is not None else (req.prompt, "\n" + SCORE_PREFIX)
        items.append((context, prefix, SCORE_OPTIONS))
    return items


def judge_items(model) -> list[tuple]:
    """option_logprobs items of 13's content-free verdicts."""
    return [(judge_prompt(model, text), "" if model.is_chat else "\n", JUDGE_OPTIONS) for text in CONTENT_FREE]


def prior(model, items: list[tuple], desc: str, topk: bool = False) -> dict:
    """The options' prior: the mean over the content-free strings of their renormalised probabilities,
    and the log-probabilities each string gave (kept so `replies.reparse` needs no model call).
    `topk`: where the server gives no option likelihoods, one generated token's top-k, the way 13's
    judge falls back for its verdicts (lib.rewardbench.judge), so the prior is read as they were."""
    from lib.models import LikelihoodUnavailable

    try:
        lps = model.option_logprobs(items, desc=desc)
    except LikelihoodUnavailable:
        if not (topk and model.can("option_topk")):
            raise
        lps = [list(t.logprobs) for t in model.option_topk(items, desc=desc + " (top-k)")]
    return {"logprobs": [list(map(float, lp)) for lp in lps], "prior": prior_from_logprobs(lps)}


def prior_from_logprobs(logprobs) -> list[float]:
    """Mean over content-free inputs of each option's renormalised probability; an input with an
    option outside the top-k read (NaN) is left out, and none left gives NaNs."""
    lp = np.asarray(logprobs, dtype=float)
    whole = lp[np.isfinite(lp).all(axis=-1)] if lp.ndim == 2 else lp[:0]
    if not len(whole):
        return [float("nan")] * (lp.shape[-1] if lp.ndim == 2 else 0)
    return [float(x) for x in np.mean(option_probs(whole), axis=0)]


def content_free_records(model, name: str, spec: str, settings=("normal", "rag"), judge: bool = False) -> list[dict]:
    """One record per prompt kind asked of this model: {model, spec, kind, setting, logprobs, prior}."""
    out = []
    for setting in settings:
        got = prior(model, pointwise_items(model, setting), f"content-free 05 {setting} {name}")
        out.append({"model": name, "spec": spec, "kind": "pointwise", "setting": setting, **got})
    if judge:
        got = prior(model, judge_items(model), f"content-free 13 {name}", topk=True)
        out.append({"model": name, "spec": spec, "kind": "judge", "setting": "", **got})
    return out


def ask_content_free(evaluators, judge_specs, settings=("normal", "rag"), author_names=None, get_model=None) -> list[dict]:
    """Content-free records of 05's evaluators (each setting) and of 13's log-probability judges (keyed
    by the judge's spec): the study's only model calls, a few per model, cached like every other."""
    from lib.models.specs import author_name, parse_reward_spec

    from .model_loop import for_each_model

    records = for_each_model(list(evaluators), lambda m, name, spec: content_free_records(
        m, author_name(spec, author_names), spec, settings), get_model=get_model)
    targets = {parse_reward_spec(s).target: s for s in judge_specs}
    records += for_each_model(list(targets), lambda m, name, spec: [
        {**r, "spec": targets[spec]} for r in content_free_records(m, name, spec, (), judge=True)], get_model=get_model)
    return [r for part in records for r in part]
