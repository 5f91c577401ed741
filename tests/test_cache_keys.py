from dataclasses import replace

import pytest

from lib.models.cache_keys import canonical_json, make_key
from lib.models.types import Request

BASE = Request(messages=[{"role": "user", "content": "Who wrote Hamlet?"}], max_tokens=32)


def key(req, model="local:smollm2", kind="generate"):
    return make_key(kind, model, req.as_dict())


def test_same_request_same_key():
    again = Request(messages=[{"content": "Who wrote Hamlet?", "role": "user"}], max_tokens=32)
    assert key(BASE) == key(again)
    assert len(key(BASE)) == 64


@pytest.mark.parametrize("change", [
    {"messages": [{"role": "user", "content": "Who wrote Macbeth?"}]},
    {"messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Who wrote Hamlet?"}]},
    {"temperature": 0.7}, {"top_p": 0.9}, {"max_tokens": 33}, {"seed": 1}, {"sample": 1}, {"logprobs": 5},
    {"stop": ["\n"]},
])
def test_any_change_new_key(change):
    assert key(replace(BASE, **change)) != key(BASE)


def test_model_and_kind_are_in_the_key():
    assert key(BASE, model="openai:gpt-4o-mini") != key(BASE)
    assert key(BASE, model="openai:m@http://a:1/v1") != key(BASE, model="openai:m@http://b:1/v1")
    assert key(BASE, kind="loglikelihood") != key(BASE)


def test_canonical_json_ignores_dict_order():
    assert canonical_json({"a": 1, "b": [1, 2]}) == canonical_json({"b": [1, 2], "a": 1})


def test_request_needs_messages_or_prompt():
    with pytest.raises(ValueError, match="exactly one"):
        Request()
    with pytest.raises(ValueError, match="exactly one"):
        Request(messages=[{"role": "user", "content": "x"}], prompt="x")
    with pytest.raises(ValueError, match="role"):
        Request(messages=[{"text": "x"}])
