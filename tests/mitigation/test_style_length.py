"""Length control of 08's long passages (lib/mitigation/style_length.py) against the planted model of
08's judge (`pairwise.length`, lib/simulate/self_preference/style_length.py): verdicts drawn straight
from the planted parameters, the arm's change against the truth computed from those parameters, a
planted zero found as no change, and the wrong-sign defect (the length term added, not taken out) far
from its truth."""
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from lib.mitigation import length_control as LC
from lib.mitigation.inputs import style_pairs
from lib.mitigation.style_length import style_design, style_length_rows
from lib.records import write_records
from lib.self_preference.style_records import FIELDS, style_records
from lib.simulate.core.truth import Design
from lib.simulate.core.truth_file import Pairwise, Truth
from lib.simulate.mitigation.truth import mitigation_truths, style_length_truth
from lib.simulate.self_preference.truth import style_truths

# long minus normal words per dataset (the simulator's long rewrite repeats its normal one: the
# difference is about the human passage's length, which differs between datasets)
EXTRA = {"nq": 110, "marco": 70, "triviaqa": 205}


def _truth(length=0.5) -> Truth:
    return Truth(pairwise=Pairwise(position=-0.5, self=0.8, factual=1.5, style=-1.2, length=length))


def _records(truth: Truth, per_dataset: int, seed: int = 0) -> tuple[pd.DataFrame, tuple]:
    """08's style-pair lines of one evaluator's own long pairs, both orders, each verdict drawn from the
    planted model: log-odds of passage 1 = position + u_position + style (styled1 - styled2) + length
    (words1 - words2) / 100 (no self or factual term: both passages the evaluator's, both true); and
    the design's pairs (kind, dataset, long minus normal words)."""
    rng = np.random.default_rng(seed)
    pw, rows, pairs = truth.pairwise, [], []
    for ds, extra in EXTRA.items():
        for i in range(per_dataset):
            normal = int(rng.integers(60, 90))
            long_ = normal + extra + int(rng.integers(-6, 7))
            pairs.append(("long", ds, long_ - normal))
            u_pos = rng.normal(0, truth.question_sd)  # the question's position effect, shared by both orders
            for order, s in (("a_first", 1), ("b_first", -1)):
                x = pw.position + u_pos + s * (pw.style + pw.length * (long_ - normal) / 100)
                choice = 1 if rng.random() < 1 / (1 + np.exp(-x)) else 2
                rows.append({"dataset": ds, "item_id": f"{ds}-{i}", "evaluator": "sim", "kind": "long",
                             "a_author": "sim", "b_author": "sim", "order": order, "len_a": long_,
                             "len_b": normal, "choice": choice, "question": f"{ds}|{ds}-{i}"})
    return pd.DataFrame(rows), tuple(pairs)


def _row(records: pd.DataFrame, n_boot: int = 200) -> dict:
    table, notes = style_length_rows(records, n_boot=n_boot)
    assert not notes and len(table) == 1
    return table.iloc[0].to_dict()


def test_the_planted_length_term_is_removed_as_the_truth_says():
    t = _truth()
    records, pairs = _records(t, per_dataset=400)
    truth = style_length_truth(t, Design(style_pairs=pairs))
    assert truth < -0.05  # the planted term moves the long-passage preference by this much
    got = _row(records)
    assert got["arm"] == "length_control" and got["source"] == "08" and got["quantity"] == "long"
    assert got["n"] == 1200 and got["n_judgments"] == 2400
    assert got["ci_low"] <= truth <= got["ci_high"]
    assert got["diff"] == pytest.approx(truth, abs=0.03)
    # before is the share naming the long passage, which 08's own truth gives with the length term
    before = np.mean([style_truths(t, Design(style_pairs=pairs), ds)["long"] for ds in EXTRA])
    assert got["before"] == pytest.approx(before, abs=0.03)


def test_no_planted_length_term_is_found_as_no_change():
    t = _truth(length=0.0)
    records, pairs = _records(t, per_dataset=400, seed=1)
    assert style_length_truth(t, Design(style_pairs=pairs)) == 0.0
    got = _row(records)
    assert got["ci_low"] <= 0.0 <= got["ci_high"]
    assert abs(got["diff"]) < 0.03


def test_the_length_term_added_instead_of_taken_out_misses_the_truth():
    t = _truth()
    records, pairs = _records(t, per_dataset=400, seed=2)
    truth = style_length_truth(t, Design(style_pairs=pairs))
    rows = style_design(records)
    fit = LC._fit(rows, binary=True)
    before, after = LC._change(rows, fit, binary=True)
    assert float((after - before).mean()) == pytest.approx(truth, abs=0.03)
    toward = np.where(rows["quality"] > 0, 1.0, -1.0)
    wrong = LC._matrix(rows) @ fit.params + fit.params[-1] * rows["length"].to_numpy(float)  # the mutant's sign
    wrong_diff = float((1 / (1 + np.exp(-wrong * toward)) - before).mean())
    assert wrong_diff > 0 > truth and abs(wrong_diff - truth) > 0.1


def test_a_design_without_spread_in_length_is_said_not_reported():
    records, _ = _records(_truth(), per_dataset=30, seed=3)
    records = records.assign(len_a=records["len_b"] + 100)  # every long passage 100 words longer
    table, notes = style_length_rows(records, n_boot=20)
    assert table.empty and len(notes) == 1 and "did not fit" in notes[0]


def test_only_the_evaluators_own_pairs_of_the_kind_enter_and_unparsed_replies_are_left_out():
    records, _ = _records(_truth(), per_dataset=5, seed=4)
    other = records.assign(a_author="human", b_author="human")
    qa = records.assign(kind="gen_by_qa")
    unparsed = records.iloc[:3].assign(choice=np.nan)
    rows = style_design(pd.concat([records, other, qa, unparsed], ignore_index=True))
    assert len(rows) == len(records)
    assert (rows["own"] == 0).all()  # both passages the evaluator's: authorship does not enter the fit
    first = records["order"] == "a_first"
    assert np.allclose(rows["length"], np.where(first, 1, -1) * (records["len_a"] - records["len_b"]) / 100)


def test_08s_records_round_trip_to_the_arms_input(tmp_path):
    scored = pd.DataFrame({
        "dataset": ["nq", "nq"], "item_id": ["q1", "q1"], "evaluator": ["sim", "sim"], "kind": ["long", "long"],
        "a_author": ["sim", "sim"], "b_author": ["sim", "sim"], "a_style": ["long", "long"],
        "b_style": ["normal", "normal"], "order": ["a_first", "b_first"],
        "text_1": ["one two three four", "one two"], "text_2": ["one two", "one two three four"],
        "status": ["ok", "ok"], "choice": pd.array([1, None], dtype="Int64"), "valid": [True, False],
        "chose_a": pd.array([True, None], dtype="boolean")})
    lines = style_records(scored)
    assert list(lines.columns) == FIELDS
    assert lines["len_a"].tolist() == [4.0, 4.0] and lines["len_b"].tolist() == [2.0, 2.0]
    write_records(tmp_path / "style_pairs.jsonl", lines)
    back = style_pairs(tmp_path)
    assert back["question"].tolist() == ["nq|q1", "nq|q1"]
    assert back["choice"].iloc[0] == 1 and pd.isna(back["choice"].iloc[1])
    assert style_pairs(tmp_path / "nowhere").empty


def test_the_registry_gives_the_arms_truth_and_a_design_without_pairs_takes_equal_lengths():
    t = _truth()
    _, pairs = _records(t, per_dataset=3)
    got = mitigation_truths(t, Design(style_pairs=pairs))["length_control.08.long"]
    assert got[0] == "18_mitigation" and got[1] < -0.05 and got[2] == 0.0
    assert mitigation_truths(t, Design())["length_control.08.long"][1] == 0.0
    assert style_length_truth(replace(t, pairwise=replace(t.pairwise, length=-0.5)), Design(style_pairs=pairs)) > 0.05
