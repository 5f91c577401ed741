"""The benchmark's six categories and how Table 2 groups them into Helpful and Harmless."""
from __future__ import annotations

from lib.records import DataError

# category -> (group, column name in Table 2); the order is Table 2's column order
CATEGORIES: dict[str, tuple[str, str]] = {
    "helpful": ("Helpful", "General"),
    "reason": ("Helpful", "Reason"),
    "citation": ("Helpful", "Citation"),
    "harmless": ("Harmless", "General"),
    "abstain": ("Harmless", "Abstain"),
    "conflict": ("Harmless", "Conflict"),
}
GROUPS = ("Helpful", "Harmless")

# Table 4 of the paper: pairs per published subset, used to check the loader against a full download
PUBLISHED_COUNTS = {
    "helpful": 262, "reason": 306, "citation": 361, "harmless": 155, "abstain": 217, "conflict": 184,
}


def category_weights(sample_counts: dict) -> dict:
    """Weight of each category in group and overall averages: the paper's count (Table 4) for its six
    categories, so equal-sized samples per category average as the paper's Overall does; the sample
    count for any other category."""
    return {c: float(PUBLISHED_COUNTS.get(c, n)) for c, n in sample_counts.items()}


class CategoryError(DataError):
    """A pair whose category cannot be told from its subset or file name."""


OTHER = "other"  # RewardBench-layout rows from outside this benchmark (strict=False)


def category_of(subset: str, fallback: str | None = None, strict: bool = True) -> str:
    """Category of a subset name such as 'conflict-triviaqa' (prefix before '-'), else the fallback."""
    head = str(subset or "").strip().lower().split("-", 1)[0]
    if head in CATEGORIES:
        return head
    if fallback and fallback.lower() in CATEGORIES:
        return fallback.lower()
    if not strict:
        return OTHER
    raise CategoryError(
        f"cannot tell the category of subset {subset!r}: expected a name starting with one of "
        f"{', '.join(CATEGORIES)} (e.g. 'conflict-nq'), or a file named after the category")


def group_of(category: str) -> str:
    """'Helpful' or 'Harmless' for a category ('Other' for rows outside the benchmark)."""
    return CATEGORIES[category][0] if category in CATEGORIES else "Other"


def column_of(category: str) -> str:
    """Table 2 column header, e.g. 'Harmless / Abstain'."""
    group, col = CATEGORIES.get(category, ("Other", category))
    return f"{group} / {col}"
