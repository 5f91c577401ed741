"""Notebook 18's table check for the smoke run (tests/notebooks/test_notebooks_run.py collects it)."""
import numpy as np
import pandas as pd


def check_18(run, params):
    """Mitigation: every arm row's difference is after minus before, its interval holds it; a balanced
    verdict's position rate is 0.5; the decomposition's excess is harmful minus baseline; the priors sum to 1."""
    arms = pd.read_csv(run / "18_mitigation" / "18_mitigation_arms.csv")
    priors = pd.read_csv(run / "18_mitigation" / "18_content_free_priors.csv")
    assert len(arms) and len(priors), "no arm or no content-free prior in the smoke run"
    for p in priors["prior"]:
        assert abs(sum(float(x) for x in p.strip("[]").split(",")) - 1) < 1e-6
    tested = arms[arms["quantity"] != "flipped"]
    assert np.allclose(tested["diff"], tested["after"] - tested["before"], atol=1e-9)
    balanced_position = arms[(arms["arm"] == "balanced") & (arms["quantity"] == "position")]
    assert (balanced_position["after"] == 0.5).all()
    assert set(arms["arm"]) >= {"balanced", "contextual", "temperature", "order_averaged"}, set(arms["arm"])
    order = arms[arms["arm"] == "order_averaged"].set_index("quantity")
    assert set(order.index) == {"gt_hit", "flipped", "first_shown"} and order["after"].between(0, 1).all()
    dec = pd.read_csv(run / "18_mitigation" / "18_self_decomposition.csv").set_index(["model", "quantity"])["estimate"]
    for model in dec.index.get_level_values(0).unique():
        part = dec[model]
        assert abs(part["harmful_excess"] - (part["harmful"] - part["baseline"])) < 1e-9, model


TABLE_CHECKS = {"18_mitigation": check_18}
