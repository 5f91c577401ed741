"""What one sweep run asks Ray for, from the model specs it uses; overridable per run by a glob on its name."""
from __future__ import annotations

import fnmatch
import json

from ..models.specs import parse_spec

# Defaults, documented in docs/cluster.md: an in-process model (`hf:`, `local:`) loads weights and computes on
# the node, so it takes two CPUs (a GPU only when asked for, e.g. --resources '*hf-*={"num_gpus": 1}');
# a run whose models are all servers (`openai:`) mostly waits on the network, so four share one CPU.
IN_PROCESS = {"num_cpus": 2.0, "num_gpus": 0.0}
SERVER_ONLY = {"num_cpus": 0.25, "num_gpus": 0.0}
KEYS = {"num_cpus", "num_gpus", "memory", "resources"}


class ResourceError(RuntimeError):  # the runner reports RuntimeErrors as "error: ..." (exit 2)
    """A --resources entry that cannot be used, with the fix in the message."""


def default_resources(specs) -> dict:
    """IN_PROCESS when any spec runs a model in this process (hf:, local:), else SERVER_ONLY."""
    backends = {parse_spec(s).backend for s in specs}
    return dict(IN_PROCESS if backends - {"openai"} else SERVER_ONLY)


def parse_overrides(pairs: list[str] | None) -> list[tuple[str, dict]]:
    """['GLOB={"num_cpus": 1}', ...] -> [(glob, options)], in the order given (later entries win)."""
    out = []
    for p in pairs or []:
        glob, sep, text = p.partition("=")
        try:
            options = json.loads(text) if sep else None
        except json.JSONDecodeError as e:
            raise ResourceError(f"--resources {p!r}: the part after '=' is not JSON ({e.msg}); "
                                "write e.g. '*hf-gpt2*={\"num_cpus\": 4, \"num_gpus\": 1}'.") from None
        if not isinstance(options, dict) or not glob.strip():
            raise ResourceError(f"--resources {p!r} must look like RUN_GLOB={{\"num_cpus\": 1}}.")
        unknown = set(options) - KEYS
        if unknown:
            raise ResourceError(f"--resources {p!r}: unknown key(s) {sorted(unknown)}; allowed: {sorted(KEYS)}.")
        out.append((glob.strip(), options))
    return out


def run_resources(run_name: str, specs, overrides: list[tuple[str, dict]]) -> dict:
    """The Ray options of one run: the default from its specs, then every override whose glob matches its name."""
    options = default_resources(specs)
    for glob, extra in overrides:
        if fnmatch.fnmatchcase(run_name, glob):
            options.update(extra)
    return options
