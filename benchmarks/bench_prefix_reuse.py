"""Prefix reuse in the local backend: each shared prompt prefix computed once per batch, against the
earlier behaviour (length-sorted batches, every row's prompt computed in full), on SmolLM2.

Workloads are the prompts of notebooks 05, 06 and 10 built with the notebooks' own prompt builders. With
`--run NAME`, 05 and 06 use that run's passage bank (the human and model-written passages, true and false,
exactly the prompts those notebooks sent); without, the demo data (one question with several passages):
- 05: the pointwise RAG prompt (appendix B.1) per question and passage, as chat messages; a greedy reply
  of 10 tokens (05's max_tokens) and the likelihood rating (next-token log-probabilities of "1".."5"
  after "###");
- 06: the generation-phase prompt per question over passage pairs in both orders; a greedy reply of 32
  tokens and the likelihood of each passage's answer;
- 10: the utility and relevance judgments, listwise set and rank, over each question's passages; a
  greedy reply of 64 tokens.
Prints, per workload: prompt tokens requested, prompt positions computed (padding included) and their
ratio; seconds without and with reuse (variants interleaved, best of `--repeats`) and their ratio; the
largest log-probability difference and how many greedy replies are identical. With `--run NAME` it also
prints the main job's seconds per notebook from that run's manifest.

    python benchmarks/bench_prefix_reuse.py [--questions 6] [--repeats 2] [--run demo]
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def passages_of(item: dict, k: int) -> list[str]:
    """The item's human passage and its first k - 1 negatives."""
    return [item["human_passage"]] + [n["text"] for n in item.get("negatives", [])[:k - 1]]


def workloads(n_questions: int) -> dict:
    """name -> (generation messages, max_tokens, scoring work) for notebooks 05, 06 and 10."""
    from benchmarks.int8_effect import demo_items
    from lib.prompts import self_preference as sp
    from lib.prompts import utility as up

    items = demo_items(n_questions)
    user = lambda text: [{"role": "user", "content": text}]  # noqa: E731
    p05 = [user(sp.pointwise_rag_prompt(it["question"], p)) for it in items for p in passages_of(it, 4)]
    p06, answers = [], []
    for a, b in zip(items, items[1:] + items[:1]):
        for first, second in ((a["human_passage"], b["human_passage"]), (b["human_passage"], a["human_passage"])):
            for neg in passages_of(a, 3)[1:]:
                for pair in ((first, neg), (neg, first)):
                    p06.append(user(sp.generation_phase_prompt(a["question"], *pair)))
                    answers.append((" " + a["answer"], " " + b["answer"]))
    p10 = [up.judgment_messages(it["question"], passages_of(it, 4), judgment=j, form=f)
           for it in items for j in ("relevance", "utility") for f in ("listwise-set", "listwise-rank")]
    digits = ["1", "2", "3", "4", "5"]
    return {
        "05 pointwise": (p05, 10, ("options", [(m, "###", digits) for m in p05])),
        "06 generation phase": (p06, 32, ("loglikelihood", [(m, x) for m, pair in zip(p06, answers) for x in pair])),
        "10 listwise judgments": (p10, 64, None),
    }


def bank_workloads(run_dir: Path, n_questions: int) -> dict:
    """05's and 06's prompts from a run's passage bank: every normal-style passage of the first questions
    rated (05), and the generation-phase pairs of build_pairs with both answers scored (06)."""
    import pandas as pd

    from lib.prompts import self_preference as sp
    from lib.self_preference.pairwise import build_pairs

    bank = pd.read_json(run_dir / "passage_bank.jsonl", lines=True)
    bank = bank[bank["style"] == "normal"]
    items = list(dict.fromkeys(bank["item_id"]))[:n_questions]
    bank = bank[bank["item_id"].isin(items)]
    user = lambda text: [{"role": "user", "content": text}]  # noqa: E731
    p05 = [user(sp.pointwise_rag_prompt(r.question, r.text)) for r in bank.itertuples()]
    author = next(a for a in bank["author"].unique() if a != "human")
    pairs = build_pairs(bank, author, items=items)
    pairs = pairs[pairs["status"] == "ok"]
    p06 = [user(sp.generation_phase_prompt(r.question, r.text_1, r.text_2)) for r in pairs.itertuples()]
    answers = [(" " + str(r.ans_1), " " + str(r.ans_2)) for r in pairs.itertuples()]
    digits = ["1", "2", "3", "4", "5"]
    return {
        "05 pointwise (run's bank)": (p05, 10, ("options", [(m, "###", digits) for m in p05])),
        "06 generation phase (run's bank)": (p06, 32, ("loglikelihood", [(m, x) for m, pair in zip(p06, answers)
                                                                          for x in pair])),
    }


def measure(backend, gen_msgs, max_tokens, scoring) -> dict:
    """Seconds, token counts, replies and log-probabilities of one workload in the current mode."""
    from lib.models.backends import transformers_lm as T
    from lib.models.types import Request

    T.PREFILL_STATS.clear()
    reqs = [Request(messages=m, max_tokens=max_tokens, logprobs=1) for m in gen_msgs]
    replies, lps = {}, {}
    t0 = time.perf_counter()
    backend.generate(reqs, lambda i, r: replies.__setitem__(i, r))
    if scoring is not None:
        kind, work = scoring
        if kind == "options":
            backend.option_logprobs(work, lambda i, r: lps.__setitem__(i, list(r.logprobs)))
        else:
            backend.loglikelihood(work, lambda i, r: lps.__setitem__(i, [r.logprob]))
    seconds = time.perf_counter() - t0
    first_step = {i: r.top_logprobs[0] for i, r in replies.items() if r.top_logprobs}
    return {"seconds": seconds, "requested": T.PREFILL_STATS["requested"], "computed": T.PREFILL_STATS["computed"],
            "texts": [replies[i].text for i in range(len(reqs))], "lps": lps, "first_step": first_step}


def compare(name: str, backend, gen_msgs, max_tokens, scoring, repeats: int) -> dict:
    """Reuse off vs on for one workload, interleaved (off, on, off, on, ...), best time of each."""
    from lib.models.backends import transformers_lm as T

    runs = {False: [], True: []}
    for _ in range(repeats):
        for reuse in (False, True):
            T.REUSE_PREFIXES = reuse
            runs[reuse].append(measure(backend, gen_msgs, max_tokens, scoring))
    T.REUSE_PREFIXES = True
    off, on = runs[False][0], runs[True][0]
    diffs = [abs(a - b) for i in off["lps"] for a, b in zip(off["lps"][i], on["lps"][i])]
    diffs += [abs(v - on["first_step"][i][t]) for i, d in off["first_step"].items() for t, v in d.items()
              if t in on["first_step"].get(i, {})]
    t_off, t_on = min(r["seconds"] for r in runs[False]), min(r["seconds"] for r in runs[True])
    return {"workload": name, "prompts": len(gen_msgs),
            "prompt tokens requested": on["requested"],
            "computed without reuse": off["computed"], "computed with reuse": on["computed"],
            "computed / requested (with reuse)": round(on["computed"] / on["requested"], 3),
            "computed with / without": round(on["computed"] / off["computed"], 3),
            "seconds without": round(t_off, 2), "seconds with": round(t_on, 2),
            "time with / without": round(t_on / t_off, 3),
            "max |delta log-prob|": float(f"{max(diffs, default=0.0):.1e}"),
            "identical greedy replies": f"{sum(a == b for a, b in zip(off['texts'], on['texts']))} of {len(on['texts'])}"}


def notebook_seconds(run: str) -> dict:
    """Seconds per notebook from a run's manifest.json."""
    from lib.paths import runs_root

    manifest = json.loads((runs_root() / run / "manifest.json").read_text())
    return {Path(nb["notebook"]).name[:2]: round(nb.get("seconds", float("nan")), 1) for nb in manifest.get("notebooks", [])}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--questions", type=int, default=6)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--run", default="", help="also print this run's seconds per notebook")
    args = ap.parse_args()

    from lib.models.backends.transformers_lm import TransformersBackend, threads
    from lib.models.specs import parse_spec

    backend = TransformersBackend(parse_spec("local:smollm2"))
    backend.check()
    print(json.dumps({"threads": threads(), "questions": args.questions, "repeats": args.repeats}))
    loads = workloads(args.questions)
    if args.run:
        from lib.paths import runs_root

        if (runs_root() / args.run / "passage_bank.jsonl").exists():
            loads = {**bank_workloads(runs_root() / args.run, args.questions), **loads}
    for name, (msgs, max_tokens, scoring) in loads.items():
        print(json.dumps(compare(name, backend, msgs, max_tokens, scoring, args.repeats)), flush=True)
    if args.run:
        try:
            print(json.dumps({"run": args.run, "seconds per notebook": notebook_seconds(args.run)}))
        except FileNotFoundError:
            print(json.dumps({"run": args.run, "seconds per notebook": "no manifest yet: run `make reproduce` first"}))


if __name__ == "__main__":
    main()
