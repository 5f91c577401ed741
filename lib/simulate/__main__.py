"""python -m lib.simulate serve --truth <yaml> --port N | validate [--truth <yaml>] [--size N]"""
from __future__ import annotations

import argparse
import sys
import time

from lib import paths


def main(argv=None) -> int:
    """Serve the simulated model, or run the known-truth check (exit 1 when it fails)."""
    ap = argparse.ArgumentParser(prog="python -m lib.simulate", description=__doc__)
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("serve", help="serve the simulated model on 127.0.0.1")
    s.add_argument("--truth", default=str(paths.CONFIGS / "known_truth.yaml"))
    s.add_argument("--port", type=int, default=8765)
    s.add_argument("--run", help="run name whose data (items, passage bank) the simulator reads")
    v = sub.add_parser("validate", help="run the notebooks against the simulator and check the truth")
    v.add_argument("--truth", default=str(paths.CONFIGS / "known_truth.yaml"))
    v.add_argument("--size", help="items per dataset and RM pairs per category (default: the config's), or "
                   "'paper' for the papers' counts of configs/paper.yaml (01 draws with replacement)")
    v.add_argument("--concurrency", type=int, help="requests in flight per model (the runner's concurrency)")
    v.add_argument("--parallel", type=int, default=None,
                   help="notebooks run at once where their inputs allow (default 2; 1: one after another)")
    v.add_argument("--run", default="known_truth", help="run name (data/runs/<run>/)")
    v.add_argument("--only", help="comma-separated notebook numbers, e.g. 01,02,05")
    v.add_argument("--recheck", action="store_true", help="compare an existing run's findings with the truth "
                   "again, running no notebook (give the truth file, --size and --only it ran with)")
    v.add_argument("--random", type=int, metavar="N", help="draw N truth files from the declared ranges and "
                   "validate each (runs <run>_0 .. <run>_N-1; the summary over draws in data/runs/<run>/)")
    v.add_argument("--seed", type=int, default=0, help="with --random: the seed of the drawn files")
    v.add_argument("--utility-sizes", help="with --size paper: 09's questions per dataset in place of Table 1's "
                   "(e.g. nq=1000,hotpotqa=300,marco=300; Table 1's counts take about 19 minutes here)")
    v.add_argument("--count-tokens", action="store_true", help="the simulator counts the prompt tokens it receives "
                   "with SmolLM2's tokenizer (simulator_stats.json; about 1 us of CPU per prompt character)")
    args = ap.parse_args(argv)
    from .core.truth_file import TruthError, load_truth

    if args.cmd == "validate" and args.random:
        from .validate_random import validate_random

        if args.size not in (None, "paper") and not args.size.isdigit():
            print(f"--size {args.size!r}: give a number of items or 'paper'.", file=sys.stderr)
            return 2
        run = args.run if args.run != "known_truth" else "known_truth_random"
        passed, line, _ = validate_random(args.random, args.seed, args.size, run,
                                          only=args.only.split(",") if args.only else None)
        print(line)
        return 0 if passed else 1
    try:
        truth = load_truth(args.truth)
    except TruthError as e:
        print(e, file=sys.stderr)
        return 2
    if args.cmd == "serve":
        from .server import SimServer

        with SimServer(truth, paths.runs_root() / args.run if args.run else None, args.port) as sim:
            print(f"simulated model at {sim.url} (truth {args.truth}); Ctrl-C stops it", flush=True)
            try:
                while True:
                    time.sleep(3600)
            except KeyboardInterrupt:
                return 0
    from .validate import validate

    only = args.only.split(",") if args.only else None
    if args.size not in (None, "paper") and not args.size.isdigit():
        print(f"--size {args.size!r}: give a number of items or 'paper'.", file=sys.stderr)
        return 2
    from .validate import PARALLEL, parse_sizes

    try:
        utility_sizes = parse_sizes(args.utility_sizes) if args.utility_sizes else None
    except ValueError as e:
        print(f"--utility-sizes: {e}", file=sys.stderr)
        return 2
    if utility_sizes and args.size != "paper":
        print("--utility-sizes replaces Table 1's question counts: give it with --size paper.", file=sys.stderr)
        return 2
    if args.recheck:
        from .validate import recheck

        passed, line, _ = recheck(args.truth, args.size, args.run, only=only)
        print(line)
        return 0 if passed else 1
    passed, line, _ = validate(args.truth, args.size, args.run, only=only, concurrency=args.concurrency,
                               parallel=args.parallel or PARALLEL, utility_sizes=utility_sizes,
                               count_tokens=args.count_tokens)
    print(line)
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
