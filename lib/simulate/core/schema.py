"""The truth file's schema pieces (pydantic): a section is a frozen dataclass that refuses unknown keys
and non-finite numbers, its fields typed with the ranges below; a failed validation becomes one line
naming the file and the field."""
from __future__ import annotations

from typing import Annotated

from pydantic import ConfigDict, Field, ValidationError
from pydantic.dataclasses import dataclass

from .truth_error import TruthError

SECTION = ConfigDict(extra="forbid", allow_inf_nan=False)
Probability = Annotated[float, Field(gt=0, lt=1)]  # a planted rate strictly between 0 and 1
Share = Annotated[float, Field(ge=0, lt=1)]  # a share that may be 0 (none), never 1
Sd = Annotated[float, Field(ge=0)]  # a standard deviation


def section(cls):
    """A truth-file section: a frozen pydantic dataclass with the schema's config."""
    return dataclass(frozen=True, config=SECTION)(cls)


def one_line(error: ValidationError, where: str, root=None) -> TruthError:
    """The first failure of a validation as one TruthError line: where, the field's dotted path, the
    reason (an unknown key with the keys allowed there, when `root`, the validated class, is given),
    and how many more failures there were."""
    first, more = error.errors()[0], error.error_count() - 1
    loc, kind = [str(p) for p in first["loc"]], first["type"]
    if kind in ("extra_forbidden", "unexpected_keyword_argument"):
        allowed = _fields(root, loc[:-1])
        reason = "unknown key" + (f"; allowed: {allowed}" if allowed else "")
    elif loc[-1:] == ["[key]"]:
        loc, reason = loc[:-2], f"unknown key {first['input']!r}: {first['msg']}"
    elif kind == "value_error":
        reason = first["msg"].removeprefix("Value error, ")
    else:
        reason = f"{first['msg']}, got {first['input']!r}"
    tail = f" (and {more} more)" if more else ""
    return TruthError(f"{where}: {'.'.join(loc) or 'the file'}: {reason}{tail}; see configs/known_truth.yaml.")


def _fields(root, path: list[str]) -> list[str]:
    """The field names of the section at `path` under the class `root` ([] when it is not a section)."""
    cls = root
    for part in path:
        fields = getattr(cls, "__pydantic_fields__", {})
        if part not in fields:
            return []
        cls = fields[part].annotation
    return sorted(getattr(cls, "__pydantic_fields__", {}))
