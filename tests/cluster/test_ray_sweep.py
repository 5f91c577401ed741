"""`sweep --executor ray` on a real two-node Ray cluster on loopback (ray.cluster_utils.Cluster: a head
that runs nothing and two worker nodes of one CPU each), against the counting fake OpenAI server: the runs'
folders land on the driver and compare joins them, a second sweep makes no model call, and a worker killed
mid-run is survived without re-asking a call that had finished."""
import collections
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time

import pytest
import yaml

from lib.cluster import cache_transfer
from lib.paths import ROOT
from tests.fake_openai import FakeOpenAI

pytestmark = pytest.mark.cluster
NODE = {"num_cpus": 1, "object_store_memory": 80 * 2**20}  # small: 2 cores and 7 developers share the machine


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def node_args(**extra) -> dict:
    """A node's settings with its agents' ports given: left to choose them, a node waits (30 s at most) for
    its agents to write them to files, and on a loaded shared machine that wait runs out."""
    ports = {k: free_port() for k in ("metrics_agent_port", "metrics_export_port", "runtime_env_agent_port",
                                         "dashboard_agent_listen_port")}
    return {**NODE, **ports, **extra}


def started(start, tries: int = 5):
    """start() again when a node fails to start because its agent was slower than Ray's fixed 15 s (a
    loaded machine; Ray issue 65983); the last failure is raised."""
    for attempt in range(tries):
        try:
            return start()
        except Exception as e:  # Ray raises a bare Exception for a node that timed out at start
            if attempt == tries - 1:
                raise
            print(f"a Ray node failed to start ({e}); starting it again", file=sys.stderr)


@pytest.fixture(scope="module")
def cluster():
    """A head (no CPUs: runs only the driver's cache actor) and two worker nodes, all on 127.0.0.1."""
    pytest.importorskip("ray", reason="requirements-cluster.txt (make install-test installs it)")
    from ray.cluster_utils import Cluster

    def with_head():
        c = Cluster(shutdown_at_exit=True)
        try:
            c.add_node(**node_args(num_cpus=0, include_dashboard=False))
        except Exception:
            c.shutdown()
            raise
        return c

    c = started(with_head)
    workers = [started(lambda: c.add_node(**node_args())) for _ in range(2)]
    c.wait_for_nodes()
    assert c.address.startswith("127.0.0.1:"), c.address
    yield c, workers
    c.shutdown()


def write_config(folder, url: str, n_per_category: int, run: str = "ray"):
    path = folder / "sweep.yaml"
    path.write_text(yaml.safe_dump({
        "run": run, "notebooks": ["13"],
        "per_notebook": {"13_rewardbench": {"n_per_category": n_per_category,
                                            "reward_models": ["judge:local:smollm2;retries:0;max_tokens:8"]}},
        "sweep": {"model": [f"openai:model-a@{url}", f"openai:model-b@{url}"]}}))
    return path


def sweep_command(config, address):
    return [sys.executable, "-m", "lib.runner", "sweep", str(config), "--executor", "ray", "--address", address]


def run_sweep(config, address):
    return subprocess.run(sweep_command(config, address), cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                          capture_output=True, text=True, timeout=900)


def manifests(runs):
    return {p.parent.name: json.loads(p.read_text()) for p in sorted(runs.glob("ray__*/manifest.json"))}


def asked(server) -> collections.Counter:
    """How often the server was asked each (model, prompt)."""
    return collections.Counter((b["model"], b["messages"][-1]["content"]) for b in server.bodies)


def test_two_runs_land_on_the_driver_and_a_second_sweep_asks_nothing(cluster, tmp_path, tmp_runs, fresh_cache):
    c, _ = cluster
    with FakeOpenAI(delay=0.2) as server:
        config = write_config(tmp_path, server.url, 1)
        first = run_sweep(config, c.address)
        assert first.returncode == 0, first.stdout[-3000:] + first.stderr[-3000:]
        calls = server.calls
        second = run_sweep(config, c.address)
        assert second.returncode == 0, second.stdout[-3000:] + second.stderr[-3000:]
        assert server.calls == calls, f"the second sweep asked the server {server.calls - calls} time(s)"
    assert calls > 0 and max(asked(server).values()) == 1
    found = manifests(tmp_runs)
    assert len(found) == 2, sorted(found)
    for name, m in found.items():
        assert m["status"] == "ok" and m["executor"]["executor"] == "ray"
        assert m["cache"]["misses"] == 0, "the second sweep's runs must be all cache hits"
        out = tmp_runs / name / "notebooks" / "13_rewardbench.ipynb"
        assert out.exists() and m["notebooks"][0]["output"] == str(out)
        assert (tmp_runs / name / "findings.csv").exists()
        assert "ragbias-" not in json.dumps(m), "a worker's scratch path stayed in the manifest"
    # every call the workers made reached the driver's cache, tagged with its model
    driver = fresh_cache / "results"
    assert len(cache_transfer.entries_for(driver, [])) == 0
    tagged = cache_transfer.entries_after(driver, 0)[0]
    assert len(tagged) == calls and {t for _, _, t in tagged} == {
        f"openai:model-a@{server.url}", f"openai:model-b@{server.url}"}
    assert (tmp_runs / "ray" / "comparison.csv").exists(), "the sweep ends with compare over both runs"
    assert "runs done 2 / running 0 / failed 0 / waiting 0" in second.stdout


def test_a_killed_worker_is_retried_without_reasking_finished_calls(cluster, tmp_path, tmp_runs, fresh_cache):
    c, _ = cluster
    lines: list[str] = []
    with FakeOpenAI(delay=1.0) as server:
        config = write_config(tmp_path, server.url, 2)
        driver = subprocess.Popen(sweep_command(config, c.address), cwd=ROOT, text=True, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, env={**os.environ, "PYTHONPATH": str(ROOT)})
        reader = threading.Thread(target=lambda: lines.extend(driver.stdout), daemon=True)
        reader.start()
        deadline = time.time() + 600
        results = fresh_cache / "results"
        # kill the worker of the first run to start once the driver holds two calls that run finished
        while time.time() < deadline and not any("started on node" in x for x in lines):
            time.sleep(0.1)
        start = next(x for x in lines if "started on node" in x)
        victim_run = start.split("] ")[1].split(":")[0]
        pid = int(start.rsplit("pid ", 1)[1].rstrip(")\n"))
        model = "model-a" if "model-a" in victim_run else "model-b"
        tag = f"openai:{model}@{server.url}"
        while time.time() < deadline and len(cache_transfer.entries_for(results, [tag])) < 2:
            time.sleep(0.1)
        held = cache_transfer.entries_after(results, 0)[0]  # the calls the driver holds at the kill
        before = asked(server)
        os.kill(pid, signal.SIGKILL)
        driver.wait(timeout=900)
        reader.join(timeout=30)
        after = asked(server)
    out = "".join(lines)
    assert driver.returncode == 0, out[-4000:]
    assert sum(victim_run + ": started on node" in x for x in lines) == 2, "Ray must have run the task again"
    # the fake server echoes each prompt in its reply: which (model, prompt) each held entry answers
    held_calls = {(tag.split(":", 1)[1].split("@")[0], v["text"][len("echo: "):v["text"].rindex(" (t=")])
                  for _, v, tag in held}
    victims = {k for k in held_calls if k[0] == model}
    assert victims, "the kill came before the driver held any finished call of the killed run"
    assert all(before[k] == 1 for k in held_calls), "a held call had been asked twice before the kill"
    reasked = [k for k in victims if after[k] > before[k]]
    assert not reasked, f"calls the driver held were asked again after the retry: {len(reasked)}"
    found = manifests(tmp_runs)
    assert len(found) == 2 and all(m["status"] == "ok" for m in found.values())


def test_ctrl_c_on_the_driver_cancels_the_tasks(cluster, tmp_path, tmp_runs):
    c, _ = cluster
    lines: list[str] = []
    with FakeOpenAI(delay=1.0) as server:
        config = write_config(tmp_path, server.url, 2, run="ctrlc")
        driver = subprocess.Popen(sweep_command(config, c.address), cwd=ROOT, text=True, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, env={**os.environ, "PYTHONPATH": str(ROOT)})
        reader = threading.Thread(target=lambda: lines.extend(driver.stdout), daemon=True)
        reader.start()
        deadline = time.time() + 600
        while time.time() < deadline and not (any("started on node" in x for x in lines) and server.bodies):
            time.sleep(0.1)
        driver.send_signal(signal.SIGINT)
        driver.wait(timeout=300)
        reader.join(timeout=30)
        time.sleep(5)  # a killed worker's runner dies with it; its kernel within a second
        asked_after_stop = len(server.bodies)
        time.sleep(5)
        still_asking = len(server.bodies) - asked_after_stop
    out = "".join(lines)
    assert driver.returncode != 0 and "interrupted: cancelled 2 unfinished run(s)" in out, out[-3000:]
    running = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    assert "--run ctrlc__" not in running, "a cancelled run's runner is still running"
    assert still_asking == 0, f"cancelled runs still called the server {still_asking} time(s)"
    assert not list(tmp_runs.glob("ctrlc__*/manifest.json")), "no run finished, none may have landed"
