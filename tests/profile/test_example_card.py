"""The README example card's script (benchmarks/draw_example_card.py): its size overrides reach every
count of the profile's notebooks, and its column title reads the card's own n."""
from __future__ import annotations

import importlib.util

import pandas as pd

from lib.paths import CONFIGS, ROOT
from lib.run_config import effective_parameters, load_config, select_notebooks

SCRIPT = ROOT / "benchmarks" / "draw_example_card.py"
spec = importlib.util.spec_from_file_location("draw_example_card", SCRIPT)
draw = importlib.util.module_from_spec(spec)
spec.loader.exec_module(draw)

COUNTS = ("n_items", "n_per_category", "style_items")  # the per-notebook counts configs/profile.yaml sets


def counts_of(overrides: dict) -> dict:
    """{(notebook, parameter): value} of every count the profile's notebooks run with."""
    cfg = load_config(CONFIGS / "profile.yaml", {"model": "openai:sim@http://127.0.0.1:1/v1", **overrides})
    return {(nb.stem, k): v for nb, eff in effective_parameters(cfg, select_notebooks(cfg))
            for k, (v, _) in eff.items() if k in COUNTS}


def test_size_sets_every_count_the_profile_config_sets():
    own = counts_of(draw.size_overrides(None))
    assert len({nb for nb, _ in own}) >= 7 and max(own.values()) < 40  # the profile's own sizes are small
    sized = counts_of(draw.size_overrides(40))
    assert set(sized) == set(own) and set(sized.values()) == {40}, sized


def test_units_range_reads_the_measured_rows_only():
    profile = pd.DataFrame({"row_type": ["measured", "measured", "measured", "reference"],
                            "status": ["measured", "measured", "not measured: no row", "published"],
                            "n": [3, 10, 0, None]})
    assert draw.units_range(profile) == "3-10 units a measure"
    assert draw.units_range(profile.iloc[[1, 3]]) == "10 units a measure"
