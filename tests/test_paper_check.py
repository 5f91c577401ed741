"""Paper check: published cells, comparison with tolerances, the CSV, and the self-preference check
on small fixtures in the layout of the authors' release (the release itself is not available here)."""
import math
import warnings
from pathlib import Path

import pandas as pd
import pytest

from lib import paper_check
from lib.paper_check.published import PUBLISHED
from lib.self_preference import paper_check as sp_check

REL = Path(__file__).parent / "fixtures" / "release"


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
    assert paper_check.summary_line(t) == "1 of 3 cells match (1 not determined by the files given)"
    with pytest.raises(KeyError, match="no published counterpart"):
        paper_check.compare({("self-preference-v1", "Table 9", "x", "y"): 1.0}, cells)


def test_check_on_release_fixtures_matches_what_they_reproduce_and_flags_the_rest(tmp_path):
    with pytest.warns(UserWarning, match="hold each other's data"):
        t = sp_check.check_release(REL)
    assert len(t) == 38 and t["ours"].notna().all()
    assert paper_check.summary_line(t) == "35 of 38 cells match"
    differ = t[~t["match"]].set_index(["table", "row", "column"])
    # the fixtures were written to miss these cells: the check must say so, not hide them
    assert set(differ.index) == {("Table 2", "NQ+AIGC", "Avg. Query Length (Std)"),
                                 ("Table 1", "MARCO / LLaMA", "No"), ("Table 1", "MARCO / LLaMA", "Partial")}
    assert differ.loc[("Table 2", "NQ+AIGC", "Avg. Query Length (Std)"), "ours"] == pytest.approx(1.476, abs=0.001)
    path = paper_check.write(t, tmp_path / "paper_check.csv")
    back = pd.read_csv(path)
    assert list(back.columns) == paper_check.COLUMNS and back["match"].sum() == 35
    assert set(back["paper"]) == {"self-preference-v1"} and set(back["table"]) == {"Table 1", "Table 2"}


def test_without_the_swap_fix_the_perplexity_cells_no_longer_match():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = sp_check.check_release(REL, fix_swapped=False)
    ppl = t[t["column"].str.endswith(" PPL")]
    assert len(ppl) == 6 and not ppl["match"].any()


def test_missing_release_folder_says_what_to_pass(tmp_path):
    with pytest.raises(Exception, match="release_dir .* is not a folder"):
        sp_check.check_release(tmp_path / "nope")
