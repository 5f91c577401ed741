"""The bias profile (lib/profile): the card built from a run's findings rows, its reference rows
against the papers' printed numbers, and the one-page report rendered from the report notebook.
The findings are synthetic (the card's logic is bookkeeping over findings.csv); the real run on the
embedded model is in docs/profile.md."""
import math

import pandas as pd
import pytest

from lib.report.findings import COLUMNS, finding
from lib.paper_check import published as pub
from lib.profile import battery, card
from lib.profile.__main__ import model_slug, render, run_name

MODEL = "local:smollm2"

# The papers' numbers as printed, typed again from the papers (not from published.py), in each
# measure's scale: a second entry that a wrong number in published.py or in the battery must match.
PRINTED = {
    "self_pointwise": {"gpt-3.5-turbo (v1)": -0.07, "LLaMA-2-70B-chat (v1)": -0.56},  # v1 Table 3, RAG, NQ
    "self_pairwise": {"gpt-3.5-turbo (v2)": 0.41, "LLaMA-3.1-8B-Instruct (v2)": 0.47},  # v2 Table 3, NQ, Human
    "position": {"gpt-3.5-turbo (v1)": 0.6421, "LLaMA-2-70B-chat (v1)": 0.5614},  # v1 Table 9
    "factual": {"gpt-3.5-turbo (v1)": 0.7806, "LLaMA-2-70B-chat (v1)": 0.7662},  # v1 Table 11
    "style_qa": {"gpt-3.5-turbo (v1)": 0.86, "LLaMA-2-70B-chat (v1)": 0.38},  # v1 Table 7 (alt. extraction)
    "style_long": {"gpt-3.5-turbo (v1)": 0.52, "LLaMA-2-70B-chat (v1)": 0.435},  # v1 Table 8 (alt. extraction)
    "utility_f1": {"ChatGPT gpt-3.5-turbo-1106 (utility paper)": 64.14, "Llama-2-7B (utility paper)": 22.23,
                   "Llama-2-13B (utility paper)": 32.10},  # utility Table 2 and Table 3, NQ listwise-set F1
    "relevance_f1": {"ChatGPT gpt-3.5-turbo-1106 (utility paper)": 48.97},  # utility Table 2
}


def _row(measure_id, n=12, estimate=0.6, notebook="06_generation_phase", study="self-preference", p=0.2,
         unit="question"):
    lo, hi = estimate - 0.1, estimate + 0.1
    row = finding(study, notebook, f"synthetic {measure_id}", MODEL, n, estimate, lo if n else None, hi if n else None,
                  p if n else None, n_judgments=max(n, 1) * 2 if n else 0, unit=unit, measure_id=measure_id)
    return row


def synthetic_findings(drop=(), zero=()) -> pd.DataFrame:
    """One findings row per battery measure (its first measure_id); `drop`: measures without a row,
    `zero`: measures whose row has n = 0 (the notebook ran, nothing was decided)."""
    study = {"10_relevance_vs_utility": "utility", "13_rewardbench": "rewardbench"}
    rows = [_row(m.measure_ids[0], n=0 if m.key in zero else 12, estimate=30.0 if m.kind in ("f1", "share") else 0.6,
                 notebook=m.notebook, study=study.get(m.notebook, "self-preference"))
            for m in battery.BATTERY if m.key not in drop]
    frame = pd.DataFrame(rows, columns=COLUMNS)
    frame["p_adjusted"] = frame["p"] * 2  # as lib.report.findings.collect would write it; the card copies it
    return frame


def test_card_has_every_battery_measure_with_the_findings_numbers():
    findings = synthetic_findings()
    profile = card.card(findings, MODEL)
    measured = profile[profile["row_type"] == "measured"]
    assert list(measured["key"]) == [m.key for m in battery.BATTERY]
    assert (measured["status"] == "measured").all()
    # copied, not recomputed: the card's numbers are the findings rows'
    by_id = findings.set_index("measure_id")
    for r in measured.itertuples():
        src = by_id.loc[r.measure_id]
        assert (r.n, r.estimate, r.ci_low, r.p_adjusted) == (src["n"], src["estimate"], src["ci_low"], src["p_adjusted"])
        assert r.smoke and "a smoke test (fewer than 30 units)" in r.sentence and f"n = {int(r.n)} questions" in r.sentence
    shown = card.display_table(profile)
    assert list(shown["measure"]) == [m.label for m in battery.BATTERY]


def test_a_missing_measure_says_not_measured_and_the_card_still_renders():
    findings = synthetic_findings(drop=("style_long",), zero=("judge_consistency",))
    profile = card.card(findings, MODEL)
    rows = profile[profile["row_type"] == "measured"].set_index("key")
    assert rows.loc["style_long", "status"].startswith("not measured: notebook 08 ran but wrote no row for it")
    assert rows.loc["judge_consistency", "status"].startswith("not measured: notebook 13 ran")
    assert "not measured" in rows.loc["style_long", "sentence"]
    assert rows.loc["position", "status"] == "measured"
    shown = card.display_table(profile).set_index("measure")
    assert shown.loc[battery.measure("style_long").label, "n"] == "not measured"
    fig = card.figure(profile)
    texts = [t.get_text() for ax in fig.axes for t in ax.texts]
    assert texts.count("not measured") == 2


def test_the_likelihood_reading_is_preferred_and_the_parsed_one_is_the_fallback():
    m = battery.measure("position")
    both = pd.DataFrame([_row(m.measure_ids[0], estimate=0.7), _row(m.measure_ids[1], estimate=0.4)], columns=COLUMNS)
    row = card.measured_rows(both, MODEL).set_index("key").loc["position"]
    assert (row["method"], row["estimate"]) == ("likelihood", 0.7)
    parsed_only = both.iloc[[1]]
    row = card.measured_rows(parsed_only, MODEL).set_index("key").loc["position"]
    assert (row["method"], row["estimate"]) == ("generate-and-parse", 0.4)
    other_model = both.assign(model="openai:gpt-4o-mini")
    assert card.measured_rows(other_model, MODEL).set_index("key").loc["position", "status"].startswith("not measured")


def test_reference_rows_are_the_papers_printed_numbers():
    refs = card.reference_rows()
    got = {k: dict(zip(g["model"], g["estimate"])) for k, g in refs.groupby("key")}
    assert set(got) == set(PRINTED)
    for key, models in PRINTED.items():
        assert set(got[key]) == set(models), key
        for model, value in models.items():
            assert math.isclose(got[key][model], value, abs_tol=1e-9), (key, model, got[key][model], value)
    assert card.reference_mismatches(card.card(synthetic_findings(), MODEL)) == []


def test_a_planted_wrong_reference_is_caught(monkeypatch):
    # a wrong number in published.py: the card's reference row no longer equals the printed one
    cells = list(pub.PROFILE_REFERENCES)
    i = next(j for j, c in enumerate(cells) if c.table == "Table 9" and "GPT" in c.row)
    cells[i] = pub.Published(cells[i].paper, cells[i].table, cells[i].row, cells[i].column, 46.21, cells[i].tolerance)
    monkeypatch.setattr(pub, "PROFILE_REFERENCES", cells)
    refs = card.reference_rows()
    planted = refs[(refs["key"] == "position") & (refs["model"] == "gpt-3.5-turbo (v1)")]["estimate"].iloc[0]
    assert not math.isclose(planted, PRINTED["position"]["gpt-3.5-turbo (v1)"], abs_tol=1e-9)
    # and a card whose reference row was altered after building no longer matches published.py
    monkeypatch.undo()
    profile = card.card(synthetic_findings(), MODEL)
    profile.loc[(profile["row_type"] == "reference") & (profile["key"] == "factual"), "estimate"] += 0.01
    problems = card.reference_mismatches(profile)
    assert len(problems) == 2 and all("factual" in p for p in problems)


def test_a_reference_to_a_cell_published_py_lacks_fails_loudly():
    bad = battery.Reference(pub.SP1, "Table 9", "NQ / GPT / G & X", "Front Preference", "gpt-3.5-turbo (v1)")
    with pytest.raises(KeyError, match="not in lib/paper_check/published.py"):
        bad.value


def test_model_slug_is_filesystem_safe():
    assert model_slug("local:smollm2") == "local-smollm2"
    assert run_name("openai:gpt-4o-mini@http://localhost:8000/v1") == "profile__openai-gpt-4o-mini-http-localhost-8000-v1"
    assert model_slug("hf:Qwen/Qwen2.5-0.5B-Instruct") == "hf-Qwen-Qwen2.5-0.5B-Instruct"
    with pytest.raises(ValueError):
        model_slug(":/")


@pytest.mark.notebooks
def test_the_report_renders_one_page_without_code(tmp_runs):
    name = "profile__synthetic"
    run = tmp_runs / name
    run.mkdir(parents=True)
    synthetic_findings(drop=("style_long",)).to_csv(run / "findings.csv", index=False)
    html = render(name, MODEL).read_text(encoding="utf-8")
    for m in battery.BATTERY:
        assert m.label in html, m.label
    assert html.count("not measured") >= 2  # the table cell and the sentence of the dropped measure
    assert "card.display_table" not in html and "import pandas" not in html  # no code on the page
    assert "data:image/png;base64" in html  # the figure is on the page
    assert (run / "profile.csv").exists()
    assert (tmp_runs.parent / "figures" / name / "profile_card.png").exists()
    assert "FigureWarning" not in html  # the card is laid out for its width: no warning above it


def test_the_card_figure_has_a_column_per_card_and_a_row_per_measure():
    """Two cards side by side (e.g. before and after a mitigation): one panel per measure and card,
    each measure named once on the left, the columns titled; a page-wide figure."""
    a = card.card(synthetic_findings(), MODEL)
    b = card.card(synthetic_findings(drop=("position",)), MODEL)
    fig = card.figure({"before": a, "after": b})
    panels = [ax for ax in fig.axes if ax.axison]
    assert len(panels) == 2 * len(battery.BATTERY) and card.span_of(2) == "page" and card.span_of(1) == "column"
    names = [t.get_text().replace("\n", " ") for ax in fig.axes if not ax.axison for t in ax.texts]
    assert len(names) == len(battery.BATTERY)
    assert [ax.get_title() for ax in panels if ax.get_title()] == ["before", "after"]
    assert [t.get_text() for ax in panels for t in ax.texts].count("not measured") == 1
