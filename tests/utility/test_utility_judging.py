"""Judging bookkeeping with scripted readers under the real model layer (order mapping, counts,
failures, votes, reparse)."""
import re

import pytest

from lib.utility.benchmark import Candidates
from lib.utility.calls import Ledger
from lib.utility.evaluate import judgment_rows
from lib.utility.judging import Judgment, from_replies, judge, presentation_order, wins_ranking
from lib.utility.replies import reparse, save_replies
from lib.utility.k_sampling import k_sampling_selection, vote


def gold_reply(text, request):
    """Reads the authors' prompts and points at the passage containing 'GOLD'."""
    system, user = request.messages[0]["content"], request.messages[1]["content"]
    labels = re.findall(r"^(?:Passage-(\d+)|\[(\d+)\]): (.*?)(?: \n)?$", user, flags=re.M)
    gold = [a or b for a, b, t in labels if "GOLD" in t]
    if "My judgment" in system:
        return "Reasoning. My judgment: " + ("yes" if "GOLD" in user else "no")
    if "My choice" in system:
        return f"My choice: Passage-{gold[0] if gold else 1}"
    if "My rank" in user:
        return "Answer. My rank: " + ">".join(f"[{i}]" for i in gold) + ">[99]"
    return "Answer. My selection: [" + ", ".join(f"Passage-{i}" for i in gold) + ", Passage-42]"


@pytest.fixture
def reader(scripted_model):
    """Factory: the GOLD-pointing reader (a chat model under CachedModel)."""
    return lambda: scripted_model(gold_reply)


@pytest.fixture
def broken(scripted_model):
    """Factory: a reader that only replies junk (its own spec: it never shares the reader's cache)."""
    return lambda: scripted_model(lambda text, request: "I cannot tell.", spec="openai:broken")


def row(gold_at=3, n=6):
    passages = [f"passage {i}" + (" GOLD" if i == gold_at else "") for i in range(n)]
    return Candidates(id=f"q{gold_at}", question="q?", passage=passages,
                      ground_truth_label=[int(i == gold_at) for i in range(n)])


def test_presentation_order_fixes_gt_position():
    r = row(gold_at=4)
    for pos in (1, 3, 6):
        order = presentation_order(r, seed=0, gt_position=pos)
        assert order[pos - 1] == 4 and sorted(order) == list(range(6))
    assert presentation_order(r, seed=0) == presentation_order(r, seed=0)
    assert len({tuple(presentation_order(r, seed=0, shuffle_key=f"/k{i}")) for i in range(5)}) > 1


def test_listwise_set_maps_back_and_counts_repair(reader):
    ledger = Ledger()
    js = judge(reader(), [row(1), row(5)], "listwise-set", ledger=ledger, key=("m", "set"))
    assert [j.selected for j in js] == [[1], [5]]
    assert all(j.counts["repaired"] == 1 for j in js)  # Passage-42 was dropped, and counted
    assert ledger.rows[("m", "set")]["requests"] == 2


def test_listwise_rank_puts_gold_first_and_keeps_only_the_named_ids(reader):
    js = judge(reader(), [row(2)], "listwise-rank", judgment="relevance", gt_position=5)
    # the reader names the gold passage (and an id out of range): the other five stay unranked
    assert js[0].ranking == [2] and js[0].counts["repaired"] == 1


def test_unreadable_ranking_is_a_failure_not_the_input_order(broken):
    """Figure 5's trap: with the ground truth at position 1, the input order would score NDCG@1 = 1."""
    r = row(0)
    js = judge(broken(), [r], "listwise-rank", gt_position=1)
    assert js[0].ranking is None and js[0].failed
    df = judgment_rows([r], js)
    assert df["NDCG@1"].isna().all() and df["failed"].all()
    sets = judge(broken(), [r], "listwise-set")
    assert sets[0].selected is None and sets[0].failed


def test_pointwise_and_failures_are_counted(reader, broken):
    js = judge(reader(), [row(0)], "pointwise")
    assert js[0].selected == [0] and js[0].counts["ok"] == 6
    bad = judge(broken(), [row(0)], "pointwise")
    assert bad[0].selected is None and bad[0].counts["failed"] == 6 and bad[0].failed


def test_pairwise_every_pair_once_as_the_authors_do(reader, broken):
    model = reader()
    js = judge(model, [row(3, n=4)], "pairwise")
    sent = model.backend.requests
    assert len(sent) == 4 * 3 // 2
    assert len({r.messages[1]["content"] for r in sent}) == len(sent)
    assert js[0].ranking[0] == 3
    assert judge(broken(), [row(3, n=4)], "pairwise")[0].failed


def test_wins_ranking_ignores_unreadable():
    assert wins_ranking(3, [(0, 1, 1), (1, 2, 1), (0, 2, None)]) == [1, 0, 2]
    assert wins_ranking(2, [(0, 1, None)]) is None


def test_reparse_rebuilds_rows_without_a_model(tmp_path, reader):
    rows = [row(1), row(4)]
    js = judge(reader(), rows, "listwise-set")
    path = save_replies(js, tmp_path / "r.jsonl", model="m", factor="f", level=1)
    again = reparse(path, rows=rows)
    first = judgment_rows(rows, js, model="m", factor="f", level=1)
    assert again["P"].tolist() == first["P"].tolist() and again["model"].tolist() == ["m", "m"]
    j = from_replies("x", "listwise-rank", "utility", [2, 0, 1], ["My rank: [1]>[0]>[2]"])
    assert j.ranking == [0, 2, 1]


def test_vote_modal_size_and_curve():
    assert vote([[1, 2], [2, 3], [2]]) == [1, 2]
    assert vote([[3, 2], [2, 3], [2, 5]]) == [2, 3]
    assert vote([[4], [4], [0, 1]]) == [4]
    assert vote([[0, 1], [1], [2], None, None]) == [1]   # failed runs cast no vote
    assert vote([]) == []

    def J(selected):
        return Judgment("q", "listwise-set", "utility", [0, 1], selected=selected)
    runs = [[J([0])], [J([1])], [J([1])]]
    assert k_sampling_selection(runs, 1) == [[0]]
    assert k_sampling_selection(runs, 3) == [[1]]


def test_asking_again_is_optional_counted_and_costed(scripted_model):
    # junk on the first, greedy ask; the right answer when asked again (sample >= 1)
    flaky = scripted_model(lambda text, request: gold_reply(text, request) if request.sample else "hmm")
    once = judge(flaky, [row(2)], "listwise-set")
    assert once[0].failed and once[0].counts["asked_again"] == 0
    ledger = Ledger()
    again = judge(flaky, [row(2)], "listwise-set", k_retries=2, ledger=ledger, key=("m", "set"))
    assert again[0].selected == [2] and again[0].counts["asked_again"] == 1
    assert ledger.rows[("m", "set")]["requests"] == 2
    assert judgment_rows([row(2)], again)["n_asked_again"].iloc[0] == 1
