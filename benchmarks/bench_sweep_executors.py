"""`sweep --executor ray` against `sweep --jobs 2` on one machine, for the same sweep: notebook 13 over two
models that the test suite's fake OpenAI-compatible server answers after a fixed delay (bench_sweep_jobs.py's
sweep), each from an empty results cache. Ray here is the one the sweep starts on this machine (no --address),
so its start-up is part of the overhead, as it is for a user. Prints one JSON report with the wall times,
the overhead in seconds and the load average.

    .venv/bin/python benchmarks/bench_sweep_executors.py [--delay 1.0] [--pairs 2]
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_sweep_jobs import sweep_arguments, sweep_config  # noqa: E402  (the --jobs benchmark's sweep)
from fake_openai import FakeOpenAI  # noqa: E402


def timed(config: Path, label: str, extra: list[str], folder: Path) -> dict:
    """One sweep from an empty cache into its own folders: wall seconds and each run's own seconds."""
    env = {**os.environ, "RAGBIAS_CACHE": str(folder / f"cache_{label}"), "RAGBIAS_RUNS": str(folder / f"runs_{label}"),
           "RAGBIAS_FIGURES": str(folder / f"figures_{label}"), "PYTHONPATH": str(ROOT),
           "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"}  # this machine's Ray stays on loopback
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "lib.runner", "sweep", str(config), *extra], cwd=ROOT, env=env,
                          capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if done.returncode != 0:
        raise SystemExit(f"sweep {label} failed:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    runs = sorted((folder / f"runs_{label}").glob("bench_jobs__*/manifest.json"))
    return {"wall_seconds": round(wall, 2),
            "run_seconds": {p.parent.name: json.loads(p.read_text())["seconds"] for p in runs}}


def main() -> None:
    """Run the sweep with --jobs 2, then with --executor ray, and print one JSON report."""
    args = sweep_arguments(__doc__, pairs=2)
    folder = Path(tempfile.mkdtemp(prefix="bench_executors_"))
    with FakeOpenAI(delay=args.delay) as server:
        config = sweep_config(server.url, args.pairs, folder)
        load_before = os.getloadavg()
        jobs = timed(config, "jobs2", ["--jobs", "2"], folder)
        ray_ = timed(config, "ray", ["--executor", "ray"], folder)
        load_after = os.getloadavg()
        requests = server.calls
    print(json.dumps({"server_delay_s": args.delay, "notebook": "13_rewardbench", "pairs_per_category": args.pairs,
                      "runs": 2, "requests_served": requests, "jobs_2": jobs, "executor_ray": ray_,
                      "ray overhead (s, ray wall - jobs 2 wall)": round(ray_["wall_seconds"] - jobs["wall_seconds"], 2),
                      "cpus": os.cpu_count(), "load_average_before": [round(x, 2) for x in load_before],
                      "load_average_after": [round(x, 2) for x in load_after]}, indent=1))


if __name__ == "__main__":
    main()
