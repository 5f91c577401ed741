"""Generative reward model: a chat model asked the paper's Table 6 question in both orders.

Each pair is judged twice, chosen first ('cr') and rejected first ('rc'); accuracy per pair is the
mean over the two orders (the paper's swap-and-average). An unparseable reply, after `retries`
re-asks at temperature 0.7, counts as wrong in that order and is counted in `unparsed`.
Every reply of both orders is stored per pair (`raw`; notebook 13 writes them as JSON lines), and
`judge_from_raw` rebuilds the verdicts from them, so a parser fix re-parses without a model call.

Beyond the paper (option `decide=logprob`): instead of generating a reply, compare the model's
log-probabilities of the two allowed replies, "Choose 1" and "Choose 2", after the same prompt.
Small models that ignore the reply format (the embedded SmolLM2 does) still give a verdict this way;
an exact tie is counted as unparsed. Where the model's server gives no prompt log-probabilities
(llama.cpp, Ollama), the two replies' first differing token is read off one generated token's top-k
log-probabilities instead (`CachedModel.option_topk`), and the verdict says which method decided it.
"""
from __future__ import annotations

import math
import re

import pandas as pd

from lib.prompts.rag_rewardbench import TABLE6_JUDGE_SYSTEM, TABLE6_JUDGE_USER, fill

_CHOOSE = re.compile(r"choose\W{0,3}(?:response\W{0,3})?([12])(?!\d)", re.I)
OPTIONS = ("Choose 1", "Choose 2")  # the two replies Table 6 allows
LOGPROB_METHOD = "log-probability verdict"
TOPK_METHOD = "top-k log-probability verdict"  # the fallback where echo is unavailable
GENERATE_METHOD = "generate-and-parse"
_BETTER = re.compile(r"response\W{0,3}([12])(?!\d)\W{0,3}is\W{0,3}better", re.I)


def judge_method(res: pd.DataFrame) -> str:
    """How one judge's verdicts were decided (its results' `verdict_method`):
    generate-and-parse, log-probability verdict, or its top-k fallback."""
    got = res["verdict_method"].dropna() if "verdict_method" in res else pd.Series(dtype=str)
    return str(got.iloc[0]) if len(got) else GENERATE_METHOD


def parse_choice(text: str) -> int | None:
    """1 or 2 from a judge reply ('Choose 1', '**Choose 2**', 'Response 2 is better', a bare '1');
    None when the reply names neither or both."""
    text = text or ""
    found = {int(m) for m in _CHOOSE.findall(text)} or {int(m) for m in _BETTER.findall(text)}
    if not found and text.strip().strip(".*\"' ") in ("1", "2"):
        found = {int(text.strip().strip(".*\"' "))}
    return found.pop() if len(found) == 1 else None


def judge_messages(prompt: str, response1: str, response2: str) -> list[dict]:
    """Chat messages of the Table 6 judge prompt for one ordered pair."""
    return [{"role": "system", "content": TABLE6_JUDGE_SYSTEM},
            {"role": "user", "content": fill(TABLE6_JUDGE_USER, prompt=prompt, response1=response1,
                                             response2=response2)}]


class GenerativeJudge:
    """Pairwise judge over any chat model of the LLM layer."""

    kind = "judge"

    def __init__(self, spec, model=None):
        self.spec = spec
        self.name = spec.name
        self.model_spec = spec.target
        self.retries = int(spec.options.get("retries", 1))
        self.max_tokens = int(spec.options.get("max_tokens", 16))
        self.decide = spec.options.get("decide", "generate")
        self._model = model

    @property
    def model(self):
        """The chat model, loaded on first use."""
        if self._model is None:
            from lib.models import get_model
            self._model = get_model(self.model_spec)
        return self._model

    def ask(self, triples: list[tuple[str, str, str]], desc: str = "judge") -> list[dict]:
        """Judge (prompt, response1, response2) triples -> [{'choice', 'raw', 'attempts', 'replies'}]
        (one ask-parse-ask-again loop, `lib.ask_until_parsed.ask_until_parsed`; every reply is kept)."""
        if self.decide == "logprob":
            return [verdict_from_logprobs(lp) for lp in self._logprobs(triples, desc)[0]]
        from lib.ask_until_parsed import ask_until_parsed

        asked = ask_until_parsed(self.model, [self.prompt(t) for t in triples],
                                 lambda i, text: parse_choice(text), k_retries=self.retries,
                                 max_tokens=self.max_tokens, temperature=0.0, retry_temperature=0.7,
                                 desc=desc, chat=self.model.is_chat) if triples else []
        return [verdict_from_replies(a["responses"]) for a in asked]

    def _logprobs(self, triples, desc: str) -> tuple[list[list[float]], str]:
        """[log P("Choose 1"), log P("Choose 2")] as the start of the reply to each prompt (no
        generation), and the method that gave them: the options' likelihoods, or where the server
        gives none, one generated token's top-k (NaN for an option outside it); raises
        lib.models.LikelihoodUnavailable when neither is available."""
        from lib.models import LikelihoodUnavailable

        # a base LM's reply starts on a new line after the raw prompt (as 05's likelihood ratings do)
        prefix = "" if self.model.is_chat else "\n"
        items = [(self.prompt(t), prefix, list(OPTIONS)) for t in triples]
        if not items:
            return [], LOGPROB_METHOD
        try:
            return self.model.option_logprobs(items, desc=desc + " (log-prob verdicts)"), LOGPROB_METHOD
        except LikelihoodUnavailable as e:
            if not self.model.can("option_topk"):
                raise
            print(f"{self.name}: {e}; verdicts from the top-k log-probabilities of one generated token instead.")
            got = self.model.option_topk(items, desc=desc + " (top-k verdicts)")
            return [list(t.logprobs) for t in got], TOPK_METHOD

    def prompt(self, triple: tuple[str, str, str]):
        """The Table 6 prompt of one ordered pair: chat messages, or for a base LM (no chat template,
        e.g. local:gemma3; beyond the paper, whose judges are chat models) its system and user turns
        as one raw text."""
        messages = judge_messages(*triple)
        return messages if self.model.is_chat else "\n\n".join(m["content"] for m in messages)

    def raw(self, pairs: pd.DataFrame) -> list[dict]:
        """What the judge said about each pair, in both orders: every reply (or, with
        `decide=logprob`, the two log-probabilities), so `judge_from_raw` can re-parse it."""
        rows = pairs.to_dict("records")
        triples = [(r["prompt"], r["chosen"], r["rejected"]) for r in rows]
        triples += [(r["prompt"], r["rejected"], r["chosen"]) for r in rows]
        desc = f"{self.name} on {len(rows)} pairs x 2 orders"
        n = len(rows)
        if self.decide == "logprob":
            lps, method = self._logprobs(triples, desc)
            return [{"id": r["id"], "logprobs_cr": cr, "logprobs_rc": rc, "verdict_method": method}
                    for r, cr, rc in zip(rows, lps[:n], lps[n:])]
        answers = self.ask(triples, desc=desc)
        return [{"id": r["id"], "replies_cr": cr["replies"], "replies_rc": rc["replies"]}
                for r, cr, rc in zip(rows, answers[:n], answers[n:])]

    def evaluate(self, pairs: pd.DataFrame) -> pd.DataFrame:
        """Per-pair results: both orders, accuracy, position consistency, unparsed count."""
        return pd.DataFrame([judge_from_raw(r) for r in self.raw(pairs)])

    def compare(self, triples: list[tuple[str, str, str]], desc: str = "judge compare") -> list[int]:
        """For (prompt, a, b): wins of a minus wins of b over both orders (-2..2)."""
        answers = self.ask([(p, a, b) for p, a, b in triples] + [(p, b, a) for p, a, b in triples],
                           desc=desc)
        n = len(triples)
        return [(ab["choice"] == 1) - (ab["choice"] == 2) + (ba["choice"] == 2) - (ba["choice"] == 1)
                for ab, ba in zip(answers[:n], answers[n:])]


def verdict_from_replies(replies: list[str]) -> dict:
    """The verdict of one ordered pair from all its replies: the first that parses (re-asks stop
    there), else None with the last reply shown."""
    for text in replies:
        choice = parse_choice(text)
        if choice is not None:
            return {"choice": choice, "raw": text, "attempts": len(replies), "replies": list(replies)}
    return {"choice": None, "raw": replies[-1] if replies else "", "attempts": len(replies),
            "replies": list(replies)}


def verdict_from_logprobs(lp: list[float]) -> dict:
    """The verdict from [log P("Choose 1"), log P("Choose 2")]: the likelier one; a tie is unparsed.
    A missing value (None or NaN: outside a top-k list) ranks below one that is there, since that one
    made the list; both missing is unparsed."""
    one, two = (float("nan") if v is None else float(v) for v in lp)
    if math.isnan(one) or math.isnan(two):
        choice = None if math.isnan(one) and math.isnan(two) else (2 if math.isnan(one) else 1)
    else:
        choice = None if one == two else (1 if one > two else 2)
    return {"choice": choice, "attempts": 1, "replies": [],
            "raw": f"logprob Choose 1={one:.4f}, Choose 2={two:.4f}"}


def judge_from_raw(raw: dict) -> dict:
    """One pair's result row from what the judge said (replies or log-probabilities), both orders."""
    if "logprobs_cr" in raw:
        cr, rc = verdict_from_logprobs(raw["logprobs_cr"]), verdict_from_logprobs(raw["logprobs_rc"])
        method = raw.get("verdict_method", LOGPROB_METHOD)
    else:
        cr, rc = verdict_from_replies(raw["replies_cr"]), verdict_from_replies(raw["replies_rc"])
        method = GENERATE_METHOD
    return {"id": raw["id"], "verdict_method": method, **order_outcome(cr["choice"], rc["choice"]),
            "choice_cr": cr["choice"], "choice_rc": rc["choice"], "raw_cr": cr["raw"], "raw_rc": rc["raw"],
            "attempts": cr["attempts"] + rc["attempts"]}


def order_outcome(choice_cr: int | None, choice_rc: int | None) -> dict:
    """Bookkeeping of one pair's two verdicts (cr: chosen shown first; rc: rejected first)."""
    picked = [{1: "chosen", 2: "rejected"}.get(choice_cr), {1: "rejected", 2: "chosen"}.get(choice_rc)]
    both = None not in picked
    return {
        "correct": picked.count("chosen") / 2,        # unparseable counts as wrong
        "p_rejected": picked.count("rejected") / 2,
        "unparsed": picked.count(None),
        "consistent": float(both and picked[0] == picked[1]) if both else float("nan"),
        "n_first": [choice_cr, choice_rc].count(1),   # verdicts for whatever was shown first
    }
