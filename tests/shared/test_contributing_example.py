"""CONTRIBUTING.md's "Add an experiment", run as written: a toy measure in a toy notebook appears in
the findings, in compare (its row and its paired difference) and on the bias card, and accounts for its
truth as every declared measure must."""
import re
import sys
import types
from dataclasses import replace

import pytest

from lib import paths
from lib.compare import compare_tables
from lib.profile import card
from lib.report import findings, measures
from lib.paths import ROOT


def blocks() -> dict:
    """The python blocks of the section, by their first-line header ('file: ...' / 'notebook: ...')."""
    text = (ROOT / "CONTRIBUTING.md").read_text().split("## Add an experiment", 1)[1]
    out = {}
    for body in re.findall(r"```python\n(.*?)```", text, re.S):
        head, _, code = body.partition("\n")
        out[head.lstrip("# ").split(":")[0]] = code
    return out


@pytest.fixture
def toy_study(monkeypatch):
    """The example's measures block as a study module the registry reads."""
    module = types.ModuleType("toy_measures")
    exec(blocks()["file"], module.__dict__)
    monkeypatch.setitem(sys.modules, "toy_measures", module)
    monkeypatch.setattr(measures, "STUDY_MODULES", measures.STUDY_MODULES + ("toy_measures",))
    monkeypatch.setattr(card, "BATTERY", measures.card_rows())
    return module


def run_notebook(run_name: str, model: str, first: list[int]) -> None:
    """The example notebook's cells with these parameters, then the run's findings gathered."""
    parameters, _, code = blocks()["notebook"].partition("# ---- next cell\n")
    scope = {}
    exec(parameters, scope)
    scope.update(run_name=run_name, model=model, first=first)
    exec(code, scope)
    findings.summarize(paths.run_dir(run_name), run_name)


def test_the_toy_measure_reaches_findings_compare_and_the_card(toy_study, tmp_runs):
    run_notebook("toy_a", "local:smollm2", [1] * 40)
    run_notebook("toy_b", "local:gemma3", [1, 0] * 20)
    rows = findings.collect(paths.run_dir("toy_a"))
    assert list(rows["measure_id"]) == ["toy_first_choice"] and rows["n"].iloc[0] == 40
    tables = compare_tables(["toy_a", "toy_b"])
    assert "toy_first_choice" in set(tables["wide"]["measure_id"])
    paired = tables["paired"].set_index("measure_id").loc["toy_first_choice"]
    assert paired["estimate"] == pytest.approx(0.5) and paired["n"] == 40 and paired["unit"] == "question"
    shown = card.measured_rows(rows).set_index("key").loc["toy_first"]
    assert shown["status"] == "measured" and shown["estimate"] == 1.0


def test_the_toy_measure_accounts_for_its_truth(toy_study):
    from lib.simulate import truth_registry

    assert [m.pattern for m in measures.all_measures()][-1] == "toy_first_choice"
    assert truth_registry.unaccounted(measures.all_measures()) == []
    assert truth_registry.unaccounted([replace(toy_study.MEASURES[0], no_truth="")]) == [
        "toy_first_choice: no truth function and no no_truth reason"]


def test_an_undeclared_toy_measure_is_refused(tmp_runs):
    with pytest.raises(KeyError, match="toy_first_choice"):
        run_notebook("toy_c", "local:smollm2", [1, 0])
