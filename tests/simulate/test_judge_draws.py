"""13's verdicts drawn straight from the simulator (lib/simulate/judge_draws.py) are the served ones: a
replication seed's judge accuracies and compare's paired difference, through HTTP, the results cache
and the studies' code, are reproduced to the last digit."""
import pandas as pd
import pytest

from lib.simulate import replicate as R
from lib.simulate.judge_draws import seed_rows, summary
from lib.simulate.core.truth_file import load_truth

pytestmark = pytest.mark.notebooks  # a replication against the simulator, as tests/simulate/test_replicate.py

ACCURACY = "judge_overall_accuracy.generate_and_parse"


@pytest.fixture(autouse=True)
def _quiet(monkeypatch, tmp_path):
    monkeypatch.setenv("TQDM_DISABLE", "1")
    monkeypatch.setenv("RAGBIAS_RUNS", str(tmp_path / "runs"))


@pytest.mark.parametrize("truth_file", ["configs/known_truth_null.yaml", "configs/known_truth.yaml"])
def test_direct_draws_reproduce_a_replication_seeds_judge_rows(truth_file):
    truth, size, seed = load_truth(truth_file), 14, 3  # 42 pairs: over 30 questions, so the paired row is tested
    served = R.one_replication(truth, size, seed, ("13", "17"))
    got = {r["row"]: r for r in seed_rows(truth, seed, size)}
    for model in ("sim", "sim_b"):
        row = served[(served["measure_id"] == ACCURACY) & (served["model"] == model)].iloc[0]
        assert got[model]["estimate"] == pytest.approx(row["estimate"], abs=1e-12)
        assert got[model]["truth"] == pytest.approx(row["truth"], abs=1e-12)
        assert got[model]["n"] == row["n_items"]
    paired = served[served["measure_id"] == f"paired_difference.{ACCURACY}.sim_minus_sim_b"].iloc[0]
    assert got["sim - sim_b"]["estimate"] == pytest.approx(paired["estimate"], abs=1e-12)
    assert got["sim - sim_b"]["truth"] == pytest.approx(paired["truth"], abs=1e-12)
    assert paired["n_items"] >= 30  # not a smoke test: it has a Holm-adjusted p (Holm over its one row)
    assert got["sim - sim_b"]["p"] == pytest.approx(paired["p_adjusted"], abs=1e-12)
    # the two served judges draw apart: under the planted file they differ by design, and under the
    # null file (the same sections) their verdicts still differ somewhere
    assert got["sim"]["estimate"] != got["sim_b"]["estimate"]


def test_summary_counts_coverage_and_scales_errors_by_the_intervals_standard_error():
    rows = pd.DataFrame({"seed": [0, 1, 2, 3], "row": ["sim"] * 4, "truth": [0.5] * 4,
                         "estimate": [0.5, 0.6, 0.4, 0.5], "ci_low": [0.4, 0.55, 0.3, 0.3],
                         "ci_high": [0.6, 0.65, 0.5, 0.7], "covered": [True, False, True, True],
                         "p": [0.5, 0.01, 0.04, None]})
    s = summary(rows).set_index("row").loc["sim"]
    assert s["seeds"] == 4 and s["covered"] == 3 and s["coverage"] == 0.75
    assert s["mean_error"] == pytest.approx(0.0)
    # standard errors 0.2 / 3.92, 0.1 / 3.92, 0.2 / 3.92, 0.4 / 3.92; z = error / se
    z = pd.Series([0.0, 0.1 / (0.1 / 3.92), -0.1 / (0.2 / 3.92), 0.0])
    assert s["z_sd"] == pytest.approx(z.std())
    assert s["p_below_05"] == pytest.approx(2 / 3)  # of the rows with a p
