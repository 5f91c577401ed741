"""Notebook 18's tables when no arm can be read: a server without likelihoods or log-probabilities
(tests/integration's llama.cpp server) gives 05, 06 and 13 records but no arm any input."""
import pandas as pd

from lib.mitigation import arms, study


def test_every_arm_empty_gives_an_empty_table_not_an_error(tmp_path, monkeypatch):
    one_judgment = pd.DataFrame({"spec": ["judge:openai:m@http://127.0.0.1:1/v1"], "id": ["p1"]})
    monkeypatch.setattr(study.inputs, "judge_records", lambda folder: one_judgment)
    for name in ("balanced_pairwise", "balanced_judge", "contextual_judge", "contextual_pointwise",
                 "temperature_pointwise"):
        monkeypatch.setattr(arms, name, lambda *a, **k: arms._empty())
    monkeypatch.setattr(study, "length_rows", lambda judge, n_boot: (arms._empty(), []))
    table, _decomposition, _notes = study.mitigation_tables(tmp_path, pd.DataFrame(), n_boot=10)
    assert list(table.columns) == arms.TABLE_COLUMNS and table.empty


def test_the_before_after_figure_says_which_marker_is_which_and_names_every_row_apart():
    """The demo's 18_before_after: no key to the open and filled markers, and 13's two implicit reward
    models both labelled 'length 13 acc. RM'."""
    import matplotlib.pyplot as plt
    import pandas as pd

    from lib.mitigation.figures import before_after_figure

    def row(arm, source, quantity, model, before, after):
        return {"arm": arm, "source": source, "quantity": quantity, "model": model, "n": 24, "before": before,
                "after": after, "diff": after - before, "ci_low": -0.1, "ci_high": 0.1}

    table = pd.DataFrame([row("balanced", "13", "accuracy", "judge:local:smollm2;logprob", 0.5, 0.6),
                          row("length_control", "13", "accuracy", "implicit:local:smollm2", 0.3, 0.32),
                          row("length_control", "13", "accuracy", "implicit:local:smollm2;mean", 0.6, 0.58),
                          row("temperature", "05", "human_minus_self_rag", "local:smollm2", 0.04, 0.01)])
    fig = before_after_figure(table)
    labels = [t.get_text() for ax in fig.axes for t in ax.get_yticklabels() if t.get_fontweight() != "bold"]
    assert len(labels) == len(set(labels)) == 4, labels
    assert [t.get_text() for t in fig.legends[0].get_texts()][0] == "before"
    plt.close(fig)


def test_the_before_after_panels_keep_their_width_at_a_column():
    """The demo's 18_before_after had panels 0.3 in wide: the 05 panel's centred title, wider than
    the panel, made constrained layout narrow the whole column. Each panel keeps at least 1.2 in."""
    import matplotlib.pyplot as plt
    import pandas as pd

    from lib.mitigation.figures import before_after_figure
    from lib.report import figure_checks, plotting
    from lib.report.outputs import RunOutputs

    plotting.house_style()  # the notebook's text sizes
    rows = [{"arm": "length_control", "source": "13", "quantity": "accuracy", "model": f"implicit:local:m{i};mean",
             "n": 24, "before": 0.5, "after": 0.55, "diff": 0.05, "ci_low": -0.1, "ci_high": 0.1} for i in range(3)]
    rows.append({"arm": "temperature", "source": "05", "quantity": "human_minus_self_rag", "model": "local:m0",
                 "n": 33, "before": 0.04, "after": 0.01, "diff": -0.03, "ci_low": -0.05, "ci_high": -0.01})
    fig = before_after_figure(pd.DataFrame(rows))
    RunOutputs("t", "nb").figure(fig, "before_after", caption="bars: 95% CI of the change")  # as 18 saves it
    assert figure_checks.narrowest_panel_in(fig) >= 1.2, figure_checks.narrowest_panel_in(fig)
    plt.close(fig)


def test_two_generate_and_parse_judges_are_told_apart_by_name():
    """The papers'-size run's 18_before_after labelled 13's two simulated judges (sim and sim_b, the same
    options) both 'length 13 acc. J 0 retries)'."""
    import pandas as pd

    from lib.mitigation.figures import _labels

    specs = ["judge:openai:sim@http://x/v1;max_tokens:16;retries:0", "judge:openai:sim_b@http://x/v1;max_tokens:16;retries:0",
             "judge:openai:sim@http://x/v1;logprob", "implicit:local:smollm2", "implicit:local:smollm2;mean"]
    part = pd.DataFrame([{"arm": "length_control", "source": "13", "quantity": "accuracy", "model": m} for m in specs])
    labels = _labels(part, True)
    assert len(set(labels)) == 5, labels
    assert labels[:2] == ["13: accuracy, judge, parsed reply (sim)", "13: accuracy, judge, parsed reply (sim_b)"]
    assert labels[2:] == ["13: accuracy, log-prob judge", "13: accuracy, implicit reward",
                          "13: accuracy, implicit mean reward"]


def test_the_before_after_figure_names_each_arm_and_leaves_smoke_rows_out_by_name():
    """The demo's 18_before_after read 'bal. 06 fact.' and 'k-vote 12 GT hit', and drew 12's n = 1 rows
    as results: each arm is now a heading, a row names its quantity, and a row under 10 questions is
    named under the legend instead of drawn."""
    import matplotlib.pyplot as plt
    import pandas as pd

    from lib.mitigation.figures import before_after_figure

    def row(arm, source, quantity, n):
        return {"arm": arm, "source": source, "quantity": quantity, "model": "local:m", "n": n, "before": 0.5,
                "after": 0.6, "diff": 0.1, "ci_low": -0.05, "ci_high": 0.2}

    table = pd.DataFrame([row("balanced", "06", "factual", 17), row("balanced", "06", "self", 17),
                          row("order_averaged", "12", "gt_hit", 1)])
    fig = before_after_figure(table)
    ticks = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert ticks == ["balanced calibration", "06: factual preference", "06: self-preference"], ticks
    assert fig.axes[0].get_yticklabels()[0].get_fontweight() == "bold"
    note = fig.legends[0].get_title().get_text().replace("\n", " ")
    assert note == "not drawn, n < 10: listwise order averaging of 12 (n = 1)", note
    assert fig._suptitle.get_text().endswith("n = 17")
    plt.close(fig)
    fig = before_after_figure(table[table["n"] < 10])  # nothing has the units: all drawn, called a smoke test
    assert fig._suptitle.get_text().startswith("Smoke test") and not fig.legends[0].get_title().get_text()
    plt.close(fig)
