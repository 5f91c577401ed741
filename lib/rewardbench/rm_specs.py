"""Reward-model spec strings: `KIND:TARGET[;option...]`, an option being `key:value`, `key=value`
or a short flag (`mean`, `logprob`, `text`); flags and `key:value` keep notebook parameters free of
'=' (papermill cannot read a parameter line with a second '=').

- `judge:<model spec>`            generative judge (Table 6 prompt), e.g. `judge:local:smollm2`,
  options `retries=N` (re-asks at temperature 0.7 when a reply is unparseable, default 1),
  `max_tokens=N` (default 16), `decide=logprob` (beyond the paper: verdict from the
  log-probabilities of the replies "Choose 1" / "Choose 2" instead of a generated reply).
- `implicit:<model spec>`         implicit reward = log p(response | prompt), summed over tokens;
  options `norm=mean` (per-token average instead of the sum), `ref=<model spec>` (DPO-style:
  minus the reference model's log-probability), `format=chat|text` (how the prompt is given to
  the model; default: chat, except `local:gemma3`, which has no chat template).
- `rm:<hub id or local folder>`   discriminative reward model (AutoModelForSequenceClassification),
  option `max_length=N` (default 4096). Needs the model files: none ships offline here.

Examples: `implicit:local:smollm2;mean` (= `;norm=mean`), `implicit:local:smollm2;ref:local:gemma3`,
`judge:local:smollm2;logprob` (= `;decide=logprob`),
`judge:openai:gpt-4o-mini`, `rm:Skywork/Skywork-Reward-Llama-3.1-8B-v0.2`.
The form `implicit:<policy>-ref:<reference>` is accepted as a synonym of `;ref:`.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from lib.models.specs import parse_spec, short_name

KINDS = ("judge", "implicit", "rm")
_OPTIONS = {"judge": {"retries", "max_tokens", "decide"}, "implicit": {"norm", "ref", "format"},
            "rm": {"max_length"}}
# short flags, so that specs in notebook parameters need no '=' (papermill skips such lines)
_FLAGS = {"mean": ("norm", "mean"), "sum": ("norm", "sum"), "logprob": ("decide", "logprob"),
          "chat": ("format", "chat"), "text": ("format", "text")}
_HELP = ("Reward-model specs look like 'judge:<model spec>[;logprob]', 'implicit:<model spec>[;mean]"
         "[;ref:<model spec>]' or 'rm:<hub id or folder>', e.g. 'judge:local:smollm2'.")


class RMSpecError(ValueError):
    """A reward-model spec that cannot be used, with the fix in the message."""


@dataclass(frozen=True)
class RMSpec:
    """A parsed reward-model spec."""

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


def parse_rm_spec(spec: str) -> RMSpec:
    """Parse a reward-model spec and check every part names something usable."""
    if not isinstance(spec, str) or ":" not in spec:
        raise RMSpecError(f"Unknown reward-model spec {spec!r}. {_HELP}")
    kind, rest = spec.split(":", 1)
    kind = kind.strip().lower()
    if kind not in KINDS:
        raise RMSpecError(f"Unknown reward-model kind {kind!r} in {spec!r}; choose one of {KINDS}. {_HELP}")
    if kind == "implicit" and "-ref:" in rest and ";ref" not in rest:
        policy, _, ref_rest = rest.partition("-ref:")
        ref, sep, more = ref_rest.partition(";")
        rest = f"{policy};ref={ref}" + (f";{more}" if sep else "")
    target, *opts = [part.strip() for part in rest.split(";")]
    options = {}
    for opt in opts:
        if opt in _FLAGS:
            key, value = _FLAGS[opt]
        else:
            cut = min((opt.find(c) for c in "=:" if c in opt), default=-1)
            key, value = (opt[:cut], opt[cut + 1:]) if cut > 0 else (opt, "")
        if key not in _OPTIONS[kind] or not value:
            raise RMSpecError(f"Unknown option {opt!r} in {spec!r}; {kind} takes "
                              f"{sorted(_OPTIONS[kind])}. {_HELP}")
        options[key] = value
    if not target:
        raise RMSpecError(f"Reward-model spec {spec!r} names no model. {_HELP}")
    if kind != "rm":
        parse_spec(target)  # raises SpecError with the model-spec help
    if "ref" in options:
        parse_spec(options["ref"])
    if options.get("norm", "sum") not in ("sum", "mean"):
        raise RMSpecError(f"{spec!r}: norm must be 'sum' or 'mean'.")
    if options.get("decide", "generate") not in ("generate", "logprob"):
        raise RMSpecError(f"{spec!r}: decide must be 'generate' or 'logprob'.")
    if options.get("format", "chat") not in ("chat", "text"):
        raise RMSpecError(f"{spec!r}: format must be 'chat' or 'text'.")
    for key in ("retries", "max_tokens", "max_length"):
        if key in options and not options[key].isdigit():
            raise RMSpecError(f"{spec!r}: {key} must be a whole number.")
    return RMSpec(kind, target, options, spec)
