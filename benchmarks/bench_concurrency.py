"""Requests in flight against an OpenAI-compatible server (issue 30): the fake server of
tests/fake_openai.py in its own process, answering every request after `--delay` seconds; our client
(CachedModel over OpenAIBackend: coroutines on one event loop thread, lib/models/backends/async_http.py;
a fresh temporary cache) sends `--rounds` x N requests with the spec option `;concurrency:N`. Ideal is
N / delay requests/s; the server reports how many it saw at once. Client CPU per request is this
process's CPU time over the batch (the server's is not in it), the figure that does not depend on the
machine's load; the load average is printed with the table, as the ratio does depend on it.

    .venv/bin/python benchmarks/bench_concurrency.py [--delay 0.5] [--levels 8,64,256,1024] [--rounds 8] [--client sdk|aiohttp]

`--client sdk` sends the same requests with the `openai` SDK's AsyncOpenAI on its aiohttp transport
(DefaultAioHttpClient), N at once under a semaphore, replies as plain JSON, no cache: what the SDK on the
request path would cost, against our client's figures. `--client aiohttp` sends them with bare aiohttp
(no retries, no cache): the floor under both, which tells a limit of the machine or the server from
one of our client.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def start_server(delay: float) -> tuple[subprocess.Popen, str]:
    """The fake server in a child process, and its URL (it stops by itself after 10 minutes)."""
    proc = subprocess.Popen([sys.executable, "-m", "tests.fake_openai", "--delay", str(delay), "--seconds", "600"],
                            cwd=ROOT, stdout=subprocess.PIPE, text=True)
    return proc, proc.stdout.readline().strip()


def process_cpu(pid: int) -> float:
    """User + system CPU seconds of a running process so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime: fields 14 and 15


def _row(in_flight: int, n: int, seconds: float, cpu: float, delay: float, after: dict, server_cpu: float) -> dict:
    """One level's figures: requests/s against ideal (in_flight / delay), client and server CPU per
    request, and the CPU the ideal rate would need (cores: ideal rate x both CPU times)."""
    ideal = in_flight / delay
    return {"in_flight": in_flight, "requests": n, "seconds": round(seconds, 2),
            "requests_per_s": round(n / seconds, 1), "ideal_per_s": round(ideal, 1),
            "ratio": round(n / seconds / ideal, 3), "server_max_in_flight": after["max_in_flight"],
            "client_cpu_ms_per_request": round(1000 * cpu / n, 2),
            "server_cpu_ms_per_request": round(1000 * server_cpu / n, 2),
            "cores_at_ideal": round(ideal * (cpu + server_cpu) / n, 2)}


def one_level(url: str, in_flight: int, delay: float, rounds: int, server_pid: int) -> dict:
    """requests/s at `in_flight` requests in flight, against ideal (in_flight / delay)."""
    from lib.models import Request, get_model

    before = json.loads(urllib.request.urlopen(url + "/stats").read())
    model = get_model(f"openai:fake-model@{url};concurrency:{in_flight}")
    n = rounds * in_flight
    stamp = time.time_ns()  # new prompts every run: nothing comes from the cache
    requests = [Request(messages=[{"role": "user", "content": f"q{stamp}-{i}"}], max_tokens=4) for i in range(n)]
    model.check()  # connect first: the timing covers requests only
    t0, cpu0, server0 = time.perf_counter(), time.process_time(), process_cpu(server_pid)
    replies = model.generate(requests)
    seconds, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    server_cpu = process_cpu(server_pid) - server0
    after = json.loads(urllib.request.urlopen(url + "/stats").read())
    assert len(replies) == n and after["calls"] - before["calls"] == n, "every request must reach the server"
    return _row(in_flight, n, seconds, cpu, delay, after, server_cpu)


async def _timed(server_pid: int, n: int, one) -> tuple:
    """`one(i)` for every i < n at once (each passes its caller's gate): the replies, wall seconds, this
    process's CPU seconds and the server's."""
    import asyncio

    t0, cpu0, server0 = time.perf_counter(), time.process_time(), process_cpu(server_pid)
    replies = await asyncio.gather(*(one(i) for i in range(n)))
    return replies, time.perf_counter() - t0, time.process_time() - cpu0, process_cpu(server_pid) - server0


def _checked_row(url: str, before: dict, got: tuple, in_flight: int, n: int, delay: float) -> dict:
    """A level's row, once every request is known to have reached the server."""
    replies, seconds, cpu, server_cpu = got
    after = json.loads(urllib.request.urlopen(url + "/stats").read())
    assert len(replies) == n and after["calls"] - before["calls"] == n, "every request must reach the server"
    return _row(in_flight, n, seconds, cpu, delay, after, server_cpu)


def one_level_sdk(url: str, in_flight: int, delay: float, rounds: int, server_pid: int) -> dict:
    """The same measurement with AsyncOpenAI on aiohttp (the SDK's retry policy, no cache)."""
    import asyncio

    import openai

    before = json.loads(urllib.request.urlopen(url + "/stats").read())
    n = rounds * in_flight
    stamp = time.time_ns()

    async def send_all():
        async with openai.AsyncOpenAI(api_key="EMPTY", base_url=url, max_retries=6,
                                      http_client=openai.DefaultAioHttpClient(
                                          limits=__import__("httpx").Limits(max_connections=in_flight))) as client:
            gate = asyncio.Semaphore(in_flight)

            async def one(i):
                async with gate:
                    return await client.chat.completions.with_raw_response.create(
                        model="fake-model", max_tokens=4, messages=[{"role": "user", "content": f"q{stamp}-{i}"}])
            await client.models.list()  # connect first: the timing covers requests only
            return await _timed(server_pid, n, one)
    return _checked_row(url, before, asyncio.run(send_all()), in_flight, n, delay)


def one_level_aiohttp(url: str, in_flight: int, delay: float, rounds: int, server_pid: int) -> dict:
    """The yardstick: bare aiohttp (one session, N at once under a semaphore, JSON in and out, no retry,
    no cache), the floor under any client on this transport: where it misses the ideal rate too, the
    machine or the server is the limit, not our client."""
    import asyncio

    import aiohttp

    before = json.loads(urllib.request.urlopen(url + "/stats").read())
    n = rounds * in_flight
    stamp = time.time_ns()

    async def send_all():
        connector = aiohttp.TCPConnector(limit=in_flight + 16, limit_per_host=0)
        async with aiohttp.ClientSession(connector=connector, headers={"Content-Type": "application/json"}) as s:
            gate = asyncio.Semaphore(in_flight)

            async def one(i):
                body = {"model": "fake-model", "max_tokens": 4, "messages": [{"role": "user", "content": f"q{stamp}-{i}"}]}
                async with gate, s.post(url + "/chat/completions", data=json.dumps(body)) as resp:
                    return json.loads(await resp.read())
            await (await s.get(url + "/models")).read()  # connect first: the timing covers requests only
            return await _timed(server_pid, n, one)
    return _checked_row(url, before, asyncio.run(send_all()), in_flight, n, delay)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--delay", type=float, default=0.5)
    ap.add_argument("--levels", default="8,64,256,1024")
    ap.add_argument("--rounds", type=int, default=8)
    ap.add_argument("--client", choices=("ours", "sdk", "aiohttp"), default="ours",
                    help="ours: CachedModel over OpenAIBackend; sdk: AsyncOpenAI on aiohttp; aiohttp: bare aiohttp")
    args = ap.parse_args()
    os.environ["RAGBIAS_CACHE"] = tempfile.mkdtemp(prefix="bench-concurrency-")
    proc, url = start_server(args.delay)
    try:
        level = {"ours": one_level, "sdk": one_level_sdk, "aiohttp": one_level_aiohttp}[args.client]
        rows = [level(url, int(n), args.delay, args.rounds, proc.pid) for n in args.levels.split(",")]
    finally:
        proc.terminate()
        proc.wait(10)
    print(f"load average (1 / 5 / 15 min) at the end: {' / '.join(f'{x:.1f}' for x in os.getloadavg())} "
          f"on {os.cpu_count()} cores")
    print("| in flight | requests | seconds | requests/s | ideal | ratio | server saw at once | client CPU ms / request "
          "| server CPU ms / request | cores the ideal rate needs |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        print(f"| {r['in_flight']} | {r['requests']} | {r['seconds']} | {r['requests_per_s']} | {r['ideal_per_s']} "
              f"| {r['ratio']} | {r['server_max_in_flight']} | {r['client_cpu_ms_per_request']} "
              f"| {r['server_cpu_ms_per_request']} | {r['cores_at_ideal']} |")
    print(json.dumps(rows))


if __name__ == "__main__":
    main()
