"""configs/release.yaml end to end on the release-layout fixtures: no model call, paper_check.csv
written, the N of M line printed (the real release is not available here)."""
import json
import shutil

import pandas as pd
import pytest

from lib import paper_check, runner
from lib.config import ROOT


@pytest.mark.notebooks
def test_release_config_runs_without_models_and_writes_the_paper_check():
    name = "pytest_release"
    cfg = runner.load_config(ROOT / "configs" / "release.yaml", {"release_dir": "tests/fixtures/release"})
    try:
        result = runner.run(cfg, name)
        assert result["cache"]["misses"] == 0  # every analysis of the check needs no model
        out = ROOT / "data" / "runs" / name
        check = pd.read_csv(out / "paper_check.csv")
        assert list(check.columns) == paper_check.COLUMNS and len(check) == 38
        assert paper_check.summary_line(check) == "35 of 38 cells match"
        printed = json.loads((out / "notebooks" / "16_paper_check.ipynb").read_text())
        text = "".join("".join(o.get("text", "")) for c in printed["cells"] for o in c.get("outputs", []))
        assert "35 of 38 cells match" in text
        assert (out / "04_knowledge_probe" / "knowledge_rescored.csv").exists()
        assert [nb["notebook"] for nb in result["notebooks"]] == [
            "01_dataset.ipynb", "03_perplexity.ipynb", "04_knowledge_probe.ipynb", "16_paper_check.ipynb"]
    finally:
        shutil.rmtree(ROOT / "data" / "runs" / name, ignore_errors=True)
        shutil.rmtree(ROOT / "figures" / name, ignore_errors=True)
