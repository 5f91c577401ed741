"""The Batch API path (`;batch`) against the simulator's /v1/files and /v1/batches, through the real
model layer and the `openai` SDK: the same results as sent one by one, files split at the limits, failed
and expired lines sent again synchronously, a killed run that polls its batch instead of paying twice,
and notebook 13's reward-model study (log-probability verdicts and re-ask rounds included) with the same
findings as without `;batch`."""
import json
import os
import subprocess
import sys
import time

import pandas as pd
import pytest

from lib.models import cache, get_model
from lib.models.backends.openai_batch import DIR_ENV, POLL_ENV, split_lines
from lib.models.types import Request
from lib.paths import ROOT
from lib.simulate.server import SimServer
from lib.simulate.core.truth_file import Truth

pytestmark = pytest.mark.server


@pytest.fixture
def sim(tmp_path, monkeypatch):
    """The simulator with a short planted completion delay; polls every 50 ms; batches kept apart."""
    monkeypatch.setenv(POLL_ENV, "0.05")
    monkeypatch.setenv(DIR_ENV, str(tmp_path / "run"))
    with SimServer(Truth(format_failure=0.0), tmp_path) as server:
        server.batches.delay = 0.2
        yield server


def _requests(n, logprobs=0):
    return [Request(messages=[{"role": "user", "content": f"Which city is number {i}? Answer in one word."}],
                    max_tokens=8, logprobs=logprobs) for i in range(n)]


def _fresh_cache(monkeypatch, folder):
    cache.close_all()
    monkeypatch.setenv("RAGBIAS_CACHE", str(folder))


def test_batch_replies_equal_the_ones_sent_one_by_one(sim, monkeypatch, tmp_path):
    reqs = _requests(12, logprobs=3)
    by_batch = get_model(f"openai:sim@{sim.url};batch").generate(reqs)
    assert sim.stats()["by_batch"] == 12 and sim.batches.created == 1
    _fresh_cache(monkeypatch, tmp_path / "sync-cache")
    one_by_one = get_model(f"openai:sim@{sim.url}").generate(reqs)
    assert sim.stats()["by_batch"] == 12 and sim.stats()["requests"] == 24  # the second 12 came one by one
    assert [(r.text, r.top_logprobs, r.tokens_in) for r in by_batch] == \
           [(r.text, r.top_logprobs, r.tokens_in) for r in one_by_one]
    assert by_batch[0].top_logprobs  # log-probability requests work by batch


def test_files_split_at_the_request_limit():
    lines = [b"x" * 10 + b"\n"] * 10
    assert [len(p) for p in split_lines(lines, max_lines=4)] == [4, 4, 2]
    assert [len(p) for p in split_lines(lines, max_bytes=25)] == [2, 2, 2, 2, 2]
    with pytest.raises(Exception, match="over the file limit"):
        split_lines([b"y" * 30], max_bytes=25)


def test_a_large_notebook_goes_as_several_batches(sim):
    out = get_model(f"openai:sim@{sim.url};batch", max_lines=5).generate(_requests(12))
    assert all(r.text for r in out) and sim.batches.created == 3 and sim.stats()["by_batch"] == 12


def test_failed_and_expired_lines_go_again_synchronously(sim):
    sim.batches.fail_share = 0.3
    out = get_model(f"openai:sim@{sim.url};batch").generate(_requests(20))
    by_batch = sim.stats()["by_batch"]
    assert all(r.text for r in out) and 0 < by_batch < 20 and sim.stats()["requests"] == 20
    sim.batches.fail_share, sim.batches.expire = 0.0, True
    again = get_model(f"openai:sim@{sim.url};batch").generate(_requests(30)[20:])
    assert all(r.text for r in again) and sim.stats()["by_batch"] == by_batch + 5  # half of an expired batch
    assert sim.stats()["requests"] == 30


KILLED = """
import sys
from lib.models import get_model
from lib.models.types import Request
reqs = [Request(messages=[{"role": "user", "content": f"Which city is number {i}? Answer in one word."}], max_tokens=8)
        for i in range(int(sys.argv[2]))]
get_model(f"openai:sim@{sys.argv[1]};batch").generate(reqs)
"""


def test_a_killed_run_polls_its_batch_instead_of_submitting_again(sim, tmp_path):
    sim.batches.delay = 600  # the batch is still running when the run is killed
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-c", KILLED, sim.url, "10"], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    records = tmp_path / "run" / "batches"
    deadline = time.time() + 120
    while not list(records.glob("*.json")) and time.time() < deadline and proc.poll() is None:
        time.sleep(0.1)
    proc.kill()
    proc.wait(30)
    assert sim.batches.created == 1 and sim.stats()["requests"] == 0
    sim.batches.delay = 0.2  # the provider finishes it while nobody polls
    out = get_model(f"openai:sim@{sim.url};batch").generate(_requests(10))
    assert all(r.text for r in out)
    assert sim.batches.created == 1 and sim.stats()["requests"] == 10  # polled, not submitted again
    assert json.loads(next(records.glob("*.json")).read_text())["status"] == "completed"


def _study(specs, n):
    from lib.rewardbench import study

    pairs = study.study_pairs("", n, 0)
    results = study.pair_results(specs, pairs)
    return results, study.study_tables(results)


def test_rewardbench_by_batch_states_the_same_findings(tmp_path, monkeypatch):
    monkeypatch.setenv(POLL_ENV, "0.05")
    monkeypatch.setenv(DIR_ENV, str(tmp_path / "run"))
    with SimServer(Truth(format_failure=0.3), tmp_path) as sim:  # unparsed replies: re-ask rounds
        sim.batches.delay = 0.1
        base = f"openai:sim@{sim.url}"
        specs = [f"judge:{base}", f"judge:{base};logprob"]
        sync_results, sync_tables = _study(specs, 2)
        before = sim.stats()
        _fresh_cache(monkeypatch, tmp_path / "batch-cache")
        batch_results, batch_tables = _study([s.replace(base, base + ";batch") for s in specs], 2)
        after = sim.stats()
        echoes = after["per_task"].get("echo", 0) - before["per_task"].get("echo", 0)  # the likelihood probe
        assert echoes == 1 and after["requests"] - before["requests"] == before["requests"]
        assert after["by_batch"] == before["requests"] - echoes  # all but the probe came by batch
        assert sim.batches.created >= 3  # verdicts, log-probability verdicts, and at least one re-ask round
    keep = [c for c in sync_results if c not in ("spec",)]
    pd.testing.assert_frame_equal(sync_results[keep].reset_index(drop=True), batch_results[keep].reset_index(drop=True))
    for name, table in sync_tables.items():
        pd.testing.assert_frame_equal(table, batch_tables[name], obj=name)
