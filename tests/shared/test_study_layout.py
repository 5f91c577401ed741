"""Every study package has one shape (CONTRIBUTING.md, "Layout of a study package"): the same module
names for the same jobs, one call shape for `reparse` and for the per-model loop."""
import importlib
import inspect
import re

import pytest

from lib.paths import ROOT

STUDIES = ("self_preference", "utility", "rewardbench", "mitigation")
# module -> what it must define
JOBS = {"measures": ("MEASURES",), "findings_rows": (), "replies": ("reparse",), "figures": (),
        "model_loop": ("for_each_model",), "study": ()}


@pytest.mark.parametrize("study", STUDIES)
def test_every_study_has_the_same_modules_for_the_same_jobs(study):
    for module, names in JOBS.items():
        mod = importlib.import_module(f"lib.{study}.{module}")
        for name in names:
            assert hasattr(mod, name), f"lib/{study}/{module}.py has no {name}"


@pytest.mark.parametrize("study", STUDIES)
def test_reparse_takes_the_stored_replies_first_and_options_by_keyword(study):
    params = list(inspect.signature(importlib.import_module(f"lib.{study}.replies").reparse).parameters.values())
    assert params[0].name == "path" and params[0].kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in params[1:]), study


@pytest.mark.parametrize("study", STUDIES)
def test_the_model_loop_runs_model_name_spec(study):
    params = inspect.signature(importlib.import_module(f"lib.{study}.model_loop").for_each_model).parameters
    assert "run" in params, study


def _files_matching(pattern: str) -> dict:
    """study -> the package's module names whose text matches `pattern`."""
    rx = re.compile(pattern, re.M)
    return {s: sorted(p.stem for p in (ROOT / "lib" / s).glob("*.py") if rx.search(p.read_text(encoding="utf-8")))
            for s in STUDIES}


def test_findings_rows_and_figures_live_in_their_modules_only():
    assert _files_matching(r"declared_finding\(") == {s: ["findings_rows"] for s in STUDIES}
    assert _files_matching(r"^\s*(import|from) (matplotlib|seaborn)") == {s: ["figures"] for s in STUDIES}


def test_the_per_model_loop_is_the_only_loop_that_loads_models_by_spec():
    # a loop over specs that loads each model belongs in model_loop.py
    found = _files_matching(r"for spec in \w+:\n(\s+.*\n){0,3}?.*(get_model|get_reward_model)\(spec")
    assert {s: [m for m in mods if m != "model_loop"] for s, mods in found.items()} == {s: [] for s in STUDIES}


def test_utility_loop_gives_each_model_its_short_name_in_order():
    from lib.utility.model_loop import for_each_model

    seen = for_each_model(["local:smollm2", "openai:gpt-4o-mini"], lambda m, name, spec: (m, name, spec),
                          get_model=lambda spec: f"model<{spec}>")
    assert seen == [("model<local:smollm2>", "smollm2", "local:smollm2"),
                    ("model<openai:gpt-4o-mini>", "gpt-4o-mini", "openai:gpt-4o-mini")]
