"""`sweep --jobs` speed-up: a two-model sweep against a slow OpenAI-compatible server (the test suite's
fake server, answering after a fixed delay), run with --jobs 1 and --jobs 2 from empty caches; prints
wall times, the ratio and the load average (the machine may be shared: the ratio is the claim).

    .venv/bin/python benchmarks/bench_sweep_jobs.py [--delay 1.0] [--pairs 4]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from fake_openai import FakeOpenAI  # noqa: E402


def sweep_config(url: str, n_per_category: int, folder: Path) -> Path:
    """A sweep of notebook 13 (a generate-and-parse judge on the demo pairs) over two models that the
    fake server serves: every model call goes to the slow server, none to a local model."""
    path = folder / "sweep.yaml"
    path.write_text(yaml.safe_dump({
        "run": "bench_jobs", "notebooks": ["13"],
        "per_notebook": {"13_rewardbench": {"n_per_category": n_per_category,
                                            "reward_models": ["judge:local:smollm2;retries:0;max_tokens:8"]}},
        "sweep": {"model": [f"openai:model-a@{url}", f"openai:model-b@{url}"]}}))
    return path


def timed_sweep(config: Path, jobs: int, folder: Path) -> dict:
    """One sweep from an empty results cache into its own runs folder: wall seconds and statuses."""
    env = {**os.environ, "RAGBIAS_CACHE": str(folder / f"cache_{jobs}"), "RAGBIAS_RUNS": str(folder / f"runs_{jobs}"),
           "RAGBIAS_FIGURES": str(folder / f"figures_{jobs}"), "PYTHONPATH": str(ROOT)}
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "lib.runner", "sweep", str(config), "--jobs", str(jobs)],
                          cwd=ROOT, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if done.returncode != 0:
        raise SystemExit(f"sweep --jobs {jobs} failed:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    runs = sorted((folder / f"runs_{jobs}").glob("bench_jobs__*/manifest.json"))
    per_run = {p.parent.name: json.loads(p.read_text())["seconds"] for p in runs}
    return {"wall_seconds": round(wall, 2), "run_seconds": per_run}


def sweep_arguments(doc: str, pairs: int) -> argparse.Namespace:
    """--delay and --pairs, the options of the sweep benchmarks (this one and bench_sweep_executors.py)."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--delay", type=float, default=1.0, help="seconds the server waits before each answer")
    ap.add_argument("--pairs", type=int, default=pairs, help="demo pairs per category in notebook 13 (3 categories)")
    return ap.parse_args()


def main() -> None:
    """Run the sweep with --jobs 1, then --jobs 2, and print one JSON report."""
    args = sweep_arguments(__doc__, pairs=4)
    folder = Path(tempfile.mkdtemp(prefix="bench_jobs_"))
    with FakeOpenAI(delay=args.delay) as server:
        config = sweep_config(server.url, args.pairs, folder)
        load_before = os.getloadavg()
        one = timed_sweep(config, 1, folder)
        two = timed_sweep(config, 2, folder)
        load_after = os.getloadavg()
        requests = server.calls
    print(json.dumps({"server_delay_s": args.delay, "notebook": "13_rewardbench", "pairs_per_category": args.pairs, "runs": 2,
                      "requests_served": requests, "jobs_1": one, "jobs_2": two,
                      "speed-up (jobs 1 / jobs 2 wall time)": round(one["wall_seconds"] / two["wall_seconds"], 2),
                      "cpus": os.cpu_count(), "load_average_before": [round(x, 2) for x in load_before],
                      "load_average_after": [round(x, 2) for x in load_after]}, indent=1))


if __name__ == "__main__":
    main()
