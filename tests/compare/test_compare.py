"""compare on two small synthetic runs (findings.csv + manifest.json written here): rows joined by
(study, notebook, measure_id), an empty cell where a model lacks a measure, figure and LaTeX files
holding every model, and one clear line for a folder without findings."""
import json

import numpy as np
import pandas as pd
import pytest

from lib import compare, runner
from lib.report import findings
from lib.compare import forest, join, latex
from tests.latex_check import compile_errors, content_problems, require_engine


def _row(study, notebook, measure, model, n, est, lo, hi, p=None, paper=None, paper_model=None, mid=None, unit="item"):
    return findings.finding(study, notebook, measure, model, n, est, lo, hi, p, paper, unit=unit,
                            paper_model=paper_model, measure_id=mid)


def write_run(root, name, model, rows):
    """A run folder as the runner leaves it: findings.csv (through lib.report.findings) and manifest.json."""
    folder = root / name
    (folder / "findings").mkdir(parents=True)
    pd.DataFrame(rows, columns=findings.COLUMNS).to_csv(folder / "findings" / "rows.csv", index=False)
    findings.summarize(folder, name)
    (folder / "manifest.json").write_text(json.dumps({"run": name, "command_line_parameters": {"model": model},
                                                      "config": {"parameters": {}}, "notebooks": []}))
    return folder


@pytest.fixture
def two_runs(tmp_runs):
    a = [_row("self-preference", "05_pointwise_reranking", "human-minus-self rating (nq, rag, self true, parsed score)",
              "local:smollm2", 40, -0.30, -0.55, -0.05, 0.01, mid="human_minus_self.nq.rag.self_true.paper_parsed_reply"),
         _row("self-preference", "06_generation_phase", "self-preference rate (paper; TT/TF pairs)", "local:smollm2",
              12, 0.60, 0.40, 0.78, 0.3, paper=0.52, paper_model="GPT-3.5", mid="self_preference_rate.paper", unit="question"),
         _row("rewardbench", "13_rewardbench", "judge overall accuracy, paper's category weights (log-probability verdict)",
              "local:smollm2", 30, 0.55, 0.45, 0.65, mid="judge_overall_accuracy.log_probability_verdict", unit="pair")]
    b = [_row("self-preference", "05_pointwise_reranking", "human-minus-self rating (nq, rag, self true, parsed score)",
              "local:gemma3", 40, 0.10, -0.10, 0.30, 0.4, mid="human_minus_self.nq.rag.self_true.paper_parsed_reply"),
         _row("rewardbench", "13_rewardbench", "judge overall accuracy, paper's category weights (log-probability verdict)",
              "local:gemma3", 30, 0.62, 0.52, 0.71, mid="judge_overall_accuracy.log_probability_verdict", unit="pair")]
    write_run(tmp_runs, "sw__model=local-smollm2", "local:smollm2", a)
    write_run(tmp_runs, "sw__model=local-gemma3", "local:gemma3", b)
    return tmp_runs


def test_rows_are_joined_by_study_notebook_and_measure(two_runs):
    tables = compare.compare_tables(["sw__model=local-smollm2", "sw__model=local-gemma3"])
    wide = tables["wide"]
    assert list(wide[join.KEYS].itertuples(index=False, name=None)) == [
        ("self-preference", "05_pointwise_reranking", "human_minus_self.nq.rag.self_true.paper_parsed_reply"),
        ("self-preference", "06_generation_phase", "self_preference_rate.paper"),
        ("rewardbench", "13_rewardbench", "judge_overall_accuracy.log_probability_verdict")]
    first = wide.iloc[0]
    assert first["estimate [SmolLM2]"] == pytest.approx(-0.30) and first["estimate [Gemma-3]"] == pytest.approx(0.10)
    assert wide.iloc[2]["ci_high [Gemma-3]"] == pytest.approx(0.71) and wide.iloc[2]["n [SmolLM2]"] == 30


def test_a_model_missing_a_measure_gets_an_empty_cell(two_runs, tmp_runs):
    out = compare.compare(["sw__*"], "cmp")
    csv = pd.read_csv(tmp_runs / "cmp" / "comparison.csv", keep_default_na=False)
    row = csv[csv["measure_id"] == "self_preference_rate.paper"].iloc[0]
    assert row["estimate [Gemma-3]"] == "" and row["n [Gemma-3]"] == "" and float(row["estimate [SmolLM2]"]) == 0.6
    table = latex.study_table(out["wide"], out["long"], "self-preference")
    assert pd.isna(table.loc[1, "Gemma-3"]) and table.loc[1, "SmolLM2"] == "0.600 [0.400, 0.780]"


def test_figures_and_latex_exist_and_hold_every_model(two_runs, tmp_path):
    out = compare.compare(["sw__model=local-smollm2", "sw__model=local-gemma3"], "cmp")
    figs = tmp_path / "figures" / "cmp"
    for study in ("self_preference", "rewardbench"):
        assert (figs / f"forest_{study}.png").stat().st_size > 5000 and (figs / f"forest_{study}.pdf").exists()
        tex = (figs / f"comparison_{study}.tex").read_text()
        assert "SmolLM2" in tex and "Gemma-3" in tex and "\\toprule" in tex
        assert not content_problems(study, tex)
    tex = (figs / "comparison_self_preference.tex").read_text()
    assert "-0.300 [-0.550, -0.050]*" in tex and "0.520 & GPT-3.5 &" in tex and "12 (smoke)" in tex
    assert "---" in tex  # Gemma-3 has no self-preference rate: an empty (em-dash) cell
    # the forest plot names both models and the paper's model, and draws the null of each kind
    fig = forest.forest_figure(out["long"], "self-preference")
    texts = [t.get_text() for t in fig.findobj(lambda a: hasattr(a, "get_text"))]
    assert {"SmolLM2", "Gemma-3"} <= set(texts) and "GPT-3.5" in texts and any(t.startswith("n = 40") for t in texts)
    nulls = sorted(round(line.get_xdata()[0], 2) for ax in fig.axes for line in ax.lines if line.get_linestyle() == "--")
    assert nulls == [0.0, 0.5]


def test_latex_tables_compile(two_runs, tmp_path):
    require_engine()
    compare.compare(["sw__*"], "cmp")
    texs = {p.name: p.read_text() for p in (tmp_path / "figures" / "cmp").glob("*.tex")}
    assert len(texs) == 2 and compile_errors(texs, tmp_path / "latex") == {}


def test_holm_marks_follow_the_adjusted_p():
    assert [latex.mark(p) for p in (0.0005, 0.005, 0.03, 0.2, np.nan)] == ["***", "**", "*", "", ""]
    assert latex.estimate_text(0.5, 0.4, 0.6, 0.04) == "0.500 [0.400, 0.600]*"
    assert latex.estimate_text(np.nan, 0.4, 0.6) is None


def test_a_folder_without_findings_is_named(two_runs, tmp_runs, capsys):
    (tmp_runs / "empty_run").mkdir()
    with pytest.raises(join.CompareError, match="empty_run: no findings.csv"):
        compare.compare_tables(["sw__model=local-smollm2", "empty_run"])
    code = runner.main(["compare", "sw__model=local-smollm2", str(tmp_runs / "empty_run"), "--name", "c"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and err.count("\n") == 0 and "empty_run: no findings.csv" in err
    assert runner.main(["compare", "no_such_run*", "--name", "c"]) == 2
    assert "no_such_run*: no run folder matches" in capsys.readouterr().err


def test_the_summary_line_names_the_comparison_not_its_last_figure(two_runs, capsys):
    """The forest loop's page name once shadowed the comparison's: the line printed
    '[compare forest_rewardbench] ... <runs>/forest_rewardbench/comparison.csv', a folder that does not exist."""
    compare.compare(["sw__*"], "my_cmp")
    line = capsys.readouterr().out.strip().splitlines()[-1]
    assert line.startswith("[compare my_cmp]") and "forest_" not in line.split("figures in")[0]
    assert str(two_runs / "my_cmp" / "comparison.csv") in line


def test_a_comparison_folder_is_not_taken_for_a_run(two_runs):
    compare.compare(["sw__*"], "sw")
    with pytest.raises(join.CompareError, match="a comparison, not a run"):
        compare.compare_tables(["sw*"])


def test_labels_fall_back_to_run_names_when_models_repeat(tmp_runs):
    row = _row("rewardbench", "13_rewardbench", "judge overall accuracy (x)", "local:smollm2", 30, 0.5, 0.4, 0.6,
               mid="judge_overall_accuracy.x", unit="pair")
    write_run(tmp_runs, "a", "local:smollm2", [row])
    write_run(tmp_runs, "b", "local:smollm2", [row])
    assert compare.compare_tables(["a", "b"])["wide"].columns[-8:].str.endswith("[b]").all()


def test_forest_draws_rows_without_an_interval_hollow_and_without_a_bar():
    from lib.compare import forest

    long = pd.DataFrame([
        {"entry": "A", "study": "self-preference", "measure_id": "style_preference.gen_by_qa.nq",
         "measure": "gen-by-QA preference rate (nq)", "estimate": 0.7, "ci_low": 0.6, "ci_high": 0.8, "n": 40,
         "unit": "question", "smoke": False, "paper_value": np.nan, "paper_model": "", "run": "a", "model": "a"},
        {"entry": "B", "study": "self-preference", "measure_id": "style_preference.gen_by_qa.nq",
         "measure": "gen-by-QA preference rate (nq)", "estimate": 0.9, "ci_low": np.nan, "ci_high": np.nan, "n": 40,
         "unit": "question", "smoke": False, "paper_value": np.nan, "paper_model": "", "run": "b", "model": "b"}])
    ax = forest.forest_figure(long, "self-preference").axes[0]
    dots = [line for line in ax.lines if line.get_marker() == "o"]
    filled = {float(d.get_xdata()[0]): d.get_markerfacecolor() for d in dots}
    assert filled[0.9] == "white" and filled[0.7] != "white"
    bars = [line for line in ax.lines if len(line.get_xdata()) == 2 and line.get_linestyle() == "-"]
    assert len(bars) == 1  # only A's interval
    # 08's style preference has its null drawn at 0.5
    assert [round(line.get_xdata()[0], 2) for line in ax.lines if line.get_linestyle() == "--"] == [0.5]


def test_forest_rows_of_one_kind_say_which_measure_they_are_and_name_datasets():
    """The fresh demo run's utility forest: 'ground truth minus counterfactual' and 'counterfactual minus
    noisy' shared one panel titled after the first, both rows labelled 'pointwise'."""
    from lib.compare import forest

    def row(mid, measure):
        return {"entry": "A", "study": "utility", "measure_id": mid, "measure": measure, "estimate": 0.1,
                "ci_low": 0.0, "ci_high": 0.2, "n": 40, "unit": "question", "smoke": False, "paper_value": np.nan,
                "paper_model": "", "run": "a", "model": "a"}

    long = pd.DataFrame([
        row("role_selection_gap.pointwise.ground_truth_minus_counterfactual",
            "selected share, ground truth minus counterfactual passages (pointwise)"),
        row("role_selection_gap.pointwise.counterfactual_minus_noisy",
            "selected share, counterfactual minus noisy passages (pointwise)"),
        row("set_f1.nq.utility", "set F1 % (nq, utility prompts)")])
    fig = forest.forest_figure(long, "utility")
    gap, f1 = fig.axes
    assert gap.get_title(loc="left") == "selected share"
    labels = [t.get_text().replace("\n", " ") for t in gap.get_yticklabels()]
    assert labels == ["ground truth minus counterfactual passages: pointwise",
                      "counterfactual minus noisy passages: pointwise"]
    assert f1.get_title(loc="left") == "set F1 %"
    assert [t.get_text() for t in f1.get_yticklabels()] == ["NQ, utility prompts"]
    assert forest.shared_head(["answer F1", "set F1"]) == ""


def test_a_long_forest_goes_on_over_pages_without_empty_panels_or_cut_labels():
    """The demo's forest_self_preference: a 3.5 x 9.8 in strip whose headline panel held only rows without
    an estimate, its labels cut with '...'."""
    import matplotlib.pyplot as plt

    from lib.compare import forest

    def row(mid, measure, est):
        return {"entry": "SmolLM2", "study": "self-preference", "measure_id": mid, "measure": measure,
                "estimate": est, "ci_low": np.nan, "ci_high": np.nan, "n": 14, "unit": "item", "smoke": True,
                "paper_value": np.nan, "paper_model": "", "run": "demo", "model": "local:smollm2"}

    rows = [row("self_preference_rate.paper", "self-preference rate (paper)", np.nan)]
    rows += [row(f"human_minus_self.{d}.rag.{s}.{m}", f"human-minus-self rating ({d}, rag, {s}, {m} with a long name)", 0.1)
             for d in ("nq", "marco", "triviaqa") for s in ("self_true", "self_false") for m in ("likelihood_sum", "next_token")]
    rows += [row(f"order_preference_rate.{i}", f"order preference rate (reading {i})", 0.5) for i in range(14)]
    long = pd.DataFrame(rows)
    figs = forest.forest_figures(long, "self-preference")
    assert len(figs) == 2 == len(forest.pages(long, "self-preference"))
    for fig in figs:
        fig.canvas.draw()
        assert fig.get_figheight() <= forest.MAX_HEIGHT and fig.get_figwidth() == forest.WIDTH
        labels = [t.get_text() for ax in fig.axes for t in ax.get_yticklabels()]
        assert labels and not any("..." in t for t in labels)
        assert "1 measure without an estimate left out" in fig._suptitle.get_text()
    titles = [ax.get_title(loc="left") for fig in figs for ax in fig.axes]
    assert "self preference rate" not in " ".join(titles).lower()  # no panel of only estimate-less rows
    assert sum(len(ax.get_yticklabels()) for fig in figs for ax in fig.axes) == 12 + 14
    for fig in figs:
        plt.close(fig)


def test_a_panel_gives_rows_only_to_the_entries_that_measured_its_kind():
    """The run table of a simulator run: its two judges measure no self-preference, yet every measure had
    three rows, two of them 'not measured' (11 pages of forest)."""
    import matplotlib.pyplot as plt

    from lib.compare import forest

    def row(entry, study, mid):
        return {"entry": entry, "study": study, "measure_id": mid, "measure": f"{mid} (x)", "estimate": 0.5,
                "ci_low": 0.4, "ci_high": 0.6, "n": 40, "unit": "question", "smoke": False, "paper_value": np.nan,
                "paper_model": "", "run": "r", "model": entry}

    long = pd.DataFrame([row("sim", "self-preference", f"order_preference_rate.{i}") for i in range(3)]
                        + [row(j, "rewardbench", "judge_overall_accuracy.x") for j in ("judge a", "judge b")])
    fig = forest.forest_figure(long, "self-preference")
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert texts == ["n = 40"] * 3 and "not measured" not in texts
    plt.close(fig)


def test_a_study_forest_names_only_its_entries_and_labels_without_repeating_the_id():
    """A comparison of two runs, one of them with a second model that has no mitigation rows: the
    mitigation forest's heading and legend named all four entries, and its rows read 'balanced 06 self:
    after minus before: 06.self' (a name without a parenthesised detail, then its id's tail again)."""
    import matplotlib.pyplot as plt

    def row(entry, mid, measure, est):
        return {"entry": entry, "study": "mitigation", "measure_id": mid, "measure": measure, "estimate": est,
                "ci_low": est - 0.02, "ci_high": est + 0.02, "n": 95, "unit": "question", "smoke": False,
                "paper_value": np.nan, "paper_model": "", "run": entry.split(":")[0], "model": "m"}

    rows = [row(e, mid, name, 0.05) for e in ("a: sim", "b: sim")
            for mid, name in (("balanced.13.accuracy", "balanced 13 accuracy: after minus before"),
                              ("balanced.13.position", "balanced 13 position: after minus before"))]
    other = {**row("a: sim_b", "judge_overall_accuracy.x", "judge accuracy (x)", 0.6), "study": "rewardbench"}
    long = pd.DataFrame(rows + [other])
    (fig,) = forest.forest_figures(long, "mitigation")
    heading = fig._suptitle.get_text()
    assert "a: sim vs b: sim" in heading and "sim_b" not in heading
    assert [t.get_text() for t in fig.legends[0].get_texts()][:2] == ["a: sim", "b: sim"]
    labels = [t.get_text().replace("\n", " ") for ax in fig.axes for t in ax.get_yticklabels()]
    assert labels == ["balanced 13 accuracy: after minus before", "balanced 13 position: after minus before"]
    plt.close(fig)
