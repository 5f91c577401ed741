"""`python -m lib.simulate validate` over 01, 02 and 06 with the simulator served as a base LM (the run
config's `;base` evaluators): 06's likelihood-choice rows are reported beside their truths and cover
them; the two answers' echoed log-probabilities swapped in the simulator (a planted defect) make
them miss and the command fail."""
import pandas as pd
import pytest

from lib.simulate import echo
from lib.simulate.__main__ import main

pytestmark = pytest.mark.notebooks
SIZE = "12"  # items per dataset: 36 questions; the defect shows at any size
ROWS = ["first_position_rate.likelihood_sum", "factual_preference_rate.likelihood_sum",
        "tf_minus_ft_asymmetry.likelihood_sum"]


def _validate(run, tmp_runs):
    code = main(["validate", "--truth", "configs/known_truth.yaml", "--size", SIZE, "--run", run, "--only", "01,02,06"])
    return code, pd.read_csv(tmp_runs / run / "validation.csv").set_index("measure_id")


def test_likelihood_rows_are_checked_and_cover_their_truth(tmp_runs):
    _, table = _validate("kt_lik_right", tmp_runs)
    rows = table.loc[ROWS]
    assert (rows["n_items"] == 36).all() and rows["truth"].notna().all()
    assert (rows["covered"] == 1).all(), rows.to_string()


def test_swapped_answer_logprobs_in_the_echo_make_validate_fail(tmp_runs, monkeypatch):
    right = echo.answer_prob

    def swapped(replier, fields, said):  # each answer gets the other passage's probability
        q = right(replier, fields, said)
        return None if q is None else 1 - q
    monkeypatch.setattr(echo, "answer_prob", swapped)
    code, table = _validate("kt_lik_swapped", tmp_runs)
    assert code == 1
    rows = table.loc[ROWS]
    assert (rows["covered"] == 0).all(), rows.to_string()
    fact = rows.loc["factual_preference_rate.likelihood_sum"]
    assert fact["estimate"] < 0.5 < fact["truth"]
    # the paper's reading (generated replies, not the echo) is untouched by this defect
    assert table.loc["factual_preference_rate.paper_parsed_reply", "covered"] == 1
