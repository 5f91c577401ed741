"""Every declared measure names the judgments behind its rows (records file, unit key, reader) or says
why a run keeps none; the check fails on a planted declaration with neither or both."""
from dataclasses import replace

from lib.inspect.collect import unaccounted
from lib.report import measures as R


def test_every_measure_declares_its_judgments_or_a_reason():
    assert unaccounted(R.all_measures()) == []


def test_a_measure_with_neither_or_both_is_named():
    planted = R.Measure("new_rate.{dataset}", "new rate", "utility", "10_relevance_vs_utility", "question", 0.5)
    both = replace(R.find("set_f1.nq.utility"), no_judgments="nothing kept")
    assert unaccounted((planted, both)) == ["new_rate.{dataset}: no judgments and no no_judgments reason",
                                            "set_f1.{source}.{judgment}: both judgments and no_judgments"]


def test_declared_judgments_name_a_records_file_and_a_unit_key():
    declared = [m for m in R.all_measures() if m.judgments is not None]
    # the four notebooks whose judgments the inspector shows (05, 06, 10, 13) all declare theirs
    assert {m.notebook for m in declared} == {"05_pointwise_reranking", "06_generation_phase",
                                              "10_relevance_vs_utility", "13_rewardbench"}
    for m in declared:
        assert m.judgments.records.endswith(".jsonl") and m.judgments.unit_key, m.pattern
        assert callable(m.judgments.read), m.pattern
