"""`sweep --jobs 2`: two runs at once, each in its own process and kernel, one results cache that two
processes write at the same time (diskcache over SQLite)."""
import json
import os
import subprocess
import sys
import textwrap

import pytest
import yaml

from lib.paths import ROOT
from tests.fake_openai import FakeOpenAI

WRITER = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from lib.models import cache
    tag, start = sys.argv[1], Path(sys.argv[2])
    store = cache.results_cache()
    while not start.exists():  # both writers begin together
        time.sleep(0.01)
    for i in range(300):
        store.set(f"{tag}-{i}", {"text": f"{tag} reply {i}", "n": i})
        store.set(f"shared-{i}", tag)
""")


def test_two_processes_write_one_cache_at_once(fresh_cache, tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "RAGBIAS_CACHE": str(fresh_cache)}
    start = tmp_path / "go"
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, tag, str(start)], env=env, stderr=subprocess.PIPE,
                              text=True) for tag in ("a", "b")]
    start.touch()
    errors = [p.communicate(timeout=300)[1] for p in procs]
    assert [p.returncode for p in procs] == [0, 0], errors
    from lib.models import cache

    store = cache.results_cache()
    for tag in ("a", "b"):
        assert [store.get(f"{tag}-{i}") for i in range(300)] == [{"text": f"{tag} reply {i}", "n": i} for i in range(300)]
    assert all(store.get(f"shared-{i}") in ("a", "b") for i in range(300))
    assert len(store) == 900


@pytest.mark.notebooks
def test_sweep_jobs_runs_two_runs_at_once_into_one_cache(tmp_path, tmp_runs, fresh_cache):
    with FakeOpenAI(delay=1.0) as server:
        cfg = tmp_path / "sweep.yaml"
        cfg.write_text(yaml.safe_dump({
            "run": "jobs", "notebooks": ["13"],
            "per_notebook": {"13_rewardbench": {"n_per_category": 1,
                                                "reward_models": ["judge:local:smollm2;retries:0;max_tokens:8"]}},
            "sweep": {"model": [f"openai:model-a@{server.url}", f"openai:model-b@{server.url}"]}}))
        done = subprocess.run([sys.executable, "-m", "lib.runner", "sweep", str(cfg), "--jobs", "2"], cwd=ROOT,
                              env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=900)
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        served = server.bodies
        in_flight = server.max_in_flight
    manifests = [json.loads(p.read_text()) for p in sorted(tmp_runs.glob("jobs__*/manifest.json"))]
    assert [m["status"] for m in manifests] == ["ok", "ok"]
    # the two runs overlapped in time: each started before the other ended
    spans = []
    for m in manifests:
        out = m["notebooks"][0]["output"]
        nb = json.loads((ROOT / out).read_text())  # an absolute `out` stays itself
        cells = [c["metadata"]["papermill"] for c in nb["cells"]]
        spans.append((min(c["start_time"] for c in cells if c.get("start_time")),
                      max(c["end_time"] for c in cells if c.get("end_time"))))
    (s1, e1), (s2, e2) = spans
    assert s1 < e2 and s2 < e1, f"the runs did not overlap: {spans}"
    # one shared cache holds both models' replies (the cache key names the model)
    from lib.models import cache

    models = {b["model"] for b in served}
    assert models == {"model-a", "model-b"} and in_flight >= 2
    assert all(m["cache"]["misses"] > 0 for m in manifests)
    store = cache.results_cache()
    assert len(store) == sum(m["cache"]["misses"] for m in manifests)
    # and the sweep ended with its comparison
    assert (tmp_runs / "jobs" / "comparison.csv").exists()
