"""Local-model benchmarks (issue 11); each ratio compares two ways of doing the same work in this run.

1. this machine's float32 matrix-multiply rate (torch GEMM GFLOP/s), the reference for FLOP fractions;
2. SmolLM2 prefill and decode tokens/s: our backend (length-sorted left-padded batches, rows from a
   token budget, all cores, float32 and int8) vs plain transformers one prompt at a time (float32,
   same threads), on long pointwise prompts and on shorter passage-rewriting prompts, plus the achieved
   GFLOP/s as a fraction of the GEMM rate; one pass over a prompt shared by its two answers (06) vs
   one full pass per answer;
3. perplexity tokens/s with gemma3: before (full float32 log-softmax over the 262k vocabulary) vs
   after (target tokens only, head in chunks), with the before/after peak-memory growth;
4. one likelihood judgment (option_logprobs over "1".."5") vs one generate-and-parse judgment
   (16 generated tokens), both batched, per judgment.

    .venv/bin/python benchmarks/bench_models.py [--repeats 2]
"""
from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _interleaved(fns: dict, repeats: int) -> tuple[dict, dict]:
    """Fastest time and last result of each function, run in turn (A, B, A, B, ...) so that another
    process's load on this shared machine hits every variant alike."""
    times, results = {k: [] for k in fns}, {}
    for _ in range(repeats):
        for name, fn in fns.items():
            t0 = time.perf_counter()
            results[name] = fn()
            times[name].append(time.perf_counter() - t0)
    return {k: min(v) for k, v in times.items()}, results


def gemm_peak(n: int = 1536, seconds: float = 1.0, tries: int = 3) -> float:
    """float32 GFLOP/s of torch's n x n matrix multiply with this process's threads: the best of
    `tries` one-second runs (on a shared machine the best run is the closest to the hardware's rate)."""
    import torch

    a, b = torch.randn(n, n), torch.randn(n, n)
    a @ b  # warm-up
    best = 0.0
    for _ in range(tries):
        reps, t0 = 0, time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            a @ b
            reps += 1
        best = max(best, 2 * n ** 3 * reps / (time.perf_counter() - t0) / 1e9)
    return best


def linear_params(model) -> int:
    """Weights of every Linear layer incl. the output head: 2 FLOPs each per token (attention excluded)."""
    import torch

    total = 0
    for mod in model.modules():
        if isinstance(mod, torch.nn.Linear):
            total += mod.weight.numel()
        elif "quantized.dynamic" in type(mod).__module__ and hasattr(mod, "weight"):
            total += mod.weight().numel()
    return total


def long_prompts(n: int) -> list[str]:
    """Pointwise RAG prompts from the demo data (about 700 tokens each: question, passage, two negatives)."""
    from benchmarks.int8_effect import demo_items
    from lib.prompts import self_preference as sp

    out = []
    for it in demo_items(n):
        passage = " ".join([it["human_passage"]] + [neg["text"] for neg in it.get("negatives", [])[:2]])
        out.append(sp.pointwise_rag_prompt(it["question"], passage))
    return out


def rewrite_prompts(n: int) -> list[str]:
    """Passage-rewriting prompts from the demo data (about 200 tokens each), as notebook 02 sends them."""
    from benchmarks.int8_effect import demo_items
    from lib.prompts import self_preference as sp

    return [sp.rewrite_prompt(it["human_passage"]) for it in demo_items(n)]


def prefill_decode(prompts: list[str], new_tokens: int, repeats: int) -> dict:
    """Prefill and decode tokens/s: our backend's batches (token budget, fp32 and int8) vs plain
    transformers one prompt at a time (fp32, same threads, no padding)."""
    import torch

    from lib.models.backends import transformers_lm as T
    from lib.models.backends.transformers_lm import TransformersBackend, threads
    from lib.models.specs import parse_spec

    msgs = [[{"role": "user", "content": p}] for p in prompts]
    n_prompts = len(prompts)
    peak = gemm_peak()
    fns, flops, n_in, rows = {}, {}, 0, []
    for label, spec in (("ours fp32 batched", "local:smollm2"), ("ours int8 batched", "local:smollm2;int8")):
        be = TransformersBackend(parse_spec(spec))
        model, tok = be.model, be.tokenizer
        texts = [tok.apply_chat_template(m, tokenize=False, add_generation_prompt=True) for m in msgs]
        # the backend's own batches without prefix reuse (length-sorted, rows from the prefill token
        # budget, left-padded): this measures the prefill rate; bench_prefix_reuse.py measures the reuse
        T.REUSE_PREFIXES = False
        tok.padding_side = "left"
        ids = tok(texts, add_special_tokens=True)["input_ids"]
        chunks = [tok([texts[i] for i in c], return_tensors="pt", padding=True, add_special_tokens=True)
                  for c in be.prompt_batches(ids)]
        T.REUSE_PREFIXES = True
        rows = [int(e["input_ids"].shape[0]) for e in chunks]
        n_in = sum(int(e["attention_mask"].sum()) for e in chunks)
        flops[label] = 2 * linear_params(model)
        gen = dict(do_sample=False, pad_token_id=tok.pad_token_id, temperature=None, top_p=None, top_k=None)

        def batched(k, chunks=chunks, model=model, gen=gen):
            with torch.inference_mode():
                for enc in chunks:
                    model.generate(**enc, max_new_tokens=k, min_new_tokens=k, **gen)

        batched(1)  # warm-up
        fns[label] = batched
        if spec == "local:smollm2":
            # plain transformers, one prompt at a time, no padding: the same work, the same weights
            singles = [tok(t, return_tensors="pt", add_special_tokens=True) for t in texts]

            def one_by_one(k, singles=singles, model=model, gen=gen):
                with torch.inference_mode():
                    for e in singles:
                        model.generate(**e, max_new_tokens=k, min_new_tokens=k, **gen)

            fns["plain fp32 one at a time"] = one_by_one
    times, _ = _interleaved({(name, k): (lambda f=f, k=k: f(k)) for name, f in fns.items()
                             for k in (1, new_tokens)}, repeats)
    peak = max(peak, gemm_peak())  # again at the end: the best of both had the least interference
    res = {"threads": threads(), "prompts": n_prompts, "prompt tokens": n_in, "rows per batch": rows,
           "new_tokens": new_tokens, "gemm_fp32_gflops": round(peak, 1)}
    for name in fns:
        t_pre, t_all = times[(name, 1)], times[(name, new_tokens)]
        res[name] = {"prefill_tok_s": round(n_in / t_pre, 1),
                     "decode_tok_s": round(n_prompts * (new_tokens - 1) / (t_all - t_pre), 1)}
        if name in flops:
            gflops = n_in * flops[name] / t_pre / 1e9
            res[name]["prefill GFLOP/s (Linear layers)"] = round(gflops, 1)
            res[name]["prefill fraction of fp32 GEMM rate"] = round(gflops / peak, 3)
    plain = res["plain fp32 one at a time"]
    for label in ("ours fp32 batched", "ours int8 batched"):
        for what in ("prefill_tok_s", "decode_tok_s"):
            res[f"{label} / plain, {what}"] = round(res[label][what] / plain[what], 2)
    return res


def shared_prefix_vs_full(n: int, repeats: int) -> dict:
    """Two multi-token answers per generation-phase prompt (notebook 06's likelihood choice): one pass
    over the prompt shared by both answers vs one full pass per answer (prefix reuse off)."""
    from benchmarks.int8_effect import demo_items
    from lib.models.backends import transformers_lm as T
    from lib.models.backends.transformers_lm import load, span_logprobs
    from lib.prompts import self_preference as sp
    from lib.models.specs import parse_spec

    model, tok = load(parse_spec("local:smollm2"))
    items = demo_items(n)
    work = []
    for a, b in zip(items, items[1:] + items[:1]):
        msgs = [{"role": "user", "content": sp.generation_phase_prompt(a["question"], a["human_passage"],
                                                                       b["human_passage"])}]
        ctx = tok(tok.apply_chat_template(msgs, tokenize=False, add_generation_prompt=True) + "Answer:")["input_ids"]
        work.append((ctx, [tok(" " + x["answer"], add_special_tokens=False)["input_ids"] for x in (a, b)]))
    pad = tok.pad_token_id
    def spans(reuse):
        T.REUSE_PREFIXES = reuse
        try:
            return [span_logprobs(model, [c + x for x in o], [len(c)] * len(o), pad) for c, o in work]
        finally:
            T.REUSE_PREFIXES = True

    shared, full = (lambda: spans(True)), (lambda: spans(False))
    times, res = _interleaved({"shared": shared, "full": full}, repeats)
    diff = max(abs(x - y) for s, f in zip(res["shared"], res["full"]) for x, y in zip(s, f))
    return {"prompts": n, "prompt tokens": sum(len(c) for c, _ in work),
            "shared_s_per_prompt": round(times["shared"] / n, 3), "full_s_per_prompt": round(times["full"] / n, 3),
            "speed-up (full/shared)": round(times["full"] / times["shared"], 2),
            "max |delta log-prob|": float(f"{diff:.1e}")}


def perplexity_before_after(n_texts: int, repeats: int, batch_size: int = 8) -> dict:
    """gemma3 scoring of demo passages: target tokens only (after) vs full-vocabulary log-softmax (before)."""
    from benchmarks.int8_effect import demo_items
    from benchmarks.reference import full_vocab_span_logprobs
    from lib.models.backends.transformers_lm import HEAD_CHUNK, load, span_logprobs
    from lib.models.specs import parse_spec

    model, tok = load(parse_spec("local:gemma3"))
    seqs = [tok(it["human_passage"])["input_ids"] for it in demo_items(n_texts)]
    seqs.sort(key=len)
    n_tok = sum(len(s) - 1 for s in seqs)
    pad = tok.pad_token_id

    def score(fn):
        out = []
        for a in range(0, len(seqs), batch_size):
            chunk = seqs[a:a + batch_size]
            out += fn(model, chunk, [1] * len(chunk), pad)
        return out

    def rss_mb():
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    span_logprobs(model, seqs[:2], [1, 1], pad)  # warm-up
    # after first: the process peak only grows, so the before method's growth is measured on top
    m0 = rss_mb()
    score(span_logprobs)
    m1 = rss_mb()
    score(full_vocab_span_logprobs)
    m2 = rss_mb()
    times, results = _interleaved({"after": lambda: score(span_logprobs),
                                   "before": lambda: score(full_vocab_span_logprobs)}, repeats)
    t_after, t_before = times["after"], times["before"]
    diff = max(abs(a - b) / (len(s) - 1) for a, b, s in zip(results["after"], results["before"], seqs))
    vocab = model.config.vocab_size
    width, rows = max(map(len, seqs)), min(batch_size, len(seqs))
    return {"texts": len(seqs), "tokens scored": n_tok, "batch_size": batch_size,
            "before_tok_s": round(n_tok / t_before, 1), "after_tok_s": round(n_tok / t_after, 1),
            "speed-up (after/before)": round(t_before / t_after, 2),
            "max |delta mean log-prob per token|": float(f"{diff:.2e}"),
            "peak RSS growth MB, after / before": [round(m1 - m0), round(m2 - m1)],
            "largest float32 tensor MB, after / before (logits + log-softmax)": [
                round(min(HEAD_CHUNK, rows * width) * vocab * 4 / 2**20),
                round(2 * rows * width * vocab * 4 / 2**20)]}


def likelihood_vs_generate(n: int, repeats: int, max_tokens: int = 16) -> dict:
    """Seconds per pointwise judgment: option_logprobs (one forward pass) vs generating a reply."""
    from lib.models.backends.transformers_lm import TransformersBackend
    from lib.models import Request
    from lib.models.specs import parse_spec

    from benchmarks.int8_effect import demo_items
    from lib.prompts import self_preference as sp

    out = {}
    for spec in ("local:smollm2", "local:smollm2;int8"):
        be = TransformersBackend(parse_spec(spec))
        be.check()
        msgs = [[{"role": "user", "content": sp.pointwise_rag_prompt(it["question"], it["human_passage"])}]
                for it in demo_items(n)]
        reqs = [Request(messages=m, max_tokens=max_tokens) for m in msgs]
        items = [(m, "###", ["1", "2", "3", "4", "5"]) for m in msgs]
        sink = lambda i, r: None  # noqa: E731
        be.option_logprobs(items[:2], sink)  # warm-up
        times, _ = _interleaved({"lik": lambda: be.option_logprobs(items, sink),
                                 "gen": lambda: be.generate(reqs, sink)}, repeats)
        t_lik, t_gen = times["lik"], times["gen"]
        out[spec] = {"judgments": n, "likelihood_s_per_judgment": round(t_lik / n, 3),
                     f"generate_{max_tokens}_tokens_s_per_judgment": round(t_gen / n, 3),
                     "generate / likelihood": round(t_gen / t_lik, 2)}
    return out


def run_all(repeats: int = 2) -> dict:
    """All model benchmarks, printed as they finish."""
    report = {}
    for name, fn in (("prefill_decode, pointwise prompts", lambda: prefill_decode(long_prompts(8), 8, repeats)),
                     ("prefill_decode, rewriting prompts", lambda: prefill_decode(rewrite_prompts(24), 32, repeats)),
                     ("shared_prefix_vs_full", lambda: shared_prefix_vs_full(8, repeats)),
                     ("perplexity_before_after", lambda: perplexity_before_after(16, repeats)),
                     ("likelihood_vs_generate", lambda: likelihood_vs_generate(8, repeats))):
        t0 = time.perf_counter()
        report[name] = fn()
        report[name]["benchmark_seconds"] = round(time.perf_counter() - t0, 1)
        print(json.dumps({name: report[name]}, indent=1), flush=True)
    return report


def main() -> None:
    """Run the model benchmarks and print one JSON report."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeats", type=int, default=2)
    args = ap.parse_args()
    print(json.dumps(run_all(args.repeats), indent=1))


if __name__ == "__main__":
    main()
