"""Readable short names for machine names in figures and tables: columns (`ok_first_try`), tuple
keys of grouped frames, datasets, and model or reward-model spec strings."""
from __future__ import annotations

import re

import numpy as np

from lib.models.specs import ModelSpec, RewardSpec

# Whole names that need more than underscores turned into spaces.
LABELS = {
    "n": "n", "ok_first_try": "ok first try", "ok_after_retry": "ok after a retry",
    "self_rate": "self-preference rate", "fact_rate": "factual preference rate",
    "order_rate": "first-position rate", "style_rate": "style preference rate",
    "ppl": "perplexity", "ppl_mean": "mean perplexity", "parse_fail_rate": "unparsed reply rate",
    "ci_low": "CI low", "ci_high": "CI high", "a_first": "A first", "b_first": "B first",
    "rag": "RAG prompt", "normal": "normal prompt", "b_author": "other author",
    # the papers as lib.paper_check names them (their text files' names): as a reader names them
    "utility-judgments": "utility paper", "self-preference-v1": "self-preference v1",
    "self-preference-v1-alt-extraction": "self-preference v1 (other extraction)",
    "self-preference-v2-fact-centric": "self-preference v2",
}
# Single words: datasets, metrics and model names as a paper writes them.
WORDS = {
    "nq": "NQ", "marco": "MS MARCO", "msmarco": "MS MARCO", "triviaqa": "TriviaQA", "hotpotqa": "HotpotQA",
    "smollm2": "SmolLM2", "gemma3": "Gemma-3", "gpt2": "GPT-2", "llm": "LLM", "rm": "RM", "rag": "RAG",
    "ndcg": "NDCG", "mrr": "MRR", "f1": "F1", "em": "EM", "ppl": "perplexity", "ci": "CI", "pct": "%",
    "qa": "QA", "bm25": "BM25", "logprob": "log-prob", "tt": "TT", "tf": "TF", "ft": "FT", "ff": "FF",
}
# Options of spec strings ("judge:smollm2;max_tokens:8") as short words: key -> format of the value.
SPEC_OPTIONS = {"max_tokens": "{} tokens", "retries": "{} retries", "ref": "ref. {}",
                "format": "{} format", "max_length": "max. length {}"}
_BACKENDS = {"local", "openai", "hf"}
_KINDS = {"judge": "judge", "implicit": "implicit", "rm": "RM"}
_VALUE_FLAGS = {"norm", "decide"}  # options whose value reads as a flag: norm:mean -> "mean"
# a machine name: a spec (has ':' ';' or '='), snake_case, or one lower-case word
_MACHINE = re.compile(r"^[\w.\-]+[:;=][\w.\-:;=@/]*$|^\w+_\w+$|^[a-z0-9]+$")
_PRINTED_TUPLE = re.compile(r"^\((.*,.*)\)$")
_NAMES_LIST = re.compile(r"^\w+(,\w+)+$")
# a spec inside a sentence: it may hold ';' (options) but does not end with punctuation ("(local:gemma3; boxes")
_SPEC_IN_PHRASE = re.compile(r"\b(?:judge|implicit|rm|local|openai|hf)(?:-\w+)*:[^\s,()]*[^\s,();:.]")


def _word(word: str) -> str:
    return WORDS.get(word.lower(), word)


def _words(name: str) -> str:
    """snake_case or one word -> words, each mapped through WORDS."""
    return " ".join(_word(p) for p in re.split(r"[_\s]+", name) if p)


def _parsed(text: str, want):
    """The spec object for a real spec string, None for a table name ('judge:smollm2;int8')."""
    from lib.models.specs import SpecError, parse_spec

    try:
        return parse_spec(text, want)
    except SpecError:
        return None


def model_label(spec: str) -> str:
    """'local:smollm2' / 'openai:gpt-4o-mini@http://host/v1' / 'hf:org/name' -> a short model name
    (';int8' added for a quantized model); a table name's model part ('smollm2') as a word."""
    parsed = _parsed(spec, ModelSpec)
    if parsed is not None:
        return _word(parsed.short) + (f" {parsed.quant}" if parsed.quant else "")
    parts = spec.split(":")
    if len(parts) > 1 and parts[0] in _BACKENDS:
        parts = parts[1:]
    core = ":".join(parts).split("@")[0].split(";")[0].rstrip("/").split("/")[-1]
    return _word(core)


def spec_label(spec: str) -> str:
    """A model or reward-model spec as a short name: 'judge:local:smollm2;max_tokens:8;retries:0'
    -> 'SmolLM2 judge (8 tokens, 0 retries)'; 'implicit-mean:smollm2-ref:gemma3' ->
    'SmolLM2 implicit, mean (ref. Gemma-3)'; 'local:smollm2' -> 'SmolLM2'. Real specs are read by
    the spec parser; table names (RewardSpec.name, written from the parsed spec) by their own form."""
    parsed = _parsed(spec, RewardSpec)
    if parsed is not None:
        spec = parsed.name
    head, *options = spec.split(";")
    kind, _, target = head.partition(":")
    base, *kind_flags = kind.split("-")
    if base not in _KINDS:
        return model_label(spec)
    flags = [_word(f) for f in kind_flags]
    target, _, ref = target.partition("-ref:")
    extra = [SPEC_OPTIONS["ref"].format(model_label(ref))] if ref else []
    for opt in options:
        match = re.match(r"([^:=]+)[:=](.*)", opt)
        if not match:
            flags.append(_word(opt))
            continue
        key, value = match.groups()
        if key in _VALUE_FLAGS:
            flags.append(_word(value))
        elif key == "ref":
            extra.append(SPEC_OPTIONS["ref"].format(model_label(value)))
        else:
            extra.append(SPEC_OPTIONS.get(key, key.replace("_", " ") + " {}").format(value))
    name = f"{model_label(target)} {_KINDS[base]}" + "".join(f", {f}" for f in flags)
    return name + (f" ({', '.join(extra)})" if extra else "")


def label(key) -> str:
    """A readable short name for a column, category, tuple key or model spec: 'ok_first_try' ->
    'ok first try', ('smollm2', 'rag') -> 'SmolLM2, RAG prompt', 'local:smollm2' -> 'SmolLM2'."""
    if isinstance(key, tuple):
        return ", ".join(label(k) for k in key if str(k) != "")
    if isinstance(key, (bool, np.bool_)):
        return "yes" if key else "no"
    if isinstance(key, (float, np.floating)) and float(key).is_integer():
        return str(int(key))
    if not isinstance(key, str):
        return str(key)
    if key in LABELS:
        return LABELS[key]
    if " " not in key and (":" in key or ";" in key):
        return spec_label(key)
    return _words(key)


def humanize(text: str) -> str:
    """Text already on a figure, relabelled only when it is a machine name (snake_case, a spec, a
    printed tuple, a known short word such as 'nq'); sentences and numbers are left as written."""
    stripped = text.strip()
    printed = _PRINTED_TUPLE.match(stripped)
    if printed:
        return ", ".join(humanize(p.strip(" '\"")) for p in printed.group(1).split(","))
    if " | " in stripped:  # facet titles: "rag | expected_score"
        return " | ".join(humanize(p) for p in stripped.split(" | "))
    if _NAMES_LIST.match(stripped):  # pandas' label of a MultiIndex: "dataset,model"
        return ", ".join(humanize(p) for p in stripped.split(","))
    if not _MACHINE.match(stripped) or re.fullmatch(r"[\d.\-e+]+", stripped):
        # a phrase: only its specs and snake_case words change ("likelihood per_word (local:gemma3)"
        # -> "likelihood per word (Gemma-3)")
        text = _SPEC_IN_PHRASE.sub(lambda m: label(m.group()), text)
        return re.sub(r"\b[A-Za-z]\w*_\w+\b", lambda m: label(m.group()), text)
    if stripped.isalnum() and stripped.lower() not in WORDS and stripped not in LABELS:
        return text  # an ordinary word ("accuracy") stays as written
    return label(stripped)
