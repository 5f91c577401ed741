"""One sweep run on a node without the driver's filesystem: in a scratch folder, with a results cache seeded
from the driver's entries, sending each new entry on while the notebooks run. Plain Python: the caller
gives `send`, the way entries reach the driver (a Ray actor in ray_executor)."""
from __future__ import annotations

import ctypes
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from ..paths import ROOT
from . import cache_transfer, run_bundle

PR_SET_PDEATHSIG = 1
FORWARD_EVERY_S = 0.2  # how often new cache entries go to the driver: the most a dying node can lose


def _die_with_parent() -> None:
    """In the child before exec: SIGKILL it when the process that started it dies (a worker killed hard),
    so no runner keeps calling models for a task Ray has already retried elsewhere. Its kernel follows:
    ipykernel exits when its parent (the runner) is gone."""
    with_libc = ctypes.CDLL("libc.so.6", use_errno=True)
    with_libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def runner_command(config: Path, name: str, only, kernel, overrides: dict) -> list[str]:
    """`python -m lib.runner run` for one sweep run; grid values as -p key=<JSON> (JSON is YAML)."""
    cmd = [sys.executable, "-m", "lib.runner", "run", str(config), "--run", name]
    cmd += ["--only", ",".join(only)] if only else []
    cmd += ["--kernel", kernel] if kernel else []
    for k, v in overrides.items():
        cmd += ["-p", f"{k}={json.dumps(v)}"]
    return cmd


class Forwarder(threading.Thread):
    """Sends the entries a cache gains after `start_rowid` through `send`, every FORWARD_EVERY_S, and once
    more after stop()."""

    def __init__(self, folder: Path, start_rowid: int, send):
        super().__init__(daemon=True)
        self.folder, self.rowid, self.send = folder, start_rowid, send
        self.sent = 0
        self._halt = threading.Event()

    def flush(self) -> None:
        """Send what is new now."""
        entries, self.rowid = cache_transfer.entries_after(self.folder, self.rowid)
        if entries:
            self.send(entries)
            self.sent += len(entries)

    def run(self):
        while not self._halt.wait(FORWARD_EVERY_S):
            self.flush()

    def stop(self) -> None:
        """Stop the loop and send the last entries."""
        self._halt.set()
        self.join()
        self.flush()


def run_in_scratch(name: str, config_text: str, overrides: dict, only, kernel, seed_entries, send,
                   scratch_root: str | None = None) -> dict:
    """Run one sweep run in a fresh scratch folder and return {'code', 'log', 'bundle', 'worker_paths',
    'sent'}; the scratch folder is removed afterwards."""
    scratch = Path(tempfile.mkdtemp(prefix=f"ragbias-{name[:40]}-", dir=scratch_root))
    try:
        results = scratch / "cache" / "results"  # where lib.models.cache puts it under RAGBIAS_CACHE
        cache_transfer.store_entries(results, seed_entries)
        forwarder = Forwarder(results, cache_transfer.last_rowid(results), send)
        config = scratch / "config.yaml"
        config.write_text(config_text)
        env = {**os.environ, "RAGBIAS_CACHE": str(scratch / "cache"), "RAGBIAS_RUNS": str(scratch / "runs"),
               "RAGBIAS_FIGURES": str(scratch / "figures")}
        forwarder.start()
        try:
            done = subprocess.run(runner_command(config, name, only, kernel, overrides), cwd=ROOT, env=env,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                  preexec_fn=_die_with_parent)
        finally:
            forwarder.stop()
        worker_paths = {"runs": str(scratch / "runs" / name), "figures": str(scratch / "figures" / name)}
        return {"code": done.returncode, "log": done.stdout[-4000:], "sent": forwarder.sent,
                "bundle": run_bundle.pack(Path(worker_paths["runs"]), Path(worker_paths["figures"])),
                "worker_paths": worker_paths}
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
