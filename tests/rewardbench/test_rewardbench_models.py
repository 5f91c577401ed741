"""RAG-RewardBench reward models: spec strings, judge parsing and order bookkeeping, implicit reward
arithmetic (scripted stand-ins), and the discriminative path on a tiny random model built here."""

import numpy as np
import pandas as pd
import pytest

from lib.models import cache
from lib.models.specs import RewardSpecError, SpecError, parse_reward_spec
from lib.rewardbench.implicit import implicit_reward
from lib.rewardbench.judge import order_outcome, parse_choice
from lib.rewardbench.registry import evaluate, get_reward_model


def test_spec_strings():
    s = parse_reward_spec("implicit:local:smollm2;norm=mean;ref=local:gemma3")
    assert (s.kind, s.target, s.options) == ("implicit", "local:smollm2", {"norm": "mean", "ref": "local:gemma3"})
    assert s.name == "implicit-mean:smollm2-ref:gemma3"
    assert parse_reward_spec("implicit:local:smollm2-ref:local:gemma3").options == {"ref": "local:gemma3"}
    # '='-free forms for notebook parameters: short flags and key:value
    assert parse_reward_spec("implicit:local:smollm2;mean;ref:local:gemma3").options == s.options
    assert parse_reward_spec("judge:local:smollm2;logprob;retries:2").options == {"decide": "logprob", "retries": "2"}
    assert parse_reward_spec("judge:openai:gpt-4o-mini").name == "judge:gpt-4o-mini"
    assert parse_reward_spec("judge:openai:llama3@http://localhost:8000/v1").target.endswith("/v1")
    assert parse_reward_spec("rm:Skywork/Skywork-Reward-Llama-3.1-8B-v0.2").name == "rm:Skywork-Reward-Llama-3.1-8B-v0.2"
    for bad, err in [("smollm2", RewardSpecError), ("critic:local:smollm2", RewardSpecError),
                     ("judge:local:smollm2;norm=mean", RewardSpecError), ("judge:local:smollm2;mean", RewardSpecError),
                     ("implicit:local:smollm2;ref", RewardSpecError), ("implicit:local:smollm2;norm=max", RewardSpecError),
                     ("judge:local:nosuch", SpecError), ("implicit:local:smollm2;ref=bogus", SpecError),
                     ("judge:local:smollm2;retries=x", RewardSpecError)]:
        with pytest.raises(err):
            parse_reward_spec(bad)


@pytest.mark.parametrize("reply,expected", [
    ("Choose 1", 1), ("choose 2.", 2), ("**Choose 2**", 2), ("Choose Response 1", 1),
    ("I think Response 2 is better.", 2), ("1", 1), ('"2"', 2),
    ("Choose 1 or Choose 2", None), ("Both are fine.", None), ("", None), ("Choose 12", None),
    ("Response 1: the answer is Paris", None),
])
def test_parse_choice(reply, expected):
    assert parse_choice(reply) == expected


def test_order_outcome_bookkeeping():
    assert order_outcome(1, 2) == {"correct": 1.0, "p_rejected": 0.0, "unparsed": 0, "consistent": 1.0, "n_first": 1}
    # always picks the first position: right once, wrong once, inconsistent
    o = order_outcome(1, 1)
    assert (o["correct"], o["p_rejected"], o["consistent"], o["n_first"]) == (0.5, 0.5, 0.0, 2)
    # unparseable verdict counts as wrong, is counted, and consistency is undefined
    o = order_outcome(None, 2)
    assert (o["correct"], o["unparsed"]) == (0.5, 1) and np.isnan(o["consistent"])
    assert order_outcome(None, None)["correct"] == 0.0


def _pairs(n=4):
    return pd.DataFrame([{"id": f"p{i}", "category": "helpful", "group": "Helpful", "subset": "helpful-x",
                          "system": "", "prompt": f"question {i}", "question": f"q{i}",
                          "chosen": f"GOOD answer {i} with more words", "rejected": f"bad {i}",
                          "chosen_model": "gpt-4o", "rejected_model": "llama-3", "chosen_score": np.nan,
                          "rejected_score": np.nan, "answer": "", "source": ""} for i in range(n)])


def _good_first(text):
    """Whether the GOOD response is shown first in a rendered judge prompt."""
    return text.index("GOOD") < text.index("Response 2:")


def test_judge_runs_both_orders_and_averages(scripted_model):
    model = scripted_model(lambda text, req: "Choose 1" if _good_first(text) else "Choose 2")
    judge = get_reward_model("judge:local:smollm2", model=model)
    res = evaluate([judge], _pairs())
    backend = model.backend
    assert backend.calls == 8  # 4 pairs x 2 orders, no retries needed
    assert backend.requests[0].temperature == 0.0 and backend.requests[0].max_tokens == 16
    # the Table 6 prompt arrives as system + user turns through the chat template
    assert backend.texts[0].startswith("<|im_start|>system\nPlease act as an impartial judge")
    assert backend.texts[0].endswith("<|im_start|>assistant\n")
    assert res["correct"].eq(1.0).all() and res["consistent"].eq(1.0).all()
    assert list(res.columns[:2]) == ["rm", "kind"] and (res["rm"] == "judge:smollm2").all()
    assert (res["len_diff"] > 0).all()
    # a second evaluation is answered from the cache: no model call
    evaluate([judge], _pairs())
    assert backend.calls == 8

    first = get_reward_model("judge:local:smollm2;max_tokens:4", model=scripted_model(lambda t, r: "Choose 1"))
    res = first.evaluate(_pairs())
    assert res["correct"].eq(0.5).all() and res["consistent"].eq(0.0).all() and res["n_first"].eq(2).all()


def test_judge_retries_then_counts_unparseable_as_wrong(scripted_model):
    def rule(text, r):  # only pair p0 shown rejected-first gets a parseable reply, and only on retry 1
        late = "GOOD answer 0" in text and not _good_first(text)
        return "Choose 2" if r.sample == 1 and late else "no idea"

    model = scripted_model(rule)
    judge = get_reward_model("judge:local:smollm2;retries=2", model=model)
    res = judge.evaluate(_pairs(2)).set_index("id")
    reqs = model.backend.requests
    # 4 first asks, 4 retries at temperature 0.7, then 3 still unparsed get a second retry
    assert len(reqs) == 4 + 4 + 3
    assert {r.temperature for r in reqs[4:]} == {0.7} and {r.sample for r in reqs[8:]} == {2}
    # pair p0: order rc (rejected first) was answered 'Choose 2' on retry 1 -> right once
    assert res.loc["p0", "correct"] == 0.5 and res.loc["p0", "unparsed"] == 1
    assert res.loc["p1", "correct"] == 0.0 and res.loc["p1", "unparsed"] == 2
    assert res.loc["p1", "raw_cr"] == "no idea" and res.loc["p1", "attempts"] == 6


def test_judge_names_differ_by_options():
    names = {get_reward_model(s).name for s in ["judge:local:smollm2", "judge:local:smollm2;retries:0",
                                                "judge:local:smollm2;retries:0;max_tokens:8",
                                                "judge:local:smollm2;logprob"]}
    assert len(names) == 4 and "judge:smollm2;max_tokens:8;retries:0" in names


def test_raw_records_reparse_with_a_fixed_parser(scripted_model, tmp_path, monkeypatch):
    from lib.rewardbench import judge as J
    from lib.rewardbench import replies, study

    # the judge answers in a form today's parser misses ('Verdict: 1'), the chosen one first
    model = scripted_model(lambda text, r: "Verdict: 1" if _good_first(text) else "Verdict: 2")
    spec = "judge:local:smollm2;retries:0"
    path = tmp_path / replies.RAW_FILE
    res = study.pair_results([spec], _pairs(3), path, models={spec: {"model": model}})
    assert res["unparsed"].eq(2).all() and res["correct"].eq(0.0).all()
    lines = path.read_text().splitlines()
    assert len(lines) == 3 and '"replies_cr": ["Verdict: 1"]' in lines[0]
    calls = model.backend.calls
    monkeypatch.setattr(J, "parse_choice", lambda text: int(text[-1]) if text.startswith("Verdict") else None)
    fixed = replies.reparse(path)
    assert model.backend.calls == calls, "re-parsing makes no model call"
    assert fixed["correct"].eq(1.0).all() and fixed["unparsed"].eq(0).all()
    assert fixed.drop(columns=["correct", "p_rejected", "unparsed", "consistent", "n_first", "choice_cr",
                               "choice_rc"]).equals(res.drop(columns=["correct", "p_rejected", "unparsed",
                                                                      "consistent", "n_first", "choice_cr",
                                                                      "choice_rc"]))
    tables = study.study_tables(fixed)
    assert tables["rewardbench_table2"].loc["judge:smollm2;retries:0", ("Overall", "")] == 100.0


def test_changed_pair_text_takes_effect_under_the_same_run(scripted_model, tmp_path):
    from lib.rewardbench import study

    model = scripted_model(lambda text, r: "Choose 1" if _good_first(text) else "Choose 2")
    spec, path = "judge:local:smollm2", tmp_path / "raw.jsonl"
    models = {spec: {"model": model}}
    before = study.pair_results([spec], _pairs(2), path, models=models)
    p = _pairs(2)
    swapped = p.assign(chosen=p["rejected"], rejected=p["chosen"])
    after = study.pair_results([spec], swapped, path, models=models)
    assert before["correct"].eq(1.0).all() and after["correct"].eq(0.0).all()


def test_implicit_reward_arithmetic():
    assert implicit_reward(-10.0, 5) == -10.0
    assert implicit_reward(-10.0, 5, "mean") == -2.0
    assert implicit_reward(-10.0, 5, "sum", -4.0, 2) == -6.0
    assert implicit_reward(-10.0, 5, "mean", -4.0, 2) == 0.0


def test_implicit_reward_model_bookkeeping(scripted_model):
    # log-probability = -1 per word (policy), -3 per word (reference), one token per word
    words = lambda cont: len(cont.split())  # noqa: E731
    pol = scripted_model(loglik=lambda ctx, cont: (-1.0 * words(cont), words(cont)))
    ref = scripted_model(loglik=lambda ctx, cont: (-3.0 * words(cont), words(cont)), spec="local:gemma3")
    rm = get_reward_model("implicit:local:smollm2", model=pol)
    res = rm.evaluate(_pairs(3))
    # shorter rejected responses have the higher summed log-probability: a length bias we can see
    assert res["correct"].eq(0.0).all() and res["p_rejected"].eq(1.0).all()
    ctx, cont = pol.backend.loglik_pairs[0]
    assert ctx.endswith("<|im_start|>user\nquestion 0<|im_end|>\n<|im_start|>assistant\n")
    assert cont == "GOOD answer 0 with more words"
    mean = get_reward_model("implicit:local:smollm2;norm=mean", model=pol).evaluate(_pairs(3))
    assert mean["tie"].eq(1.0).all() and mean["correct"].eq(0.0).all()  # ties are wrong, and counted
    # DPO-style: policy minus reference, each summed: chosen 6 words -> -6+18 = 12 > rejected 2 words -> 4
    dpo = get_reward_model("implicit:local:smollm2;ref=local:gemma3", model=pol, ref_model=ref)
    res = dpo.evaluate(_pairs(2))
    assert res["correct"].eq(1.0).all() and res["rm_chosen"].eq(12.0).all()
    # gemma3 has no chat template: it gets plain text ending at the prompt, response after a space
    ctx, cont = ref.backend.loglik_pairs[-1]
    assert ctx == "question 1" and cont == " bad 1"


@pytest.fixture(scope="module")
def tiny_rm(tmp_path_factory):
    """A randomly initialised 2-layer GPT-2 reward model and a word-level tokenizer, saved locally."""
    torch = pytest.importorskip("torch")
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import GPT2Config, GPT2ForSequenceClassification, PreTrainedTokenizerFast

    words = "question answer good bad with more words 0 1 2 3 GOOD [UNK] [PAD]".split()
    tk = Tokenizer(models.WordLevel({w: i for i, w in enumerate(words)}, unk_token="[UNK]"))
    tk.pre_tokenizer = pre_tokenizers.Whitespace()
    tok = PreTrainedTokenizerFast(tokenizer_object=tk, unk_token="[UNK]", pad_token="[PAD]")
    torch.manual_seed(0)
    cfg = GPT2Config(vocab_size=len(words), n_positions=64, n_embd=16, n_layer=2, n_head=2, num_labels=1,
                     pad_token_id=words.index("[PAD]"))
    model = GPT2ForSequenceClassification(cfg).eval()
    folder = tmp_path_factory.mktemp("tiny_rm")
    tok.save_pretrained(folder)
    model.save_pretrained(folder)
    return folder, tok, model


def test_discriminative_rm_scores_with_the_classification_head(tiny_rm):
    import torch
    folder, tok, model = tiny_rm
    rm = get_reward_model(f"rm:{folder}")
    pairs = _pairs(3)
    res = rm.evaluate(pairs)
    with torch.no_grad():
        want_c = [float(model(**tok(f"{p}\n{c}", return_tensors="pt")).logits[0, 0])
                  for p, c in zip(pairs["prompt"], pairs["chosen"])]
        want_r = [float(model(**tok(f"{p}\n{c}", return_tensors="pt")).logits[0, 0])
                  for p, c in zip(pairs["prompt"], pairs["rejected"])]
    assert res["rm_chosen"].tolist() == pytest.approx(want_c, abs=1e-5)
    assert res["rm_rejected"].tolist() == pytest.approx(want_r, abs=1e-5)
    assert res["correct"].tolist() == [float(c > r) for c, r in zip(want_c, want_r)]
    assert rm.name == f"rm:{folder.name}"
    # scored in padded batches through the cached model layer: a second pass scores nothing
    assert cache.cache_stats()["misses"] == 6
    again = get_reward_model(f"rm:{folder}").evaluate(pairs)
    assert cache.cache_stats()["misses"] == 6 and again["rm_chosen"].tolist() == res["rm_chosen"].tolist()


def test_cached_reward_scores_build_no_backend(tiny_rm, monkeypatch):
    from lib.models import registry

    folder, _, _ = tiny_rm
    pairs = _pairs(2)
    first = get_reward_model(f"rm:{folder}").evaluate(pairs)
    assert cache.cache_stats()["misses"] == 4
    monkeypatch.setattr(registry, "_models", {})  # as in a new process: no model objects yet
    rm = get_reward_model(f"rm:{folder}")
    assert rm.evaluate(pairs)["rm_chosen"].tolist() == first["rm_chosen"].tolist()
    assert cache.cache_stats()["misses"] == 4 and not rm.model.built


def test_discriminative_rm_missing_model_says_what_is_needed(tmp_path):
    rm = get_reward_model(f"rm:{tmp_path / 'absent'}")
    with pytest.raises(OSError, match="No discriminative RM ships offline"):
        rm.score([("", "q")], ["a"])


def test_logprob_judge_verdicts(scripted_model):
    s = parse_reward_spec("judge:local:smollm2;decide=logprob")
    assert s.name == "judge-logprob:smollm2"
    with pytest.raises(RewardSpecError):
        parse_reward_spec("judge:local:smollm2;decide=vote")

    def loglik(ctx, cont):  # 'Choose k' is likelier when response k holds GOOD
        want = "Choose 1" if _good_first(ctx) else "Choose 2"
        return (-1.0 if cont == want else -2.0), 2

    model = scripted_model(loglik=loglik)
    judge = get_reward_model("judge:local:smollm2;decide=logprob", model=model)
    res = judge.evaluate(_pairs(3))
    assert res["correct"].eq(1.0).all() and res["unparsed"].eq(0).all()
    assert res["raw_cr"].str.startswith("logprob Choose 1=-1.0000").all()
    assert model.backend.calls == 3 * 2 * 2  # pairs x orders x the two allowed replies


def test_a_base_lm_judges_from_raw_text(scripted_model):
    """A base LM (no chat template) gets the Table 6 prompt as raw text, in both judge modes; a chat
    model still gets chat messages."""
    base = scripted_model(lambda text, r: "Choose 1" if _good_first(text) else "Choose 2", spec="local:gemma3",
                          loglik=lambda ctx, cont: -1.0 if ("Choose 1" in cont) == _good_first(ctx) else -5.0)
    for spec in ("judge:local:gemma3;retries:0", "judge:local:gemma3;logprob"):
        res = evaluate([get_reward_model(spec, model=base)], _pairs(2))
        assert res["correct"].eq(1.0).all(), spec
    assert base.backend.texts and base.backend.texts[0].startswith("Please act as an impartial judge")
    ctx, cont = base.backend.loglik_pairs[0]
    assert "<|im_start|>" not in base.backend.texts[0] + ctx and '"Choose 2", do not' in ctx
    assert "in the response.\nChoose " in ctx + cont  # the verdict starts on a new line after the raw prompt
