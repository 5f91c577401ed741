"""Notebooks 14-15 and the second simulated model: the truth file's model sections, the truths of
the best-of-N gain and the length preference against independent Monte Carlos of the planted model,
and the simulator over real HTTP through the studies' own best-of-N code (answers right at the
planted rate with recall exactly 0 or 1, knockout verdicts that move the gain the planted way)."""
import numpy as np
import pandas as pd
import pytest

from lib.models import get_model
from lib.rewardbench import best_of_n
from lib.rewardbench.registry import get_reward_model
from lib.simulate.rewardbench import truth as R
from lib.simulate.core.truth_file import Answers, for_model
from lib.simulate.server import SimServer
from lib.simulate.core.truth_file import Truth, TruthError, load_truth
from lib.sources import load_demo


@pytest.fixture
def run_dir(tmp_runs):
    d = tmp_runs / "sim"
    d.mkdir(parents=True)
    return d


def test_a_model_section_overrides_only_what_it_names_and_a_misspelled_key_is_named(tmp_path):
    t = load_truth("configs/known_truth.yaml")
    b = for_model(t, "sim_b")
    assert b.rewardbench.accuracy["helpful"] == 0.35 and b.rewardbench.position == 0.8
    assert b.rewardbench.accuracy["reason"] == t.rewardbench.accuracy["reason"]  # merged, not replaced
    assert b.pairwise == t.pairwise and for_model(t, "sim") is t and for_model(t, "other") is t
    bad = tmp_path / "bad.yaml"
    bad.write_text("models:\n  sim_b:\n    rewardbench: {acuracy: {helpful: 0.6}}\n")
    with pytest.raises(TruthError, match="acuracy"):
        load_truth(bad)
    bad.write_text("models:\n  sim_b:\n    rewardbench: {accuracy: {helpful: 1.5}}\n")
    with pytest.raises(TruthError, match=r"models\.sim_b.*helpful"):
        load_truth(bad)


def _knockout_monte_carlo(truth, n, questions=200_000, seed=1):
    """The knockout simulated directly from the planted probabilities (not rewardbench.truth's chain)."""
    rng = np.random.default_rng(seed)
    sig = lambda x: 1 / (1 + np.exp(-x))  # noqa: E731
    u = rng.normal(0, truth.question_sd, questions)
    p = sig(np.log(truth.answers.good / (1 - truth.answers.good)) + u)
    right = rng.random((questions, n)) < p[:, None]
    cat = truth.answers.judge_category
    acc = np.log(truth.rewardbench.accuracy[cat] / (1 - truth.rewardbench.accuracy[cat]))
    pos, f = truth.rewardbench.position, truth.format_failure

    def first_named(a_right, b_right):  # P(the judge names the response shown first)
        lean = np.where(a_right == b_right, 0.0, np.where(a_right, acc, -acc))
        return sig(lean + pos)

    champ = right[:, 0].copy()
    for j in range(1, n):
        chal = right[:, j]
        ab = rng.random(questions) < first_named(champ, chal)  # champion first: True = champion named
        ba = rng.random(questions) < first_named(chal, champ)  # challenger first: True = challenger named
        v_ab = np.where(rng.random(questions) < f, 0, np.where(ab, 1, -1))
        v_ba = np.where(rng.random(questions) < f, 0, np.where(ba, -1, 1))
        champ = np.where(v_ab + v_ba < 0, chal, champ)
    return float(champ.mean() - right.mean())


@pytest.mark.parametrize("n", [2, 4])
def test_best_of_n_gain_matches_a_monte_carlo_of_the_planted_model(n):
    truth = load_truth("configs/known_truth.yaml")
    for t in (truth, for_model(truth, "sim_b")):
        assert abs(R.best_of_n_gain(t, n) - _knockout_monte_carlo(t, n)) < 0.006  # MC sd about 0.0015


def test_length_preference_truth_matches_a_monte_carlo():
    truth = Truth(format_failure=0.1)
    pairs = [("helpful", 5), ("conflict", -3), ("abstain", 0), ("abstain", 7)]  # (category, chosen - rejected)
    rng = np.random.default_rng(2)
    sig = lambda x: 1 / (1 + np.exp(-x))  # noqa: E731
    per_pair = []
    for cat, diff in pairs:
        if diff == 0:  # equal lengths: no longer response
            continue
        a = np.log(truth.rewardbench.accuracy[cat] / (1 - truth.rewardbench.accuracy[cat]))
        u = rng.normal(0, truth.question_sd, 100_000)
        longer = []
        for side in (1, -1):  # chosen shown first, then second
            named_chosen = rng.random(u.size) < sig(a + side * truth.rewardbench.position + u)
            parsed = rng.random(u.size) >= truth.format_failure
            longer.append(((named_chosen if diff > 0 else ~named_chosen) & parsed).mean())
        per_pair.append(np.mean(longer))
    assert abs(R.prefers_longer(truth, pairs) - float(np.mean(per_pair))) < 0.006


def _items(per_source):
    return pd.concat([load_demo(s, per_source, 0) for s in ("nq", "marco", "triviaqa")]).to_dict("records")


def test_answers_are_right_at_the_planted_rate_with_recall_zero_or_one(run_dir):
    items = _items(10)
    shares = {}
    for good in (0.9, 0.15):
        truth = Truth(icc=0.0, answers=Answers(good=good))
        with SimServer(truth, run_dir) as sim:
            cands = best_of_n.sample_candidates(get_model(f"openai:sim@{sim.url}"), items, 4, seed=int(good * 100))
        assert set(cands["recall"]) <= {0.0, 1.0}
        assert cands["response"].nunique() == len(cands)  # every sample its own text
        shares[good] = cands["recall"].mean()
    assert shares[0.9] > 0.8 and shares[0.15] < 0.27  # 120 samples each: sd about 0.03


def test_the_knockout_over_real_http_recovers_each_served_models_gain(run_dir):
    n, items = 4, _items(30)
    truth = Truth(icc=0.0, format_failure=0.05,
                  models={"sim_b": {"rewardbench": {"accuracy": {"helpful": 0.5}, "position": 0.0}}})
    with SimServer(truth, run_dir) as sim:
        cands = best_of_n.sample_candidates(get_model(f"openai:sim@{sim.url}"), items, n)
        gains = {}
        for name in ("sim", "sim_b"):
            picks = best_of_n.pick(get_reward_model(f"judge:openai:{name}@{sim.url};retries:0"), cands)
            gains[name] = best_of_n.bon_table(cands, picks)["gain"].iloc[0]
    per_item_sd = 0.45 / np.sqrt(len(items))  # a gain per question lies in [-1, 1]; its sd is below 0.45
    for name, gain in gains.items():
        assert abs(gain - R.best_of_n_gain(for_model(truth, name), n)) < 3.5 * per_item_sd, (name, gain)
    assert gains["sim"] - gains["sim_b"] > 0.1


def test_each_knockout_round_replaces_the_champion_at_the_truths_rate_for_a_position_biased_judge(run_dir):
    """15's knockout (lib.rewardbench.best_of_n.pick) against the chain rewardbench.truth assumes, round by round,
    for a judge near chance with a strong first-position bias (the planted sim_b): per (champion right,
    challenger right), the share of rounds whose winner is the challenger is `replace_probability`
    (a tie over the two orders keeps the champion; each order's verdict drawn apart). The winner is
    read from the next round's prompt (the last round's from the pick), not from the margins."""
    truth = Truth(icc=0.0, format_failure=0.05,
                  models={"sim_b": {"rewardbench": {"accuracy": {"helpful": 0.6}, "position": 0.8}}})
    items = _items(25)
    with SimServer(truth, run_dir) as sim:
        cands = best_of_n.sample_candidates(get_model(f"openai:sim@{sim.url}"), items, 4, seed=3)
        rm = get_reward_model(f"judge:openai:sim_b@{sim.url};retries:0")
        asked, compare = [], rm.compare
        rm.compare = lambda triples, desc="": asked.append(triples) or compare(triples, desc=desc)
        picks = best_of_n.pick(rm, cands)
    right = dict(zip(cands["response"], cands["recall"] == 1))
    final = dict(zip(picks["item_id"], picks["response"]))
    ids = list(dict.fromkeys(cands["item_id"]))
    tally = {}
    for r, triples in enumerate(asked):
        for i, (_, champion, challenger) in enumerate(triples):
            winner = asked[r + 1][i][1] if r + 1 < len(asked) else final[ids[i]]
            assert winner in (champion, challenger)
            tally.setdefault((right[champion], right[challenger]), []).append(winner == challenger)
    b = for_model(truth, "sim_b")
    for (champ_right, chal_right), won in tally.items():
        p, n = R.replace_probability(b, champ_right, chal_right), len(won)
        if n >= 20:
            assert abs(np.mean(won) - p) < 4 * np.sqrt(p * (1 - p) / n), (champ_right, chal_right, np.mean(won), p, n)
    assert sum(len(w) for w in tally.values()) == 3 * len(ids) and len(tally) == 4
