"""05-07's likelihood readings on the simulator served as a base LM (`openai:sim@...;base`): the truths
(closed forms of `self_preference.likelihood_truth`) against a Monte Carlo of the planted model; the pipeline's own
likelihood code reading the planted values over raw text; and the runner's view of such a server."""
import math

import numpy as np
import pandas as pd
import pytest

from lib import pipeline
from lib.models import get_model
from lib.self_preference import likelihood as L
from lib.simulate.self_preference import likelihood_truth as LT
from lib.simulate.core import planted as M
from lib.simulate.server import SimServer
from lib.simulate.core.truth import Design
from lib.simulate.self_preference.truth import human_minus_self
from lib.simulate.core.truth_file import Pairwise, Pointwise, Truth

from .test_server import _bank, run_dir  # noqa: F401  (run_dir: the simulator's run folder fixture)

RNG = np.random.default_rng(11)
TRUTH = Truth(icc=0.3, format_failure=0.0, pointwise=Pointwise(base=2.2, own_shift=0.9, true_shift=1.1, question_sd=0.8),
              pairwise=Pairwise(position=0.4, self=0.7, factual=1.3))


def test_argmax_rating_truth_matches_monte_carlo():
    u = RNG.normal(0, TRUTH.pointwise.question_sd, 400_000)

    def argmax(own, true):  # the likelier score of the planted distribution, passage by passage
        mu = M.rating_mu(TRUTH, own, true, u + RNG.normal(0, TRUTH.pointwise.passage_sd, u.size))
        logp = -((M.SCORES[None, :] - mu[:, None]) ** 2)  # the planted log-odds up to a constant per row
        return M.SCORES[np.argmax(logp, axis=1)]
    for fact in (True, False):
        mc = (argmax(False, True) - argmax(True, fact)).mean()  # sd about 0.002: 5 sd band
        assert LT.likelihood_hms(TRUTH, fact)[LT.LIK_ARGMAX] == pytest.approx(mc, abs=0.01)
        assert LT.likelihood_hms(TRUTH, fact)[LT.LIK_EXPECTED] == human_minus_self(TRUTH, fact)
    # no question effect: the argmax is the nearest score, a step function of mu
    flat = Truth(pointwise=Pointwise(base=2.0, own_shift=1.4, true_shift=0.0, question_sd=0.0, passage_sd=0.0))
    assert LT.likelihood_hms(flat, True)[LT.LIK_ARGMAX] == 2 - 3


def test_likelihood_pair_truths_match_monte_carlo():
    u, u_pos, u_fact = RNG.normal(0, TRUTH.question_sd, (3, 400_000))  # the question's three pair effects
    first, true_chosen = [], {"TF": [], "FT": []}
    for combo in ("TF", "FT"):
        for own_first in (True, False):
            own = (own_first, not own_first)
            fact = (combo[0] == "T", combo[1] == "T")
            true = fact if own_first else fact[::-1]
            q1 = M.sigmoid(M.pair_logit(TRUTH, own, true, u, u_position=u_pos, u_factual=u_fact))
            picks_1 = np.log(q1) > np.log(1 - q1)  # the likelier answer, as the pipeline decides
            first.append(picks_1.mean())
            true_chosen[combo].append((picks_1 if true[0] else ~picks_1).mean())
    got = LT.likelihood_pair_truths(TRUTH, ("TT", "TF", "FT", "FF"))
    assert got["first"] == pytest.approx(np.mean(first), abs=0.005)
    assert got["factual"] == pytest.approx(np.mean(true_chosen["TF"] + true_chosen["FT"]), abs=0.005)
    assert got["asymmetry"] == pytest.approx(np.mean(true_chosen["TF"]) - np.mean(true_chosen["FT"]), abs=0.005)
    assert LT.likelihood_pair_truths(TRUTH, ("TT", "FF")) == {}  # no pair with two answers: nothing decided


def test_reading_truths_name_the_rows_the_notebooks_write():
    ids = LT.reading_truths(TRUTH, Design(datasets=("nq",), settings=("rag",)))
    assert {"first_position_rate.likelihood_sum", "factual_preference_rate.likelihood_sum",
            "tf_minus_ft_asymmetry.likelihood_sum",
            "human_minus_self.all.rag.self_true.next_token_argmax_after",
            "human_minus_self.nq.rag.self_false.next_token_expected_score_after"} <= set(ids)
    assert not any("per_word" in k for k in ids)  # depends on the answers' word counts: no truth


def test_pipeline_reads_the_planted_likelihoods_from_a_base_server(run_dir):
    with SimServer(TRUTH, run_dir) as sim:
        bank, _ = _bank(sim, run_dir, n=3)
        spec = f"openai:sim@{sim.url};base"
        assert not get_model(spec).is_chat
        # 05: the pipeline's likelihood ratings of every bank passage (RAG prompt)
        normal = bank[bank["style"] == "normal"]
        ratings = normal.assign(evaluator="sim", setting="rag")[["item_id", "question", "text", "author",
                                                                 "factuality", "evaluator", "setting"]]
        rated, notes = L.rate_evaluators_likelihood(ratings, [spec])
        assert notes == [] and rated["lik_expected"].notna().all()
        for r in rated.to_dict("records"):
            want = sim.replier.rating_probs({"passage": r["text"], "question": r["question"]})
            assert r["lik_probs"] == pytest.approx(list(want), rel=1e-9)
            assert r["lik_expected"] == pytest.approx(float((M.SCORES * want).sum()), rel=1e-9)
        # 06: the pipeline's pairs, asked in raw text and decided by likelihood
        pairs = L.generation_phase_pairs(bank, [spec], k_retries=0)
        decided = pairs[pairs["lik_choice"].notna()]
        assert set(decided["combo"]) == {"TF", "FT"} and len(decided) == 3 * 2 * 2
        for r in decided.to_dict("records"):
            q1, _, _ = sim.replier.pair_choice({"question": r["question"], "passage_1": r["text_1"],
                                                "passage_2": r["text_2"]})
            assert r["lik_lp_1"] == pytest.approx(math.log(q1)) and r["lik_lp_2"] == pytest.approx(math.log(1 - q1))
            assert r["lik_choice"] == (1 if q1 > 0.5 else 2)
        assert sim.stats()["per_task"]["echo"] > 0


def test_runner_leaves_likelihoods_out_for_a_chat_server_not_for_a_base_one(run_dir):
    with SimServer(TRUTH, run_dir) as sim:
        chat, base = f"openai:sim@{sim.url}", f"openai:sim@{sim.url};base"
        for stem in ("05_pointwise_reranking", "06_generation_phase", "07_knowledge_stratified"):
            assert [p["model"] for p in pipeline.left_out(stem, {"evaluators": [chat]})] == [chat]
            assert pipeline.left_out(stem, {"evaluators": [base]}) == []  # after its echo probe passed


def test_a_base_server_without_echo_is_left_out_with_its_probe(run_dir, monkeypatch):
    from lib.simulate import server

    # a server that echoes no prompt log-probabilities (as llama.cpp's own server): the probe says so
    monkeypatch.setattr(server, "echo_logprobs", lambda *a, **k: {"tokens": [], "token_logprobs": [],
                                                                   "text_offset": [], "top_logprobs": None})
    with SimServer(TRUTH, run_dir) as sim:
        base = f"openai:sim@{sim.url};base"
        assert [p["part"] for p in pipeline.left_out("05_pointwise_reranking", {"evaluators": [base]})] == \
            ["likelihood ratings"]
        ratings = pd.DataFrame({"item_id": ["x"], "question": ["q"], "text": ["t"], "evaluator": ["sim"],
                                "setting": ["normal"]})
        rated, notes = L.rate_evaluators_likelihood(ratings, [base])
        assert rated["lik_expected"].isna().all() and "no prompt log-probabilities" in notes[0]
