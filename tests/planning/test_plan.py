"""`python -m lib.runner plan`: a run's requests, tokens, dollars and time before any call, with no key
and no server; its counts follow the notebooks' parameters, its dollars the price list (no price is
never $0), the cache's entries are free, and a budget below the plan refuses the run before any call."""
import json
import socket
import time

import pytest

from lib import runner
from lib.models import cache
from lib.models.cache_keys import make_key
from lib.models.prices import PRICES
from lib.paths import CONFIGS
from lib.planning import plan as planning

PAPER = str(CONFIGS / "paper.yaml")
SMOKE = str(CONFIGS / "smoke.yaml")


@pytest.fixture(autouse=True)
def offline(monkeypatch):
    """No API key, and any attempt to reach a server fails the test."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)

    def refuse(*a, **k):
        raise AssertionError("the plan tried to contact a server")
    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


def _plan(config, **params):
    return planning.build(runner.load_config(config, params))


def test_paper_plan_prints_totals_and_writes_plan_json_fast(tmp_runs, capsys):
    t0 = time.perf_counter()
    code = runner.main(["plan", PAPER, "-p", "model=openai:gpt-4o-mini"])
    seconds = time.perf_counter() - t0
    out = capsys.readouterr().out
    assert code == 0 and seconds < 30
    total = next(line for line in out.splitlines() if line.startswith("total"))
    assert "$" in total and "biggest notebook" in out
    saved = json.loads((tmp_runs / "paper" / "plan.json").read_text())
    for row in saved["rows"]:
        assert {"notebook", "model", "requests", "cached", "tokens_in", "tokens_out", "usd", "usd_batch", "seconds"} <= set(row)
    assert saved["totals"]["requests"] == sum(r["requests"] for r in saved["rows"]) > 100_000


def test_dollars_follow_the_price_list_and_the_batch_api_halves_them():
    mini, big = _plan(PAPER, model="openai:gpt-4o-mini"), _plan(PAPER, model="openai:gpt-4o")
    row = next(r for r in mini.rows if r.notebook == "10_relevance_vs_utility")
    p = PRICES["gpt-4o-mini"]
    assert row.usd == pytest.approx((row.tokens_in * p.input + row.tokens_out * p.output) / 1e6)
    assert row.usd_batch == pytest.approx(row.usd / 2)
    ratio = big.totals()["usd"] / mini.totals()["usd"]
    assert PRICES["gpt-4o"].output / PRICES["gpt-4o-mini"].output * 0.9 < ratio < PRICES["gpt-4o"].input / PRICES["gpt-4o-mini"].input * 1.1


def test_a_local_server_has_no_price_never_zero(capsys):
    spec = "openai:llama@http://127.0.0.1:8000/v1"
    plan = _plan(PAPER, model=spec)
    served = [r for r in plan.rows if r.model == spec]
    assert served and all(r.usd is None and r.usd_batch is None for r in served)
    assert spec in plan.totals()["unpriced_models"]
    text = planning.table(plan)
    assert "no price" in text and f"no price (dollars not counted): " in text


def test_counts_follow_the_parameters():
    base = {r.notebook: r for r in _plan(SMOKE).rows if r.model == "local:smollm2"}
    more = {r.notebook: r for r in _plan(SMOKE, model="local:smollm2").rows}
    assert base["04_knowledge_probe"].requests == more["04_knowledge_probe"].requests
    cfg = runner.load_config(SMOKE)
    cfg["per_notebook"]["04_knowledge_probe"] = {**cfg["per_notebook"]["04_knowledge_probe"], "n_samples": 6}
    tripled = {r.notebook: r for r in planning.build(cfg).rows}
    assert tripled["04_knowledge_probe"].requests == 3 * base["04_knowledge_probe"].requests  # n_samples 2 -> 6
    assert tripled["05_pointwise_reranking"].requests == base["05_pointwise_reranking"].requests


def test_a_repeated_request_set_is_planned_as_cached():
    rows = {r.notebook: r for r in _plan(SMOKE).rows if r.model == "local:smollm2"}
    assert rows["07_knowledge_stratified"].cached > 0  # 06's TT and TF pairs, asked again by 07
    assert rows["06_generation_phase"].cached == 0


def test_what_the_cache_holds_is_free():
    plan = _plan(PAPER, model="openai:gpt-4o-mini")
    before = plan.totals()
    store = cache.results_cache()
    for i in range(500):  # entries the model layer stored for this model earlier (tagged with its name)
        store.set(make_key("generate", "openai:gpt-4o-mini", {"i": i}), {"text": "x"}, tag="openai:gpt-4o-mini")
    after = _plan(PAPER, model="openai:gpt-4o-mini").totals()
    assert after["cached"] == before["cached"] + 500
    assert after["usd"] < before["usd"]


def test_a_budget_below_the_plan_refuses_the_run_before_any_call(tmp_runs, capsys):
    code = runner.main(["run", PAPER, "-p", "model=openai:gpt-4o-mini", "-p", "budget_usd=40"])
    err = capsys.readouterr().err
    assert code == 2
    line = next(x for x in err.splitlines() if "budget_usd" in x)
    assert "the plan costs $" in line and "biggest notebook 11_utility_factors" in line
    assert not (tmp_runs / "paper" / "notebooks").exists() or not any((tmp_runs / "paper" / "notebooks").iterdir())


def test_a_bad_budget_is_refused():
    with pytest.raises(runner.ConfigError, match="budget_usd must be dollars"):
        runner.check_budget(runner.load_config(SMOKE, {"budget_usd": "lots"}), "b", None)


def test_an_embedded_model_s_re_asks_are_planned_at_its_measured_share():
    """02 at k = 1: first tries plus one re-ask each at the share measured for the embedded SmolLM2
    (57 of 90 in the demo run), an API model at the default share; requests_max every re-ask."""
    local = {r.notebook: r for r in _plan(str(CONFIGS / "demo.yaml")).rows if r.model == "local:smollm2"}
    api = {r.notebook: r for r in _plan(str(CONFIGS / "demo.yaml"), model="openai:gpt-4o-mini").rows
           if r.model == "openai:gpt-4o-mini"}
    first = local["02_passage_bank"].requests_max // 2  # k = 1: every first try and its one re-ask
    assert first == api["02_passage_bank"].requests_max // 2 == 90  # 3 x 14 rewrites and false answers, 3 long, 3 QA
    assert local["02_passage_bank"].requests == pytest.approx(first * (1 + planning.EMBEDDED_RETRY_SHARE), abs=2)  # per group
    assert api["02_passage_bank"].requests == pytest.approx(first * (1 + planning.RETRY_SHARE), abs=2)


def test_the_run_s_retry_share_plans_the_re_asks():
    """`-p retry_share=` replaces the assumed share for every model; 0 plans first tries only."""
    api = {r.notebook: r for r in _plan(str(CONFIGS / "demo.yaml"), model="openai:gpt-4o-mini", retry_share=0.0).rows
           if r.model == "openai:gpt-4o-mini"}
    half = {r.notebook: r for r in _plan(str(CONFIGS / "demo.yaml"), model="openai:gpt-4o-mini", retry_share=0.5).rows
            if r.model == "openai:gpt-4o-mini"}
    first = api["02_passage_bank"].requests_max // 2
    assert api["02_passage_bank"].requests == first
    assert half["02_passage_bank"].requests == pytest.approx(first * 1.5, abs=2)


@pytest.mark.parametrize("bad", [1.0, -0.1, "some", True])
def test_a_bad_retry_share_is_refused(bad):
    with pytest.raises(runner.ConfigError, match="retry_share must be a share"):
        planning.build(runner.load_config(SMOKE, {"retry_share": bad}))
