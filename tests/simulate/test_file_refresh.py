"""The simulator follows files the run is still writing: a read in the same tick of the file clock as
the writer's last writes must not leave it with part of the file (a papers'-size run once kept half of
the passage bank, and with it no false passage, for the rest of the run)."""
import json
import os

from lib.simulate.core.roles import Roles, read_if_changed
from lib.simulate.core.truth_file import Truth
from lib.simulate.utility.roles import UtilityRoles


def _rows(n, start=0):
    return "".join(json.dumps({"i": i}) + "\n" for i in range(start, start + n))


def test_a_file_that_grows_in_the_same_tick_is_read_again(tmp_path):
    f = tmp_path / "rows.jsonl"
    f.write_text(_rows(3))
    stamps = {}
    assert len(read_if_changed(f, stamps)) == 3
    tick = f.stat().st_mtime_ns
    with open(f, "a") as out:
        out.write(_rows(2, 3))
    os.utime(f, ns=(tick, tick))  # the file clock did not move between the two writes
    assert [r["i"] for r in read_if_changed(f, stamps)] == [0, 1, 2, 3, 4]
    assert read_if_changed(f, stamps) is None  # unchanged since read whole: not read again


def test_a_half_written_line_is_left_for_the_next_read(tmp_path):
    f = tmp_path / "rows.jsonl"
    f.write_text(_rows(2) + '{"i": 2')  # the writer is in the middle of a line
    stamps = {}
    assert [r["i"] for r in read_if_changed(f, stamps)] == [0, 1]
    with open(f, "a") as out:
        out.write("}\n")
    assert [r["i"] for r in read_if_changed(f, stamps)] == [0, 1, 2]


def _bank_row(item, fact, text, false_answer=""):
    return {"item_id": item, "factuality": fact, "answer": "saffron", "false_answer": false_answer, "text": text}


def test_the_passage_bank_written_in_one_tick_is_known_whole(tmp_path):
    # the item whose answers decide which passage is false (the simulator reads no bank label)
    (tmp_path / "items.jsonl").write_text(json.dumps({"id": "q1", "question": "Which spice comes from the crocus?",
                                                      "answer": "saffron", "false_answer_ours": "cardamom"}) + "\n")
    bank = tmp_path / "passage_bank.jsonl"
    bank.write_text(json.dumps(_bank_row("q1", "true", "Saffron comes from the crocus.")) + "\n")
    roles = Roles(tmp_path, Truth())
    assert roles.passage("Saffron comes from the crocus.").true
    tick = bank.stat().st_mtime_ns
    with open(bank, "a") as out:
        out.write(json.dumps(_bank_row("q1", "false", "Cardamom comes from the crocus.", "cardamom")) + "\n")
    os.utime(bank, ns=(tick, tick))
    found = roles.passage("Cardamom comes from the crocus.")
    assert found is not None and not found.true and found.answer == "cardamom"


def test_the_run_items_written_in_one_tick_are_known_whole_to_the_utility_roles(tmp_path):
    items = tmp_path / "items.jsonl"

    def row(q):
        return json.dumps({"id": q, "source": "nq", "question": q, "answer": "x", "aliases": [],
                           "human_passage": f"{q} truth names x", "negatives": []}) + "\n"

    items.write_text(row("first question"))
    roles = UtilityRoles(Roles(tmp_path, Truth()))
    assert roles.role("first question", "first question truth names x") == "ground_truth"
    tick = items.stat().st_mtime_ns
    with open(items, "a") as out:
        out.write(row("second question"))
    os.utime(items, ns=(tick, tick))
    assert roles.role("second question", "second question truth names x") == "ground_truth"
    assert roles.role("second question", "second question truth names y") == "counterfactual"
