"""inspect.html of a small real run (notebooks 01, 02, 05, 06 and 13 through papermill against the
project's simulator, `python -m lib.simulate validate`), opened from disk in headless Chromium: every
findings row's count of units read from the DOM equals its n; filtered to flipped pairs, 06's
self-preference rate shows both orders side by side with the flips marked, as many questions as the
records have; a run whose records lost a question shows the mismatch."""
import os
import re
import shutil
import subprocess
import sys

import pandas as pd
import pytest
from bs4 import BeautifulSoup

from lib.inspect.__main__ import main
from lib.paths import ROOT
from lib.self_preference.tables import question_ids
from browser import chromium, dump_dom

pytestmark = [pytest.mark.notebooks,
              pytest.mark.skipif(chromium() is None, reason="chromium is not installed (.ci/run installs it)")]
SELF = "self_preference_rate.paper_parsed_reply"


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """A small real run (3 items per dataset, 3 RM pairs per category) made by the simulator's validate."""
    root = tmp_path_factory.mktemp("inspect")
    env = {**os.environ, "RAGBIAS_RUNS": str(root / "runs"), "RAGBIAS_FIGURES": str(root / "figures"),
           "RAGBIAS_CACHE": str(root / "cache"), "TQDM_DISABLE": "1", "PYTHONPATH": str(ROOT)}
    subprocess.run([sys.executable, "-m", "lib.simulate", "validate", "--truth", "configs/known_truth.yaml",
                    "--size", "3", "--run", "inspect_run", "--only", "01,02,05,06,13"],
                   cwd=ROOT, env=env, capture_output=True, timeout=900)  # its known-truth verdict is not this test's
    folder = root / "runs" / "inspect_run"
    assert (folder / "findings.csv").exists()
    return folder


def _blocks(dom: str) -> list[dict]:
    soup = BeautifulSoup(dom, "html.parser")
    return [{"measure": b["data-measure"], "model": b["data-model"], "n": int(b["data-n"]),
             "count": int(b.select_one(".count").text), "counted": int(b.select_one(".counted").text), "el": b}
            for b in soup.select("div.block") if not b.has_attr("hidden")]


def test_counts_in_the_browser_equal_the_findings_n(run, tmp_path):
    assert (run / "inspect.html").exists()  # the runner wrote it at the end of the run
    assert main([str(run)]) == 0
    dom = dump_dom(run / "inspect.html", "", tmp_path / "profile")
    blocks = _blocks(dom)
    findings = pd.read_csv(run / "findings.csv")
    with_judgments = findings[findings["notebook"].isin(["05_pointwise_reranking", "06_generation_phase", "13_rewardbench"])]
    assert len(blocks) == len(with_judgments) > 20
    want = {(r.measure_id, r.model): int(r.n) for r in with_judgments.itertuples()}
    assert {(b["measure"], b["model"]): b["count"] for b in blocks} == want
    assert all(b["counted"] == b["n"] for b in blocks)
    # every row of the run README links to a section of the page
    sections = {s["id"] for s in BeautifulSoup(dom, "html.parser").select("section")}
    links = re.findall(r"\(inspect\.html#([^)]+)\)", (run / "README.md").read_text())
    assert len(links) == len(findings) and set(links) <= sections


def _flipped_questions(folder) -> int:
    """Questions with a pair whose two orders both chose and chose differently (from the records)."""
    pairs = pd.read_json(folder / "generation_pairs.jsonl", lines=True, dtype={"item_id": str})
    pairs = pairs[pairs["chose_a"].notna()].assign(q=lambda p: question_ids(p))
    per_pair = pairs.groupby(["q", "b_author", "combo"])["chose_a"].agg(["nunique", "size"])
    return per_pair[(per_pair["size"] == 2) & (per_pair["nunique"] == 2)].reset_index()["q"].nunique()


def test_flipped_pairs_show_both_orders_with_the_flip_marked(run, tmp_path):
    assert main([str(run), "--measure", SELF]) == 0
    dom = dump_dom(run / "inspect.html", f"filter=flipped&measure={SELF}", tmp_path / "profile")
    (block,) = _blocks(dom)
    expected = _flipped_questions(run)
    assert expected > 0 and block["count"] == expected < block["n"]
    units = block["el"].select("div.unit")
    assert len(units) == min(expected, 20)  # the first page of units
    for unit in units:
        flips = unit.select("table.pair.flipped")
        assert flips, unit["data-unit"]
        for table in flips:
            cells = table.select("td.judgment")
            assert [c.select_one(".order").text for c in cells] == ["own passage first", "other passage first"]
            assert all("passage 1: " in c.select_one(".passages").text for c in cells)
            assert "flipped" in table.select_one("caption").text
            chosen = [c.select_one(".parsed").text for c in cells]
            assert len(set(chosen)) == 1 or chosen[0] != chosen[1]  # same position or another passage


def test_a_run_whose_records_lost_a_question_shows_the_mismatch(run, tmp_path):
    planted = tmp_path / "planted"
    shutil.copytree(run, planted)
    pairs = pd.read_json(planted / "generation_pairs.jsonl", lines=True, dtype={"item_id": str})
    lost = pairs[pairs["chose_a"].notna()]["item_id"].iloc[0]
    pairs[pairs["item_id"] != lost].to_json(planted / "generation_pairs.jsonl", orient="records", lines=True)
    assert main([str(planted), "--measure", SELF]) == 0
    dom = dump_dom(planted / "inspect.html", "", tmp_path / "profile")
    (block,) = _blocks(dom)
    assert block["count"] == block["n"] - 1
    assert "the findings row says n = " in block["el"].select_one(".warn").text


def test_notebooks_end_with_the_judgments_table(run):
    """05, 06 and 13 as the run executed them: the cell before out.finish() shows its measure's
    judgments through itables (its JavaScript bundled in the notebook, no address to fetch it from)."""
    import nbformat

    for stem, mid in (("05_pointwise_reranking", ".rag.self_true.paper_parsed_reply"),
                      ("06_generation_phase", SELF), ("13_rewardbench", "judge_overall_accuracy.generate_and_parse")):
        cells = [c for c in nbformat.read(run / "notebooks" / f"{stem}.ipynb", as_version=4).cells if c.cell_type == "code"]
        cell = cells[-2]
        assert "from lib.inspect import show" in cell.source
        shown = "".join(str(o.get("data", {}).get("text/html", "")) + str(o.get("data", {}).get("text/markdown", ""))
                        for o in cell.outputs)
        assert not [o for o in cell.outputs if o.output_type == "error"]
        assert "findings n = " in shown and mid in shown, stem
        assert "<table" in shown and "DataTable" in shown, stem
