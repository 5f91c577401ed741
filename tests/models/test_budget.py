"""The budget cap against the project's simulator server (real HTTP, the real model layer and cache),
with a price set for the simulated model through RAGBIAS_PRICES: a batch stops before spent plus in
flight would pass the cap, what finished is cached, and a larger cap resumes from the cache."""
import json

import pytest

from lib.models import budget, get_model
from lib.models.types import Request
from lib.simulate.server import SimServer
from lib.simulate.core.truth_file import Truth

pytestmark = pytest.mark.server

PRICE = [100.0, 400.0]  # USD per 1M tokens: dear, so a few requests reach a small cap


def _requests(n):
    return [Request(messages=[{"role": "user", "content": f"What is {i} plus {i}? Answer with a number."}],
                    max_tokens=8) for i in range(n)]


@pytest.fixture
def priced_sim(tmp_path, monkeypatch):
    """The simulator, its model spec priced, and no budget left over from another test."""
    with SimServer(Truth(format_failure=0.0), tmp_path) as sim:
        spec = f"openai:sim@{sim.url}"
        monkeypatch.setenv("RAGBIAS_PRICES", json.dumps({spec: PRICE}))
        monkeypatch.delenv(budget.ENV, raising=False)
        yield sim, spec
    budget.deactivate()


def test_a_batch_stops_at_the_cap_and_a_larger_cap_resumes_from_the_cache(priced_sim, tmp_path):
    sim, spec = priced_sim
    reqs = _requests(40)
    one = budget.bound_usd(budget_price(spec), len(json.dumps(reqs[0].as_dict())), 8)
    cap = 10.5 * one  # room for ten requests at their most
    path = budget.activate(tmp_path / "run", cap)
    with pytest.raises(budget.BudgetExhausted, match=r"requests of .* not sent"):
        get_model(spec).generate(reqs)
    sent = sim.stats()["requests"]
    state = budget.state(path)
    assert 0 < sent < len(reqs)
    assert state["spent_usd"] <= cap and state["reserved_usd"] == pytest.approx(0.0)
    assert state["spent_usd"] > 0  # booked from the replies' own token counts

    budget.activate(tmp_path / "run", 1000.0)  # a re-run with a larger cap
    out = get_model(spec).generate(reqs)
    assert all(r.text for r in out)
    assert sum(r.cached for r in out) == sent  # the first part came from the cache ...
    assert sim.stats()["requests"] == len(reqs)  # ... so nothing was sent twice
    assert budget.state(path)["spent_usd"] > state["spent_usd"]  # spending adds up across runs


def test_no_budget_or_no_price_sends_everything(priced_sim, tmp_path, monkeypatch):
    sim, spec = priced_sim
    path = budget.activate(tmp_path / "run", 0.0)
    monkeypatch.setenv("RAGBIAS_PRICES", "{}")  # the same server without a price: the cap cannot apply
    get_model(spec).generate(_requests(3))
    assert sim.stats()["requests"] == 3 and budget.state(path)["spent_usd"] == 0.0


def test_a_cap_of_zero_sends_no_paid_request(priced_sim, tmp_path):
    sim, spec = priced_sim
    budget.activate(tmp_path / "run", 0.0)
    with pytest.raises(budget.BudgetExhausted, match="3 of 3 requests"):
        get_model(spec).generate(_requests(3))
    assert sim.stats()["requests"] == 0


def budget_price(spec):
    from lib.models.prices import price_of
    from lib.models.specs import parse_spec

    return price_of(parse_spec(spec))
