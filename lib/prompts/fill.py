"""The one way a prompt template gets its values: named `{slot}`s replaced in one pass.

Templates write their input slots as `{name}`. `str.format` would read every other brace as a slot
too (RAG-RewardBench's citation prompt quotes a LaTeX `\\footnote{...}`) and choke on braces inside
the values; here only `{identifier}` is a slot, each is replaced once, and the values are never
scanned again, so a passage that contains `{question}` stays as it is.
"""
from __future__ import annotations

import re

SLOT = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


def slots(template: str) -> set[str]:
    """The slot names a template contains."""
    return set(SLOT.findall(template))


def fill(template: str, **values) -> str:
    """The template with every `{slot}` replaced by str(value); a slot without a value is a KeyError
    naming it (values the template has no slot for are ignored)."""
    missing = slots(template) - set(values)
    if missing:
        raise KeyError(f"prompt template needs values for {sorted(missing)}")
    return SLOT.sub(lambda m: str(values[m.group(1)]), template)
