"""The Ray executor of `sweep`: one run is one Ray task, placed by Ray from the resources its model specs
need; the driver keeps the only results cache (an actor on the driver's node owns it), and every run's
outputs come back as bytes through Ray's object store. Imported only for `--executor ray`."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import ray
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from ..models.specs import parse_spec
from ..paths import cache_dir
from . import cache_transfer, resources as res, run_bundle
from .scratch_run import run_in_scratch

MAX_RETRIES = 2  # a task whose worker or node dies is run again this many times (then the run is failed)
POLL_S = 1.0
LOCAL_START_TRIES = 3


@ray.remote(num_cpus=0, max_restarts=0)
class CacheKeeper:
    """Owns the driver's results cache: hands each task the entries of its models, stores what tasks send
    back as it arrives, and keeps which runs started where (for progress)."""

    def __init__(self, folder: str):
        self.folder = folder
        self.received = 0
        self.starts: list[dict] = []

    def entries_for(self, model_keys: list[str]) -> list[tuple]:
        """The driver's entries of these models (and untagged ones)."""
        return cache_transfer.entries_for(self.folder, model_keys)

    def put(self, entries: list[tuple]) -> int:
        """Store entries a task made; how many were new."""
        self.received += len(entries)
        return cache_transfer.store_entries(self.folder, entries)

    def started(self, run: str, node: str, pid: int) -> None:
        """A task began a run (an attempt: a retried run starts again)."""
        self.starts.append({"run": run, "node": node, "pid": pid})

    def report(self) -> dict:
        """{'starts': [...], 'received': n}."""
        return {"starts": list(self.starts), "received": self.received}


@ray.remote(max_retries=MAX_RETRIES, retry_exceptions=False)
def sweep_run(name: str, config_text: str, overrides: dict, only, kernel, model_keys: list[str], keeper) -> dict:
    """One sweep run on whichever node Ray chose; the result carries the run's outputs."""
    seed = ray.get(keeper.entries_for.remote(model_keys))
    keeper.started.remote(name, ray.get_runtime_context().get_node_id(), os.getpid())
    out = run_in_scratch(name, config_text, overrides, only, kernel, seed,
                         send=lambda entries: ray.get(keeper.put.remote(entries)))
    out["node"] = ray.get_runtime_context().get_node_id()
    return out


def connect(address: str | None) -> bool:
    """ray.init for the sweep: a running cluster at `address` ('auto' finds a local `ray start`), else a Ray
    of this machine alone, kept on loopback. True when this call started the connection."""
    if ray.is_initialized():
        return False
    if address is None:
        # a one-machine Ray needs no network interface: Ray then binds its services to 127.0.0.1
        os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
    if address is not None:
        ray.init(address=address, include_dashboard=False, log_to_driver=False)
        return True
    for attempt in range(LOCAL_START_TRIES):
        try:
            # "local": a new Ray of this machine, even when a cluster started here is running already
            ray.init(address="local", include_dashboard=False, log_to_driver=False,
                     object_store_memory=256 * 2**20)
            return True
        except Exception as e:  # a node whose agent starts slower than Ray's fixed 15 s (Ray issue 65983) fails
            ray.shutdown()
            if attempt == LOCAL_START_TRIES - 1:
                raise RuntimeError(f"Ray did not start on this machine ({e}); a busy machine slows its start, "
                                   "try again or start it yourself (`ray start --head`) and pass --address auto.")
            print(f"[sweep ray] Ray did not start ({e}); starting it again", file=sys.stderr, flush=True)
    return True


def run_sweep(cfg: dict, configs, only, kernel, params: dict, address: str | None,
              resource_overrides: list[str] | None, specs_of) -> list[str]:
    """Run every (name, overrides, config) of a sweep as a Ray task and write each run's outputs where a
    local run would; names of the runs that failed. `specs_of(config)` gives a run's model specs.
    Ctrl-C cancels every task not yet finished."""
    overrides_by_glob = res.parse_overrides(resource_overrides)
    owned = connect(address)
    config_text = Path(cfg["_path"]).read_text()
    here = ray.get_runtime_context().get_node_id()
    keeper = CacheKeeper.options(scheduling_strategy=NodeAffinitySchedulingStrategy(here, soft=False)).remote(
        str(cache_dir() / "results"))
    pending = {}
    try:
        for name, overrides, c in configs:
            specs = specs_of(c)
            options = res.run_resources(name, specs, overrides_by_glob)
            keys = sorted({parse_spec(s).key for s in specs})
            ref = sweep_run.options(**options).remote(name, config_text, {**params, **overrides}, only, kernel,
                                                      keys, keeper)
            pending[ref] = name
            print(f"[sweep ray] {name}: asks {options}", flush=True)
        return _collect(cfg, pending, keeper, len(configs))
    except KeyboardInterrupt:
        for ref in pending:
            ray.cancel(ref, force=True)
        print(f"[sweep ray] interrupted: cancelled {len(pending)} unfinished run(s).", file=sys.stderr, flush=True)
        raise
    finally:
        ray.kill(keeper)
        if owned:
            ray.shutdown()


def _collect(cfg: dict, pending: dict, keeper, total: int) -> list[str]:
    """Wait for the tasks, unpack each finished run, print progress; the failed runs' names."""
    failed, done, shown_starts, last = [], 0, 0, None
    while pending:
        ready, _ = ray.wait(list(pending), num_returns=1, timeout=POLL_S)
        report = ray.get(keeper.report.remote())
        for s in report["starts"][shown_starts:]:
            print(f"[sweep ray] {s['run']}: started on node {s['node'][:8]} (pid {s['pid']})", flush=True)
        shown_starts = len(report["starts"])
        for ref in ready:
            name = pending.pop(ref)
            try:
                out = ray.get(ref)
            except (ray.exceptions.RayError, ray.exceptions.RayTaskError) as e:  # retries used up, or cancelled
                print(f"[sweep ray] {name} failed on the cluster: {str(e).splitlines()[0]}", file=sys.stderr)
                failed.append(name)
                continue
            run_bundle.unpack(out["bundle"], name, out["worker_paths"], cfg["_path"],
                              {"executor": "ray", "node": out["node"], "entries_sent": out["sent"]})
            if out["code"] == 0:
                done += 1
            else:
                print(f"[sweep ray] {name} failed (exit {out['code']}):\n{out['log'][-1500:]}", file=sys.stderr)
                failed.append(name)
        running = len({s["run"] for s in report["starts"]} & set(pending.values()))
        line = (f"[sweep ray] runs done {done} / running {running} / failed {len(failed)} / "
                f"waiting {total - done - len(failed) - running}")
        if line != last:
            print(line, flush=True)
            last = line
    return failed
