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
