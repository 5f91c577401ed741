"""The mutant list of `make validate-mutants` (benchmarks/mutants.yaml) stays applicable: every edit
finds its old text exactly once in the current code, and an edit whose text moved stops the benchmark."""
from __future__ import annotations

import importlib.util
import shutil
import sys

import pytest

from lib.paths import ROOT


def _harness():
    spec = importlib.util.spec_from_file_location("validate_mutants", ROOT / "benchmarks" / "validate_mutants.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # its dataclasses look their module up there
    spec.loader.exec_module(mod)
    return mod


def test_every_mutant_applies_to_the_current_code(tmp_path):
    vm = _harness()
    mutants = vm.load_mutants()
    assert len(mutants) >= 10
    for m in mutants:
        for f in m.files:
            (tmp_path / m.id / f).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / f, tmp_path / m.id / f)
        vm.apply(m, tmp_path / m.id)  # raises when an old text is not found exactly once
        assert all((tmp_path / m.id / e["file"]).read_text().count(e["new"]) >= 1 for e in m.edits)
        assert m.test or m.notebooks, m.id


def test_an_edit_whose_text_moved_stops_the_benchmark(tmp_path):
    vm = _harness()
    (tmp_path / "a.py").write_text("x = 1\nx = 1\n")
    twice = vm.Mutant(id="t", edits=[{"file": "a.py", "old": "x = 1", "new": "x = 2"}], notebooks=["01"], rows=[], why="")
    with pytest.raises(vm.MutantError, match="2 times"):
        vm.apply(twice, tmp_path)
    gone = vm.Mutant(id="t", edits=[{"file": "a.py", "old": "y = 1", "new": "y = 2"}], notebooks=["01"], rows=[], why="")
    with pytest.raises(vm.MutantError, match="0 times"):
        vm.apply(gone, tmp_path)
    assert vm.merged({"a": {"b": 1, "c": 2}}, {"a": {"b": 3}}) == {"a": {"b": 3, "c": 2}}


def test_a_row_misses_where_validate_requires_it_and_not_for_a_planted_effect_too_small_to_detect():
    """The benchmark's rows miss as validate's check would: not covered, or not detected where the
    planted effect is large enough to be required (`must_detect`); an undetected effect of 0.009 is
    no miss (it made 18's control of balanced calibration 'fail' before)."""
    import pandas as pd

    vm = _harness()
    rows = pd.DataFrame({"measure_id": ["balanced.06.self", "balanced.06.factual", "balanced.06.flipped", "x.big"],
                         "truth": [-0.009, 0.044, 0.121, 0.3], "null": [0.0, 0.0, float("nan"), 0.0],
                         "covered": [1.0, 1.0, 0.0, 1.0], "detected": [0.0, 1.0, float("nan"), 0.0],
                         "missing": [float("nan")] * 4})
    got = vm.missed_rows({"rows": rows}, ["balanced.06", "x.big", "gone"])
    assert got == ["balanced.06.flipped (not covered)", "x.big (not detected)", "gone (missing)"]
