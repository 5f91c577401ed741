"""Holm's families are declared with the measures: every measure with a test enters one, a secondary
reading in its study's family of secondary readings (never beside the paper's reading it repeats), and
on a run shaped like the demo (per-dataset rows below 30 units, pooled rows of 33) the pooled rows of
every tested reading carry an adjusted p and a family."""
import math

import pandas as pd
import pytest

from lib import stats
from lib.report import findings, measures

SECONDARY = "self-preference, secondary readings"
HMS = "human_minus_self.{dataset}.rag.self_{fact}.{method}"


def test_every_declared_measure_with_a_test_enters_a_family():
    """A declaration with a null and `holm` names a family; a secondary reading's is not its study's
    own (one reading per quantity there)."""
    for m in measures.all_measures():
        if m.null is None or not m.holm:
            assert m.holm_family == "", m.pattern
            continue
        assert m.holm_family, f"{m.pattern}: tested but in no Holm family"
        assert (m.holm_family == m.study) == m.primary, m.pattern


def test_a_secondary_reading_declares_the_study_s_secondary_family():
    assert measures.find("human_minus_self.all.rag.self_true.next_token_expected_score_after").holm_family == SECONDARY
    assert measures.find("human_minus_self.all.rag.self_true.paper_parsed_reply").holm_family == "self-preference"
    assert measures.find("first_position_rate.likelihood_sum").holm_family == SECONDARY
    # an undeclared id falls back to its row's reading: the study's family when primary, none when secondary
    assert measures.holm_family("not_declared", "utility", True) == "utility"
    assert measures.holm_family("not_declared", "utility", False) == ""


def demo_shaped_05() -> list[dict]:
    """05's rows as the demo writes them: the paper's parsed reply on a handful of items, the
    likelihood readings on 14 / 10 / 9 items per dataset and 33 pooled."""
    rows = []
    sizes = {"nq": 14, "marco": 10, "triviaqa": 9}
    for fact in ("true", "false"):
        for d, n in sizes.items():
            rows.append(findings.declared_finding(
                "self-preference", "05_pointwise_reranking", f"paper {d} {fact}", "local:m", 1, 0.0,
                measure_id=HMS.format(dataset=d, fact=fact, method="paper_parsed_reply")))
            for method, p in (("next_token_argmax_after", 0.3), ("next_token_expected_score_after", 0.06)):
                rows.append(findings.declared_finding(
                    "self-preference", "05_pointwise_reranking", f"{method} {d} {fact}", "local:m", n, 0.1,
                    -0.1 if n >= 10 else None, 0.3 if n >= 10 else None, p=p,
                    measure_id=HMS.format(dataset=d, fact=fact, method=method)))
        rows.append(findings.declared_finding(
            "self-preference", "05_pointwise_reranking", f"paper all {fact}", "local:m", 6, 0.0, pooled=True,
            measure_id=HMS.format(dataset="all", fact=fact, method="paper_parsed_reply")))
        for method, p in (("next_token_argmax_after", 0.18 if fact == "true" else 0.42),
                          ("next_token_expected_score_after", 0.074 if fact == "true" else 0.073)):
            rows.append(findings.declared_finding(
                "self-preference", "05_pointwise_reranking", f"{method} all {fact}", "local:m", 33, 0.04,
                -0.004, 0.084, p=p, pooled=True, measure_id=HMS.format(dataset="all", fact=fact, method=method)))
    return rows


def test_the_pooled_likelihood_rows_of_a_demo_sized_run_are_tested_in_their_family(tmp_runs):
    """The demo's four pooled 05 rows (33 items, secondary readings) had a p and no Holm p; now they
    are Holm's family of the study's secondary readings, and nothing smoke or of the paper's reading
    at 6 items joins it."""
    findings.record("d", "05_pointwise_reranking", demo_shaped_05())
    table = pd.read_csv(findings.summarize(tmp_runs / "d")[0])
    tested = table[table["p_adjusted"].notna()]
    assert set(tested["family"]) == {SECONDARY}
    assert sorted(tested["measure_id"]) == sorted(HMS.format(dataset="all", fact=f, method=m) for f in ("true", "false")
                                                   for m in ("next_token_argmax_after", "next_token_expected_score_after"))
    assert tested["p_adjusted"].tolist() == pytest.approx(stats.holm(tested["p"].to_numpy(float)))
    # every row with a test and 30 units is in a family; no smoke row is
    sized = table[table["p"].notna() & (table["n_items"] >= findings.SMOKE_N)]
    assert sized["family"].notna().all() and table.loc[table["smoke"], "family"].isna().all()


def test_a_secondary_reading_is_never_tested_beside_the_reading_it_repeats(tmp_runs):
    """With the paper's reading at 40 items as well, the two readings land in two families."""
    mid = "human_minus_self.nq.rag.self_true.{}"
    rows = [findings.declared_finding("self-preference", "05_pointwise_reranking", "paper", "local:m", 40, 0.1, 0.0,
                                      0.2, p=0.01, measure_id=mid.format("paper_parsed_reply")),
            findings.declared_finding("self-preference", "05_pointwise_reranking", "argmax", "local:m", 40, 0.1, 0.0,
                                      0.2, p=0.02, measure_id=mid.format("next_token_argmax_after"))]
    frame = findings.adjust(pd.DataFrame(rows).reindex(columns=findings.COLUMNS))
    assert frame["family"].tolist() == ["self-preference", SECONDARY]
    assert frame["p_adjusted"].tolist() == pytest.approx([0.01, 0.02])  # each alone in its family


def test_the_readme_states_every_family_of_a_study(tmp_runs):
    findings.record("d", "05_pointwise_reranking", demo_shaped_05())
    text = findings.summarize(tmp_runs / "d")[1].read_text()
    first = text.splitlines()[2]
    assert first.startswith("- **Self-preference in RAG.** After Holm's correction over the family "
                            f"`{SECONDARY}` of 4 tested measures (alpha = 0.05), none differs from its null")
    adjusted = min(stats.holm([0.18, 0.42, 0.074, 0.073]))
    assert f"the smallest adjusted p is {adjusted:.2f}" in first
    assert not math.isnan(adjusted)
