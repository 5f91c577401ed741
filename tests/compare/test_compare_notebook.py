"""Notebook 17 through papermill (the runner) on two tiny runs, and without runs; `notebooks: all`
leaves it out unless it is given runs to compare."""
import json

import pandas as pd
import pytest

from lib import runner
from tests.compare.test_compare import two_runs  # noqa: F401  (the fixture of two synthetic runs)


def _cfg(tmp_path, per_notebook=None, notebooks=("17",)):
    path = tmp_path / "c.yaml"
    path.write_text(json.dumps({"run": "cmp17", "notebooks": notebooks if isinstance(notebooks, str) else list(notebooks), "per_notebook": per_notebook or {}}))
    return runner.load_config(path)


def test_all_runs_17_only_when_it_has_runs_to_compare(tmp_path):
    stems = lambda cfg: [p.stem for p in runner.select_notebooks(cfg)]  # noqa: E731
    assert "17_compare_models" not in stems(_cfg(tmp_path, notebooks="all"))
    given = _cfg(tmp_path, {"17_compare_models": {"runs": ["sw__*"]}}, notebooks="all")
    assert stems(given).index("17_compare_models") > stems(given).index("16_paper_check")  # after every study
    assert "17_compare_models" in stems(runner.load_config(tmp_path / "c.yaml", {"runs": "sw__*"}))
    assert stems(_cfg(tmp_path)) == ["17_compare_models"]  # asked for by number: it runs (and says why it is empty)


def test_runs_must_be_names_or_globs(tmp_path):
    with pytest.raises(runner.ConfigError, match="17_compare_models: runs must be a list of run names"):
        runner.effective_parameters(_cfg(tmp_path, {"17_compare_models": {"runs": [3]}}),
                                    runner.select_notebooks(_cfg(tmp_path)))


@pytest.mark.notebooks
def test_notebook_17_compares_two_runs(two_runs, tmp_path):  # noqa: F811
    man = runner.run(_cfg(tmp_path, {"17_compare_models": {"runs": ["sw__*"]}}), "cmp17")
    assert man["status"] == "ok"
    wide = pd.read_csv(two_runs / "cmp17" / "comparison.csv")
    assert {"estimate [SmolLM2]", "estimate [Gemma-3]"} <= set(wide.columns) and len(wide) == 3
    figs = tmp_path / "figures" / "cmp17"
    assert (figs / "forest_self_preference.png").exists() and (figs / "comparison_rewardbench.tex").exists()
    executed = json.loads((two_runs / "cmp17" / "notebooks" / "17_compare_models.ipynb").read_text())
    shown = [o for c in executed["cells"] for o in c.get("outputs", []) if o.get("output_type") == "display_data"]
    assert any("image/png" in o["data"] for o in shown), "the forest plots are shown in the notebook"


@pytest.mark.notebooks
def test_notebook_17_without_runs_says_there_is_nothing_to_compare(tmp_path, tmp_runs):
    man = runner.run(_cfg(tmp_path), "cmp17_empty")
    assert man["status"] == "ok"
    executed = (tmp_runs / "cmp17_empty" / "notebooks" / "17_compare_models.ipynb").read_text()
    assert "Nothing to compare" in executed and not (tmp_runs / "cmp17_empty" / "comparison.csv").exists()
