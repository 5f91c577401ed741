"""`make reproduce` ends with the run's own model x measure table (compare on the run)."""
import json

from lib.report import findings
from lib.compare.run_table import main, run_name


def test_the_run_table_prints_one_column_per_model(tmp_runs, capsys, tmp_path):
    rows = [findings.finding("self-preference", "06", "factual preference rate", "local:smollm2", 40, 0.56, 0.35, 0.76,
                             p=0.3, unit="question"),
            findings.finding("self-preference", "06", "factual preference rate", "openai:gpt-4o-mini", 12, 0.75, 0.5, 0.9,
                             p=0.1, unit="question"),
            findings.finding("self-preference", "06", "first-position rate", "local:smollm2", 0, float("nan"),
                             unit="question", no_interval="no pair gave a readable choice"),
            findings.finding("self-preference", "06", "first-position rate", "openai:gpt-4o-mini", 40, 0.6,
                             unit="question")]
    findings.record("demo", "06", rows)
    (tmp_runs / "demo" / "manifest.json").write_text(json.dumps({"run": "demo", "status": "ok", "notebooks": []}))
    findings.summarize(tmp_runs / "demo")
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if "factual preference rate" in x)
    assert "0.560 [0.350, 0.760] (n = 40)" in line and "0.750 [0.500, 0.900] (n = 12 smoke)" in line
    # a cell without an interval says why: the row's stated reason, else that none was stated
    line = next(x for x in out.splitlines() if "first-position rate" in x)
    assert "0.600 (n = 40; no interval: reason not stated)" in line
    assert "no interval: no pair gave a readable choice" in line
    assert (tmp_runs / "demo_table" / "comparison.csv").exists()
    config = tmp_path / "demo.yaml"
    config.write_text("run: demo\nnotebooks: all\n")
    assert run_name(str(config)) == "demo" and run_name("other") == "other"
    assert main(["missing_run"]) == 2
