"""12's graded answers and the simulator's own answer metrics: the metrics are the paper's (it names
EM / F1 for the factoid sets and ROUGE-L for MS MARCO; the definitions are SQuAD's token F1 and MS
MARCO's ROUGE-L with beta 1.2, pinned here by worked examples), they agree with the pipeline's on
every demo answer (the shared definition, docs/known_truth.md), a graded answer scores strictly between
0 and 1, and 12's truth moves with the planted graded share while a planted null gain stays exactly 0."""
from __future__ import annotations

import json
from dataclasses import replace

import pytest

from lib import paths
from lib.simulate.core.truth_file import load_truth
from lib.simulate.utility import answers as A
from lib.simulate.utility import truth as UT
from tests.papers import paper_path

GTU = ("distractor", "ground_truth", "distractor", "distractor")


def _demo_items():
    for source in ("nq", "hotpotqa", "triviaqa", "marco"):
        for line in (paths.DATA / "demo" / f"{source}.jsonl").read_text(encoding="utf-8").splitlines():
            if line.strip():
                yield json.loads(line)


def test_the_paper_names_these_metrics_for_these_datasets():
    text = " ".join(paper_path("utility-judgments.txt").read_text(encoding="utf-8").split())
    assert "we use the exact match (EM) score and F1 score to evaluate the answer performance of LLMs on the FQA datasets" in text
    assert "we use ROUGE-L (Lin, 2004) and BLEU (Papineni et al., 2002) to evaluate the answer performance of LLMs on the NFQA dataset" in text


@pytest.mark.parametrize("prediction,golds,want", [
    ("The Eiffel Tower!", ["eiffel tower"], 1.0),          # case, punctuation and articles are normalised away
    ("Paris, France", ["Paris"], 2 * 0.5 * 1.0 / 1.5),     # P 1/2, R 1
    ("in 1989", ["1989", "November 1989"], 2 * 0.5 * 1.0 / 1.5),  # the best gold: 2/3 against "1989", 1/2 the other
    ("an apple a day", ["the apple"], 2 * 0.5 * 1.0 / 1.5),  # "apple day" against "apple"
    ("no overlap", ["something else"], 0.0),
])
def test_token_f1_is_squads(prediction, golds, want):
    assert A.token_f1(prediction, golds) == pytest.approx(want)


def test_rouge_l_is_ms_marcos_with_beta_1_2():
    # LCS("a b c d", "a c e") = 2: P = 2/4, R = 2/3, F = (1 + 1.2^2) P R / (R + 1.2^2 P)
    p, r = 0.5, 2 / 3
    assert A.rouge_l("a b c d", ["a c e"]) == pytest.approx(2.44 * p * r / (r + 1.44 * p))
    # P and R are each the best over the references (P 1 from the first, R 1 from the second), not one pair
    assert A.rouge_l("x y", ["x y z w", "y"]) == pytest.approx(1.0)
    assert A.rouge_l("x y", ["x y z w"]) == pytest.approx(2.44 * 0.5 / (0.5 + 1.44))
    assert A.rouge_l("Alpha-Beta", ["alpha beta"]) == pytest.approx(1.0)  # tokens: lower-cased a-z0-9 runs
    assert A.rouge_l("none", ["alpha"]) == 0.0


def test_the_simulators_metrics_agree_with_the_pipelines_on_every_demo_answer():
    """The shared definition: where the two differed, one of them would be off the paper's."""
    from lib.utility.answer_metrics import clean_answer, score_answer
    from lib.utility.findings_rows import answer_metric

    n = 0
    for it in _demo_items():
        aliases = list(it.get("aliases") or [])
        for text in (it["answer"], A.graded_answer(it["answer"], 0.5), A.graded_answer(it["answer"], 0.2), A.WRONG_ANSWER):
            ours = A.answer_score(text, it["answer"], aliases, it["source"])
            theirs = score_answer(clean_answer(text), it["answer"], aliases, it["source"] != "marco")[answer_metric(it["source"])]
            assert ours == pytest.approx(theirs), (it["id"], text)
            n += 1
    assert n > 500


def test_a_graded_answer_shares_some_but_not_all_of_the_gold():
    scores = []
    for it in _demo_items():
        for keep in (0.2, 0.5, 0.8):
            s = A.answer_score(A.graded_answer(it["answer"], keep), it["answer"], list(it.get("aliases") or []), it["source"])
            scores.append(s)
            assert 0 < s < 1, (it["id"], keep, s)
        gold = A.answer_score(it["answer"], it["answer"], [], it["source"])
        assert gold == pytest.approx(1.0) and A.answer_score(A.WRONG_ANSWER, it["answer"], [], it["source"]) == 0.0
    assert len(set(round(s, 6) for s in scores)) > 10  # graded, not one value


def test_a_metric_without_squads_normalisation_is_not_the_truths():
    """A planted defect: F1 on raw lower-cased words (articles and punctuation kept) scores the graded
    answers differently, so a pipeline with it moves its estimate away from the truth."""
    def raw_f1(pred, golds):
        from collections import Counter
        best = 0.0
        for g in golds:
            a, b = pred.lower().split(), g.lower().split()
            same = sum((Counter(a) & Counter(b)).values())
            best = max(best, 2 * same / (len(a) + len(b)) if same else 0.0)
        return best
    differ = [it["id"] for it in _demo_items() if it["source"] != "marco"
              and abs(raw_f1(A.graded_answer(it["answer"], 0.5), [it["answer"]])
                      - A.token_f1(A.graded_answer(it["answer"], 0.5), [it["answer"]])) > 1e-9]
    assert len(differ) >= 3


def test_12s_truth_weighs_graded_answers_and_a_null_gain_stays_exactly_null():
    truth = load_truth("configs/known_truth.yaml")
    q = UT.AnswerQuestion("nq", GTU, True, 1.0, 0.0, "November 1989", ("1989", "November 1989"))
    graded = A.answer_score(A.graded_answer(q.gold, truth.utility.answer_keep), "1989", ["November 1989"], "nq")
    assert 0 < graded < 1
    conditions = ("none", "dense", "relevance listwise-set", "utility listwise-set")
    p = UT.answer_right(truth, q, conditions)
    got = UT.answer_scores(truth, [q], conditions)["nq"]
    partial = truth.utility.answer_partial
    for c in conditions:
        assert got[c] == pytest.approx(p[c] + (1 - p[c]) * partial * graded)
        assert 0 < got[c] < 1
    none = replace(truth, utility=replace(truth.utility, answer_partial=0.0))
    assert UT.answer_scores(none, [q], conditions)["nq"]["none"] == pytest.approx(p["none"])  # no graded answers
    # the same judge under both prompts: the utility-minus-relevance gain is exactly 0, graded answers or not
    same = replace(truth, utility=replace(truth.utility, select_relevance=truth.utility.select_utility))
    rows = UT.utility_truths(same, UT.UtilityDesign(answers=(q,), conditions=conditions))
    assert rows["answer_gain.nq.utility_minus_relevance"][1] == 0.0
