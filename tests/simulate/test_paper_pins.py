"""What the simulator types from the papers itself (so a pipeline typo cannot move its truth): the
reply formats it follows and RAG-RewardBench's category counts, each checked against the paper text."""
from __future__ import annotations

import re

import pytest

from tests.papers import paper_path


def _flat(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("kind,paper", [("pair", "self-preference-v1.txt"), ("pair", "self-preference-v2-fact-centric.txt"),
                                        ("rate", "self-preference-v1.txt"), ("rate", "self-preference-v2-fact-centric.txt"),
                                        ("judge", "rag-rewardbench.txt")])
def test_the_formats_the_simulator_follows_are_the_papers(kind, paper):
    from lib.simulate.core.formats import FORMAT_ASKED

    text = _flat(paper_path(paper).read_text(encoding="utf-8"))
    for phrase in FORMAT_ASKED[kind]:
        assert _flat(phrase) in text, (kind, phrase)


def test_the_category_counts_are_table_4s():
    from lib.simulate.rewardbench.paper_counts import PAPER_COUNTS

    text = paper_path("rag-rewardbench.txt").read_text(encoding="utf-8")
    found = {m.group(1).lower(): int(m.group(2)) for m in re.finditer(r"^(\w+) (\d+) total", text, re.M)}
    assert found == PAPER_COUNTS
