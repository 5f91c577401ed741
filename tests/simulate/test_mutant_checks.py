"""Pipeline defects planted as tests (benchmarks/mutants.yaml runs them on a mutated copy): each test
runs the pipeline's own code on draws of the planted model, or on the simulator's replies in-process,
and fails when the defect is in that code. No server or notebook: seconds each."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from lib import paths
from lib.self_preference.pairwise import derive_preferences
from lib.self_preference.tables import question_ids, rate_cell
from lib.simulate.core import planted as M
from lib.simulate.core.truth_file import load_truth
from lib.simulate.self_preference.truth import COMBOS, pairwise_truths


def _truth(icc: float = 0.4, **pairwise):
    """The default truth file with this question effect (ICC) and these pairwise parameters."""
    truth = load_truth(paths.CONFIGS / "known_truth.yaml")
    return replace(truth, icc=icc, pairwise=replace(truth.pairwise, **pairwise))


def _draw_06(truth, n_questions: int, rng) -> pd.DataFrame:
    """Notebook 06's design (every combo in both orders per question) drawn from the planted model,
    each question with its own-lean, position and factual effects shared by its 8 judgments; the
    preferences derived by the pipeline (`derive_preferences`)."""
    rows = []
    for q in range(n_questions):
        u_self, u_position, u_factual = rng.normal(0, truth.question_sd, 3)
        for combo in COMBOS:
            a_true, b_true = combo[0] == "T", combo[1] == "T"
            for order in ("a_first", "b_first"):
                own = (True, False) if order == "a_first" else (False, True)
                true = (a_true, b_true) if order == "a_first" else (b_true, a_true)
                p1 = float(M.sigmoid(M.pair_logit(truth, own, true, u_self, u_position=u_position,
                                                  u_factual=u_factual)))
                rows.append({"dataset": "nq", "item_id": q, "combo": combo, "order": order,
                             "a_fact": "true" if a_true else "false", "b_fact": "true" if b_true else "false",
                             "choice": 1 if rng.random() < p1 else 2, "status": "ok"})
    return derive_preferences(pd.DataFrame(rows))


def test_clustered_rate_interval_is_as_wide_as_its_estimate_varies():
    """06's first-position rate through the pipeline's interval (`rate_cell`, clustered by question)
    over 150 draws of 30 questions: the estimates' spread about the planted truth, in units of the
    standard error each interval implies, is about 1. An interval that treats a question's 8 judgments
    as 8 questions (clustering ignored) is too narrow by the design effect: 1.19 here (0.94 right)."""
    truth = _truth(position=0.5, self=0.8, factual=1.5)  # fixed here: the test's power does not follow the file
    target = pairwise_truths(truth)["first"]
    rng = np.random.default_rng(7)
    z, covered = [], []
    for _ in range(150):
        pairs = _draw_06(truth, 30, rng)
        c = rate_cell(pairs["chose_first"], question_ids(pairs))
        z.append((c["rate"] - target) / ((c["ci_high"] - c["ci_low"]) / 3.92))
        covered.append(c["ci_low"] <= target <= c["ci_high"])
    assert np.std(z) < 1.1 and np.mean(covered) >= 0.88, (np.std(z), np.mean(covered))


def test_a_planted_effect_below_its_null_is_detected():
    """A first-position rate planted below 0.5 (the second place preferred) is significant in the
    pipeline's own test (the clustered sign-flip test of `rate_cell`); a one-sided test misses it."""
    truth = _truth(icc=0.15, position=-0.6)
    assert pairwise_truths(truth)["first"] < 0.45
    pairs = _draw_06(truth, 40, np.random.default_rng(3))
    c = rate_cell(pairs["chose_first"], question_ids(pairs))
    assert c["rate"] < 0.5 and c["p"] < 0.01, c


def test_06s_prompt_asks_for_the_format_the_simulator_answers_in():
    """The simulator answers 06's prompt in the paper's format only while the prompt asks for it:
    the pipeline's own prompt gets parsed replies (bar the planted failures), the same prompt without
    its format line gets none, so a template that loses the line fails 06's parsed share."""
    from lib.prompts.self_preference import generation_phase_prompt
    from lib.self_preference.pairwise import passage_number
    from lib.simulate.core.roles import Roles
    from lib.simulate.replies import Replier
    from lib.simulate.tasks import recognise

    truth = load_truth(paths.CONFIGS / "known_truth.yaml")
    replier = Replier(truth, Roles(None, truth))
    prompt = generation_phase_prompt("When did the wall fall?", "It fell in 1989.", "It fell in 1991.")

    def parsed(text: str) -> int:
        return sum(passage_number(replier.reply(recognise(None, text), (text, i), 0)[0]) in (1, 2)
                   for i in range(40))
    assert parsed(prompt) >= 32
    assert parsed(prompt.replace("Answer retrieved from which passage: 1 or 2", "")) == 0
