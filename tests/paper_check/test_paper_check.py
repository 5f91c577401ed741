"""Paper check: published cells, comparison with tolerances, the CSV, and the self-preference check
on small fixtures in the layout of the authors' release (the release itself is not available here)."""
import json
import math
import shutil
import warnings
from pathlib import Path

import pandas as pd
import pytest

from lib import paper_check
from lib.paper_check import consistency
from lib.paper_check.published import PUBLISHED
from lib.self_preference import paper_check as sp_check

REL = Path(__file__).parents[1] / "fixtures" / "release"


def test_published_cells_are_unique_and_carry_their_precision():
    keys = [(c.paper, c.table, c.row, c.column) for c in PUBLISHED]
    assert len(keys) == len(set(keys))
    v1 = paper_check.published_cells("self-preference-v1")
    assert len([c for c in v1 if c.table == "Table 1"]) == 12
    assert len([c for c in v1 if c.table == "Table 2"]) == 26
    cell = {(c.row, c.column): c for c in v1}
    assert cell[("NQ / GPT", "No")].value == 36.7 and cell[("NQ / GPT", "No")].tolerance == pytest.approx(0.05)
    assert cell[("NQ+AIGC", "Human Avg. Doc Length")].tolerance == pytest.approx(0.5)  # printed "100"
    assert cell[("MARCO+AIGC", "LLaMA PPL †")].tolerance == 0.0


def test_compare_matches_within_tolerance_and_names_what_is_missing():
    cells = paper_check.published_cells("self-preference-v1", ("Table 1",))[:3]
    ours = {("self-preference-v1", "Table 1", "NQ / GPT", "No"): 36.74,   # rounds to 36.7
            ("self-preference-v1", "Table 1", "NQ / GPT", "Partial"): 19.26}  # rounds to 19.3
    t = paper_check.compare(ours, cells)
    assert list(t.columns) == paper_check.COLUMNS
    assert t["match"].tolist() == [True, False, False] and math.isnan(t["ours"].iloc[2])
    assert t["kind"].tolist() == ["reproduced", "reproduced", "undetermined"]
    assert paper_check.summary_line(t) == "1 of 2 cells match"
    assert paper_check.summary_lines(t)[-1].endswith(": 1")
    with pytest.raises(KeyError, match="no published counterpart"):
        paper_check.compare({("self-preference-v1", "Table 9", "x", "y"): 1.0}, cells)
    with pytest.raises(ValueError, match="kind 'guessed'"):
        paper_check.Computed(1.0, "guessed")


def test_only_reproduced_cells_count_in_n_of_m():
    cells = paper_check.published_cells("self-preference-v1", ("Table 1",))[:3]
    keys = [(c.paper, c.table, c.row, c.column) for c in cells]
    ours = {keys[0]: paper_check.Computed(36.7, "release"), keys[1]: paper_check.Computed(19.2),
            keys[2]: paper_check.Computed(40.0, "explained", "another sample")}
    t = paper_check.compare(ours, cells)
    assert paper_check.summary_line(t) == "1 of 1 cells match"
    lines = paper_check.summary_lines(t)
    assert any(line.startswith("release") and "1 of 1" in line for line in lines)
    assert any(line.startswith("explained") and "1 cells, 0 of them" in line for line in lines)
    assert t.loc[2, "note"] == "another sample"


def _check(folder):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the swapped-perplexity notice
        return sp_check.check_release(folder)


def test_check_on_release_fixtures_counts_each_kind_apart(tmp_path):
    with pytest.warns(UserWarning, match="hold each other's data"):
        t = sp_check.check_release(REL)
    assert len(t) == 38 and t["ours"].notna().all()
    kinds = t.groupby("kind")["match"].agg(["sum", "size"])
    assert kinds.loc["reproduced"].tolist() == [25, 28]
    assert kinds.loc["release"].tolist() == [6, 6]      # the PPL means, as the release holds them
    assert kinds.loc["explained"].tolist() == [0, 4]    # NQ+AIGC model passages (reading files)
    assert paper_check.summary_line(t) == "25 of 28 cells match"
    rep = t[t["kind"] == "reproduced"].set_index(["table", "row", "column"])
    # v1 Table 1 from our matcher; NQ+AIGC query and human cells from the reading-comprehension files
    assert len(rep.loc["Table 1"]) == 12
    nq = rep.reset_index().query("table == 'Table 2' and row == 'NQ+AIGC'")
    assert {"Avg. Query Length", "Human Avg. Doc Length"} <= set(nq["column"])
    differ = rep[~rep["match"]]
    # the fixtures were written to miss these cells: the check must say so, not hide them
    assert set(differ.index) == {("Table 2", "NQ+AIGC", "Avg. Query Length (Std)"),
                                 ("Table 1", "MARCO / LLaMA", "No"), ("Table 1", "MARCO / LLaMA", "Partial")}
    assert differ.loc[("Table 2", "NQ+AIGC", "Avg. Query Length (Std)"), "ours"] == pytest.approx(1.476, abs=0.001)
    explained = t[t["kind"] == "explained"]
    assert explained["note"].str.contains("reading-comprehension").all()
    assert explained.set_index("column").loc["GPT Avg. Doc Length", "ours"] == pytest.approx(111.1)
    path = paper_check.write(t, tmp_path / "paper_check.csv")
    back = pd.read_csv(path)
    assert list(back.columns) == paper_check.COLUMNS and back["match"].sum() == 31
    assert set(back["paper"]) == {"self-preference-v1"} and set(back["table"]) == {"Table 1", "Table 2"}


def test_a_planted_wrong_knowledge_reply_makes_a_reproduced_table1_cell_fail(tmp_path):
    for f in REL.glob("*.json"):
        shutil.copy(f, tmp_path / f.name)
    path = tmp_path / "nq_knowledge_scale_of_5_openai.json"
    recs = json.loads(path.read_text())
    recs["ai_answers"][5 * 999 + 2]["AI_answer"] = "not sure"  # item 999 was answered right five times
    path.write_text(json.dumps(recs))  # the recorded count (knowledge_level) is left as it was
    t = _check(tmp_path).set_index(["table", "row", "column"])
    cell = t.loc[("Table 1", "NQ / GPT", "Full")]
    assert cell["kind"] == "reproduced" and cell["ours"] == pytest.approx(44.0) and not cell["match"]
    assert not t.loc[("Table 1", "NQ / GPT", "Partial"), "match"]
    assert paper_check.summary_line(t.reset_index()) == "23 of 28 cells match"


def test_knowledge_files_without_replies_give_release_cells(tmp_path):
    for f in REL.glob("*.json"):
        recs = json.loads(f.read_text())
        if "knowledge" in f.name:
            recs["ai_answers"] = []
        (tmp_path / f.name).write_text(json.dumps(recs))
    t1 = _check(tmp_path)
    t1 = t1[t1["table"] == "Table 1"]
    assert set(t1["kind"]) == {"release"} and t1["note"].str.contains("no recorded replies").all()


def test_without_the_reading_files_the_nq_length_cells_are_undetermined(tmp_path):
    for f in REL.glob("*.json"):
        if not f.name.startswith("reading_comprehension"):
            shutil.copy(f, tmp_path / f.name)
    t = _check(tmp_path)
    nq = t[(t["row"] == "NQ+AIGC") & t["column"].str.contains("Length")]
    assert len(nq) == 8 and set(nq["kind"]) == {"undetermined"}


def test_utility_f1_rows_are_consistency_checks_of_the_papers_arithmetic():
    rows = consistency.utility_f1_rows()
    assert list(rows.columns) == paper_check.COLUMNS and set(rows["kind"]) == {"consistency"}
    assert len(rows) == 6 + 30 and set(rows["table"]) == {"Table 2", "Table 3"}
    # every cell but two matches to the paper's rounding (the two are reported, not tuned)
    bad = rows[~rows["match"]]
    assert set(zip(bad["row"], bad["column"])) == {("MSMARCO-QA / Relevance", "F1 (listwise-set)"),
                                                   ("ChatGPT", "NQ F1 (Pointwise)")}
    assert paper_check.summary_line(rows) == "0 of 0 cells match"  # none of them is a reproduced cell
    assert consistency.rounding_tolerance(50.0, 50.0) < 0.02
    # the published P / R / F1 cells live with every other published cell, once
    ut = paper_check.published_cells("utility-judgments")
    assert len(ut) == 3 * 36 and {c.column.split()[-2] for c in ut if c.table == "Table 3"} == {"P", "R", "F1"}


def test_without_the_swap_fix_the_perplexity_cells_no_longer_match():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = sp_check.check_release(REL, fix_swapped=False)
    ppl = t[t["column"].str.endswith(" PPL")]
    assert len(ppl) == 6 and not ppl["match"].any()


def test_missing_release_folder_says_what_to_pass(tmp_path):
    with pytest.raises(Exception, match="release_dir .* is not a folder"):
        sp_check.check_release(tmp_path / "nope")
