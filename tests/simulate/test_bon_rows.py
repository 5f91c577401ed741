"""benchmarks/bench_bon_rows.py: notebook 15's best-of-N rows drawn directly from the planted model
cover their truth, a wrong truth makes them miss it, and the served draws run."""
import importlib.util
from dataclasses import replace
from pathlib import Path

import pytest

from lib.simulate.rewardbench import truth as rm_truth
from lib.simulate.core.truth_file import load_truth

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_bon_rows", ROOT / "benchmarks" / "bench_bon_rows.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _coverage(bench, rows) -> dict:
    return bench.report(rows).set_index("model")["coverage"].to_dict()


def test_planted_draws_cover_the_truth_and_a_wrong_truth_falls(bench, monkeypatch):
    planted = load_truth(ROOT / "configs" / "known_truth.yaml")
    # the knockout judged by sim's helpful category (accuracy 0.85): sim's gain about 0.28
    truth = replace(planted, answers=replace(planted.answers, judge_category="helpful"))
    rows = bench.replicate_rows(truth, 10, 120, "planted", seed=0)
    assert set(rows["n_items"]) == {30}
    assert min(_coverage(bench, rows).values()) >= 0.85
    # a planted wrong truth: the gain of a knockout over one sample (none: 0) for a judge that does pick
    monkeypatch.setattr(bench, "best_of_n_gain", lambda t, n: rm_truth.best_of_n_gain(t, 1))
    wrong = _coverage(bench, bench.replicate_rows(truth, 10, 120, "planted", seed=0))
    assert wrong["sim"] < 0.3


def test_served_draws_give_one_row_per_judge_and_saved_rows_report(bench, monkeypatch, tmp_path):
    monkeypatch.setenv("TQDM_DISABLE", "1")
    rows = bench.replicate_rows(load_truth(ROOT / "configs" / "known_truth_null.yaml"), 10, 1, "served")
    assert list(rows["model"]) == ["sim", "sim_b"] and set(rows["n_items"]) == {30}
    assert rows["ci_low"].notna().all() and (rows["ci_low"] <= rows["estimate"]).all()
    rows.to_csv(tmp_path / "rows.csv", index=False)
    assert bench.main(["--rows", str(tmp_path / "rows.csv")]) == 0


@pytest.mark.notebooks  # a replication against the simulator, as tests/simulate/test_judge_draws.py
def test_served_draws_reproduce_a_replication_seeds_rows(bench, monkeypatch, tmp_path):
    from lib.simulate import replicate as R

    monkeypatch.setenv("TQDM_DISABLE", "1")
    monkeypatch.setenv("RAGBIAS_RUNS", str(tmp_path / "runs"))
    truth, size, seed = load_truth(ROOT / "configs" / "known_truth.yaml"), 10, 3
    served = R.one_replication(truth, size, seed, ("15",))
    served = served[served["measure_id"] == "best_of_n_gain.generate_and_parse"].set_index("model")
    got = bench.replicate_rows(truth, size, 1, "served", first_seed=seed).set_index("model")
    assert sorted(served.index) == sorted(got.index) == ["sim", "sim_b"]
    for model in got.index:
        for col in ("truth", "estimate", "ci_low", "ci_high", "n_items"):
            assert got.loc[model, col] == pytest.approx(served.loc[model, col], abs=1e-12), (model, col)
