"""Read judgments out of model replies: the authors' rules first, our repairs counted as repairs.

Every parser returns `Parsed(value, status, note)` with status "ok" (the authors' rule or the exact
format their prompt asks for), "repaired" (one of our repairs) or "failed" (value None: nothing
readable). Callers count all three; a failed set or ranking is never replaced by a default.

The authors' rules (authors-code-notes.md): pointwise reads "yes" when the lower-cased reply contains
": yes", "is yes" or " yes", else "no"; pairwise reads "passage-0" in the lower-cased reply as the
first passage, else the second. Their listwise formats: 'My selection: [<passage-i>, ...]' and
'My rank: [i]>[j]>...>[k]', passages numbered from 0. Our repairs: a reply that starts with yes / no;
a pairwise reply naming neither passage is FAILED by default (the authors' script would read it as
Passage-1: `authors_default=True` does that); listwise ids found without the marker, bare numbers,
ids out of range dropped, repeats dropped. A ranking that names only some passages is scored on the ids
it named (a repair, noted): the passages it leaves out are unranked, never appended in input order,
which would credit the input order (Figure 5 places the ground truth at each position in turn).
An echoed passage label ("[0]: ...", "Passage-1: ...", the input's own layout) is never read as a
judgment: a reply that only echoes the passages is a failure.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

OK, REPAIRED, FAILED = "ok", "repaired", "failed"
_ID = re.compile(r"\[\s*(?:passage[\s\-_]*)?(\d+)\s*\]|<\s*passage[\s\-_]*(\d+)\s*>|passage[\s\-_#]*(\d+)",
                 re.I)
# A label followed by a colon ("[0]: text", "Passage-1: text") is the model echoing the input, not a
# judgment: such labels are removed before ids are read.
_ECHO = re.compile(r"(?:\[\s*\d+\s*\]|passage[\s\-_#]*\d+)\s*:", re.I)
_BARE_NUM = re.compile(r"\b(\d+)\b")
# Bare numbers are read only after a marker or in a reply made of numbers alone ("2, 5", "2 > 0 > 1"):
# elsewhere they are years and counts from echoed passages.
_NUMBERS_ONLY = re.compile(r"[\s\d,;>.\-\[\]]*(?:and[\s\d,;>.\-\[\]]*)*", re.I)
_MARKERS = {"pointwise": re.compile(r"my judgment\s*:", re.I),
            "pairwise": re.compile(r"my choice\s*:", re.I),
            "listwise-set": re.compile(r"my selection\s*:", re.I),
            "listwise-rank": re.compile(r"my rank\s*:", re.I)}
_YES_NO = re.compile(r"\b(yes|no)\b", re.I)
_NONE = re.compile(r"\b(none|no passage|nothing)\b|\[\s*\]", re.I)


@dataclass
class Parsed:
    """One parsed judgment: the value, how it was obtained, and a short note for the failure log."""

    value: Any
    status: str
    note: str = ""


def after_marker(text: str, form: str) -> str | None:
    """The reply after its last 'My judgment: / My choice: / My selection: / My rank:' marker."""
    marks = list(_MARKERS[form].finditer(text or ""))
    return text[marks[-1].end():] if marks else None


def _ids(text: str, marked: bool = False) -> tuple[list[int], bool]:
    """Passage numbers in mention order; second item says whether bare numbers had to be used
    (allowed only after a marker, `marked`, or in a reply of numbers alone)."""
    text = _ECHO.sub(" ", text or "")
    found = [int(a or b or c) for a, b, c in _ID.findall(text)]
    if found:
        return found, False
    if marked or _NUMBERS_ONLY.fullmatch(text.strip()):
        return [int(n) for n in _BARE_NUM.findall(text)], True
    return [], False


def parse_yes_no(text: str) -> Parsed:
    """Pointwise reply -> True (yes) / False (no) by the authors' rule; a leading yes/no is a repair."""
    low = (text or "").lower()
    if ": yes" in low or "is yes" in low or " yes" in low:
        return Parsed(True, OK)
    if ": no" in low or "is no" in low or re.search(r"\bno\b", low):
        return Parsed(False, OK)
    first = _YES_NO.match(low.strip())
    if first:  # "Yes, ..." with no space before it: the authors' rule would read "no"
        return Parsed(first.group(1) == "yes", REPAIRED, "leading yes/no")
    return Parsed(None, FAILED, f"no yes/no in reply: {text[:60]!r}")


def parse_pair(text: str, authors_default: bool = False) -> Parsed:
    """Pairwise reply -> 0 or 1 (the passage said to contribute more utility)."""
    low = (text or "").lower()
    if "passage-0" in low:
        return Parsed(0, OK)
    if "passage-1" in low:
        return Parsed(1, OK)
    part = after_marker(text, "pairwise")
    ids, bare = _ids(text or "" if part is None else part, marked=part is not None)
    choices = [i for i in ids if i in (0, 1)]
    if choices:
        return Parsed(choices[0], REPAIRED, "bare number" if bare else "passage named without '-'")
    if authors_default:
        return Parsed(1, REPAIRED, "no passage named: authors' default (Passage-1)")
    return Parsed(None, FAILED, f"no Passage-0 / Passage-1 in reply: {text[:60]!r}")


def _clean_ids(ids: list[int], n: int) -> tuple[list[int], list[str]]:
    """Keep ids in 0..n-1, first occurrence only, with notes on what was dropped."""
    notes = []
    kept = [i for i in ids if 0 <= i < n]
    if len(kept) < len(ids):
        notes.append(f"dropped out-of-range ids {sorted(set(ids) - set(kept))}")
    unique = list(dict.fromkeys(kept))
    if len(unique) < len(kept):
        notes.append("dropped repeats")
    return unique, notes


def parse_set(text: str, n: int) -> Parsed:
    """Listwise-set reply -> sorted 0-based passage indices; None when nothing is readable."""
    part = after_marker(text, "listwise-set")
    notes = [] if part is not None else ["no 'My selection:' marker"]
    marked = part is not None
    part = text or "" if part is None else part
    ids, bare = _ids(part, marked)
    if not ids:
        if _NONE.search(part):
            return Parsed([], OK if not notes else REPAIRED, "; ".join(notes + ["empty selection"]))
        return Parsed(None, FAILED, f"no passage ids in reply: {text[:60]!r}")
    unique, more = _clean_ids(ids, n)
    notes += more + (["bare numbers"] if bare else [])
    if not unique:
        return Parsed(None, FAILED, "; ".join(notes))
    return Parsed(sorted(unique), REPAIRED if notes else OK, "; ".join(notes))


def parse_ranking(text: str, n: int) -> Parsed:
    """Listwise-rank reply -> the passage ids it named, most to least useful (a partial ranking stays
    partial); None when unreadable. Neither inherits the input order."""
    part = after_marker(text, "listwise-rank")
    notes = [] if part is not None else ["no 'My rank:' marker"]
    ids, bare = _ids(text or "" if part is None else part, marked=part is not None)
    order, more = _clean_ids(ids, n)
    notes += more
    if not order:
        return Parsed(None, FAILED, f"no usable ranking in reply: {text[:60]!r}")
    if len(order) < n:  # the rest stay unranked: no rank position, no gain
        notes.append(f"partial ranking: {len(order)} of {n} named, the rest unranked")
    if bare:
        notes.append("bare numbers")
    return Parsed(order, REPAIRED if notes else OK, "; ".join(notes))


def status_counts(parsed: list[Parsed]) -> dict[str, int]:
    """How many judgments were ok, repaired, failed."""
    counts = {OK: 0, REPAIRED: 0, FAILED: 0}
    for p in parsed:
        counts[p.status] += 1
    return counts
