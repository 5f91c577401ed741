"""Effect of dynamic int8 quantization on results, measured on the demo data (README quotes it).

For 40 demo items (questions and passages from data/demo), float32 vs ';int8' of the same model:
- SmolLM2, pointwise RAG prompt (v2 appendix B.1): share of identical greedy replies, parse rate,
  mean parsed rating; likelihood ratings (next-token distribution over "1".."5" after "###"): mean
  |delta log-prob|, share of identical argmax ratings, mean expected rating;
- SmolLM2, generation-phase prompt with the true passage and a conflicting copy (answer swapped for
  another item's answer): identical greedy replies, share choosing passage 1 by likelihood;
- gemma3: perplexity of the 40 human passages, mean |delta log perplexity| and rank correlation.
Also the seconds each model took. Runs with an empty, temporary results cache.

    .venv/bin/python benchmarks/int8_effect.py [--n 40]
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def demo_items(n: int) -> list[dict]:
    """n demo items, taken round-robin from the three QA sources so each source is represented."""
    from lib.records import read_records

    sources = [read_records(ROOT / "data" / "demo" / f"{s}.jsonl") for s in ("nq", "triviaqa", "marco")]
    items = [src[i] for i in range(max(map(len, sources))) for src in sources if i < len(src)]
    return items[:n]


def conflicting(item: dict, other: dict) -> str:
    """The item's passage with its answer replaced by another item's answer (a conflicting passage)."""
    return item["human_passage"].replace(item["answer"], other["answer"])


def _mean(xs) -> float:
    xs = [x for x in xs if x is not None and not math.isnan(x)]
    return round(sum(xs) / len(xs), 4) if xs else math.nan


def judge(spec: str, items: list[dict]) -> dict:
    """Replies, likelihood ratings and choices of one chat model on the demo prompts."""
    from lib.models import get_model
    from lib.pointwise import parse_score
    from lib.prompts import self_preference as sp

    m = get_model(spec)
    m.backend.check()
    t0 = time.perf_counter()
    rate = [m.request(sp.pointwise_rag_prompt(it["question"], it["human_passage"]), max_tokens=16) for it in items]
    replies = [r.text for r in m.generate(rate)]
    parsed = [parse_score(t).value for t in replies]
    digits = ["1", "2", "3", "4", "5"]
    lps = m.option_logprobs([(r.messages, "###", digits) for r in rate])
    gen_items = [it for it in items if it["answer"] in it["human_passage"]]
    others = gen_items[1:] + gen_items[:1]
    gen = [m.request(sp.generation_phase_prompt(it["question"], it["human_passage"], conflicting(it, o)),
                     max_tokens=32) for it, o in zip(gen_items, others)]
    gen_replies = [r.text for r in m.generate(gen)]
    choice = m.option_logprobs([(r.messages, "", [it["answer"], o["answer"]])
                                for r, it, o in zip(gen, gen_items, others)])
    return {"seconds": time.perf_counter() - t0, "replies": replies, "parsed": parsed, "lps": lps,
            "gen_replies": gen_replies, "choice": choice}


def expected(lp: list[float]) -> float:
    """Expected rating 1..5 from the five option log-probabilities (renormalized)."""
    w = [math.exp(v - max(lp)) for v in lp]
    return sum((k + 1) * x for k, x in enumerate(w)) / sum(w)


def compare_chat(a: dict, b: dict) -> dict:
    """float32 (a) vs int8 (b) numbers for the chat-model prompts."""
    n = len(a["replies"])
    argmax = lambda lp: max(range(len(lp)), key=lp.__getitem__)  # noqa: E731
    deltas = [abs(x - y) for la, lb in zip(a["lps"], b["lps"]) for x, y in zip(la, lb)]
    pick1 = lambda d: [c[0] > c[1] for c in d["choice"]]  # noqa: E731
    return {
        "n pointwise prompts": n,
        "identical greedy pointwise replies": round(sum(x == y for x, y in zip(a["replies"], b["replies"])) / n, 3),
        "parse rate fp32 / int8": [round(sum(p is not None for p in d["parsed"]) / n, 3) for d in (a, b)],
        "mean parsed rating fp32 / int8": [_mean(d["parsed"]) for d in (a, b)],
        "likelihood rating: mean |delta log-prob| over 5 digits": round(sum(deltas) / len(deltas), 4),
        "likelihood rating: identical argmax": round(
            sum(argmax(x) == argmax(y) for x, y in zip(a["lps"], b["lps"])) / n, 3),
        "likelihood rating: mean expected rating fp32 / int8": [_mean(map(expected, d["lps"])) for d in (a, b)],
        "n generation-phase prompts": len(a["gen_replies"]),
        "identical greedy generation replies": round(sum(x == y for x, y in zip(a["gen_replies"], b["gen_replies"]))
                                                     / len(a["gen_replies"]), 3),
        "likelihood choice of passage 1, share fp32 / int8": [round(_mean(map(float, pick1(d))), 3) for d in (a, b)],
        "likelihood choice: identical": round(_mean(float(x == y) for x, y in zip(pick1(a), pick1(b))), 3),
        "seconds fp32 / int8": [round(d["seconds"], 1) for d in (a, b)],
    }


def compare_perplexity(items: list[dict], base: str = "local:gemma3") -> dict:
    """Perplexity of the human passages under the base LM in float32 and int8."""
    from scipy.stats import spearmanr

    from lib.models.perplexity import perplexity

    texts = [it["human_passage"] for it in items]
    out, secs = {}, {}
    for spec in (base, base + ";int8"):
        perplexity(texts[:1], model=spec)  # load the weights outside the timing
        t0 = time.perf_counter()
        out[spec] = perplexity(texts, model=spec)
        secs[spec] = round(time.perf_counter() - t0, 1)
    a, b = out[base], out[base + ";int8"]
    return {"n passages": len(texts),
            "mean |delta log perplexity|": round(_mean(abs(math.log(x) - math.log(y)) for x, y in zip(a, b)), 4),
            "mean perplexity fp32 / int8": [_mean(a), _mean(b)],
            "spearman rho fp32 vs int8": round(float(spearmanr(a, b).statistic), 4),
            "seconds fp32 / int8 (first text excluded)": list(secs.values())}


def main() -> None:
    """Run both comparisons and print one JSON report."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=int, default=40)
    ap.add_argument("--chat", default="local:smollm2")
    args = ap.parse_args()
    os.environ["RAGBIAS_CACHE"] = tempfile.mkdtemp(prefix="int8_effect_")
    items = demo_items(args.n)
    report = {"threads": int(os.environ.get("RAGBIAS_THREADS") or os.cpu_count())}
    report["chat"] = compare_chat(judge(args.chat, items), judge(args.chat + ";int8", items))
    print(json.dumps(report, indent=1), flush=True)
    report["perplexity"] = compare_perplexity(items)
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
