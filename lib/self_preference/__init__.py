"""The self-preference study (notebooks 01-08, 16): the passage bank, the authors' released files,
the knowledge probe, the pointwise and generation phases, their tables, and the paper check.

Modules (the shared layout: CONTRIBUTING.md, "Layout of a study package"): `measures` (the study's
findings measures, declared once), `findings_rows` (rows of 03, 05, 06 and 08 for the findings table),
`replies` (`reparse` of 05's stored ratings), `figures` (every figure of 05-08), `model_loop`
(`for_each_model`: every evaluator, run and concatenated). The steps: `bank` (02's passage bank),
`columns` (bank columns, knowledge levels), `release` (the authors' released files), `knowledge` (04's
probe), `passage_stats` (01 and 03's statistics), `pointwise` (05), `pairwise` (06-08), `likelihood`
(the likelihood readings beside both), `tables` (the preference and rating tables), `report` (05 / 06
table views), `paper_check` (the published cells), `study` (each of 02-08's work in one study function,
which its notebook and its known-truth replication both call). QA datasets come from the shared `lib.sources`.
"""
from .knowledge import load_knowledge, rescore_knowledge

__all__ = ["load_knowledge", "rescore_knowledge"]
