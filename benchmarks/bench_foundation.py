"""Foundation benchmarks; prints ratios measured in this one run (README quotes them).

1. warm re-run of the quickstart notebook vs cold (fresh results cache): model calls and time;
2. local batched generation vs one prompt at a time (same prompts, same model, greedy);
3. concurrency against a local OpenAI-compatible endpoint that answers after a fixed delay;
4. the local-model benchmarks of benchmarks/bench_models.py (prefill / decode vs plain transformers and
   the GEMM rate, perplexity before / after, likelihood vs generate-and-parse judgments).

    .venv/bin/python benchmarks/bench_foundation.py [--skip-notebook] [--skip-models] [--prompts 16]
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lib.models import cache  # noqa: E402


def quickstart_warm_vs_cold(fresh_models: bool = False) -> dict:
    """Run 00_quickstart twice against one fresh results cache; with fresh_models the cold run also
    converts the embedded models from GGUF, as the first run on a new machine does."""
    from lib import runner

    os.environ["RAGBIAS_CACHE"] = tempfile.mkdtemp(prefix="bench_cache_")
    if fresh_models:
        os.environ["RAGBIAS_MODELS"] = tempfile.mkdtemp(prefix="bench_models_")
    # fresh_key off: 00's cache demo would otherwise make one new model call on every run, warm ones too
    cfg = runner.load_config(ROOT / "configs" / "demo.yaml", {"fresh_key": False})
    res = {}
    for label in ("cold", "warm"):
        man = runner.run(cfg, "bench_quickstart", ["00"])
        nb = json.loads((ROOT / man["notebooks"][0]["output"]).read_text())
        cells = sum(c["metadata"].get("papermill", {}).get("duration") or 0 for c in nb["cells"])
        res[label] = {"seconds": man["seconds"], "cell_seconds": round(cells, 2), "model_calls": man["cache"]["misses"]}
    res["warm/cold time (whole run incl. kernel start)"] = round(res["warm"]["seconds"] / res["cold"]["seconds"], 4)
    res["warm/cold time (cell execution only)"] = round(res["warm"]["cell_seconds"] / res["cold"]["cell_seconds"], 4)
    return res


def local_batched_vs_single(n: int, max_tokens: int) -> dict:
    """Same greedy prompts through the embedded chat model: batched vs one at a time (no cache)."""
    from lib.models import Request, get_model

    topics = ["volcanoes", "the moon", "honey bees", "glaciers", "the printing press", "tea", "whales",
              "the Roman roads", "coral reefs", "lightning", "the violin", "penguins", "the Silk Road",
              "rainbows", "chess", "the compass", "deserts", "owls", "bridges", "bread"]
    reqs = [Request(messages=[{"role": "user", "content": f"Write two sentences about {topics[i % len(topics)]}."}],
                    max_tokens=max_tokens) for i in range(n)]
    backend = get_model("local:smollm2").backend
    backend.check()  # load the weights before timing
    backend.generate(reqs[:2], lambda i, r: None)  # warm-up
    t0 = time.perf_counter()
    batched = {}
    backend.generate(reqs, lambda i, r: batched.__setitem__(i, r))
    t_batch = time.perf_counter() - t0
    t0 = time.perf_counter()
    single_tokens = 0
    for r in reqs:
        out = []
        backend.generate([r], lambda i, x: out.append(x))
        single_tokens += out[0].tokens_out
    t_single = time.perf_counter() - t0
    return {"prompts": n, "max_tokens": max_tokens, "batch_size": backend.batch_size,
            "batched_seconds": round(t_batch, 2), "single_seconds": round(t_single, 2),
            "tokens_batched": sum(r.tokens_out for r in batched.values()), "tokens_single": single_tokens,
            "speed-up (single/batched)": round(t_single / t_batch, 2)}


def api_concurrency(workers: int, delay: float, n: int) -> dict:
    """Requests per second against a local endpoint answering after `delay` s, vs the goal."""
    sys.path.insert(0, str(ROOT / "tests"))
    from fake_openai import FakeOpenAI

    from lib.models.backends.openai_api import OpenAIBackend
    from lib.models import CachedModel, Request
    from lib.models.specs import parse_spec

    os.environ["RAGBIAS_CACHE"] = tempfile.mkdtemp(prefix="bench_api_")
    cache.close_all()
    with FakeOpenAI(delay=delay) as srv:
        spec = parse_spec(f"openai:bench@{srv.url}")
        model = CachedModel(spec, OpenAIBackend(spec, workers=workers))
        reqs = [Request(messages=[{"role": "user", "content": f"q{i}"}]) for i in range(n)]
        t0 = time.perf_counter()
        model.generate(reqs)
        elapsed = time.perf_counter() - t0
    rps = n / elapsed
    goal = 0.8 * workers / delay
    return {"requests": n, "workers": workers, "delay_s": delay, "requests_per_s": round(rps, 2),
            "goal_rps (0.8 x workers / delay)": goal, "ratio to goal": round(rps / goal, 2),
            "one-at-a-time with 0.3 s sleep (published code), rps": round(1 / (delay + 0.3), 2),
            "speed-up vs published loop": round(rps * (delay + 0.3), 1)}


def main() -> None:
    """Run the three benchmarks and print one JSON report."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--skip-notebook", action="store_true")
    ap.add_argument("--only-notebook", action="store_true", help="only the quickstart warm-vs-cold runs")
    ap.add_argument("--fresh-models", action="store_true", help="cold run also converts the GGUF models")
    ap.add_argument("--skip-models", action="store_true", help="skip benchmarks/bench_models.py")
    ap.add_argument("--prompts", type=int, default=16)
    ap.add_argument("--max-tokens", type=int, default=32)
    ap.add_argument("--workers", type=int, default=8)
    ap.add_argument("--delay", type=float, default=0.25)
    args = ap.parse_args()
    report = {}
    if not args.only_notebook:
        report["api_concurrency"] = api_concurrency(args.workers, args.delay, 80)
        print(json.dumps(report, indent=1), flush=True)
        report["local_batched_vs_single"] = local_batched_vs_single(args.prompts, args.max_tokens)
        print(json.dumps(report["local_batched_vs_single"], indent=1), flush=True)
    if not args.only_notebook and not args.skip_models:
        from benchmarks.bench_models import run_all

        report["models"] = run_all()
    if not args.skip_notebook:
        report["quickstart_warm_vs_cold"] = quickstart_warm_vs_cold(args.fresh_models)
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
