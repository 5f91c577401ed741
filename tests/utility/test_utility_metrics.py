"""Section 2.4 metrics on hand-worked cases."""
import math

import pytest

from lib.utility import answer_metrics as A
from lib.utility.judgment_metrics import mrr_at, ndcg_at, rank_metrics, set_prf


def test_set_prf():
    m = set_prf([0, 2, 3], [1, 0, 0, 1])
    assert m["P"] == pytest.approx(2 / 3)
    assert m["R"] == pytest.approx(1.0)
    assert m["F1"] == pytest.approx(0.8)
    assert set_prf([], [1, 0]) == {"P": 0.0, "R": 0.0, "F1": 0.0}


def test_ndcg_and_mrr():
    labels = [0, 1, 0, 0, 0]
    assert ndcg_at([1, 0, 2], labels, 1) == 1.0
    assert ndcg_at([0, 1, 2], labels, 1) == 0.0
    assert ndcg_at([0, 1, 2], labels, 5) == pytest.approx(1 / math.log2(3))
    assert mrr_at([0, 2, 1], labels, 5) == pytest.approx(1 / 3)
    assert mrr_at([0, 2, 3, 4, 1], labels, 4) == 0.0
    two = [1, 1, 0]
    assert ndcg_at([2, 0, 1], two, 5) == pytest.approx((1 / math.log2(3) + 1 / 2) / (1 + 1 / math.log2(3)))
    assert set(rank_metrics([0, 1], [0, 1])) == {"NDCG@1", "NDCG@5", "MRR@5"}


def test_factoid_scores_use_textmatch_squad():
    s = A.score_answer("the Beatles", "Beatles", [], factoid=True)
    assert s == {"EM": 1.0, "F1": 1.0}
    assert A.score_answer("Paul McCartney", "John Paul McCartney", [], factoid=True)["F1"] == pytest.approx(0.8)
    assert A.score_answer("x", "y", ["x"], factoid=True)["EM"] == 1.0


def test_marco_rouge_l_uses_beta_1_2():
    # LCS "cat sat" (2) of a 6-token prediction and a 3-token reference: P = 1/3, R = 2/3
    p, r, b = 1 / 3, 2 / 3, 1.2
    want = (1 + b * b) * p * r / (r + b * b * p)
    assert A.rouge_l_beta("the cat sat on a mat", ["a cat sat"]) == pytest.approx(want)
    assert A.rouge_l_beta("the cat sat on a mat", ["a cat sat"]) != pytest.approx(A.rouge_l_f1("the cat sat on a mat", "a cat sat"))
    # best P (1, from "a b c d") and best R (1, from "a") are taken separately: 1, though no one
    # reference alone gives more than (1 + b^2) * 1 * 0.5 / (0.5 + b^2)
    assert A.rouge_l_beta("a b", ["a b c d", "a"]) == pytest.approx(1.0)
    assert A.rouge_l_beta("", ["a"]) == 0.0


def test_bleu_corpus_and_sentence_extras():
    assert A.bleu_n("the cat sat on the mat", "the cat sat on the mat", 4) == pytest.approx(1.0)
    assert A.bleu_n("the cat sat down", "the cat sat here", 1) == pytest.approx(0.75)
    assert A.corpus_bleu_n(["a b c d"], ["a b c d"], 4) == pytest.approx(1.0)
    # corpus BLEU pools n-gram counts: not the mean of sentence scores
    preds, refs = ["the cat sat here today", "a dog"], ["the cat sat here today", "the dog ran"]
    mean_sentence = sum(A.bleu_n(p, r, 1) for p, r in zip(preds, refs)) / 2
    assert A.corpus_bleu_n(preds, refs, 1) != pytest.approx(mean_sentence)


def test_corpus_bleu_counts_every_reference_answer():
    import pandas as pd

    preds = ["a pharmacist fills prescriptions", "the river floods in spring"]
    first_only = [["a doctor writes prescriptions"], ["the river floods in spring"]]
    every = [["a doctor writes prescriptions", "a pharmacist fills prescriptions"], ["the river floods in spring"]]
    assert A.corpus_bleu_n(preds, every, 4) == pytest.approx(1.0)  # the second reference of question 1 matches
    assert A.corpus_bleu_n(preds, first_only, 4) < 0.9
    assert A.reference_streams(every) == [["a doctor writes prescriptions", "the river floods in spring"],
                                          ["a pharmacist fills prescriptions", None]]
    df = pd.DataFrame({"g": ["x", "x"], "prediction": preds, "answer": [r[0] for r in every], "references": every})
    assert A.corpus_scores(df, ["g"])["BLEU-4"].iloc[0] == pytest.approx(100.0)
    assert A.corpus_scores(df.drop(columns="references"), ["g"])["BLEU-4"].iloc[0] < 90


def test_clean_and_score_answer():
    assert A.clean_answer("\nAnswer: Mars\nbecause") == "Mars"
    s = A.score_answer("it helps", "a pharmacist helps", [], factoid=False)
    assert set(s) == {"ROUGE-L", "ROUGE-L F1 (sentence)"} | {f"BLEU-{n} (sentence mean)" for n in range(1, 5)}
