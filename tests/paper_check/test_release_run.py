"""configs/release.yaml end to end on the release-layout fixtures: no model call, paper_check.csv
written, the N of M line printed (the real release is not available here)."""
import json

import pandas as pd
import pytest

from lib import paper_check, runner
from lib.paths import ROOT


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
    kinds = check.groupby(["paper", "kind"])["match"].agg(["sum", "size"])
    # per kind, never one pooled total: only reproduced cells are our code on the authors' data
    assert kinds.loc[("self-preference-v1", "reproduced")].tolist() == [25, 28]
    assert kinds.loc[("self-preference-v1", "release")].tolist() == [6, 6]
    assert kinds.loc[("self-preference-v1", "explained")].tolist() == [0, 4]
    assert len(sp) == 38 and set(ut["kind"]) == {"consistency"}
    assert kinds.loc[("utility-judgments", "consistency")].tolist() == [34, 36]  # two published F1s disagree
    assert paper_check.summary_line(check) == "25 of 28 cells match"
    printed = json.loads((out / "notebooks" / "16_paper_check.ipynb").read_text())
    text = "".join("".join(o.get("text", "")) for c in printed["cells"] for o in c.get("outputs", []))
    for line in paper_check.summary_lines(check):
        assert line in text
    # v1 Table 1 from our matcher on the recorded replies; NQ+AIGC query and human cells determined
    t1 = sp[sp["table"] == "Table 1"]
    assert len(t1) == 12 and set(t1["kind"]) == {"reproduced"}
    nq = sp[(sp["row"] == "NQ+AIGC") & sp["column"].isin(["Avg. Query Length", "Human Avg. Doc Length"])]
    assert set(nq["kind"]) == {"reproduced"} and nq["match"].all()
    assert (out / "04_knowledge_probe" / "knowledge_rescored.csv").exists()
    assert [nb["notebook"] for nb in result["notebooks"]] == [
        "01_dataset.ipynb", "03_perplexity.ipynb", "04_knowledge_probe.ipynb", "16_paper_check.ipynb"]
    assert not (ROOT / "data" / "runs" / name).exists()
