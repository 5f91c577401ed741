"""Where a measure's judgments are shown: its section of a run's judgment page (`inspect.html`, written by
lib.inspect), as the run README, the bias card and compare's tables link to it. Kept here, below every
layer that links, so none of them imports the inspector."""
from __future__ import annotations

PAGE = "inspect.html"


def anchor(measure_id: str) -> str:
    """The id of a measure's section in inspect.html (links from the run README, profile and compare)."""
    return "m-" + "".join(c if c.isalnum() or c in "-_" else "-" for c in str(measure_id))


def link(measure_id: str, prefix: str = "") -> str:
    """The address of a measure's section of a run's inspect.html, from a page `prefix` away from it
    (e.g. "../<run>/" from another folder; "" from the run folder itself)."""
    return f"{prefix}{PAGE}#{anchor(measure_id)}"
