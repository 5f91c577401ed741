"""Figures of notebooks 07 and 08 (lib.self_preference.figures): bars are the rates of the rows given."""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from lib.self_preference import figures  # noqa: E402


def _bars(fig):
    """Bar heights drawn (seaborn's bar containers; legend proxies are not bars)."""
    return sorted(round(float(b.get_height()), 6) for c in fig.axes[0].containers for b in c
                  if b.get_height() == b.get_height())


def test_fact_by_knowledge_bars_are_the_shares_per_level_in_order():
    scored = pd.DataFrame({"item_id": ["a", "a", "b", "b", "c"], "evaluator": ["m"] * 5,
                           "chose_true": [True, False, True, True, None]})
    knowledge = pd.DataFrame({"item_id": ["a", "b"], "model": ["m", "m"], "level": ["full", "no"]})
    fig = figures.fact_by_knowledge(scored, knowledge)
    ax = fig.axes[0]
    # 'no' becomes 'none'; item c is unparsed (dropped); a: 1 of 2 true, b: 2 of 2
    assert [t.get_text() for t in ax.get_xticklabels()] == ["none", "full"]
    assert _bars(fig) == [0.5, 1.0]
    plt.close(fig)


def test_style_preference_uses_valid_pairs_only_and_says_when_there_are_none():
    scored = pd.DataFrame({"kind": ["long", "long", "long"], "evaluator": ["m"] * 3,
                           "valid": [True, True, False], "chose_a": [True, False, True]})
    fig = figures.style_preference(scored)
    assert _bars(fig) == [0.5]  # the invalid pair's choice would make it 0.67
    plt.close(fig)
    empty = figures.style_preference(scored.assign(valid=False))
    assert [t.get_text() for t in empty.axes[0].texts] == ["no valid pairs"] and _bars(empty) == []
    plt.close(empty)


def _suptitle(fig):
    return fig._suptitle.get_text() if fig._suptitle is not None else ""


def test_preference_figures_state_n_in_pairs_and_the_pairs_without_a_reply():
    from lib.plotting import states_n

    scored = pd.DataFrame({"item_id": ["a", "a", "b", "b", "c"], "evaluator": ["m"] * 5,
                           "a_fact": ["true"] * 4 + ["false"], "b_fact": ["false"] * 4 + ["true"],
                           "chose_true": [True, False, True, None, None]})
    knowledge = pd.DataFrame({"item_id": ["a", "b", "c"], "model": ["m"] * 3, "level": ["full", "no", "full"]})
    fig = figures.fact_by_knowledge(scored, knowledge)
    assert states_n(fig) and _suptitle(fig).startswith("n = 3 pairs; 2 of 5 ")
    plt.close(fig)
    style = pd.DataFrame({"kind": ["long"] * 4, "evaluator": ["m"] * 4,
                          "valid": [True, True, True, False], "chose_a": [True, False, True, True]})
    fig = figures.style_preference(style)
    assert _suptitle(fig) == "n = 3 pairs; 1 of 4 pairs without a valid reply (25%)"
    plt.close(fig)
