"""The plain parts of the Ray executor, without Ray: resources from specs, moving cache entries by model,
the run archive and its manifest, the scratch run's forwarding; and that Ray stays out of everything else."""
import json
import os
import subprocess
import sys
import textwrap
import time

import pytest

from lib.cluster import cache_transfer, resources, run_bundle
from lib.cluster.scratch_run import Forwarder, runner_command
from lib.paths import ROOT

SERVER = "openai:m@http://127.0.0.1:9/v1"


def test_resources_follow_the_specs_and_globs_override_them():
    assert resources.default_resources([SERVER]) == resources.SERVER_ONLY
    assert resources.default_resources([SERVER, "local:smollm2"]) == resources.IN_PROCESS
    assert resources.default_resources(["hf:gpt2"]) == resources.IN_PROCESS
    over = resources.parse_overrides(['*hf-gpt2*={"num_gpus": 1}', 'sw__*={"num_cpus": 1}'])
    assert resources.run_resources("sw__model=hf-gpt2", ["hf:gpt2"], over) == {"num_cpus": 1, "num_gpus": 1}
    assert resources.run_resources("other", ["hf:gpt2"], over) == resources.IN_PROCESS


@pytest.mark.parametrize("bad", ["*=not json", '*={"cpus": 1}', "*", '={"num_cpus": 1}'])
def test_bad_resource_overrides_are_named(bad):
    with pytest.raises(resources.ResourceError, match="--resources"):
        resources.parse_overrides([bad])


def test_entries_travel_by_model_tag(tmp_path):
    driver = tmp_path / "driver"
    cache_transfer.store_entries(driver, [("k1", {"text": "a"}, "openai:a"), ("k2", {"text": "b"}, "openai:b"),
                                          ("k3", {"text": "old"}, None)])
    got = {k for k, _, _ in cache_transfer.entries_for(driver, ["openai:a"])}
    assert got == {"k1", "k3"}, "a task gets its models' entries and untagged ones, not another model's"
    worker = tmp_path / "worker"
    cache_transfer.store_entries(worker, cache_transfer.entries_for(driver, ["openai:a"]))
    start = cache_transfer.last_rowid(worker)
    cache_transfer.store_entries(worker, [("k4", {"text": "new"}, "openai:a")])
    new, last = cache_transfer.entries_after(worker, start)
    assert new == [("k4", {"text": "new"}, "openai:a")] and last > start
    assert cache_transfer.store_entries(driver, new) == 1 and cache_transfer.store_entries(driver, new) == 0


def test_cached_model_tags_entries_with_its_model(scripted_model, fresh_cache):
    model = scripted_model(reply=lambda text, req: "yes")
    model.chat("hello", max_tokens=4)
    entries = cache_transfer.entries_for(fresh_cache / "results", [model.cache_name])
    assert [tag for _, _, tag in entries] == [model.cache_name]
    assert cache_transfer.entries_for(fresh_cache / "results", ["openai:other"]) == []


def test_forwarder_sends_each_new_entry_once(tmp_path):
    sent = []
    fw = Forwarder(tmp_path / "c", 0, sent.extend)
    fw.start()
    cache_transfer.store_entries(tmp_path / "c", [("a", 1, "m")])
    deadline = time.time() + 10
    while not sent and time.time() < deadline:
        time.sleep(0.05)
    assert sent == [("a", 1, "m")], "an entry is sent while the run goes on, not only at the end"
    cache_transfer.store_entries(tmp_path / "c", [("b", 2, "m")])
    fw.stop()
    assert sent == [("a", 1, "m"), ("b", 2, "m")] and fw.sent == 2


def test_bundle_lands_where_a_local_run_writes_with_local_paths(tmp_path, tmp_runs):
    worker = tmp_path / "scratch"
    run, figs = worker / "runs" / "r1", worker / "figures" / "r1"
    (run / "notebooks").mkdir(parents=True)
    figs.mkdir(parents=True)
    (run / "notebooks" / "13_x.ipynb").write_text("{}")
    (run / "findings.csv").write_text("a,b\n1,2\n")
    (figs / "f.png").write_bytes(b"\x89PNG")
    (run / "manifest.json").write_text(json.dumps({"config_file": str(worker / "config.yaml"),
        "notebooks": [{"output": str(run / "notebooks" / "13_x.ipynb")}],
        "files": [{"path": str(figs / "f.png")}]}))
    data = run_bundle.pack(run, figs)
    run_bundle.unpack(data, "r1", {"runs": str(run), "figures": str(figs)}, "configs/x.yaml", {"executor": "ray"})
    local = tmp_runs / "r1"
    assert (local / "findings.csv").read_text() == "a,b\n1,2\n"
    assert (tmp_path / "figures" / "r1" / "f.png").read_bytes() == b"\x89PNG"
    text = (local / "manifest.json").read_text()
    assert str(worker) not in text, "no path of the worker's scratch folder may stay in the manifest"
    m = json.loads(text)
    assert m["notebooks"][0]["output"] == str(local / "notebooks" / "13_x.ipynb")
    assert m["config_file"] == "configs/x.yaml" and m["executor"] == {"executor": "ray"}


def test_runner_command_passes_grid_values_as_yaml():
    cmd = runner_command(ROOT / "c.yaml", "r", ["13"], None, {"model": "openai:m@http://h/v1", "n": [1, 2]})
    assert cmd[cmd.index("--only") + 1] == "13"
    from lib.runner import _parse_pairs

    assert _parse_pairs([cmd[i + 1] for i, a in enumerate(cmd)
                                                                       if a == "-p"], "-p") == {
        "model": "openai:m@http://h/v1", "n": [1, 2]}


def test_nothing_but_the_ray_executor_imports_ray():
    code = textwrap.dedent("""
        import sys, importlib, pkgutil
        import lib, lib.runner, lib.cluster, lib.cluster.scratch_run, lib.cluster.resources
        for pkg in ("lib.self_preference", "lib.utility", "lib.rewardbench", "lib.report", "lib.compare"):
            m = importlib.import_module(pkg)
            for info in pkgutil.iter_modules(m.__path__):
                importlib.import_module(f"{pkg}.{info.name}")
        lib.runner.main(["params"])
        print("RAY_LOADED" if any(n == "ray" or n.startswith("ray.") for n in sys.modules) else "RAY_ABSENT")
    """)
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().endswith("RAY_ABSENT"), "a study package, the runner or lib.cluster's plain parts import Ray"
