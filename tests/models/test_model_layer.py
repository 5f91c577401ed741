"""The model layer's call surface: declared capabilities, the one cache loop, the cost ledger."""
import pytest

from lib.models import CachedModel, CapabilityError, LEDGER, Ledger, LikelihoodUnavailable, Request, get_model
from lib.models.backends import DECLARED, declared, declared_for
from lib.models.prices import PRICES
from lib.models.specs import parse_spec


def _reqs(*texts):
    return [Request(messages=[{"role": "user", "content": t}], max_tokens=8) for t in texts]


def test_capability_questions_come_from_the_declaration(scripted_model):
    full, generate_only = scripted_model(), scripted_model(spec="local:gemma3", likelihoods=False)
    assert full.scores_options and full.can_echo and not full.can("embed")
    assert not generate_only.scores_options and not generate_only.can_echo
    with pytest.raises(LikelihoodUnavailable):
        generate_only.loglikelihood([("context", " more")])
    with pytest.raises(CapabilityError, match="embed"):
        full.embed(["a text"])
    assert generate_only.backend.calls == 0 and full.backend.calls == 0


def test_built_in_models_answer_without_building_their_backend(monkeypatch):
    from lib.models import registry

    monkeypatch.setattr(registry, "_models", {})  # models other tests built stay out of this one
    for spec in ("local:smollm2", "hf:some/model"):
        m = get_model(spec)
        assert m.scores_options and m.can("rolling_loglikelihood") and not m.built
    server = get_model("openai:m@http://127.0.0.1:9/v1")
    assert server.can_echo and not server.can("option_logprobs") and not server.built


@pytest.mark.model  # imports torch
def test_declarations_match_the_backend_classes():
    from lib.models.backends.openai_api import OpenAIBackend
    from lib.models.backends.transformers_lm import TransformersBackend

    smollm2 = TransformersBackend(parse_spec("local:smollm2"))
    assert smollm2.capabilities == declared_for(parse_spec("local:smollm2"))[0] == DECLARED["local"] | {"chat"}
    assert "chat" not in declared_for(parse_spec("local:gemma3"))[0]  # a base LM: raw text only
    assert DECLARED["openai"] == OpenAIBackend.capabilities
    for backend in (smollm2, OpenAIBackend):  # `chat` is a property of the model, every other one a method
        assert all(callable(getattr(backend, c)) for c in backend.capabilities - {"chat"})


def test_a_misspelt_or_missing_declaration_is_refused():
    with pytest.raises(ValueError, match="loglikelihod"):
        declared({"generate", "loglikelihod"})

    class NoDeclaration:
        def check(self):
            pass
    with pytest.raises(TypeError, match="declares no `capabilities`"):
        CachedModel(parse_spec("local:smollm2"), backend=NoDeclaration())
    with pytest.raises(ValueError, match="declared up front"):
        CachedModel(parse_spec("local:smollm2"), factory=NoDeclaration)


def test_ledger_books_calls_hits_tokens_and_seconds(scripted_model):
    m = scripted_model(reply=lambda text, req: "one two three")
    mine = Ledger()
    LEDGER.clear()
    m.generate(_reqs("a", "b"), desc="study step", ledger=mine, key=("smollm2", "step"))
    m.generate(_reqs("a", "b", "c"), desc="study step", ledger=mine, key=("smollm2", "step"))
    row = mine.rows[("smollm2", "step")]
    assert (row["requests"], row["cache_hits"], row["cache_misses"]) == (5, 2, 3)
    assert row["tokens_out"] == 5 * 3 and row["tokens_in"] > 0  # cached replies still report their tokens
    assert row["seconds"] > 0 and row["cost_usd"] is None  # no price for an embedded model: None, not 0
    assert LEDGER.rows[("local:smollm2", "study step")] == row  # the process-wide ledger got the same
    table = mine.table()
    assert table.loc[0, "cache_misses"] == 3 and list(table.columns[:2]) == ["model", "method"]


def test_priced_models_cost_dollars_and_unknown_ones_none():
    from tests.conftest import ScriptedBackend

    def run(spec):
        m = CachedModel(parse_spec(spec), backend=ScriptedBackend(reply=lambda text, req: "yes no"))
        ledger = Ledger()
        m.generate(_reqs("Is it?"), ledger=ledger, key=("k",))
        return ledger.rows[("k",)]
    row = run("openai:gpt-4o-mini")
    price_in, price_out = PRICES["gpt-4o-mini"].input, PRICES["gpt-4o-mini"].output
    assert row["cost_usd"] == pytest.approx((row["tokens_in"] * price_in + 2 * price_out) / 1e6)
    assert row["cost_usd"] > 0
    assert run("openai:not-a-listed-model")["cost_usd"] is None
    assert run("openai:gpt-4o-mini@http://127.0.0.1:9/v1")["cost_usd"] is None  # another server: no price


def test_a_notebook_run_records_its_cost_ledger(scripted_model, tmp_runs):
    import pandas as pd

    from lib.report.outputs import RunOutputs

    LEDGER.clear()
    out = RunOutputs("ledger-test", "00_quickstart")
    scripted_model(reply=lambda text, req: "fine").generate(_reqs("a", "b"), desc="ask")
    out.finish()
    cost = pd.read_csv(tmp_runs / "ledger-test" / "cache_stats" / "00_quickstart_cost.csv")
    assert cost[["model", "label", "requests", "cache_misses"]].values.tolist() == [["local:smollm2", "ask", 2, 2]]
