"""The arms reach the bias card through the registry: every declared change names a card row and a
declared mitigation measure, and the card's "after mitigation" column shows the run's row."""
import pandas as pd

from lib.profile import card
from lib.profile.battery import BATTERY
from lib.report import findings
from lib.report.measures import find, mitigations


def test_every_mitigation_names_a_card_row_and_a_declared_measure():
    keys = {m.key for m in BATTERY}
    for key, ids in mitigations().items():
        assert key in keys, key
        assert all(find(i).study == "mitigation" for i in ids), ids


def _row(mid, estimate, lo, hi, model="local:m"):
    return findings.finding("mitigation", "18_mitigation", mid, model, 40, estimate, lo, hi, 0.01, measure_id=mid)


def test_the_card_shows_the_change_beside_the_measured_row():
    frame = pd.DataFrame([_row("balanced.06.position", -0.12, -0.18, -0.06)])
    profile = card.card(frame, "local:m")
    shown = card.display_table(profile).set_index("measure")["after mitigation (change)"]
    position = next(m for m in BATTERY if m.key == "position")
    assert shown[position.label] == "balanced: -12 pp [-18 pp, -6 pp], n = 40"
    others = [v for label, v in shown.items() if label != position.label]
    assert others and all(v == "" for v in others)  # a row no arm read in this run stays empty
    planted = pd.DataFrame([_row("balanced.06.position", -0.12, -0.18, -0.06, model="other")])
    assert card.after_mitigation(planted[planted["model"] == "local:m"], position) == ""


def test_length_control_of_several_reward_models_of_one_model_gets_one_id_each():
    """The demo's findings.csv held three length_control.13.accuracy rows for local:smollm2 (its log-probability
    judge and two implicit reward models), rows no reader could tell apart."""
    import pandas as pd

    from lib.mitigation.decomposition import COLUMNS
    from lib.mitigation.findings_rows import mitigation_findings
    from lib.report.measures import find

    specs = ["judge:local:smollm2;logprob", "implicit:local:smollm2", "implicit:local:smollm2;mean"]
    table = pd.DataFrame([{"arm": "length_control", "source": "13", "quantity": "accuracy", "model": s, "n": 24,
                           "n_judgments": 30, "before": 0.5, "after": 0.5, "diff": 0.0, "ci_low": -0.1, "ci_high": 0.1,
                           "p": 0.5, "ci_note": ""} for s in specs])
    rows = mitigation_findings(table, pd.DataFrame(columns=COLUMNS))
    ids = [r["measure_id"] for r in rows]
    assert ids == ["length_control.13.accuracy", "length_control.13.accuracy.implicit_reward",
                   "length_control.13.accuracy.implicit_mean_reward"]
    assert {r["model"] for r in rows} == {"local:smollm2"}
    assert find(ids[0]).truth and not find(ids[2]).truth  # the simulator's judge has a truth; scalar models none


def test_findings_rows_read_as_words_not_ids():
    """The run README printed 'contextual 05 human minus self rag: after minus before'."""
    import pandas as pd

    from lib.mitigation.decomposition import COLUMNS
    from lib.mitigation.findings_rows import mitigation_findings

    table = pd.DataFrame([{"arm": arm, "source": src, "quantity": q, "model": "local:smollm2", "n": 33, "n_judgments": 33,
                           "before": 0.1, "after": 0.0, "diff": -0.1, "ci_low": -0.2, "ci_high": 0.0, "p": 0.01, "ci_note": ""}
                          for arm, src, q in (("contextual", "05", "human_minus_self_rag"), ("balanced", "06", "self"))])
    names = [r["measure"] for r in mitigation_findings(table, pd.DataFrame(columns=COLUMNS))]
    assert names == ["contextual calibration of 05, human minus own rating, RAG prompt: after minus before",
                     "balanced calibration of 06, self-preference rate: after minus before"]
    assert not any("_" in n for n in names)
