"""Reading judgments out of replies: the authors' rules are the strict parse, our repairs are counted
as repairs, and nothing readable is a failure (value None), never a default."""
from lib.utility import parsing as P


def test_pointwise_authors_rule():
    assert (P.parse_yes_no("Reasoning... My judgment: yes").value, P.parse_yes_no("My judgment: yes").status) == (True, P.OK)
    assert P.parse_yes_no("The answer is yes").value is True
    assert P.parse_yes_no("My judgment: no").value is False
    lead = P.parse_yes_no("Yes, it helps")        # no space before yes: the authors' rule reads "no"
    assert (lead.value, lead.status) == (True, P.REPAIRED)
    assert (P.parse_yes_no("maybe").value, P.parse_yes_no("maybe").status) == (None, P.FAILED)


def test_pairwise_authors_rule_and_default_option():
    assert P.parse_pair("My choice: Passage-0").value == 0
    assert P.parse_pair("My choice: passage-1 since...").value == 1
    both = P.parse_pair("Passage-1 is longer but Passage-0 has it")   # the authors look for passage-0 first
    assert (both.value, both.status) == (0, P.OK)
    rep = P.parse_pair("My choice: [1]")
    assert (rep.value, rep.status) == (1, P.REPAIRED)
    assert P.parse_pair("no idea").status == P.FAILED
    assert P.parse_pair("no idea", authors_default=True).value == 1


def test_set_marker_zero_based_and_repairs():
    ok = P.parse_set("The answer is X.\nMy selection: [Passage-0, Passage-3]", n=5)
    assert (ok.value, ok.status) == ([0, 3], P.OK)
    rep = P.parse_set("My selection: [<passage-2>, Passage-9, Passage-2]", n=5)
    assert rep.value == [2] and rep.status == P.REPAIRED and "9" in rep.note and "repeats" in rep.note
    nomark = P.parse_set("Passage-1 and Passage-4 help", n=5)
    assert nomark.value == [1, 4] and nomark.status == P.REPAIRED and "marker" in nomark.note
    assert P.parse_set("My selection: []", n=5).value == []
    assert P.parse_set("I like turtles", n=5).value is None
    assert P.parse_set("My selection: [Passage-11]", n=5).status == P.FAILED


def test_set_reads_after_the_last_marker_only():
    text = "Passage-1 mentions the answer but Passage-3 is wrong.\nMy selection: [Passage-1]"
    assert P.parse_set(text, n=4).value == [1]


def test_ranking_marker_repairs_and_failure():
    ok = P.parse_ranking("Answer: X. My rank: [2]>[0]>[1]", n=3)
    assert (ok.value, ok.status) == ([2, 0, 1], P.OK)
    rep = P.parse_ranking("My rank: [1]>[1]>[3]>[9]", n=4)
    assert rep.value == [1, 3] and rep.status == P.REPAIRED and "2 of 4 named" in rep.note
    bad = P.parse_ranking("cannot decide", n=3)
    assert (bad.value, bad.status) == (None, P.FAILED)    # never the input order


def test_status_counts():
    parsed = [P.parse_set("My selection: [Passage-1]", 3), P.parse_set("Passage-1", 3), P.parse_set("x", 3)]
    assert P.status_counts(parsed) == {"ok": 1, "repaired": 1, "failed": 1}


def test_echoed_labels_are_not_judgments():
    """SmolLM2 often copies the input ('[0]: text...'): reading [0] and appending the rest would hand
    the failure the input order again."""
    echo = "[0]: The blue whale is a marine mammal. [1]: The fin whale is large."
    assert P.parse_ranking(echo, n=3).status == P.FAILED
    assert P.parse_set("The passage is:\nPassage-1: The blue whale is a mammal", n=3).status == P.FAILED
    assert P.parse_ranking("My rank: [1]>[0]>[2]", n=3).value == [1, 0, 2]
    assert P.parse_set("My selection: [Passage-2]", n=3).value == [2]


def test_bare_numbers_only_after_a_marker_or_alone():
    assert P.parse_set("2, 3", n=5).value == [2, 3]
    assert P.parse_set("My selection: 1 and 4", n=5).value == [1, 4]
    assert P.parse_ranking("2 > 0 > 1", n=3).value == [2, 0, 1]
    # numbers inside prose are years and counts, not passages
    assert P.parse_set("It was completed in 1801 and has 3 movements.", n=5).status == P.FAILED
    assert P.parse_ranking("1. Magellan sailed in 1519.\n2. Shakespeare wrote plays.", n=5).status == P.FAILED


def test_a_partial_ranking_is_scored_on_the_ids_it_named_never_on_the_input_order():
    from lib.utility.judgment_metrics import rank_metrics

    # the model names passage 2 only; the ground truth sits at input position 0
    part = P.parse_ranking("My rank: [2]", n=4)
    assert part.value == [2] and part.status == P.REPAIRED
    labels = [1, 0, 0, 0]
    assert rank_metrics(part.value, labels) == {"NDCG@1": 0.0, "NDCG@5": 0.0, "MRR@5": 0.0}
    # filling the rest in input order would have credited the ground truth at rank 2
    assert rank_metrics([2, 0, 1, 3], labels)["MRR@5"] == 0.5
