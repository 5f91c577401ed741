"""Notebook 15 on a server without prompt log-probabilities: the implicit reward models are left out
and said so, the rest of the notebook's tables still build (as 13 does), nothing crashes."""
import pandas as pd

from lib.rewardbench import accuracy_tables, best_of_n, study
from tests.rewardbench.test_rewardbench_models import _pairs


def test_best_of_n_without_likelihoods_leaves_the_implicit_model_out(scripted_model, capsys):
    server = scripted_model(lambda text, req: "An answer", spec="openai:s@http://127.0.0.1:9/v1", likelihoods=False)
    spec = "implicit:openai:s@http://127.0.0.1:9/v1"
    candidates = pd.DataFrame([{"item_id": f"q{i}", "system": "", "prompt": f"question {i}", "response": r,
                                "recall": float(r == "right")} for i in range(3) for r in ("right", "wrong")])
    picks = best_of_n.pick_every([spec], candidates, models={spec: {"model": server}})
    assert picks.empty and "left out of the best-of-N table" in capsys.readouterr().out
    bon = best_of_n.bon_table(candidates, picks)
    results = study.pair_results([spec], _pairs(2), models={spec: {"model": server}})
    accuracy, basis = best_of_n.accuracy_for_figure6(accuracy_tables.accuracy_table(results))
    bon = bon.merge(accuracy, on="rm", how="left")
    assert bon.empty and best_of_n.accuracy_gain_correlation(bon)["n_models"] == 0


def test_a_reward_model_that_can_score_is_kept(scripted_model):
    model = scripted_model(lambda text, req: "x", loglik=lambda ctx, cont: -len(cont))
    spec = "implicit:local:smollm2"
    candidates = pd.DataFrame([{"item_id": "q0", "system": "", "prompt": "question", "response": r,
                                "recall": float(r == "ok")} for r in ("ok", "a much longer wrong reply")])
    picks = best_of_n.pick_every([spec], candidates, models={spec: {"model": model}})
    assert list(picks["response"]) == ["ok"]  # the higher (less negative) implicit reward
