"""Notebook 18 reads the other notebooks' records, never their packages."""
import json
import re

import pytest

from lib.mitigation import inputs
from lib.paths import ROOT
from lib.records import DataError


def test_the_package_imports_no_other_study():
    for path in (ROOT / "lib" / "mitigation").glob("*.py"):
        found = re.findall(r"^\s*(?:from|import) lib\.(self_preference|utility|rewardbench|simulate)\b",
                           path.read_text(encoding="utf-8"), re.M)
        assert found == [], f"{path.name} imports lib.{found}"


def test_records_are_read_and_a_missing_field_is_named(tmp_path):
    rows = [{"dataset": "nq", "item_id": 1, "evaluator": "m", "a_author": "m", "b_author": "human", "combo": "TF",
             "order": o, "a_fact": "true", "b_fact": "false", "status": "ok", "lik_lp_1": -1.0, "lik_lp_2": -2.0,
             "lik_choice": 1} for o in ("a_first", "b_first")]
    rows.append({**rows[0], "combo": "TT", "lik_choice": None})  # undecidable by likelihood: left out
    (tmp_path / inputs.PAIRS_FILE).write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    got = inputs.pairwise_choices(tmp_path)
    assert len(got) == 2 and got["question"].eq("nq|1").all()
    assert got.set_index("order").loc["b_first", ["lp_a", "lp_b"]].tolist() == [-2.0, -1.0]  # A shown second
    (tmp_path / inputs.PAIRS_FILE).write_text(json.dumps({k: v for k, v in rows[0].items() if k != "combo"}) + "\n")
    with pytest.raises(DataError, match="combo"):
        inputs.pairwise_choices(tmp_path)
    assert inputs.pointwise_ratings(tmp_path).empty  # 05 not run: nothing, no error
