"""`python -m lib.simulate validate` over notebooks 13-15 with two served models (papermill, smoke
size): every row is checked against the truth of the model it measured, compare's paired difference
between the two judges against the difference of their truths; a paired difference taken the wrong
way round (a planted defect in lib.compare) misses its truth and fails the check."""
import pandas as pd
import pytest

from lib.simulate.rewardbench import validate as rm_validate
from lib.simulate.__main__ import main
from lib.simulate.validate import COLUMNS, verdict

pytestmark = pytest.mark.notebooks
RUN, SIZE = "kt_rm", "12"  # 12 pairs per category: rows are smoke tests, detection is not asked of them here


@pytest.fixture(scope="module")
def validated(tmp_path_factory):
    runs = tmp_path_factory.mktemp("runs")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RAGBIAS_RUNS", str(runs))
        mp.setenv("RAGBIAS_FIGURES", str(runs.parent / "figures"))
        mp.setenv("RAGBIAS_CACHE", str(runs.parent / "cache"))
        main(["validate", "--truth", "configs/known_truth.yaml", "--size", SIZE, "--run", RUN,
              "--only", "01,13,14,15"])
        yield runs / RUN, pd.read_csv(runs / RUN / "validation.csv")


def test_each_served_model_is_checked_against_its_own_truth(validated):
    _, table = validated
    for mid in ("judge_overall_accuracy.generate_and_parse", "rm_prefers_longer.generate_and_parse",
                "best_of_n_gain.generate_and_parse"):
        rows = table[table["measure_id"] == mid].set_index("model")
        assert set(rows.index) == {"sim", "sim_b"}, mid
        assert rows.loc["sim", "truth"] != rows.loc["sim_b", "truth"]
    acc = table[table["measure_id"] == "judge_overall_accuracy.generate_and_parse"].set_index("model")["truth"]
    diff = table[table["measure_id"].str.startswith("paired_difference.judge_overall_accuracy")]
    assert len(diff) == 1 and diff["model"].iloc[0] == "sim - sim_b"
    assert diff["truth"].iloc[0] == pytest.approx(acc["sim"] - acc["sim_b"])
    assert diff["covered"].iloc[0] == 1 and table["covered"].dropna().mean() >= 0.9


def test_a_paired_difference_taken_the_wrong_way_round_misses_its_truth(validated, monkeypatch):
    run_dir, table = validated
    from lib.compare import paired

    right = paired.paired_differences

    def reversed_pairs(long, folders):  # the planted defect: second minus first under first-minus-second labels
        out = right(long, folders)
        return out.assign(estimate=-out["estimate"], ci_low=-out["ci_high"], ci_high=-out["ci_low"])

    monkeypatch.setattr(paired, "paired_differences", reversed_pairs)
    truths = {}
    for r in table.dropna(subset=["model"]).to_dict("records"):
        truths.setdefault(r["model"], {})[r["measure_id"]] = (r["notebook"], r["truth"], r["null"])
    rows = rm_validate.paired_rows([run_dir], truths, COLUMNS)
    assert len(rows) == 1 and rows["covered"].iloc[0] == 0 and rows["estimate"].iloc[0] < 0 < rows["truth"].iloc[0]
    passed, line = verdict(pd.concat([table[~table["measure_id"].str.startswith("paired_")], rows]))
    assert not passed and "paired_difference" in line
