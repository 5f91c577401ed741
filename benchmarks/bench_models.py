"""Local-model benchmarks (issue 11); each ratio compares two ways of doing the same work in this run.

1. this machine's float32 matrix-multiply rate (torch GEMM GFLOP/s), the reference for FLOP fractions;
2. SmolLM2 prefill and decode tokens/s: our backend (left-padded batches of 8, all cores, float32 and
   int8) vs plain transformers one prompt at a time (float32, same threads), plus the achieved
   GFLOP/s as a fraction of the GEMM rate;
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


def _best(fn, repeats: int) -> float:
    """Fastest of `repeats` timings of fn() (the least disturbed by other processes on the machine)."""
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def gemm_peak(n: int = 1024, seconds: float = 2.0) -> float:
    """float32 GFLOP/s of torch's matrix multiply at n x n, all threads this process uses."""
    import torch

    a, b = torch.randn(n, n), torch.randn(n, n)
    a @ b  # warm-up
    reps, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        a @ b
        reps += 1
    return 2 * n ** 3 * reps / (time.perf_counter() - t0) / 1e9


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
    """Pointwise RAG prompts from the demo data (about 450 tokens each: question + passage + two negatives)."""
    from benchmarks.int8_effect import demo_items
    from lib.prompts import self_preference as sp

    out = []
    for it in demo_items(n):
        passage = " ".join([it["human_passage"]] + [neg["text"] for neg in it.get("negatives", [])[:2]])
        out.append(sp.pointwise_rag_prompt(it["question"], passage))
    return out


def prefill_decode(n_prompts: int, new_tokens: int, repeats: int) -> dict:
    """Prefill and decode tokens/s: batched (ours, fp32 and int8) vs one prompt at a time (plain)."""
    import torch

    from lib.backends.transformers_lm import TransformersBackend, threads
    from lib.specs import parse_spec

    prompts = long_prompts(n_prompts)
    peak = gemm_peak()
    res = {"threads": threads(), "prompts": n_prompts, "new_tokens": new_tokens, "gemm_fp32_gflops": round(peak, 1)}
    msgs = [[{"role": "user", "content": p}] for p in prompts]
    for label, spec in (("ours fp32 batched", "local:smollm2"), ("ours int8 batched", "local:smollm2;int8")):
        be = TransformersBackend(parse_spec(spec))
        model, tok = be.model, be.tokenizer
        texts = [tok.apply_chat_template(m, tokenize=False, add_generation_prompt=True) for m in msgs]
        enc = be._encode(texts, "left")
        n_in = int(enc["attention_mask"].sum())
        gen = dict(do_sample=False, pad_token_id=tok.pad_token_id, temperature=None, top_p=None, top_k=None)

        def run(k, enc=enc, model=model):
            with torch.inference_mode():
                model.generate(**enc, max_new_tokens=k, min_new_tokens=k, **gen)

        run(1)  # warm-up
        t_pre = _best(lambda: run(1), repeats)
        t_all = _best(lambda: run(new_tokens), repeats)
        flops_tok = 2 * linear_params(model)
        res[label] = {"prefill_tok_s": round(n_in / t_pre, 1),
                      "decode_tok_s": round(len(texts) * (new_tokens - 1) / (t_all - t_pre), 1),
                      "prefill_gflops": round(n_in * flops_tok / t_pre / 1e9, 1)}
        res[label]["prefill fraction of fp32 GEMM rate"] = round(res[label]["prefill_gflops"] / peak, 3)
        if label.startswith("ours fp32"):
            # plain transformers, one prompt at a time, no padding: the same work, the same weights
            singles = [tok(t, return_tensors="pt", add_special_tokens=True) for t in texts]

            def one_by_one(k, singles=singles, model=model):
                with torch.inference_mode():
                    for e in singles:
                        model.generate(**e, max_new_tokens=k, min_new_tokens=k, **gen)

            s_pre = _best(lambda: one_by_one(1), repeats)
            s_all = _best(lambda: one_by_one(new_tokens), repeats)
            res["plain fp32 one at a time"] = {
                "prefill_tok_s": round(n_in / s_pre, 1),
                "decode_tok_s": round(len(texts) * (new_tokens - 1) / (s_all - s_pre), 1)}
    plain = res["plain fp32 one at a time"]
    for label in ("ours fp32 batched", "ours int8 batched"):
        for what in ("prefill_tok_s", "decode_tok_s"):
            res[f"{label} / plain, {what}"] = round(res[label][what] / plain[what], 2)
    return res


def perplexity_before_after(n_texts: int, repeats: int, batch_size: int = 8) -> dict:
    """gemma3 scoring of demo passages: target tokens only (after) vs full-vocabulary log-softmax (before)."""
    from benchmarks.int8_effect import demo_items
    from benchmarks.reference import full_vocab_span_logprobs
    from lib.backends.transformers_lm import HEAD_CHUNK, load, span_logprobs
    from lib.specs import parse_spec

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

    score(span_logprobs)  # warm-up
    # after first: the process peak only grows, so the before method's growth is measured on top
    m0 = rss_mb()
    t_after = _best(lambda: score(span_logprobs), repeats)
    m1 = rss_mb()
    t_before = _best(lambda: score(full_vocab_span_logprobs), repeats)
    m2 = rss_mb()
    diff = max(abs(a - b) / (len(s) - 1) for a, b, s in
               zip(score(span_logprobs), score(full_vocab_span_logprobs), seqs))
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
    from lib.backends.transformers_lm import TransformersBackend
    from lib.llm import Request
    from lib.specs import parse_spec

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
        t_lik = _best(lambda: be.option_logprobs(items, sink), repeats)
        t_gen = _best(lambda: be.generate(reqs, sink), repeats)
        out[spec] = {"judgments": n, "likelihood_s_per_judgment": round(t_lik / n, 3),
                     f"generate_{max_tokens}_tokens_s_per_judgment": round(t_gen / n, 3),
                     "generate / likelihood": round(t_gen / t_lik, 2)}
    return out


def run_all(repeats: int = 2) -> dict:
    """All four benchmarks, printed as they finish."""
    report = {}
    for name, fn in (("prefill_decode", lambda: prefill_decode(8, 16, repeats)),
                     ("perplexity_before_after", lambda: perplexity_before_after(32, repeats)),
                     ("likelihood_vs_generate", lambda: likelihood_vs_generate(16, repeats))):
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
