"""The planted length term of 08's style pairs (lib/simulate/self_preference/style_length.py): the served
choice leans toward the longer passage of a pair showing a styled passage and not on 06's pairs (both
of normal style), 08's style truths integrate it over the run's pairs (against a Monte Carlo of the
planted model), the pairs are read from the run's bank as 08 pairs them, and no planted length leaves
the truths as they were."""
import json

import numpy as np
import pytest

from lib.simulate.core.roles import Roles
from lib.simulate.core.truth import Design
from lib.simulate.core.truth_file import Pairwise, Truth, load_truth
from lib.simulate.self_preference.replies import SelfPreferenceReplier
from lib.simulate.self_preference.style_length import design_pairs, styled_leans
from lib.simulate.self_preference.truth import style_truths

NORMAL = "In plain words: " + " ".join(["word"] * 40)
LONG = NORMAL + " To say it once more, in other words: " + " ".join(["word"] * 40)  # 48 words more
PAIRS = (("long", "nq", 48), ("long", "nq", 120), ("long", "marco", 20), ("gen_by_qa", "nq", -60))


def _truth(length=0.5) -> Truth:
    return Truth(pairwise=Pairwise(position=-0.5, self=0.8, factual=1.5, style=-1.2, length=length))


def _q1(truth: Truth, first: str, second: str, first_style: str, second_style: str) -> float:
    roles = Roles(None, truth)
    roles.record_own(first, "nq-001", first_style)
    roles.record_own(second, "nq-001", second_style)
    return SelfPreferenceReplier(truth, roles).pair_choice({"question": "q", "passage_1": first, "passage_2": second})[0]


def _logit(p):
    return np.log(p / (1 - p))


def test_the_served_choice_leans_toward_the_longer_passage_of_a_style_pair_only():
    with_length, without = _truth(), _truth(length=0.0)
    lean = _logit(_q1(with_length, LONG, NORMAL, "long", "normal")) - _logit(_q1(without, LONG, NORMAL, "long", "normal"))
    assert lean == pytest.approx(0.5 * 48 / 100, abs=1e-9)
    swapped = _logit(_q1(with_length, NORMAL, LONG, "normal", "long")) - _logit(_q1(without, NORMAL, LONG, "normal", "long"))
    assert swapped == pytest.approx(-0.5 * 48 / 100, abs=1e-9)
    # 06's pairs: both passages of normal style carry no length term however their lengths differ
    other = NORMAL + " and more words here"
    assert _q1(with_length, other, NORMAL, "normal", "normal") == pytest.approx(_q1(without, other, NORMAL, "normal", "normal"))


def test_style_truths_integrate_the_length_term_over_the_runs_pairs():
    t, rng = _truth(), np.random.default_rng(5)
    pw = t.pairwise
    u_pos = rng.normal(0, t.question_sd, 200_000)
    sig = lambda x: 1 / (1 + np.exp(-x))  # noqa: E731
    rates = []
    for _, ds, d in [p for p in PAIRS if p[0] == "long" and p[1] == "nq"]:
        lean = pw.length * d / 100
        first = sig(pw.position + u_pos + pw.style + lean).mean()
        second = sig(pw.position + u_pos - pw.style - lean).mean()
        rates.append((first + 1 - second) / 2)
    got = style_truths(t, Design(style_pairs=PAIRS), "nq")["long"]
    assert got == pytest.approx(float(np.mean(rates)), abs=0.003)
    assert got - style_truths(t, Design(), "nq")["long"] > 0.05  # longer long passages: chosen more
    assert styled_leans(t, Design(style_pairs=PAIRS), "gen_by_qa") == [pytest.approx(-0.3)]
    t0 = _truth(length=0.0)
    assert style_truths(t0, Design(style_pairs=PAIRS), "nq") == style_truths(t0, Design(), "nq")


def test_the_pairs_are_read_from_the_runs_bank_as_08_pairs_them(tmp_path):
    def row(item, author, style, text):
        return {"item_id": item, "dataset": "nq", "question": "q?", "answer": "a", "false_answer": "b",
                "author": author, "factuality": "true", "style": style, "text": text, "false_by": ""}
    bank = [row("i1", "human", "normal", "h " * 30), row("i1", "sim", "normal", "n " * 40),
            row("i1", "sim", "long", "l " * 100), row("i1", "sim", "qa", "q " * 10)]
    (tmp_path / "passage_bank.jsonl").write_text("\n".join(json.dumps(r) for r in bank) + "\n")
    cfg = {"per_notebook": {"08_writing_style": {"n_items": 0}}, "parameters": {}, "_overrides": {}}
    assert sorted(design_pairs(cfg, tmp_path)) == [("gen_by_qa", "nq", 10 - 30), ("long", "nq", 100 - 40)]
    assert design_pairs({"per_notebook": {}}, tmp_path) == ()  # 08 not in the run


def test_the_default_truth_file_plants_08s_length_term():
    assert load_truth("configs/known_truth.yaml").pairwise.length > 0
