"""`validate --random`: the drawn truth files stay in their declared ranges, put every effect on both
sides of its null over a few draws, plant exact nulls on every fifth draw, and read back through the
truth file's own checks; the summary over draws fails where one notebook under-covers (a stand-in
for validate gives the tables: the aggregation is pure logic)."""
import math

import pandas as pd
import pytest

from lib.simulate.random_truth import NULL_EVERY, RANGES, draw_truth, write_truths
from lib.simulate.core.truth_file import load_truth
from lib.simulate.validate_random import RANDOM_GOAL, coverage_table, random_verdict, validate_random

EFFECTS = [("pointwise", k) for k, r in RANGES["pointwise"].items() if len(r) == 3] + \
          [("pairwise", k) for k in RANGES["pairwise"]] + [("rewardbench", "position"), ("rewardbench", "length"), ("utility", "position")]


def test_drawn_files_load_and_stay_in_their_ranges(tmp_path):
    for path in write_truths(tmp_path, 10, seed=3):
        t = load_truth(path)
        assert 0 <= t.icc <= 0.4 and 0 <= t.format_failure <= 0.2
        assert all(0.3 <= p <= 0.95 for p in t.rewardbench.accuracy.values()) or t.rewardbench.accuracy == dict.fromkeys(t.rewardbench.accuracy, 0.5)
        assert -1.2 <= t.pairwise.self <= 1.2 and -2 <= t.pairwise.factual <= 2


def test_every_effect_lands_on_both_sides_of_its_null_in_two_draws():
    a, b = draw_truth(0, 0), draw_truth(0, 1)
    for section, key in EFFECTS:
        null = RANGES[section][key][0]
        assert (a[section][key] - null) * (b[section][key] - null) < 0, (section, key, a[section][key], b[section][key])


def test_every_fifth_draw_plants_a_study_at_its_nulls():
    nulled = draw_truth(0, NULL_EVERY - 1)
    assert nulled["pointwise"]["own_shift"] == 0.0 and nulled["pointwise"]["true_shift"] == 0.0
    assert draw_truth(0, 0) == draw_truth(0, 0) and draw_truth(0, 0) != draw_truth(1, 0)  # seeded


def _table(notebook, covered):
    return pd.DataFrame({"measure_id": [f"set_f1.nq.x{i}" for i in range(len(covered))],
                         "notebook": notebook, "covered": covered})


def test_coverage_over_draws_fails_where_one_notebook_is_low():
    good = [pd.concat([_table("06_generation_phase", [1.0] * 10), _table("13_rewardbench", [1.0] * 9 + [0.0])])
            for _ in range(3)]
    by_nb = coverage_table(good, "notebook")
    assert by_nb.set_index("notebook").loc["13_rewardbench", "coverage"] == pytest.approx(0.9)
    assert random_verdict(by_nb)[0]
    bad = good + [_table("13_rewardbench", [0.0] * 5 + [math.nan])]
    passed, line = random_verdict(coverage_table(bad, "notebook"))
    assert not passed and "13_rewardbench" in line and RANDOM_GOAL == 0.9
    assert set(coverage_table(good, "family")["family"]) == {"set_f1"}


def test_validate_random_validates_each_drawn_file(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGBIAS_RUNS", str(tmp_path))
    seen = []

    def one(path, size, run, only=None, **kw):
        seen.append((load_truth(path).name, size, run))
        return True, "PASS", _table("06_generation_phase", [1.0] * 10)
    passed, line, tables = validate_random(3, seed=5, size=7, run_name="rnd", validate_one=one)
    assert passed and [s[2] for s in seen] == ["rnd_0", "rnd_1", "rnd_2"] and {s[1] for s in seen} == {7}
    assert (tmp_path / "rnd" / "random_summary.txt").read_text().startswith("random truths: PASS: 3 draws")
