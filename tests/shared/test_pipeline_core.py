"""A notebook whose core capability its model lacks is refused before any work, in one line naming the
notebook, the model and what to pass instead; a notebook not selected, or given its values as files,
is not refused."""
import pytest

from lib import pipeline, runner
from lib.paths import ROOT

DEMO = ROOT / "configs" / "demo.yaml"
API_MODEL = "openai:gpt-4o-mini"  # a real spec: the OpenAI API declares no rolling log-likelihoods


@pytest.fixture
def no_notebook_runs(monkeypatch):
    """Records every notebook papermill is asked to run (none may be, when the run is refused)."""
    import papermill

    started = []
    monkeypatch.setattr(papermill, "execute_notebook", lambda *a, **k: started.append(a[0]))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")  # passes the key check; nothing is sent to the API
    return started


def effective(only, **overrides):
    cfg = runner.load_config(DEMO, overrides)
    return runner.effective_parameters(cfg, runner.select_notebooks(cfg, only))


def test_perplexity_with_an_api_model_stops_before_work_with_one_line(tmp_path, tmp_runs, capsys, no_notebook_runs):
    bank = tmp_path / "bank.jsonl"
    bank.write_text("")  # the input is given, so only the model's capability can stop the run
    code = runner.main(["run", str(DEMO), "--only", "03", "--run", "fresh", "-p", f"bank_path={bank}",
                        "-p", f"ppl_model={API_MODEL}"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1, err
    assert "03_perplexity" in err[0] and f"`{API_MODEL}`" in err[0] and "-p ppl_model=local:gemma3" in err[0]
    assert no_notebook_runs == [] and not (tmp_runs / "fresh").exists()  # before any work


def test_a_notebook_not_selected_or_given_files_is_not_refused():
    runner.check_core(effective(["01", "04"], ppl_model=API_MODEL))  # 03 not selected: its model is not asked
    runner.check_core(effective(["03"], ppl_model=API_MODEL, perplexity_path="ppl.json"))  # values from a file
    runner.check_core(effective(["03"], ppl_model="local:gemma3"))  # declared capability, nothing loaded
    with pytest.raises(runner.ConfigError, match="03_perplexity cannot run"):
        runner.check_core(effective(["01", "03"], ppl_model=API_MODEL))


def test_a_part_that_is_not_core_is_left_out_not_refused():
    # 05's likelihood ratings are one part among others: an API evaluator leaves them out, the run goes on
    server = "openai:smollm2@http://127.0.0.1:9/v1"
    assert pipeline.core_missing("05_pointwise_reranking", {"evaluators": [server]}) is None
    assert pipeline.left_out("05_pointwise_reranking", {"evaluators": [server]}, {server: frozenset()})
