"""The run README a newcomer reads, rendered from the demo run's own findings (tests/docs/demo_findings.csv,
split back into the per-notebook files a run writes, without their Holm columns, and collected again):
plain sentences first, no claim that a study lacks 30 units where it has them, each missing interval
explained once, and Holm's result stated where the demo has the units for a test."""
import re
from pathlib import Path

import pandas as pd
import pytest

from lib.report import findings
from lib.report.run_readme import once, wording_problems

DEMO = Path(__file__).resolve().parents[1] / "docs" / "demo_findings.csv"


@pytest.fixture
def demo(tmp_runs):
    """The demo's rows as its notebooks wrote them, summarised again by this checkout."""
    rows = pd.read_csv(DEMO)
    folder = tmp_runs / "demo" / "findings"
    folder.mkdir(parents=True)
    for notebook, part in rows.groupby("notebook", sort=False):
        part.drop(columns=["p_adjusted", "family"]).to_csv(folder / f"{notebook}.csv", index=False)
    csv_path, md_path, _ = findings.summarize(tmp_runs / "demo")
    return pd.read_csv(csv_path, keep_default_na=False, na_values=[""]), md_path.read_text()


def bullets(text: str) -> dict[str, str]:
    """{study title: its conclusion} from the README's opening list."""
    return {m.group(1): m.group(2) for m in re.finditer(r"^- \*\*(.+?)\.\*\* (.*)$", text, re.M)}


def test_the_demo_readme_opens_with_plain_sentences(demo):
    table, text = demo
    lines = text.splitlines()
    assert lines[0] == "# Run `demo`: what it found" and lines[1] == ""
    said = bullets(text)
    assert set(said) == {findings.STUDIES[s] for s in table["study"].unique()}
    for title, sentences in said.items():
        assert sentences[0].isupper() and sentences.endswith("."), title
    assert wording_problems(text) == []


def test_no_study_is_said_to_lack_30_units_where_a_row_has_them(demo):
    table, text = demo
    said = bullets(text)
    for study, rows in table.groupby("study"):
        sized = rows[(rows["kind"] == "finding") & (rows["n_items"] >= findings.SMOKE_N)]
        if len(sized):
            assert "No finding of this study has" not in said[findings.STUDIES[study]], study
        untested = sized[sized["p"].isna()]
        if len(untested):  # the count agrees with its verb
            verb = "carries" if len(untested) == 1 else "carry"
            assert f"{len(untested)} estimate" in said[findings.STUDIES[study]]
            assert f"with at least {findings.SMOKE_N} units {verb} no test" in said[findings.STUDIES[study]], study
    assert "every quantity has fewer than" not in text


def test_where_the_demo_has_the_units_for_a_test_the_readme_states_holms_result(demo):
    """Every tested finding with 30 units is in a family, and each family's size is in its study's sentence."""
    table, text = demo
    tested = table[(table["kind"] == "finding") & table["p"].notna() & (table["n_items"] >= findings.SMOKE_N)]
    assert len(tested) and tested["family"].notna().all() and tested["p_adjusted"].notna().all()
    said = bullets(text)
    for (study, family), rows in tested.groupby(["study", "family"]):
        which = "this study's family" if family == study else f"the family `{family}`"
        size = f"{len(rows)} tested measure" + ("s" if len(rows) > 1 else "")
        assert f"After Holm's correction over {which} of {size}" in said[findings.STUDIES[study]]


def test_a_missing_interval_is_explained_once(demo):
    table, text = demo
    assert table["no_interval"].str.contains("no interval").any()  # the demo's own reasons say it again
    assert not re.search(r"no interval[^|.]*no interval", text)
    assert once("all units equal: no interval (nothing varies between units)") == \
        "all units equal (nothing varies between units)"
    # the check itself fails on a reason given twice (planted, as the old demo README had it)
    assert wording_problems("| 1.000 share 0-1 with no interval, all units equal: no interval, nothing varies |")


def test_a_measure_in_a_sentence_names_its_parts_as_a_reader_does():
    """The run README quoted 'human-minus-self rating, all, rag, self true, ...': dataset, prompt and
    factuality keys as stored, not as a reader names them."""
    from lib.report.run_readme import plain

    assert plain("human-minus-self rating (all, rag, self true, next-token expected score after ###)") == (
        "human-minus-self rating, all datasets, RAG prompt, own passage true, next-token expected score after ###")
    assert plain("set F1 % (marco, utility prompts)") == "set F1 %, MS MARCO, utility prompts"
    assert plain("a rag doll, all of it") == "a rag doll, all of it"  # only whole clauses are names
