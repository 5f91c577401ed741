"""`python -m lib.inspect <run> [--measure ID] [--limit N]`: write the run's inspect.html and say
where it is and how large."""
from __future__ import annotations

import argparse
import sys


def main(argv=None) -> int:
    """Build the page; a run without findings.csv or an unknown measure is one line and exit 2."""
    from . import build
    from .page import LIMIT

    parser = argparse.ArgumentParser(prog="python -m lib.inspect", description=__doc__)
    parser.add_argument("run", help="run folder or run name (data/runs/<run>)")
    parser.add_argument("--measure", help="one measure_id of the run's findings.csv (default: all)")
    parser.add_argument("--limit", type=int, default=LIMIT,
                        help=f"units per findings row whose judgments go in the page (default {LIMIT}; above it a seeded sample)")
    args = parser.parse_args(argv)
    try:
        path = build(args.run, args.measure, args.limit)
    except (FileNotFoundError, KeyError) as e:
        print(f"inspect: {e.args[0] if e.args else e}", file=sys.stderr)
        return 2
    print(f"{path} ({path.stat().st_size / 1e6:.2f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
