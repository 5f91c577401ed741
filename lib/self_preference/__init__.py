"""The self-preference study (notebooks 01-08, 16): the passage bank, the authors' released files,
the knowledge probe, the pointwise and generation phases, their tables, and the paper check.

One module per job: `bank`, `release`, `knowledge`, `passage_stats`, `pointwise`, `pairwise`,
`tables`, `paper_check`, `measures` (the study's findings measures, declared once). QA datasets come from the shared `lib.sources`.
"""
from .knowledge import load_knowledge, rescore_knowledge

__all__ = ["load_knowledge", "rescore_knowledge"]
