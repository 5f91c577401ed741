"""Every numbered notebook runs headlessly, in order, in one run with tiny parameters
(configs/smoke.yaml), under a temporary runs folder; then a few values of each notebook's tables
are checked (TABLE_CHECKS: one function per notebook, reading its CSVs)."""
import json

import pandas as pd
import pytest

from lib import runner
from lib.config import ROOT

pytestmark = pytest.mark.notebooks


def _csv(run, notebook: str, name: str) -> pd.DataFrame:
    return pd.read_csv(run / notebook / f"{name}.csv")


def check_13(run, params):
    """Reward-model accuracies: one raw record per (rm, pair); counts add up; rates in [0, 1]."""
    stats = _csv(run, "13_rewardbench", "rewardbench_table4")
    n_pairs = int(stats.loc[stats["subset"] == "total", "n"].sum())
    assert n_pairs == params["n_per_category"] * 3  # the demo pairs have three categories
    rms = params["reward_models"]
    raw = [json.loads(line) for line in (run / "rewardbench_raw.jsonl").read_text().splitlines()]
    assert len(raw) == len(rms) * n_pairs and {r["spec"] for r in raw} == set(rms)
    long = _csv(run, "13_rewardbench", "rewardbench_accuracy_long")
    overall = long[long["level"] == "overall"]
    assert len(overall) == len(rms) and overall["n"].eq(n_pairs).all()
    assert long["accuracy"].between(0, 1).all()
    judges = _csv(run, "13_rewardbench", "rewardbench_judges")
    assert judges["pairs"].eq(n_pairs).all()
    assert judges["unparsed_verdicts"].between(0, 2 * n_pairs).all()
    assert (judges["unparsed_rate"] * 2 * n_pairs).round(6).eq(judges["unparsed_verdicts"]).all()


def check_14(run, params):
    """Length bias: bins cover every pair once per reward model."""
    n_pairs = params["n_per_category"] * 3
    by_length = _csv(run, "14_rm_difficulty", "rm_accuracy_by_length_diff")
    assert by_length.groupby("rm")["n"].sum().eq(n_pairs).all()
    bias = _csv(run, "14_rm_difficulty", "rm_length_bias")
    assert bias["pairs_unequal_length"].between(0, n_pairs).all()


def check_15(run, params):
    """Best-of-N: one row per reward model; random <= oracle, pick <= oracle; the basis is named."""
    bon = _csv(run, "15_best_of_n", "best_of_n")
    assert len(bon) == len(params["reward_models"])
    assert bon["items"].eq(params["n_items"] * len(params["datasets"])).all()
    assert (bon["recall_random"] <= bon["recall_oracle"] + 1e-9).all()
    assert (bon["recall_pick"] <= bon["recall_oracle"] + 1e-9).all()
    assert bon["accuracy_on"].str.startswith("overall").all()  # the demo pairs have no reason subset


# Hook: notebooks 00-12 get their checks here (notebook stem -> check(run folder, its parameters)).
TABLE_CHECKS = {"13_rewardbench": check_13, "14_rm_difficulty": check_14, "15_best_of_n": check_15}


def test_whole_job_runs_with_tiny_parameters(tmp_runs):
    name = "pytest_smoke"
    cfg = runner.load_config(ROOT / "configs" / "smoke.yaml")
    man = runner.run(cfg, name)
    assert man["status"] == "ok"
    ran = [e["notebook"] for e in man["notebooks"]]
    assert ran == [p.name for p in runner.numbered_notebooks()]
    run = tmp_runs / name
    finished = sorted(f.stem for f in (run / "cache_stats").glob("*.json"))
    assert finished == [p.stem for p in runner.numbered_notebooks()], "every notebook must end with out.finish()"
    tables = [f for f in man["files"] if f["path"].endswith(".csv")]
    figures = [f for f in man["files"] if f["path"].endswith(".png")]
    assert tables and figures and all(f["bytes"] > 0 for f in tables + figures)
    assert json.loads((run / "manifest.json").read_text())["cache"] == man["cache"]
    assert not (ROOT / "data" / "runs" / name).exists(), "tests write runs under a temporary folder"
    for entry in man["notebooks"]:
        stem = entry["notebook"].removesuffix(".ipynb")
        if stem in TABLE_CHECKS:
            TABLE_CHECKS[stem](run, entry["parameters"])
