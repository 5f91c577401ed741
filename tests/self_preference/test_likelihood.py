"""Likelihood scoring beside generate-and-parse (beyond the papers): score derivations, choices,
agreement tables and findings rows (scripted backend under a real CachedModel), and one pointwise
likelihood rating on the real embedded SmolLM2."""
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from lib.models import CachedModel, LikelihoodUnavailable
from lib.rewardbench import study
from lib.rewardbench.judge import GenerativeJudge
from lib.models.specs import parse_reward_spec
from lib.self_preference import findings_rows as fr
from lib.self_preference import likelihood as lk
from lib.self_preference import pairwise as pr
from lib.self_preference import tables as pt
from lib.self_preference.bank import load_bank
from lib.models.specs import parse_spec
from tests.sp_pairs import all_combo_pairs

FIX = Path(__file__).parents[1] / "fixtures" / "sp2"


def test_score_from_logprobs_argmax_expected_and_mass():
    probs = [0.05, 0.05, 0.1, 0.2, 0.1]  # mass 0.5, the rest went to other tokens
    got = lk.score_from_logprobs([math.log(p) for p in probs])
    assert got["lik_argmax"] == 4
    assert got["lik_mass"] == pytest.approx(0.5)
    assert got["lik_expected"] == pytest.approx(sum(s * p for s, p in zip(range(1, 6), probs)) / 0.5)
    assert got["lik_probs"] == pytest.approx(probs)
    with pytest.raises(ValueError, match="5 log-probabilities"):
        lk.score_from_logprobs([0.0, -1.0])


def _ratings():
    return pd.DataFrame([
        {"dataset": "nq", "item_id": "q1", "author": "human", "factuality": "true", "setting": "rag",
         "evaluator": "smollm2", "question": "Who wrote Hamlet?", "text": "Shakespeare wrote Hamlet.", "score": 4.0},
        {"dataset": "nq", "item_id": "q1", "author": "smollm2", "factuality": "true", "setting": "rag",
         "evaluator": "smollm2", "question": "Who wrote Hamlet?", "text": "Hamlet is by Marlowe.", "score": np.nan},
    ])


def test_rate_likelihood_reads_the_digit_after_the_format_prefix(scripted_model):
    def loglik(text, cont):
        # the script prefers 4 for the Shakespeare passage and 2 for the other
        if cont == "###":
            return -0.5
        best = "4" if "Shakespeare wrote" in text else "2"
        return -0.5 + (-0.2 if cont == "###" + best else -4.0)
    m = scripted_model(loglik=loglik)
    got = lk.rate_likelihood(m, _ratings())
    assert got["lik_argmax"].tolist() == [4, 2]
    assert got.loc[0, "lik_expected"] == pytest.approx(
        sum(s * math.exp(-0.2 if s == 4 else -4.0) for s in range(1, 6))
        / sum(math.exp(-0.2 if s == 4 else -4.0) for s in range(1, 6)))
    assert all(0 < mass <= 1 for mass in got["lik_mass"])
    # every option was scored after the paper's prompt, as one assistant turn
    texts = {t for t, _ in m.backend.loglik_pairs}
    assert any("Your reply format: ###<number>***" in t and "Shakespeare wrote Hamlet." in t for t in texts)


class _GenerateOnly:
    capabilities = frozenset({"generate"})  # a server that gives no prompt log-probabilities

    def check(self):
        pass


def test_unavailable_server_leaves_empty_columns_and_one_note(monkeypatch):
    import lib.models

    m = CachedModel(parse_spec("openai:none@http://127.0.0.1:9/v1"), backend=_GenerateOnly())
    with pytest.raises(LikelihoodUnavailable):
        lk.rate_likelihood(m, _ratings())
    monkeypatch.setattr(lib.models, "get_model", lambda spec: m)
    got, notes = lk.rate_evaluators_likelihood(_ratings(), ["openai:smollm2@http://127.0.0.1:9/v1"],
                                              {"openai:smollm2@http://127.0.0.1:9/v1": "smollm2"})
    assert len(notes) == 1 and "unavailable" in notes[0]
    assert len(got) == 2 and got["lik_argmax"].isna().all() and got["score"].tolist()[0] == 4.0


def test_rating_agreement_and_method_table():
    r = pd.DataFrame({"evaluator": "e", "setting": "rag", "dataset": "nq", "author": "human", "factuality": "true",
                      "score": [1, 2, 3, 4, 5, np.nan], "lik_argmax": [1, 2, 3, 3, 3, 4],
                      "lik_expected": [1.2, 2.1, 2.9, 3.5, 3.9, 4.0]})
    a = lk.rating_agreement(r).iloc[0]
    assert (a["n_rows"], a["n_both"]) == (6, 5)
    assert a["exact_match"] == pytest.approx(3 / 5)
    assert a["exact_match_ci_low"] < 0.6 < a["exact_match_ci_high"]
    assert a["spearman_r"] == pytest.approx(1.0)
    assert 0.9 < a["pearson_r"] < 1.0
    t = lk.method_table(r).iloc[0]
    assert t["paper (parsed reply): n"] == 5 and t["paper (parsed reply): mean"] == pytest.approx(3.0)
    assert t["next-token argmax after ###: n"] == 6 and t["next-token argmax after ###: mean"] == pytest.approx(16 / 6)
    assert t["next-token expected score after ###: ci_low"] < t["next-token expected score after ###: mean"] < t["next-token expected score after ###: ci_high"]


def test_human_minus_self_under_both_methods_and_findings_rows():
    rows = []
    for i, (h, s, lh, ls) in enumerate([(4, 3, 4.2, 3.1), (5, 3, 4.8, 3.3), (4, 2, 4.1, 2.0), (3, 3, 3.5, 2.9)]):
        for author, sc, lik in (("human", h, lh), ("e", s, ls)):
            rows.append({"dataset": "nq", "evaluator": "e", "setting": "rag", "item_id": f"q{i}", "author": author,
                         "factuality": "true", "score": sc, "lik_argmax": round(lik), "lik_expected": lik})
    hms = lk.human_minus_self_methods(pd.DataFrame(rows))
    assert set(hms["method"]) == set(lk.RATING_METHODS)
    paper = hms[hms["method"] == "paper (parsed reply)"].iloc[0]
    assert paper["diff_true"] == pytest.approx(1.25) and paper["n_true"] == 4
    assert paper["ci_low_true"] < 1.25 < paper["ci_high_true"] and 0 < paper["p_true"] < 1
    expected = hms[hms["method"] == "next-token expected score after ###"].iloc[0]
    assert expected["diff_true"] == pytest.approx(np.mean([4.2, 4.8, 4.1, 3.5]) - np.mean([3.1, 3.3, 2.0, 2.9]))
    found = fr.pointwise_findings(hms, {"e": "local:e"})
    assert len(found) == 3  # no self-false passages: those cells have n = 0 and give no row
    assert {f["model"] for f in found} == {"local:e"} and all(f["n"] == 4 for f in found)


@pytest.fixture
def pairs():
    bank = load_bank(FIX / "bank.jsonl")
    built = pr.build_pairs(bank, "smollm2", other_authors=["human"], combos=["TT", "TF"])
    return built.assign(evaluator="smollm2")


def test_likelihood_choice_prefers_the_likelier_answer_and_skips_same_answers(scripted_model, pairs):
    def loglik(text, cont):
        if cont == "Answer:":
            return -1.0
        # the script prefers the answer written in the passage shown first
        first = text.split("Passage 1:")[1].split("Passage 2:")[0]
        found = cont[len("Answer: "):].lower() in first.lower()
        return (-1.5 if found else -6.0) - 0.01 * len(cont)  # length breaks ties ("1990" in "1990s")
    m = scripted_model(loglik=loglik)
    got = lk.choose_likelihood(m, pairs)
    ok = got[(got["status"] == "ok") & (got["design"] == "answer")]
    same = got[(got["status"] == "ok") & (got["design"] != "answer")]
    assert len(ok) and len(same)  # the fixture has both kinds
    assert ok["lik_choice"].notna().all() and same["lik_choice"].isna().all()
    assert (ok["lik_choice"] == np.where(ok["lik_lp_1"] > ok["lik_lp_2"], 1, 2)).all()
    # the options continue the reply after "Answer:"
    assert {c for _, c in m.backend.loglik_pairs} >= {"Answer:", "Answer: " + str(ok.iloc[0]["ans_1"]).strip()}
    view = lk.likelihood_view(got)
    table = pt.preference_table(view, ["evaluator"]).iloc[0]
    assert table["n_same_answer"] == int((pairs["status"] == "same_answer").sum()) + len(same)
    assert table["n_valid"] == int(ok["lik_choice"].notna().sum())
    assert view.loc[ok.index, "chose_first"].tolist() == (ok["lik_choice"] == 1).tolist()


def test_choose_from_logprobs_per_word_and_ties():
    assert lk.choose_from_logprobs(-4.0, -3.0, 4, 1) == (2, 1)
    assert lk.choose_from_logprobs(-2.0, -2.0) == (None, None)


def test_choice_agreement_counts_only_pairs_both_decided(pairs):
    p = pairs[pairs["status"] == "ok"].head(4).copy()
    p["design"] = "answer"
    p["choice"] = pd.array([1, 2, None, 1], dtype="Int64")
    p["lik_choice"] = pd.array([1, 1, 2, None], dtype="Int64")
    p["lik_choice_norm"] = pd.array([1, 2, 2, 1], dtype="Int64")
    p = pr.derive_preferences(p)
    a = lk.choice_agreement(p).iloc[0]
    assert (a["n_parsed"], a["n_both"], a["agree"]) == (3, 2, 0.5)
    b = lk.choice_agreement(p, variant="per_word").iloc[0]
    assert (b["n_both"], b["agree"]) == (3, 1.0)


def _synthetic_pairs(n_items=6):
    """The parsed reply always takes the true passage (passage 1 when both are alike); the likelihood
    decides only the two-answer pairs (TF/FT) and takes the own passage there."""
    return all_combo_pairs(n_items, paper=lambda a_pos, true_pos, asym: true_pos if asym else 1,
                           lik=lambda a_pos, true_pos, asym: a_pos)


def test_preference_findings_name_pair_types_and_give_the_likelihood_an_asymmetry_not_self_preference():
    p = _synthetic_pairs()
    views = {"paper (parsed reply)": p, "likelihood sum": lk.likelihood_view(p)}
    rows = {r["measure"]: r for r in fr.preference_findings(views, {"smollm2": "local:smollm2"})}
    paper_self = rows["self-preference rate (paper (parsed reply); TT/TF/FT/FF pairs)"]
    assert (paper_self["n"], paper_self["n_judgments"], paper_self["unit"]) == (6, 48, "question")
    assert not any(m.startswith("self-preference rate (likelihood") for m in rows)  # no TT pairs decided
    # paper: always the true passage -> P(true | TF) - P(true | FT) = 0; likelihood: always its own -> 1 - 0
    assert rows["TF-minus-FT asymmetry of factual choice (paper (parsed reply); TF/FT pairs)"]["estimate"] == 0
    lik = rows["TF-minus-FT asymmetry of factual choice (likelihood sum; TF/FT pairs)"]
    assert (lik["estimate"], lik["n"], lik["n_judgments"]) == (1.0, 6, 24)
    assert lik["p"] == pytest.approx(2 / 2 ** 6, abs=0.015)  # 6 questions, all one way: sign-flip p = 2/64
    first = rows["first-position rate (likelihood sum; TF/FT pairs)"]
    assert first["estimate"] == 0.5 and first["n"] == 6
    planted = p.assign(combo=p["combo"].replace({"FT": "TF"}))  # no FT pair left: no asymmetry to measure
    assert np.isnan(lk.asymmetry(planted)["estimate"])


def test_logprob_judge_uses_option_logprobs_and_agreement(scripted_model):
    def loglik(text, cont):
        return -1.0 if cont == "Choose 1" else -2.0  # always the first response
    m = scripted_model(loglik=loglik)
    judge = GenerativeJudge(parse_reward_spec("judge:local:smollm2;logprob"), model=m)
    pairs_ = pd.DataFrame({"id": ["p1", "p2"], "prompt": ["q1", "q2"], "chosen": ["good", "fine"],
                           "rejected": ["bad", "poor"]})
    res = judge.evaluate(pairs_)
    assert res["choice_cr"].tolist() == [1, 1] and res["choice_rc"].tolist() == [1, 1]
    assert res["correct"].tolist() == [0.5, 0.5]
    gen = res.assign(choice_cr=[1, None], choice_rc=[2, 1])
    results = pd.concat([gen.assign(rm="judge:smollm2", kind="judge", spec="judge:local:smollm2;retries:0"),
                         res.assign(rm="judge-logprob:smollm2", kind="judge", spec="judge:local:smollm2;logprob")])
    agree = study.judge_agreement(results).iloc[0]
    assert (agree["parsed_verdicts"], agree["agree"]) == (3, pytest.approx(2 / 3))


@pytest.mark.model
def test_real_pointwise_likelihood_rating():
    from lib.models import get_model

    got = lk.rate_likelihood(get_model("local:smollm2"), _ratings().head(1))
    probs = got.loc[0, "lik_probs"]
    assert len(probs) == 5 and 0 < sum(probs) <= 1 + 1e-6
    assert got.loc[0, "lik_argmax"] in range(1, 6) and probs[got.loc[0, "lik_argmax"] - 1] == max(probs)
    assert 1 <= got.loc[0, "lik_expected"] <= 5


def test_base_lm_reply_starts_on_a_new_line(scripted_model):
    m = scripted_model(spec="local:gemma3", loglik=lambda text, cont: -1.0 if cont == "\n###" else -2.5)
    got = lk.rate_likelihood(m, _ratings().head(1))
    assert {c for _, c in m.backend.loglik_pairs} == {"\n###"} | {f"\n###{s}" for s in range(1, 6)}
    assert got.loc[0, "lik_mass"] == pytest.approx(5 * math.exp(-1.5))
    assert got.loc[0, "lik_expected"] == pytest.approx(3.0)


def test_human_minus_self_pools_the_datasets_as_all():
    rows = []
    for ds, gap in (("nq", 1.0), ("marco", 0.5)):
        for i in range(4):
            for author, sc in (("human", 3 + gap + (i % 2)), ("e", 3 + (i % 2))):
                rows.append({"dataset": ds, "evaluator": "e", "setting": "rag", "item_id": f"{ds}{i}",
                             "author": author, "factuality": "true", "score": sc})
    hms = lk.human_minus_self_methods(pd.DataFrame(rows))
    paper = hms[hms["method"] == "paper (parsed reply)"].set_index("dataset")
    assert list(paper.index) == ["nq", "marco", "all"]
    assert paper.loc["all", "n_true"] == 8 and paper.loc["all", "diff_true"] == pytest.approx(0.75)
    assert lk.human_minus_self_methods(pd.DataFrame(rows), pooled=False)["dataset"].tolist() == ["nq", "marco"]


def test_generation_phase_pairs_asks_then_adds_the_likelihood_choice_only_when_asked(monkeypatch, capsys):
    import lib.self_preference.pairwise as pw

    asked = pd.DataFrame({"pair": [1, 2]})
    monkeypatch.setattr(pw, "ask_evaluators", lambda bank, ev, names, **kw: asked.assign(k=kw["k_retries"]))
    monkeypatch.setattr(lk, "choose_evaluators_likelihood",
                        lambda scored, ev, names: (scored.assign(lik_choice=1), ["judge x: unavailable"]))
    both = lk.generation_phase_pairs(None, ["local:smollm2"], None, True, k_retries=3)
    assert both["lik_choice"].tolist() == [1, 1] and both["k"].tolist() == [3, 3]
    assert "judge x: unavailable" in capsys.readouterr().out
    plain = lk.generation_phase_pairs(None, ["local:smollm2"], None, False, k_retries=0)
    assert "lik_choice" not in plain and capsys.readouterr().out == ""
