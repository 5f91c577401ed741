"""Listwise order averaging (12's k-sampling runs): hand-made records whose before / after values are
worked out by hand, the record read from the run folder as 12 writes it, and a planted defect (the
after reading run 0 again, the mutant `order_averaged_reads_run0`) changes the answer."""
import json

import numpy as np
import pandas as pd
import pytest

from lib.mitigation import arms, inputs, study
from lib.mitigation.findings_rows import mitigation_findings
from lib.records import DataError, write_records
from lib.utility.benchmark import Candidates
from lib.utility.judging import Judgment
from lib.utility.k_sampling import RUNS_FILE, run_records


def _rec(q, orders, selected, voted, gt, model="m"):
    return {"model": model, "id": q, "source": "nq", "ground_truth": gt, "orders": orders, "selected": selected,
            "failed": [s is None for s in selected], "voted": voted, "question": f"nq|{q}"}


# question 1: run 0 picks passage 0 (shown first), the vote passage 2 (the ground truth);
# question 2: run 0 failed (selects nothing), the vote passage 0 (the ground truth); 3 passages, k = 3
HAND = pd.DataFrame([_rec("1", [[0, 1, 2], [2, 1, 0], [1, 0, 2]], [[0], [2], [1, 2]], [2], [2]),
                     _rec("2", [[1, 0, 2], [0, 1, 2], [2, 0, 1]], [None, [0], [0]], [0], [0])])


def _row(table, quantity):
    return table[table["quantity"] == quantity].iloc[0]


def test_each_quantity_of_hand_made_runs_as_worked_out_by_hand():
    t = arms.order_averaged(HAND)
    assert set(t["arm"]) == {"order_averaged"} and set(t["source"]) == {"12"}
    hit = _row(t, "gt_hit")
    assert (hit["before"], hit["after"], hit["diff"], hit["n"]) == (0.0, 1.0, 1.0, 2)  # neither run 0 hit, both votes
    # flips: q1 {0} vs {2}: 2 of 3 passages; q2 {} vs {0}: 1 of 3
    assert _row(t, "flipped")["after"] == pytest.approx((2 / 3 + 1 / 3) / 2) and _row(t, "flipped")["before"] == 0
    # first shown: q1 run 0 selected its first (0), the vote {2} holds 1 of the runs' firsts 0, 2, 1;
    # q2 run 0 failed (0), the vote {0} holds 1 of 1, 0, 2
    first = _row(t, "first_shown")
    assert first["before"] == pytest.approx(0.5) and first["after"] == pytest.approx(1 / 3)
    assert arms.order_units(HAND.assign(orders=HAND["orders"].str[:1], selected=HAND["selected"].str[:1])).empty


def test_mutant_after_reading_run_0_again_is_caught():
    # the defect: the vote replaced by run 0's own selection leaves nothing to change
    wrong = HAND.assign(voted=[s or [] for s in HAND["selected"].str[0]])
    t = arms.order_averaged(wrong)
    assert _row(t, "gt_hit")["diff"] == 0 and _row(t, "flipped")["after"] == 0
    assert _row(arms.order_averaged(HAND), "gt_hit")["diff"] != _row(t, "gt_hit")["diff"]


def test_12s_record_is_read_from_the_run_folder_and_a_missing_field_is_named(tmp_path):
    assert inputs.K_RUNS_FILE == RUNS_FILE  # one file name, though 18 may not import 12's package
    row = Candidates("q7", "who?", ["a", "b", "c"], [0, 0, 1], source="nq")
    runs = [[Judgment("q7", "listwise-set", "utility", o, selected=s)] for o, s in
            (([2, 0, 1], [2]), ([0, 1, 2], [0, 2]), ([1, 2, 0], None), ([0, 2, 1], [2]))]
    write_records(tmp_path / RUNS_FILE, run_records([row], runs, "m"))
    got = inputs.k_runs(tmp_path)
    assert got.loc[0, "question"] == "nq|q7" and got.loc[0, "voted"] == [2]  # modal size 1, passage 2 voted 3 times
    assert got.loc[0, "failed"] == [False, False, True, False] and got.loc[0, "ground_truth"] == [2]
    t, _dec, notes = study.mitigation_tables(tmp_path, pd.DataFrame(), n_boot=10)
    assert set(t["quantity"]) == set(arms.ORDER_VIEWS) and not any("12's" in n for n in notes)
    rec = json.loads((tmp_path / RUNS_FILE).read_text())
    (tmp_path / RUNS_FILE).write_text(json.dumps({k: v for k, v in rec.items() if k != "voted"}) + "\n")
    with pytest.raises(DataError, match="voted"):
        inputs.k_runs(tmp_path)
    (tmp_path / RUNS_FILE).unlink()
    assert any("12's k-sampling runs: nothing to read" in n for n in study.mitigation_tables(tmp_path, pd.DataFrame())[2])


def test_findings_rows_test_the_changes_and_not_the_flip_share():
    rng = np.random.default_rng(0)
    recs = [_rec(str(i), [[0, 1, 2], [1, 2, 0]], [[0], [1]], [1] if rng.random() < 0.7 else [0], [1])
            for i in range(30)]
    rows = {r["measure_id"]: r for r in mitigation_findings(arms.order_averaged(pd.DataFrame(recs)), pd.DataFrame(
        columns=["quantity", "model", "n", "estimate", "ci_low", "ci_high", "p", "n_judgments", "ci_note"]))}
    assert set(rows) == {"order_averaged.12.gt_hit", "order_averaged.12.flipped", "order_averaged.12.first_shown"}
    assert np.isnan(rows["order_averaged.12.flipped"]["p"]) and rows["order_averaged.12.gt_hit"]["p"] < 0.05
    assert rows["order_averaged.12.gt_hit"]["measure"].startswith("listwise order averaging of 12")
