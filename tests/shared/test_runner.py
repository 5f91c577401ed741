"""Runner: config validation before any work, papermill runs, manifest, warm re-runs."""
import json

import pandas as pd
import pytest
import yaml

from lib import run_config, runner
from lib.paths import ROOT


def write_cfg(tmp_path, cfg):
    p = tmp_path / "cfg.yaml"
    p.write_text(yaml.safe_dump(cfg))
    return str(p)


def test_unknown_top_level_key(tmp_path):
    with pytest.raises(runner.ConfigError, match="unknown top-level key"):
        runner.load_config(write_cfg(tmp_path, {"run": "x", "paramters": {}}))


def test_unknown_parameter_is_named(tmp_path):
    cfg = runner.load_config(write_cfg(tmp_path, {"parameters": {"chat_modle": "local:smollm2"}}))
    with pytest.raises(runner.ConfigError, match="chat_modle"):
        run_config.plan(cfg, runner.select_notebooks(cfg, ["00"]))


def test_bad_model_spec_fails_before_work(tmp_path, tmp_runs):
    cfg = runner.load_config(write_cfg(tmp_path, {"parameters": {"chat_model": "gpt4"}}))
    with pytest.raises(runner.ConfigError, match="Unknown model spec"):
        runner.run(cfg, "never", ["00"])
    assert not (tmp_runs / "never").exists()


def test_runs_go_where_the_environment_says(tmp_runs):
    from lib.paths import figure_dir, run_dir

    assert run_dir("x") == tmp_runs / "x" and figure_dir("x").parent.name == "figures"
    assert not str(run_dir("x")).startswith(str(ROOT / "data"))


DEMO = ROOT / "configs" / "demo.yaml"


def test_command_line_beats_per_notebook_and_parameters():
    cfg = runner.load_config(DEMO, {"evaluators": ["hf:foo/bar"], "chat_model": "hf:gpt2", "k_retries": 3})
    (nb, params), = run_config.plan(cfg, runner.select_notebooks(cfg, ["05"]))
    # demo.yaml sets evaluators and k_retries for 05 in per_notebook: the command line still wins
    assert params["evaluators"] == ["hf:foo/bar"] and params["k_retries"] == 3
    (_, eff), = runner.effective_parameters(cfg, [nb])
    assert eff["evaluators"] == (["hf:foo/bar"], "command line")
    demo_05 = yaml.safe_load(DEMO.read_text())["per_notebook"]["05_pointwise_reranking"]
    assert eff["n_items"] == (demo_05["n_items"], "per_notebook")
    assert eff["datasets"][1] == "notebook"
    (_, plain), = runner.effective_parameters(runner.load_config(DEMO), [nb])
    demo_model = yaml.safe_load(DEMO.read_text())["parameters"]["model"]
    assert plain["evaluators"] == ([demo_model], "model (parameters)")
    assert plain["k_retries"] == (demo_05["k_retries"], "per_notebook")
    assert demo_05["k_retries"] != 3 and demo_model != "hf:foo/bar"  # so the first assertion shows the command line winning


def test_bad_command_line_spec_fails_before_work(tmp_runs):
    cfg = runner.load_config(DEMO, {"evaluators": ["foo:bar"]})
    with pytest.raises(runner.ConfigError, match="foo:bar"):
        runner.run(cfg, "never", ["05"])
    assert not (tmp_runs / "never").exists()
    with pytest.raises(runner.ConfigError, match="evalutors"):
        run_config.plan(runner.load_config(DEMO, {"evalutors": ["local:smollm2"]}), runner.select_notebooks(cfg, ["05"]))


@pytest.mark.parametrize("bad,match", [("critic:local:smollm2", "Unknown reward-model kind"),
                                       ("judge:local:nosuch", "Unknown embedded model"),
                                       ("implicit:local:smollm2;ref:gpt4", "Unknown model spec"),
                                       ("judge:local:smollm2;retries:x", "whole number")])
def test_bad_reward_model_spec_fails_before_the_first_notebook(tmp_path, tmp_runs, bad, match):
    # set per notebook in the config, and selected with notebooks 00-13: notebook 00 must not run
    cfg = runner.load_config(write_cfg(tmp_path, {"per_notebook": {"13_rewardbench": {"reward_models": [bad]}}}))
    with pytest.raises(runner.ConfigError, match=match):
        runner.run(cfg, "never", ["00", "13"])
    assert not (tmp_runs / "never").exists()
    with pytest.raises(runner.ConfigError, match=match):
        runner.run(runner.load_config(DEMO, {"reward_models": [bad]}), "never", ["00", "14"])


def test_reward_model_specs_bring_their_model_specs(tmp_path):
    rms = ["judge:openai:m@http://127.0.0.1:9/v1;logprob", "implicit:local:smollm2;ref:local:gemma3", "rm:some/hub-id"]
    cfg = runner.load_config(write_cfg(tmp_path, {"per_notebook": {"15_best_of_n": {
        "reward_models": rms, "policy_model": "hf:gpt2"}}}))
    steps = runner.effective_parameters(cfg, runner.select_notebooks(cfg, ["15"]))
    assert runner.model_specs(steps) == {"openai:m@http://127.0.0.1:9/v1", "hf:gpt2", "local:smollm2", "local:gemma3"}
    with pytest.raises(runner.ConfigError, match="unreachable"):
        runner.check_specs(runner.model_specs(steps))


def test_cli_reproduction_of_the_issue_now_fails_before_work(capsys, tmp_runs):
    # a per_notebook entry used to beat -p silently, and SmolLM2 ran instead of the named evaluator
    assert runner.main(["run", str(DEMO), "--only", "05", "-p", 'evaluators=["foo:bar"]']) == 2
    assert "foo:bar" in capsys.readouterr().err
    assert runner.main(["sweep", str(DEMO), "--only", "05", "--grid", 'evaluators=[[local:smollm2], ["foo:bar"]]']) == 2
    assert "foo:bar" in capsys.readouterr().err
    assert not tmp_runs.exists() or not any(tmp_runs.iterdir())


def test_sweep_grid_beats_per_notebook():
    cfg = runner.load_config(DEMO, {"k_retries": 2})
    runs = runner.grid_runs(cfg, {"evaluators": [["local:smollm2"], ["hf:gpt2"]]})
    got = []
    for name, combo in runs:
        c = runner.sweep_config(cfg, combo)
        (_, params), = run_config.plan(c, runner.select_notebooks(c, ["05"]))
        got.append((params["evaluators"], params["k_retries"]))
    assert got == [(["local:smollm2"], 2), (["hf:gpt2"], 2)], "every run of a sweep must differ"


def test_project_kernel_is_this_interpreter():
    import sys

    from jupyter_client.kernelspec import KernelSpecManager

    assert runner.project_kernel() == runner.KERNEL == "rag-bias-lab"
    spec = KernelSpecManager().get_kernel_spec("rag-bias-lab")
    assert spec.display_name == "Python (rag-bias-lab)"
    # exactly this venv's interpreter running ipykernel, not whichever Python a PATH lookup finds
    assert spec.argv[0] == sys.executable, f"kernel runs {spec.argv[0]}, not {sys.executable}: run `make install`"
    assert spec.argv[-4:-2] == ["-m", "ipykernel_launcher"] and spec.language == "python"


def test_unreachable_server_fails_before_work(tmp_path):
    cfg = runner.load_config(write_cfg(tmp_path, {"parameters": {"chat_model": "openai:m@http://127.0.0.1:9/v1"}}))
    with pytest.raises(runner.ConfigError, match="unreachable"):
        runner.run(cfg, "never", ["00"])


def test_cli_reports_errors_with_exit_code_2(tmp_path, capsys):
    assert runner.main(["run", str(tmp_path / "missing.yaml")]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_grid_runs_every_combination(tmp_path):
    cfg = runner.load_config(write_cfg(tmp_path, {"run": "sw"}))
    runs = runner.grid_runs(cfg, {"chat_model": ["local:smollm2", "hf:gpt2"], "n_items": [2, 4]})
    assert len(runs) == 4 and runs[0][0] == "sw__chat_model=local-smollm2__n_items=2"
    with pytest.raises(runner.ConfigError, match="non-empty list"):
        runner.grid_runs(cfg, {"n_items": 3})


@pytest.mark.notebooks
def test_quickstart_run_manifest_and_warm_rerun(tmp_path, tmp_runs):
    name = "pytest_quickstart"
    cfg = runner.load_config(ROOT / "configs" / "smoke.yaml", {"max_tokens": 6, "fresh_key": True})
    cold = runner.run(cfg, name, ["00"])
    man = json.loads((tmp_runs / name / "manifest.json").read_text())
    assert man["status"] == "ok" and man["cache"]["misses"] > 0
    assert man["model_specs"] == ["local:gemma3", "local:smollm2"]
    assert man["packages"]["torch"].startswith("2.13.0") and len(man["git_commit"]) >= 7
    assert man["kernel"] == "rag-bias-lab" and man["command_line_parameters"] == {"max_tokens": 6, "fresh_key": True}
    entry = man["notebooks"][0]
    # smoke.yaml sets max_tokens: 8 for 00 per notebook; the command line wins, and the manifest says so
    assert entry["parameters"]["max_tokens"] == 6 and entry["parameter_sources"]["max_tokens"] == "command line"
    # smoke.yaml names the model under study once (`model`); 00's chat role got it, perplexity kept its own
    assert entry["parameter_sources"]["chat_model"] == "model (parameters)"
    assert entry["model_roles"] == {
        "chat_model": {"role": "chat", "spec": "local:smollm2", "source": "model (parameters)"},
        "ppl_model": {"role": "perplexity", "spec": "local:gemma3", "source": "parameters"}}
    written = {f["path"] for f in man["files"]}
    figs = tmp_path / "figures" / name
    assert str(figs / "quickstart_perplexity.png") in written and str(figs / "quickstart_perplexity.pdf") in written
    assert str(tmp_runs / name / "00_quickstart" / "quickstart_answers.csv") in written
    assert str(tmp_runs / name / "notebooks" / "00_quickstart.ipynb") in written
    assert not (ROOT / "data" / "runs" / name).exists()
    demo = pd.read_csv(tmp_runs / name / "00_quickstart" / "quickstart_cache.csv")
    assert demo["cached"].tolist() == [False, True] and demo["seconds"].iloc[0] > demo["seconds"].iloc[1]
    warm = runner.run(cfg, name, ["00"])
    # every call is a hit again except the cache demo's fresh key: a miss on every run, by design
    assert warm["cache"]["misses"] == 1, warm["cache"]
    assert warm["cache"]["hits"] + warm["cache"]["misses"] == cold["cache"]["hits"] + cold["cache"]["misses"]
    again = pd.read_csv(tmp_runs / name / "00_quickstart" / "quickstart_cache.csv")
    assert again["cached"].tolist() == [False, True], "the warm run's demo key is fresh too"


def test_per_notebook_typo_is_named(tmp_path):
    cfg = runner.load_config(write_cfg(tmp_path, {"per_notebook": {"00_quickstart": {"max_tokns": 3}}}))
    with pytest.raises(runner.ConfigError, match="max_tokns"):
        run_config.plan(cfg, runner.select_notebooks(cfg, ["00"]))
    cfg = runner.load_config(write_cfg(tmp_path, {"per_notebook": {"99_nothing": {}}}))
    with pytest.raises(runner.ConfigError, match="99_nothing"):
        run_config.plan(cfg, runner.select_notebooks(cfg, ["00"]))


def test_only_keeps_global_parameters_of_other_notebooks_valid():
    cfg = runner.load_config(ROOT / "configs" / "demo.yaml")
    steps = run_config.plan(cfg, runner.select_notebooks(cfg, ["09"]))
    assert [nb.stem for nb, _ in steps] == ["09_utility_benchmarks"] and "ppl_model" not in steps[0][1]


def test_invalid_yaml_is_one_line_with_file_line_and_column(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text("run: x\nparameters:\n  n_items: [1, 2\n  seed: 0\n")
    assert runner.main(["run", str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    # the flow sequence opened on line 3 is never closed: yaml points at line 4, column 7
    assert err.startswith(f"error: {bad}:4:7: not valid YAML (")
    good = tmp_path / "good.yaml"
    good.write_text("run: x\nparameters:\n  n_items: [1, 2]\n")
    assert runner.load_config(good)["parameters"] == {"n_items": [1, 2]}


def test_failure_line_is_the_notebooks_error_not_papermills():
    from papermill.exceptions import PapermillExecutionError

    err = PapermillExecutionError(cell_index=3, exec_count=3, source="load()", ename="DataError",
                                  evalue="/x/nq.json: file not found.\nSecond line.", traceback=["\x1b[31m..."])
    assert runner.failure_line(err) == "DataError: /x/nq.json: file not found. Second line."
    assert runner.failure_line(KeyError("k")) == "KeyError: 'k'"


@pytest.mark.notebooks
def test_failed_notebook_ends_with_its_error_and_no_tcp_warning(capfd, tmp_runs):
    code = runner.main(["run", str(DEMO), "--only", "01", "--run", "pytest_fail", "-p", "nq_path=/nonexistent/nq.json"])
    out, err = capfd.readouterr()
    last = err.strip().splitlines()[-1]
    assert code == 1
    assert last.startswith("01_dataset failed: DataError: /nonexistent/nq.json") and "PapermillExecutionError" not in last
    assert last.endswith(f"(full traceback: {tmp_runs / 'pytest_fail' / 'notebooks' / '01_dataset.ipynb'})")
    assert "without encryption" not in out + err
    man = json.loads((tmp_runs / "pytest_fail" / "manifest.json").read_text())
    assert man["status"] == "failed" and man["notebooks"][0]["error"].startswith("DataError: ")


@pytest.mark.parametrize("where", ["command line", "parameters", "per_notebook"])
def test_misspelled_parameter_suggests_the_closest_name(tmp_path, where):
    """`-p max_tokn=8` names `max_tokens` instead of listing every declared parameter."""
    body = {"parameters": {"max_tokn": 8}} if where == "parameters" else \
        {"per_notebook": {"00_quickstart": {"max_tokn": 8}}} if where == "per_notebook" else {}
    cfg = runner.load_config(write_cfg(tmp_path, body), {"max_tokn": 8} if where == "command line" else None)
    with pytest.raises(runner.ConfigError) as e:
        run_config.plan(cfg, runner.select_notebooks(cfg, ["00"]))
    assert "did you mean 'max_tokn' -> 'max_tokens'?" in str(e.value)
    if where != "per_notebook":  # the notebook's own short list stays; the ~80 names of all do not
        assert "answers_path" not in str(e.value) and "lib.runner params" in str(e.value)


def test_a_name_close_to_nothing_gets_no_guess():
    from lib.parameters import spelling_hint

    assert spelling_hint({"zzzq"}, {"max_tokens", "seed"}) == ""
    assert spelling_hint({"sede", "n_item"}, {"seed", "n_items"}) == "did you mean 'n_item' -> 'n_items', 'sede' -> 'seed'? "


@pytest.mark.notebooks
def test_a_failure_does_not_stop_notebooks_that_do_not_need_it(capfd, tmp_runs):
    """01 fails; 16 reads nothing of 01 and runs; the last line names the failure."""
    code = runner.main(["run", str(DEMO), "--only", "01,16", "--run", "pytest_goes_on", "-p", "nq_path=/nonexistent/nq.json"])
    _, err = capfd.readouterr()
    man = json.loads((tmp_runs / "pytest_goes_on" / "manifest.json").read_text())
    assert code == 1 and [e["status"] for e in man["notebooks"]] == ["failed", "ok"]
    assert err.strip().splitlines()[-1].startswith("01_dataset failed: DataError: /nonexistent/nq.json")


def test_kernels_import_this_checkouts_lib(tmp_path):
    """A kernel starts in notebooks/; with the run's PYTHONPATH it imports this checkout's lib, not another."""
    import os
    import subprocess
    import sys

    decoy = tmp_path / "other_checkout"
    (decoy / "lib").mkdir(parents=True)
    (decoy / "lib" / "__init__.py").write_text("")
    probe = [sys.executable, "-c", "import lib; print(lib.__file__)"]

    def imported(pythonpath):
        env = dict(os.environ, PYTHONPATH=pythonpath)
        out = subprocess.run(probe, cwd=ROOT / "notebooks", env=env, capture_output=True, text=True, check=True)
        return out.stdout.strip()

    assert imported(str(decoy)).startswith(str(decoy))  # the decoy wins without the run's path
    path = runner.kernel_pythonpath(str(decoy))
    assert imported(path) == str(ROOT / "lib" / "__init__.py")
    assert runner.kernel_pythonpath(path) == path  # a nested run (a sweep) does not grow it
