"""The simulator decides what a text is from its own sources (the demo data, the pair data file, what
it wrote), not from the labels the pipeline wrote: a bank or pair table with a wrong label is caught,
not followed."""
from __future__ import annotations

import json

from lib import paths
from lib.simulate.core.labels import false_answers, stated_answer
from lib.simulate.core.roles import RM_PAIRS, Roles
from lib.simulate.core.truth_file import Truth


def _item(item_id: str) -> dict:
    for path in sorted((paths.DATA / "demo").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line) if line.strip() else {}
            if row.get("id") == item_id:
                return row
    raise KeyError(item_id)


def test_a_bank_label_is_decided_from_the_text_not_the_column(tmp_path):
    it = _item("nq-001")
    fa = false_answers(it)[0]
    swapped = it["human_passage"].replace(it["answer"], fa)
    rows = [  # both labels wrong: the true text labelled false, the swapped one labelled true
        {"item_id": it["id"], "factuality": "false", "answer": it["answer"], "false_answer": fa, "text": it["human_passage"]},
        {"item_id": it["id"], "factuality": "true", "answer": it["answer"], "false_answer": "", "text": swapped},
    ]
    (tmp_path / "passage_bank.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    roles = Roles(tmp_path, Truth())
    human, false = roles.passage(it["human_passage"]), roles.passage(swapped)
    assert (human.true, human.answer) == (True, it["answer"])
    assert (false.true, false.answer) == (False, fa)
    assert stated_answer(it, "A text that names neither answer.") == (True, it["answer"])


def test_the_chosen_rm_response_comes_from_the_pair_data_file():
    rows = [json.loads(line) for line in RM_PAIRS.read_text(encoding="utf-8").splitlines() if line.strip()]
    roles = Roles(None, Truth())
    for row in rows[:5]:
        category = row["subset"].split("-", 1)[0]
        assert roles.rm_pair(row["chosen"], row["reject"])[::2] == (category, True)
        assert roles.rm_pair(row["reject"], row["chosen"])[::2] == (category, False)
        assert roles.rm_pair(row["reject"], "another reply") is None  # no chosen response: no planted preference
