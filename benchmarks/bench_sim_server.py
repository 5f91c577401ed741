"""The simulator's cost per request, served and sent as a papers'-size run sends them: notebook 10-12's
utility judgments (10 pointwise, one listwise-set and one listwise-rank prompt per question, 10
passages each) over a synthetic candidate file, through the project's own HTTP client at the runner's
in-flight limit for a server on this machine. The simulator runs as its own process
(`python -m lib.simulate serve`), so its CPU time and the client's are counted apart.

    .venv/bin/python benchmarks/bench_sim_server.py [--questions 400] [--concurrency 64] [--repeats 3]

Prints requests per second and CPU milliseconds per request for the simulator and for the client
(median of the repeats), and the simulator's share of the CPU. Linux (reads /proc for the server's CPU).
"""
from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

WORDS = ("river harbour council treaty engine orbit census ballad glacier festival monarch canal "
         "vaccine railway senate comet archive delta tariff opera").split()


def candidate_rows(n: int, rng: random.Random) -> list[dict]:
    """n questions of 10 passages each (1 ground truth, 3 counterfactual, 6 noisy), as 09 writes them."""
    def text(k):
        return " ".join(rng.choice(WORDS) for _ in range(k)).capitalize() + "."

    rows = []
    for i in range(n):
        passages = [text(90) for _ in range(10)]
        types = ["ground_truth"] + ["counterfactual"] * 3 + ["noisy"] * 6
        rows.append({"question": f"Which {rng.choice(WORDS)} was named in year {1800 + i}?", "answer": rng.choice(WORDS),
                     "passage": passages, "passages_types": types, "source": "nq"})
    return rows


def bodies(rows: list[dict]) -> list[dict]:
    """The chat requests 10-12 send for these questions: pointwise per passage, listwise set and rank."""
    from lib.prompts.utility import judgment_messages

    out = []
    for row in rows:
        q, ps = row["question"], row["passage"]
        msgs = [judgment_messages(q, [p], "utility", "pointwise") for p in ps]
        msgs += [judgment_messages(q, ps, "utility", form) for form in ("listwise-set", "listwise-rank")]
        out += [{"model": "sim", "messages": m, "max_tokens": 256, "temperature": 0.0} for m in msgs]
    return out


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process so far (/proc/<pid>/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wait_for(url: str, seconds: float = 60) -> None:
    end = time.time() + seconds
    while time.time() < end:
        try:
            urllib.request.urlopen(url + "/models", timeout=2).read()
            return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"the simulator did not answer at {url} within {seconds} s")


def one_round(url: str, requests: list[dict], concurrency: int) -> tuple[float, float]:
    """(wall seconds, client CPU seconds) to send every request once and read every reply."""
    from lib.models.backends.async_http import ServerSession
    from lib.models.backends.inflight import InFlightLimit

    session = ServerSession(url, "none", InFlightLimit(concurrency), max_retries=0, timeout=120)

    async def job(body):
        return await session.request("POST", "/chat/completions", body)

    wall, cpu = time.perf_counter(), time.process_time()
    for _, got in session.map(job, requests):
        if isinstance(got, Exception):
            raise got
    return time.perf_counter() - wall, time.process_time() - cpu


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--questions", type=int, default=400)
    ap.add_argument("--concurrency", type=int, default=64, help="requests in flight (the runner's default: 64)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--port", type=int, default=18631)
    args = ap.parse_args(argv)
    rows = candidate_rows(args.questions, random.Random(0))
    with tempfile.TemporaryDirectory() as tmp:
        run = Path(tmp) / "bench"
        run.mkdir()
        (run / "utility_gti.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        env = {**os.environ, "RAGBIAS_RUNS": tmp}
        server = subprocess.Popen([sys.executable, "-m", "lib.simulate", "serve", "--truth", "configs/known_truth.yaml",
                                   "--port", str(args.port), "--run", "bench"], cwd=ROOT, env=env,
                                  stdout=subprocess.DEVNULL)
        url = f"http://127.0.0.1:{args.port}/v1"
        try:
            wait_for(url)
            results = []
            for r in range(args.repeats):
                # a new seed per repeat: new draw keys, so no reply is served from anything remembered
                requests = [{**b, "seed": r} for b in bodies(rows)]
                before = cpu_seconds(server.pid)
                wall, client = one_round(url, requests, args.concurrency)
                served = cpu_seconds(server.pid) - before
                results.append((len(requests) / wall, 1000 * served / len(requests), 1000 * client / len(requests)))
                print(f"repeat {r + 1}: {len(requests)} requests in {wall:.1f} s: {results[-1][0]:.0f} per second; "
                      f"CPU per request: simulator {results[-1][1]:.2f} ms, client {results[-1][2]:.2f} ms", flush=True)
        finally:
            server.terminate()
            server.wait(timeout=30)
    rate, sim, client = (statistics.median(x) for x in zip(*results))
    print(f"median of {args.repeats}: {rate:.0f} requests per second; CPU per request: simulator {sim:.2f} ms, "
          f"client {client:.2f} ms; simulator / client CPU = {sim / client:.2f}; load average {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
