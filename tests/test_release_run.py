"""configs/release.yaml end to end on the release-layout fixtures: no model call, paper_check.csv
written, the N of M line printed (the real release is not available here)."""
import json

import pandas as pd
import pytest

from lib import paper_check, runner
from lib.config import ROOT


@pytest.mark.notebooks
def test_release_config_runs_without_models_and_writes_the_paper_check(tmp_runs):
    name = "pytest_release"
    cfg = runner.load_config(ROOT / "configs" / "release.yaml", {"release_dir": "tests/fixtures/release"})
    result = runner.run(cfg, name)
    assert result["cache"]["misses"] == 0  # every analysis of the check needs no model
    out = tmp_runs / name
    check = pd.read_csv(out / "paper_check.csv")
    assert list(check.columns) == paper_check.COLUMNS
    sp = check[check["paper"] == "self-preference-v1"]
    ut = check[check["paper"] == "utility-judgments"]
    assert len(sp) == 38 and paper_check.summary_line(sp) == "35 of 38 cells match"
    # utility F1 cells recomputed from their own P and R: two published cells disagree with them
    assert len(ut) == 36 and paper_check.summary_line(ut) == "34 of 36 cells match"
    assert len(check) == 74 and paper_check.summary_line(check) == "69 of 74 cells match"
    printed = json.loads((out / "notebooks" / "16_paper_check.ipynb").read_text())
    text = "".join("".join(o.get("text", "")) for c in printed["cells"] for o in c.get("outputs", []))
    assert "69 of 74 cells match" in text
    assert (out / "04_knowledge_probe" / "knowledge_rescored.csv").exists()
    assert [nb["notebook"] for nb in result["notebooks"]] == [
        "01_dataset.ipynb", "03_perplexity.ipynb", "04_knowledge_probe.ipynb", "16_paper_check.ipynb"]
    assert not (ROOT / "data" / "runs" / name).exists()
