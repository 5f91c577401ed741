"""`python -m lib.simulate validate` for notebooks 03, 04 and 07 (and the 01 / 02 they need) at smoke
size through papermill: the planted file passes with every row of 03, 04 and 07 reported; the
planted defect (self-recognition inverted: the echo gives the human passages the own perplexity)
makes 03's rows miss their truth and the command fail."""
import pandas as pd
import pytest

from lib.simulate.__main__ import main

pytestmark = pytest.mark.notebooks
SIZE = "12"  # items per dataset: every row a smoke test (n < 30), detection judged on none of 04 / 07


def _validate(truth, run, tmp_runs):
    code = main(["validate", "--truth", truth, "--size", SIZE, "--run", run, "--only", "01,02,03,04,07"])
    return code, pd.read_csv(tmp_runs / run / "validation.csv").set_index("measure_id")


def test_planted_file_passes_for_03_04_07(tmp_runs):
    code, table = _validate("configs/known_truth.yaml", "kt_know", tmp_runs)
    assert code == 0, table.to_string()
    assert set(table["notebook"]) == {"03_perplexity", "04_knowledge_probe", "07_knowledge_stratified"}
    ppl = table.loc["ppl_human_minus_model.nq.paired_t"]
    # n < 30: a smoke test, outside Holm's family, so detection is not judged at this size
    assert ppl["covered"] == 1 and ppl["estimate"] > 0 and ppl["n_items"] == 12
    assert len(table.filter(like="knowledge_level_share.", axis=0)) == 9  # 3 datasets x 3 levels
    assert table.loc["knowledge_stratified_factual.nq.overall", "truth"] > 0.6


def test_inverted_self_recognition_fails_03(tmp_runs):
    code, table = _validate("configs/known_truth_inverted.yaml", "kt_know_inv", tmp_runs)
    assert code == 1
    row = table.loc["ppl_human_minus_model.nq.paired_t"]
    assert row["covered"] == 0 and row["estimate"] < 0 < row["truth"]
