"""A run stopped at its budget, through the runner and a real notebook (04, the knowledge probe) against
the simulator with a price set for its model: a plan over the cap is refused before any request; with a
plan that underestimates the run tenfold (the plan is an estimate), the notebook stops before the cap,
the run README says where and what is left, and the same command with a larger budget finishes from
the cache without asking the simulator anything twice."""
import json

import pytest

from lib import runner
from lib.models import budget
from lib.paths import CONFIGS
from lib.planning import plan as planning
from lib.simulate.server import SimServer
from lib.simulate.core.truth_file import Truth

pytestmark = [pytest.mark.notebooks, pytest.mark.server]
PARAMS = {"n_items": 2, "n_samples": 3, "max_tokens": 8}  # 2 questions x 3 datasets x 3 samples = 18 requests


def _run(spec, cap, name="budgeted"):
    cfg = runner.load_config(CONFIGS / "smoke.yaml", {"models": [spec], "budget_usd": cap})
    cfg["per_notebook"]["04_knowledge_probe"] = PARAMS
    try:
        return runner.run(cfg, name, ["04"])
    except runner.NotebookFailed as e:
        return e


def _underestimated(build):
    def tenth(*args, **kwargs):
        plan = build(*args, **kwargs)
        for r in plan.rows:
            r.usd = None if r.usd is None else r.usd / 10
        return plan
    return tenth


def test_a_run_stops_at_its_budget_and_a_larger_one_resumes(tmp_path, tmp_runs, monkeypatch):
    with SimServer(Truth(format_failure=0.0), tmp_path) as sim:
        spec = f"openai:sim@{sim.url}"
        monkeypatch.setenv("RAGBIAS_PRICES", json.dumps({spec: [2000.0, 8000.0]}))  # a few requests reach $1
        cfg = runner.load_config(CONFIGS / "smoke.yaml", {"models": [spec], "budget_usd": 1.0})
        cfg["per_notebook"]["04_knowledge_probe"] = PARAMS
        with pytest.raises(runner.ConfigError, match=r"budget_usd=1: the plan costs \$2\.\d\d; biggest notebook 04"):
            runner.run(cfg, "budgeted", ["04"])
        assert sim.stats()["requests"] == 0
        build = planning.build
        monkeypatch.setattr(planning, "build", _underestimated(build))
        stopped = _run(spec, 1.0)
        assert isinstance(stopped, runner.NotebookFailed) and "BudgetExhausted" in str(stopped)
        first = sim.stats()["requests"]
        run = tmp_runs / "budgeted"
        manifest = json.loads((run / "manifest.json").read_text())
        assert manifest["budget"]["stopped"] == ["04_knowledge_probe"]
        assert 0 < manifest["budget"]["spent_usd"] <= 1.0
        readme = (run / "README.md").read_text()
        assert "## Stopped at the budget" in readme and "04_knowledge_probe" in readme
        assert 0 < first < 18 and manifest["budget"]["left"]["requests"] == 18 - first
        monkeypatch.setattr(planning, "build", build)
        done = _run(spec, 100.0)
        assert done["status"] == "ok"
        assert sim.stats()["requests"] == 18  # the rest only: nothing was asked twice
        assert budget.spent(run) > manifest["budget"]["spent_usd"]
    budget.deactivate()
