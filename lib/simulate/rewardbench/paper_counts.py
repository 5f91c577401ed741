"""RAG-RewardBench's pairs per category, typed here from the paper's Table 4 (not read from the
pipeline's `lib.rewardbench.categories`): the truth of 13's overall accuracy weighs categories by these,
so a typo in the pipeline's copy moves its estimate and not the truth (tests/simulate/test_paper_pins.py
checks them against the paper text)."""
from __future__ import annotations

PAPER_COUNTS = {"helpful": 262, "reason": 306, "citation": 361, "harmless": 155, "abstain": 217, "conflict": 184}
