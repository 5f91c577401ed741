from dataclasses import replace

import pytest

from lib.models.cache_keys import canonical_json, make_key
from lib.models.specs import parse_spec
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


# Keys the model layer made before it moved into lib/models/ (derived once by running the old code on
# exactly these inputs): a warm re-run against a cache filled before the move must find every entry.
OLD_KEYS = {
    "generate": ["7d75d4acf9eac89acd7025056c28be41d1b3a0324ad9e650326accbda8187bdc",
                 "f1bd4def2e674ab466acf5ea75795053bf0e0f77199f66c9d2397763b2672586"],
    "loglikelihood": ["bec3f4a38ae808ae607075096bd519d3a2a26cfdbc450b7a72b31a70e3451825",
                      "2045ddfa4023f92c57cfc954c8b38592bae2c8478452f9f43bddd9d33c778961"],
    "option_logprobs": ["0eb5088df73a41f1353f5e6b52051ea8a677af016bece6ddce2e7f13e9f77bcc",
                        "2e231dc6586de19081ffbedea45a7327d320ff570b52fc58e672a31268dbae4c"],
    "perplexity": ["cd9d8df2307628d573241ad196e95f8e68e09815aa6aadc7a528dc6c573091e9",
                   "ce2f24ac4b32c9d292f0701cc3a71863cf30803e9e5df8716dece907d72277fe"],
    "embedding": ["b4fa01016935af6f30f61e0cdfdf41f11c75c0cefd3af444806165921dd71aad",
                  "77fa7d72b1bdc98fefd5429aab098e807ab6c6f75a215c8310d5873a23ee94eb"],
    "score": ["b01e6ef4b9807e81122c3c8d09e5d46e5cc0b68fecb3f90e9560dba9643e4e98"],
}
# what an old entry of each kind holds (values keep their old layout too)
OLD_VALUES = {
    "generate": {"text": "x", "top_logprobs": None, "tokens_in": 1, "tokens_out": 1, "finish_reason": "stop",
                 "extra": {}},
    "loglikelihood": {"logprob": -1.0, "n_tokens": 1, "cached": False},
    "option_logprobs": {"logprobs": [-1.0], "option_tokens": [1], "tokens_in": 1},
    "perplexity": 12.5, "embedding": [0.0] * 384, "score": {"score": 0.5, "n_tokens": 3},
}


class _EveryLookupHits:
    """A results cache that answers every lookup with an old entry of the current kind and records
    the keys asked for; writing fails (a hit must never call a model)."""

    def __init__(self):
        self.kind, self.keys = None, {}

    def get(self, key):
        self.keys.setdefault(self.kind, []).append(key)
        return OLD_VALUES[self.kind]

    def set(self, key, value):
        raise AssertionError("a cache hit wrote to the cache")


def _asked_keys(monkeypatch, plant: str = ""):
    """The keys the model layer asks for on the inputs OLD_KEYS were made from (`plant` alters one
    input, to show that the comparison notices)."""
    from lib.models import CachedModel, cache, registry
    from lib.models.perplexity import perplexity
    from lib.models.specs import parse_reward_spec
    from lib.rewardbench.discriminative import DiscriminativeRM
    from lib.utility.retrieval import DenseRetriever

    store = _EveryLookupHits()
    monkeypatch.setattr(cache, "results_cache", lambda: store)
    monkeypatch.setattr(registry, "_models", {})

    def never():
        raise AssertionError("a backend was built on a cache hit")

    m = CachedModel(parse_spec("local:smollm2"), factory=never, capabilities={"generate", "loglikelihood", "option_logprobs"})
    store.kind = "generate"
    m.generate([Request(messages=[{"role": "user", "content": "Who wrote Hamlet?" + plant}], max_tokens=32,
                        temperature=0.7, sample=2, stop=["\n"]),
                Request(prompt="The capital of France is", max_tokens=8, logprobs=5)])
    store.kind = "loglikelihood"
    m.loglikelihood([("Question: who wrote Hamlet?\nAnswer:", " Shakespeare"),
                     ([{"role": "user", "content": "Rate it."}], "5")])
    store.kind = "option_logprobs"
    m.option_logprobs([([{"role": "user", "content": "Pick 1 or 2."}], "Choose ", ["1", "2"]),
                       ("Raw context", "", ["Yes", "No"])])
    store.kind = "perplexity"
    perplexity(["A short passage about the Eiffel Tower."], model="local:gemma3")
    perplexity(["Another text."], model="hf:gpt2", stride=256, max_length=512)
    store.kind = "embedding"
    DenseRetriever(["Who wrote Hamlet?"])
    DenseRetriever(["Paris is in France."], model="sentence-transformers/all-MiniLM-L6-v2")
    store.kind = "score"
    DiscriminativeRM(parse_reward_spec("rm:Org/reward-model;max_length:512")).score(
        [("Be helpful.", "Who wrote Hamlet?")], ["Shakespeare."])
    assert not any(c.built for c in registry._models.values()), "a cache hit built a backend"
    return store.keys


def test_cache_keys_of_every_kind_are_those_made_before_the_move(monkeypatch):
    assert _asked_keys(monkeypatch) == OLD_KEYS


def test_key_stability_check_notices_a_changed_input(monkeypatch):
    got = _asked_keys(monkeypatch, plant=" ")
    assert got["generate"][0] != OLD_KEYS["generate"][0]
    assert {k: v for k, v in got.items() if k != "generate"} == {k: v for k, v in OLD_KEYS.items() if k != "generate"}
