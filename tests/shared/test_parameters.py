"""Parameters declared once: the declarations in every parameters cell, the run-level model and its
precedence, kind checks, the generated table of docs/parameters.md. No notebook is executed here."""
import json
import re
import sys

import nbformat
import pytest
import yaml

from lib import parameters, run_config, runner
from lib.paths import ROOT
from lib.models.specs import SpecError, reward_spec_models, with_model

DEMO = ROOT / "configs" / "demo.yaml"
SPEC_LIKE = re.compile(r"\b(local|openai|hf):")


def _notebook(tmp_path, source, body="print(n_items)"):
    nb = nbformat.v4.new_notebook(metadata={"kernelspec": {"name": "python3", "language": "python", "display_name": "Python 3"}})
    nb.cells = [nbformat.v4.new_code_cell(source, metadata={"tags": ["parameters"]}), nbformat.v4.new_code_cell(body)]
    path = tmp_path / "99_probe.ipynb"
    nbformat.write(nb, str(path))
    return path


def _studied(cfg, only=None):
    """{notebook stem: {parameter: (value, source)}} for the declared model parameters."""
    steps = runner.effective_parameters(cfg, runner.select_notebooks(cfg, only))
    out = {}
    for nb, eff in steps:
        declared = run_config.declared_parameters(nb)
        out[nb.stem] = {k: v for k, v in eff.items() if declared[k].kind in parameters.MODEL_KINDS}
    return out


def test_every_spec_valued_parameter_is_declared_with_a_role():
    # a parameter whose default names a model but carries no declaration would escape validation and `model`
    for nb in run_config.numbered_notebooks():
        for p in run_config.declared_parameters(nb).values():
            if SPEC_LIKE.search(p.default or ""):
                assert p.kind in parameters.MODEL_KINDS and p.role, f"{nb.stem}: {p.name} is not declared"


def test_declaration_comments_are_read_and_bad_ones_named(tmp_path):
    nb = _notebook(tmp_path, 'run_name = "x"\nn_items = 2  # [size] per dataset\njudges = ["local:smollm2"]  # [models:judge]')
    got = run_config.declared_parameters(nb)
    assert (got["n_items"].kind, got["n_items"].help, got["judges"].role) == ("size", "per dataset", "judge")
    with pytest.raises(runner.ConfigError, match=r"\[sizes\]"):
        run_config.declared_parameters(_notebook(tmp_path, "n_items = 2  # [sizes]"))
    with pytest.raises(runner.ConfigError, match="need a role"):
        run_config.declared_parameters(_notebook(tmp_path, 'm = "local:smollm2"  # [model]'))


def test_no_notebook_declares_a_parameter_it_never_uses(tmp_path):
    for nb in run_config.numbered_notebooks():
        assert parameters.unused(nb, run_config.declared_parameters(nb)) == [], nb.stem
    planted = _notebook(tmp_path, "n_items = 2\nknowledge_path = ''")
    assert parameters.unused(planted, run_config.declared_parameters(planted)) == ["knowledge_path"]


def test_run_model_reaches_every_studied_role_of_every_notebook():
    cfg = runner.load_config(DEMO, {"model": "hf:gpt2"})
    roles = _studied(cfg)
    reached = {(stem, k) for stem, eff in roles.items() for k, (v, src) in eff.items() if src == "model (command line)"}
    for nb in run_config.numbered_notebooks():
        for p in run_config.declared_parameters(nb).values():
            if p.role in parameters.STUDIED_ROLES:
                assert (nb.stem, p.name) in reached, f"{nb.stem}: {p.name} missed the run-level model"
    assert roles["05_pointwise_reranking"]["evaluators"][0] == ["hf:gpt2"]
    assert roles["15_best_of_n"]["policy_model"][0] == "hf:gpt2"
    # the demo's 13 default: four specs on SmolLM2, each keeps its options on the new model
    assert roles["13_rewardbench"]["reward_models"][0] == [
        "judge:hf:gpt2;retries:0;max_tokens:8", "judge:hf:gpt2;logprob", "implicit:hf:gpt2", "implicit:hf:gpt2;mean"]
    # a base LM that measures text and 09's data writer are not the model under study
    assert roles["03_perplexity"]["ppl_model"][0] == "local:gemma3"
    assert roles["09_utility_benchmarks"]["chat_model"][0] == "local:smollm2"


def test_more_specific_parameter_wins_at_the_same_or_a_higher_level(tmp_path):
    # the demo sets model under `parameters`; the command line's evaluators beat it
    got = _studied(runner.load_config(DEMO, {"evaluators": ["hf:a"]}), ["05", "06"])
    assert got["05_pointwise_reranking"]["evaluators"] == (["hf:a"], "command line")
    # same level: the specific parameter wins; a higher level: the run-level model wins
    cfg = {"parameters": {"model": "hf:m", "evaluators": ["hf:e"]},
           "per_notebook": {"06_generation_phase": {"evaluators": ["hf:p"]}}}
    got = _studied(runner.load_config(runner_cfg(tmp_path, cfg)), ["05", "06", "04"])
    assert got["05_pointwise_reranking"]["evaluators"] == (["hf:e"], "parameters")
    assert got["06_generation_phase"]["evaluators"] == (["hf:p"], "per_notebook")
    assert got["04_knowledge_probe"]["models"] == (["hf:m"], "model (parameters)")
    got = _studied(runner.load_config(runner_cfg(tmp_path, cfg), {"model": "hf:cli"}), ["06"])
    assert got["06_generation_phase"]["evaluators"] == (["hf:cli"], "model (command line)")


def runner_cfg(tmp_path, cfg):
    path = tmp_path / "cfg.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return path


def test_sweep_over_model_changes_every_study():
    cfg = runner.load_config(DEMO)
    per_run = []
    for _, combo in runner.grid_runs(cfg, {"model": ["local:smollm2", "hf:gpt2"]}):
        roles = _studied(runner.sweep_config(cfg, combo))
        per_run.append({(stem, k): json.dumps(v) for stem, eff in roles.items() for k, (v, _) in eff.items()})
    changed = {stem for (stem, k), v in per_run[0].items() if per_run[1][(stem, k)] != v}
    # 03 names the author models in its findings rows (their specs): a sweep over `model` changes it too
    assert changed == {"00_quickstart", "02_passage_bank", "03_perplexity", "04_knowledge_probe", "05_pointwise_reranking",
                       "06_generation_phase", "07_knowledge_stratified", "08_writing_style",
                       "10_relevance_vs_utility", "11_utility_factors", "12_utility_for_answering",
                       "13_rewardbench", "14_rm_difficulty", "15_best_of_n", "18_mitigation"}


def test_manifest_roles_say_which_role_got_which_spec():
    cfg = runner.load_config(DEMO, {"model": "hf:gpt2"})
    (nb, eff), = runner.effective_parameters(cfg, runner.select_notebooks(cfg, ["15"]))
    roles = runner.model_roles(nb, eff)
    assert roles["policy_model"] == {"role": "policy", "spec": "hf:gpt2", "source": "model (command line)"}
    assert roles["reward_models"]["role"] == "judge" and set(roles) == {"policy_model", "reward_models"}


@pytest.mark.parametrize("override,match", [({"n_items": "many"}, "05_pointwise_reranking: n_items must be a whole"),
                                            ({"n_items": -1}, "n_items must be a whole"),
                                            ({"evaluators": 3}, "evaluators must be a list of model specs"),
                                            ({"bank_path": ["a"]}, "bank_path must be a file"),
                                            ({"model": ["local:smollm2"]}, "model must be one model spec"),
                                            ({"model": "gpt4"}, "Unknown model spec")])
def test_values_are_checked_against_their_declared_kind(override, match):
    cfg = runner.load_config(DEMO, override)
    with pytest.raises(runner.ConfigError, match=match):
        runner.effective_parameters(cfg, runner.select_notebooks(cfg, ["05"]))


def test_one_spec_where_a_list_is_declared_becomes_a_list(tmp_path):
    cfg = runner.load_config(DEMO, {"evaluators": "hf:gpt2"})
    (_, eff), = runner.effective_parameters(cfg, runner.select_notebooks(cfg, ["05"]))
    assert eff["evaluators"] == (["hf:gpt2"], "command line")
    # a single reward-model spec given below the run-level model is a list before the model goes in
    cfg = runner.load_config(runner_cfg(tmp_path, {"parameters": {"reward_models": "implicit:local:smollm2;mean"}}),
                             {"model": "hf:gpt2"})
    (_, eff), = runner.effective_parameters(cfg, runner.select_notebooks(cfg, ["14"]))
    assert eff["reward_models"] == (["implicit:hf:gpt2;mean"], "model (command line)")


def test_with_model_keeps_options_reference_and_reward_heads():
    # a swapped spec is written in canonical form (options in the declared order, flag words kept)
    assert with_model("implicit:local:smollm2;ref:local:gemma3;mean", "hf:x") == "implicit:hf:x;mean;ref:local:gemma3"
    assert with_model("implicit:local:smollm2-ref:local:gemma3", "hf:x") == "implicit:hf:x;ref:local:gemma3"
    assert with_model("judge:local:smollm2;retries:0;max_tokens:8", "local:smollm2;int8") == \
        "judge:local:smollm2;int8;retries:0;max_tokens:8"
    assert with_model("rm:some/head", "hf:x") == "rm:some/head"
    same = "judge:local:smollm2;retries:0;max_tokens:8"  # the same model: the very string, so names and keys stay
    assert with_model(same, "local:smollm2") is same
    assert reward_spec_models("implicit:hf:x-ref:local:gemma3") == ["hf:x", "local:gemma3"]
    with pytest.raises(SpecError, match="Unknown reward-model kind"):
        with_model("critic:local:smollm2", "hf:x")


def test_parameter_table_is_the_generated_one():
    text = (ROOT / "docs" / "parameters.md").read_text()
    m = re.search(r"<!-- parameters:begin[^>]*-->\n(.*?)\n<!-- parameters:end -->", text, re.S)
    assert m, "docs/parameters.md needs the generated parameter table between its markers"
    assert m.group(1) == runner.parameter_table(), "regenerate it: python -m lib.runner params --markdown"
    readme = (ROOT / "README.md").read_text()
    assert "<!-- parameters:begin" not in readme, "the table lives in docs/parameters.md only"
    assert "(docs/parameters.md)" in readme, "README links the parameter table"


def test_params_lists_every_run_level_parameter(capsys):
    """`python -m lib.runner params` names every parameter the runner accepts without a notebook
    declaring it (concurrency included), above the notebooks' table."""
    assert runner.main(["params"]) == 0
    out = capsys.readouterr().out
    assert set(run_config.RUN_LEVEL) >= {"model", "concurrency"}
    assert all(f"| `{name}` |" in out for name in run_config.RUN_LEVEL)
    assert out.index("run-level parameter") < out.index(runner.parameter_table().splitlines()[0])


def test_notebook_validation_still_rejects_a_bad_notebook_with_the_iri_checkers_skipped():
    """lib marks rfc3987_syntax absent to spare jsonschema's grammar build; nbformat must still
    validate: a committed notebook passes, and one with a cell of an unknown type is refused."""
    import json

    import jsonschema
    import nbformat

    import lib  # noqa: F401  (the guard runs at import)

    assert sys.modules["rfc3987_syntax"] is None
    nb = nbformat.read(ROOT / "notebooks" / "05_pointwise_reranking.ipynb", as_version=4)
    nbformat.validate(nb)
    bad = json.loads(nbformat.writes(nb))
    bad["cells"][0]["cell_type"] = "not-a-cell"
    with pytest.raises((nbformat.ValidationError, jsonschema.ValidationError)):
        nbformat.validate(nbformat.from_dict(bad))
