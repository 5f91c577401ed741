"""README's example bias card (docs/img/profile_card_example.png): the simulator's planted judge
(configs/known_truth.yaml) profiled twice, as `python -m lib.profile --model <spec>` profiles a
model, once at configs/profile.yaml's own sizes and once at --size questions a dataset, the two
cards side by side.

    .venv/bin/python benchmarks/draw_example_card.py [--size 40] [--truth configs/known_truth.yaml]

Each run starts its own simulated server (lib.simulate.server.SimServer) on a free port, with a
fresh reply cache inside its run folder (replies depend on the truth file), and keeps its folder
under RAGBIAS_RUNS (profile_example__<size>: findings.csv, profile.csv). Prints each run's wall
time, each measured row beside the truth the simulator's planted parameters give it (the known-truth
check's truth functions; none for 10's rows, whose passages the profile clips), and writes the PNG at
the house style's dpi.
"""
from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

OUT = ROOT / "docs" / "img" / "profile_card_example.png"
SIZE = 40  # questions a dataset (and RAG-RewardBench pairs a category) of the larger run


def size_overrides(size: int | None) -> dict:
    """The command-line parameters that set every notebook's count to `size` (validate's --size
    rule, plus 02's gen-by-QA passages, which 08 reads); None: the profile config's own sizes."""
    return {} if size is None else {"n_items": size, "n_per_category": size, "style_items": size}


def profile_run(truth_path: Path, config: Path, size: int | None):
    """One profile of the simulated judge: (its card, the run's wall time in seconds, the planted truths)."""
    from lib import paths, runner
    from lib.parameters import RUN_MODEL
    from lib.profile import card
    from lib.simulate.core.scratch import own_cache
    from lib.simulate.core.truth_file import load_truth
    from lib.simulate.server import SimServer

    name = f"profile_example__{'profile_size' if size is None else size}"
    run_dir = paths.runs_root() / name
    shutil.rmtree(run_dir, ignore_errors=True)  # the simulator reads its own texts from the run folder
    run_dir.mkdir(parents=True)
    cache = run_dir / "results_cache"
    started = time.perf_counter()
    try:
        with own_cache(cache), SimServer(load_truth(truth_path), run_dir) as sim:
            spec = f"openai:sim@{sim.url}"
            cfg = runner.load_config(config, {RUN_MODEL: spec, **size_overrides(size)})
            runner.run(cfg, name)
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    seconds = time.perf_counter() - started
    return card.write(run_dir, spec), seconds, planted(truth_path, cfg, run_dir)


def planted(truth_path: Path, cfg: dict, run_dir: Path) -> dict:
    """{measure_id: truth} of the served model 'sim' from the truth file and the run's design, as the
    known-truth check computes them; 10's utility design is left out (the profile's 09 clips passages)."""
    import dataclasses

    from lib.simulate import validate
    from lib.simulate.core.truth_file import load_truth
    from lib.simulate.self_preference.style_length import design_pairs

    design = dataclasses.replace(validate.design_of(cfg), style_pairs=design_pairs(cfg, run_dir))
    truths = validate.model_truths(load_truth(truth_path), cfg, run_dir, lambda t, d: {
        **validate.measure_truths(t, d), **validate.likelihood_truths(t, d)}, design)
    return {mid: truth for mid, (_, truth, _) in truths["sim"].items()}


def truth_lines(profile, truths: dict) -> list[str]:
    """One line per measured row: estimate [95% CI], n and the planted truth (or why there is none)."""
    import pandas as pd

    out = []
    for r in profile[(profile["row_type"] == "measured") & (profile["status"] == "measured")].to_dict("records"):
        ci = "no CI" if pd.isna(r["ci_low"]) else f"[{r['ci_low']:.3f}, {r['ci_high']:.3f}]"
        truth = truths.get(r["measure_id"])
        out.append(f"  {r['measure_id']}: {r['estimate']:.3f} {ci}, n = {int(r['n'])} {r['unit']}s; planted "
                   + ("no truth computed" if truth is None else f"{truth:.3f}"))
    return out


def units_range(profile) -> str:
    """'5-12 units a measure': the smallest and largest n of a card's measured rows."""
    n = profile.loc[(profile["row_type"] == "measured") & (profile["status"] == "measured"), "n"].astype(int)
    return f"{n.min()}-{n.max()} units a measure" if n.min() != n.max() else f"{n.min()} units a measure"


def main(argv=None) -> int:
    """Command-line entry point (see the module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", type=int, default=SIZE, help="questions a dataset of the second run")
    ap.add_argument("--truth", type=Path, default=ROOT / "configs" / "known_truth.yaml")
    ap.add_argument("--config", type=Path, default=ROOT / "configs" / "profile.yaml")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from lib.paths import display_path
    from lib.profile import card
    from lib.report.plotting import house_style

    cards = {}
    for size in (None, args.size):
        profile, seconds, truths = profile_run(args.truth, args.config, size)
        head = (f"at the profile's size ({units_range(profile)})" if size is None
                else f"{size} questions a dataset")
        print(f"[example card] {head}: {seconds / 60:.1f} min ({seconds:.0f} s)", *truth_lines(profile, truths),
              sep="\n", flush=True)
        cards[head] = profile
    house_style()
    fig = card.figure(cards)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(args.out, dpi=plt.rcParams["savefig.dpi"], bbox_inches="tight")
    print(f"[example card] {display_path(args.out)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
