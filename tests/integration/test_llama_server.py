"""Our `openai:<model>@<url>` path against a real OpenAI-compatible server (llama-cpp-python's, on the
embedded GGUF files), through `get_model`, the call surface users have."""
import math
import threading
import time

import openai
import pytest

from lib.models import cache
from lib.models.backends import openai_api
from lib.models.backends.openai_api import BackendError
from lib.models import LikelihoodUnavailable, Request, get_model

QUESTIONS = ["What is the capital of Australia?", "Who wrote Frankenstein?", "What gas do plants take in?",
             "In which year did the Berlin Wall fall?", "What is the largest planet?", "Name a primary colour.",
             "How many legs has a spider?", "What is frozen water called?"]


def chat(q: str, **kw) -> Request:
    return Request(messages=[{"role": "user", "content": q}], **{"max_tokens": 12, **kw})


def one_at_a_time(server, requests) -> list[str]:
    """Greedy replies asked one by one with the plain openai client (no cache, no concurrency)."""
    client = openai.OpenAI(base_url=server.url, api_key="EMPTY", max_retries=0)
    return [client.chat.completions.create(model=server.alias, messages=r.messages, max_tokens=r.max_tokens,
                                           temperature=0).choices[0].message.content for r in requests]


def test_chat_batch_keeps_order_and_a_rerun_makes_no_server_call(chat_server):
    reqs = [chat(q) for q in QUESTIONS[:6]]
    expected = one_at_a_time(chat_server, reqs)
    model = get_model(chat_server.spec)
    before = chat_server.requests()
    out = model.generate(reqs)
    assert [o.text for o in out] == expected, "replies must come back in request order"
    assert chat_server.requests() - before == 6 and not any(o.cached for o in out)
    again = model.generate(reqs)
    assert chat_server.requests() - before == 6, "a warm re-run must make zero server calls"
    assert all(o.cached for o in again) and [o.text for o in again] == expected


def test_seeded_sample_is_reproducible_and_another_sample_index_draws_again(chat_server):
    """llama-cpp-python honours `seed`, but its draw also depends on whether the prompt is already in
    its prompt cache (a fresh evaluation and a reused one differ by about 0.1 nats on this flat first
    token, enough to change a temperature-1 draw): the first request may differ, repeats agree."""
    model = get_model(chat_server.spec)
    req = chat("Write one word that rhymes with cat.", temperature=1.0, max_tokens=16, seed=7)
    model.backend._one(req)  # the backend directly: the cache would answer every repeat
    again = [model.backend._one(req).text for _ in range(2)]
    assert again[0] == again[1], "same seed, same prompt state: same draw"
    others = [model.backend._one(chat(req.messages[0]["content"], temperature=1.0, max_tokens=16, seed=7,
                                      sample=s)).text for s in (1, 2, 3)]
    assert any(o != again[0] for o in others), "another sample index (seed + sample) must give another draw"


def test_top_logprobs_of_generated_tokens(chat_server):
    out = get_model(chat_server.spec).generate([chat(QUESTIONS[0], logprobs=5)])[0]
    assert out.top_logprobs and len(out.top_logprobs) == out.tokens_out
    assert all(len(d) == 5 and all(v <= 1e-6 for v in d.values()) for d in out.top_logprobs)
    # greedy: the most likely token at each step is the one generated
    assert "".join(max(d, key=d.get) for d in out.top_logprobs) == out.text


def test_echoed_likelihoods_of_this_server_are_refused_with_the_cause(chat_server):
    """llama-cpp-python 0.3.36 echoes prompt log-probabilities shifted by one position: the probe
    must detect it, and every likelihood path must say so instead of returning a number."""
    model = get_model(chat_server.spec)
    with pytest.raises(LikelihoodUnavailable, match="shifted by one position") as err:
        model.loglikelihood([("The capital of France is", " Paris")])
    print(err.value)  # shown with -s: the message users get
    before = chat_server.requests()
    with pytest.raises(LikelihoodUnavailable, match="shifted by one position"):
        model.option_logprobs([("Question: 2 + 2 = ?\nAnswer:", "", [" 4", " 5"])])
    assert chat_server.requests() == before, "the probe's verdict is cached per server: not asked again"
    with pytest.raises(LikelihoodUnavailable, match="raw-text context"):
        model.option_logprobs([([{"role": "user", "content": "Rate 1-5."}], "###", ["1", "2"])])


def test_topk_options_for_chat_and_raw_text(chat_server, base_server):
    items = [([{"role": "user", "content": "Reply with ###1 to ###5. How blue is the sky?"}], "", ["1", "2"]),
             ("Count: 1, 2, 3, 4,", " ", ["5", "9", "elephant-zebra"])]  # gemma: digits and spaces are tokens
    chat_model, base_model = get_model(chat_server.spec), get_model(base_server.spec)
    got = chat_model.option_topk(items[:1], k=5)[0]
    assert got.method.startswith("top-k") and got.k == 5
    assert all(a == (not math.isnan(v)) for a, v in zip(got.available, got.logprobs))
    raw = base_model.option_topk(items[1:], k=5)[0]
    assert raw.available[0] and raw.logprobs[0] > math.log(0.5), raw  # "5" after "4, " is near certain
    assert not raw.available[2] and math.isnan(raw.logprobs[2]) and "not among the top 5" in raw.reason
    before = base_server.requests()
    assert base_model.option_topk(items[1:], k=5)[0].cached and base_server.requests() == before


def test_eight_workers_against_a_one_at_a_time_server(chat_server):
    reqs = [chat(q, max_tokens=8) for q in QUESTIONS]
    expected = one_at_a_time(chat_server, reqs)
    model = get_model(chat_server.spec, workers=8)
    before = chat_server.requests()
    out = model.generate(reqs)
    assert [o.text for o in out] == expected, "nothing lost, order kept"
    assert chat_server.requests() - before == len(reqs), "each request answered once"


def test_server_killed_mid_batch_resumes_without_asking_finished_replies_again(own_chat_server):
    server = own_chat_server.start()
    reqs = [chat(f"Count from {i} to {i + 20}.", max_tokens=24) for i in range(8)]
    model = get_model(server.spec, workers=1, max_retries=1)
    failed = []
    worker = threading.Thread(target=lambda: failed.append(_raises(model.generate, reqs)))
    worker.start()
    while cache.cache_stats()["misses"] < 3 and worker.is_alive():
        time.sleep(0.05)
    server.stop(kill=True)
    worker.join(timeout=120)
    done = cache.cache_stats()["misses"]
    assert failed == [True] and 3 <= done < len(reqs), (failed, done)
    server.start()  # same port, so the same spec and cache keys
    out = model.generate(reqs)
    print(f"\nkilled after {done} of {len(reqs)} replies; the restarted server was asked {server.requests()}")
    assert server.requests() == len(reqs) - done, "finished replies are not asked again"
    assert sum(o.cached for o in out) == done and all(o.text for o in out)


def _raises(fn, *args) -> bool:
    try:
        fn(*args)
    except BackendError:
        return True
    return False


def test_a_refused_parameter_is_named(chat_server):
    model = get_model(chat_server.spec)
    # a prompt past the server's context: llama-cpp-python answers 400 with param "messages"
    with pytest.raises(BackendError, match="refused the parameter 'messages'.*characters"):
        model.generate([chat("word " * 5000)])
    # a value its request schema rejects: llama-cpp-python answers HTTP 500 (not 400 or 422) with
    # pydantic's text; no retries here, the error is the same after them
    backend = get_model(chat_server.spec, max_retries=0).backend
    payload = {"model": chat_server.alias, "messages": [{"role": "user", "content": "hi"}], "max_tokens": 2,
               "top_logprobs": "many"}
    with pytest.raises(BackendError, match="refused the parameter 'top_logprobs' \\(sent top_logprobs='many'; HTTP 500"):
        backend._call(openai_api.CHAT, payload)


def test_a_base_lm_declared_with_base_is_asked_in_raw_text_and_scored_by_echo(base_server):
    """gemma-3-270m (a base LM) as users would declare it, `openai:gemma3@<url>;base`: replies come
    from /v1/completions on the raw prompt, and 05's likelihood item (raw text, the reply opening on a
    new line with "###") is scored from the server's echoed prompt log-probabilities, which pass the
    probe on this model (docs/servers.md: aligned for gemma-3)."""
    from lib import pipeline
    from lib.self_preference import likelihood as L

    spec = f"{base_server.spec};base"
    model = get_model(spec)
    assert not model.is_chat and get_model(base_server.spec).is_chat
    before = base_server.requests()
    req = model.request("Count: 1, 2, 3, 4,", max_tokens=3)
    assert req.prompt is not None and req.messages is None
    out = model.generate([req])[0]
    assert out.text and base_server.requests() == before + 1
    log = base_server.log.read_text(errors="replace")
    assert '"POST /v1/completions' in log and '"POST /v1/chat/completions' not in log
    # llama-cpp-python scores an echoed prompt in Python over gemma's 262k-token vocabulary: the
    # 110-token probe took 190 s on 2 loaded cores, past the default 120 s timeout, so this model is
    # asked with a longer one; the probe's verdict is cached per server and model for every later call
    slow = get_model(spec, timeout=900.0, max_retries=0)
    item = L._item(slow, "Rate the count 1, 2, 3 from 1 to 5.", L.SCORE_PREFIX, ["1", "5"], None)
    assert item[0] == "Rate the count 1, 2, 3 from 1 to 5." and item[1] == "\n###"  # a base LM's raw layout
    lps = slow.option_logprobs([item])[0]
    assert all(math.isfinite(v) and v < 0 for v in lps) and sum(math.exp(v) for v in lps) < 1, lps
    asked = base_server.requests()
    assert slow.option_logprobs([item])[0] == lps and base_server.requests() == asked  # cached
    assert pipeline.left_out("05_pointwise_reranking", {"evaluators": [spec]}) == []  # the probe passed
    assert pipeline.left_out("05_pointwise_reranking", {"evaluators": [base_server.spec]}) != []  # chat: no echo
