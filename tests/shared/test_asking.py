"""The ask / parse / ask-again loop (lib.ask_until_parsed.ask_until_parsed): its bookkeeping with a scripted
backend under a real CachedModel, then the same loop on the real embedded chat model."""
import pytest

from lib.ask_until_parsed import ask_until_parsed
from lib.models import get_model
from lib.self_preference.pointwise import parse_score


def test_retries_use_new_samples_keep_unparsed_and_count_attempts(scripted_model):
    # Prompt 0 parses at once, prompt 1 on its second sample, prompt 2 never.
    def reply(text, request):
        if "P0" in text:
            return "###4***"
        if "P1" in text:
            return "###2***" if request.sample == 1 else "I think it is fine."
        return f"no idea ({request.sample})"
    model = scripted_model(reply, top_logprobs=[{"4": -0.1}])
    res = ask_until_parsed(model, ["P0", "P1", "P2"], lambda i, t: parse_score(t).value,
                           k_retries=2, temperature=0.0, retry_temperature=0.7, logprobs=5)
    assert [r["value"] for r in res] == [4.0, 2.0, None]
    assert [r["attempts"] for r in res] == [1, 2, 3]
    assert res[2]["responses"] == ["no idea (0)", "no idea (1)", "no idea (2)"]
    assert res[1]["responses"] == ["I think it is fine.", "###2***"]
    sent = model.backend.requests
    assert len(sent) == 3 + 2 + 1
    assert sorted(r.sample for r in sent if "P2" in r.messages[0]["content"]) == [0, 1, 2]
    assert {r.temperature for r in sent if r.sample > 0} == {0.7}
    assert {r.temperature for r in sent if r.sample == 0} == {0.0}
    # log-probabilities only on the first try, and kept from it
    assert {r.logprobs for r in sent if r.sample == 0} == {5} and {r.logprobs for r in sent if r.sample > 0} == {0}
    assert res[0]["top_logprobs"] == [{"4": -0.1}]


def test_a_rerun_is_served_from_the_cache(scripted_model):
    calls = []
    model = scripted_model(lambda text, request: calls.append(text) or "###3***")
    first = ask_until_parsed(model, ["A", "B"], lambda i, t: parse_score(t).value)
    again = ask_until_parsed(model, ["A", "B"], lambda i, t: parse_score(t).value)
    assert len(calls) == 2 and first == again


def test_message_lists_and_raw_text_follow_the_model(scripted_model):
    model = scripted_model(lambda text, request: "ok")
    ask_until_parsed(model, [[{"role": "system", "content": "s"}, {"role": "user", "content": "u"}], "plain"],
                     lambda i, t: t, k_retries=0)
    chat_list, plain = model.backend.requests
    assert [m["role"] for m in chat_list.messages] == ["system", "user"]
    assert plain.messages == [{"role": "user", "content": "plain"}]
    ask_until_parsed(model, ["raw"], lambda i, t: t, k_retries=0, chat=False)
    assert model.backend.requests[-1].prompt == "raw"
    # what the model read: the chat template over the messages, the raw text as is
    assert model.backend.texts[0].startswith("<|im_start|>system\ns<|im_end|>\n<|im_start|>user\nu")
    assert model.backend.texts[-1] == "raw"


@pytest.mark.model
def test_real_chat_model_parse_and_retry_bookkeeping():
    model = get_model("local:smollm2")
    prompts = ["Reply with the number 4 and nothing else.", "Say hello."]
    res = ask_until_parsed(model, prompts, lambda i, t: t if i == 0 else None, k_retries=1, max_tokens=6)
    # prompt 0 accepts any reply; prompt 1 never parses: asked twice, greedy then a new sample
    assert res[0]["attempts"] == 1 and res[0]["value"] == res[0]["responses"][0]
    assert res[1]["value"] is None and res[1]["attempts"] == 2 and len(res[1]["responses"]) == 2
    assert all(isinstance(t, str) and t for t in res[1]["responses"])


def test_every_try_is_booked_in_the_callers_ledger_under_its_key(scripted_model):
    from lib.models.ledger import Ledger

    model = scripted_model(lambda text, request: "###2***" if request.sample == 1 else "unsure")
    ledger = Ledger()
    res = ask_until_parsed(model, ["A", "B"], lambda i, t: parse_score(t).value, k_retries=2,
                           ledger=ledger, key=("study", "step"))
    assert [r["attempts"] for r in res] == [2, 2]
    row = ledger.rows[("study", "step")]
    assert row["requests"] == 4 and row["cache_misses"] == 4  # two tries of two prompts, nothing dropped


def test_the_utility_study_gives_a_base_lm_its_messages_as_one_text(scripted_model):
    from lib.utility.calls import for_model

    base = scripted_model(lambda text, request: "ok", spec="local:gemma3")
    messages = [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}]
    ask_until_parsed(base, [for_model(base, messages)], lambda i, t: t, k_retries=0)
    assert base.backend.requests[-1].prompt == "s\n\nu" and not base.is_chat
    chat = scripted_model(lambda text, request: "ok")
    assert for_model(chat, messages) is messages and chat.is_chat
