"""`lib.planning.versus`: a finished run planned again from its manifest, joined with the cost ledger
its notebooks wrote, per notebook (requests over every row, prompt tokens over comparable rows)."""
import json

import pandas as pd
import pytest

from lib import runner
from lib.paths import CONFIGS
from lib.planning import plan as planning
from lib.planning import versus


def _run_folder(tmp_path, cfg, stems, ledger: dict):
    """A run folder as the runner leaves it: manifest.json and one cost csv per notebook."""
    folder = tmp_path / "run"
    (folder / "cache_stats").mkdir(parents=True)
    manifest = {"config": {k: v for k, v in cfg.items() if not k.startswith("_")},
                "command_line_parameters": cfg.get("_overrides") or {}, "config_file": cfg["_path"],
                "notebooks": [{"notebook": f"{s}.ipynb"} for s in stems]}
    (folder / "manifest.json").write_text(json.dumps(manifest, default=str))
    for stem, rows in ledger.items():
        pd.DataFrame(rows).to_csv(folder / "cache_stats" / f"{stem}_cost.csv", index=False)
    return folder


def test_a_run_is_planned_again_from_its_manifest(tmp_path):
    cfg = runner.load_config(CONFIGS / "smoke.yaml", {"n_items": 3})
    stems = ["04_knowledge_probe", "05_pointwise_reranking"]
    folder = _run_folder(tmp_path, cfg, stems, {})
    again = versus.plan_of_run(folder)
    direct = planning.build(cfg, ["04", "05"])
    assert [(r.notebook, r.model, r.requests) for r in again.rows] == [(r.notebook, r.model, r.requests) for r in direct.rows]
    assert {r.notebook for r in again.rows} == set(stems)


def test_per_notebook_sums_models_and_compares_tokens_only_where_comparable(tmp_path):
    cfg = runner.load_config(CONFIGS / "smoke.yaml", {"n_items": 3})
    plan = planning.build(cfg, ["04", "03"])
    p04 = next(r for r in plan.rows if r.notebook == "04_knowledge_probe")
    p03 = next(r for r in plan.rows if r.notebook == "03_perplexity")
    ledger = {"04_knowledge_probe": [{"model": p04.model, "label": "probe", "requests": p04.requests,
                                      "tokens_in": 2 * p04.tokens_in, "tokens_out": 5}],
              "03_perplexity": [{"model": p03.model, "label": "ppl", "requests": 2 * p03.requests,
                                 "tokens_in": 0, "tokens_out": 0}]}
    folder = _run_folder(tmp_path, cfg, ["03_perplexity", "04_knowledge_probe"], ledger)
    rows = versus.per_notebook(versus.versus(plan, folder)).set_index("notebook")
    assert rows.loc["04_knowledge_probe", "requests_error"] == pytest.approx(0.0)
    assert rows.loc["04_knowledge_probe", "tokens_in_error"] == pytest.approx(-0.5, abs=0.01)  # booked twice the plan
    assert rows.loc["03_perplexity", "requests_error"] == pytest.approx(-0.5)
    assert pd.isna(rows.loc["03_perplexity", "tokens_in_error"])  # a perplexity reports no prompt tokens


def test_the_command_prints_the_totals(tmp_path, capsys):
    cfg = runner.load_config(CONFIGS / "smoke.yaml", {"n_items": 3})
    plan = planning.build(cfg, ["04"])
    r = plan.rows[0]
    folder = _run_folder(tmp_path, cfg, ["04_knowledge_probe"], {"04_knowledge_probe": [
        {"model": r.model, "label": "probe", "requests": r.requests, "tokens_in": r.tokens_in, "tokens_out": 1}]})
    assert versus.main([str(folder)]) == 0
    out = capsys.readouterr().out
    assert f"requests {r.requests:,} planned / {r.requests:,} booked (+0.0%)" in out
    assert versus.main([str(tmp_path / "nothing")]) == 2


def test_a_known_truth_run_is_compared_with_what_its_server_received(tmp_path, capsys):
    cfg = runner.load_config(CONFIGS / "smoke.yaml", {"n_items": 3, "models": ["openai:sim@http://127.0.0.1:9/v1"]})
    plan = planning.build(cfg, ["04"])
    t = plan.totals()
    folder = _run_folder(tmp_path, cfg, ["04_knowledge_probe"], {})
    (folder / "simulator_stats.json").write_text(json.dumps({"requests": 2 * t["sent"], "prompt_tokens": t["tokens_sent"]}))
    got = versus.against_server(plan, json.loads((folder / "simulator_stats.json").read_text()))
    assert got["requests_error"] == pytest.approx(-0.5) and got["tokens_error"] == pytest.approx(0.0)
    assert versus.main([str(folder)]) == 0
    assert "(-50.0%); prompt tokens" in capsys.readouterr().out


def test_a_finished_run_is_planned_as_from_an_empty_cache(tmp_path):
    from lib.models import cache
    from lib.models.cache_keys import make_key

    cfg = runner.load_config(CONFIGS / "smoke.yaml", {"n_items": 3})
    folder = _run_folder(tmp_path, cfg, ["04_knowledge_probe"], {})
    store = cache.results_cache()
    for i in range(5):  # the run's own results, in the cache after it finished
        store.set(make_key("generate", "local:smollm2", {"i": i}), {"text": "x"}, tag="local:smollm2")
    assert planning.build(cfg, ["04"]).totals()["cached"] == 5
    again = versus.plan_of_run(folder).totals()
    assert again["cached"] == 0 and again["sent"] == again["requests"]


def test_the_server_comparison_leaves_out_models_computed_here():
    """The papers'-size simulator run of 09: 3,116 requests planned against the 702 its server received,
    because the planned 2,406 embeddings of the local retriever counted as sent to it. Only rows of
    models on a server are compared with what a server received."""
    cfg = runner.load_config(CONFIGS / "known_truth_run.yaml", {"chat_model": "openai:sim@http://127.0.0.1:9/v1"})
    plan = planning.build(cfg, ["09"], from_cache=False)
    served = [r for r in plan.rows if r.model.startswith("openai:")]
    local = [r for r in plan.rows if not r.model.startswith("openai:")]
    assert served and local and all(r.sent for r in local)
    got = versus.against_server(plan, {"requests": sum(r.sent for r in served),
                                       "prompt_tokens": sum(r.tokens_sent for r in served)})
    assert got["requests_error"] == pytest.approx(0.0) and got["tokens_error"] == pytest.approx(0.0)


def test_a_run_is_planned_again_at_another_retry_share(tmp_path):
    """`--retry-share 0` plans first tries only: 02's requests fall to the first tries the run's own
    plan at the default share puts above them."""
    cfg = runner.load_config(CONFIGS / "demo.yaml", {"model": "openai:gpt-4o-mini"})  # 02 re-asks once
    folder = _run_folder(tmp_path, cfg, ["02_passage_bank"], {})
    default = {r.model: r for r in versus.plan_of_run(folder).rows}["openai:gpt-4o-mini"]
    first = {r.model: r for r in versus.plan_of_run(folder, 0.0).rows}["openai:gpt-4o-mini"]
    assert first.requests < default.requests
    assert first.requests == pytest.approx(default.requests / (1 + planning.RETRY_SHARE), abs=2)
