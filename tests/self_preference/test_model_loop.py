"""for_each_model: the one "for every evaluator, run and concatenate" loop of the self-preference study."""
import pandas as pd

from lib.self_preference.model_loop import for_each_model


def test_every_evaluator_in_order_with_its_author_name_and_model():
    seen = []

    def run(model, name, spec):
        seen.append(spec)
        return pd.DataFrame({"evaluator": [name, name], "spec": [model.spec.key] * 2}, index=[7, 8])

    # no model is called: get_model builds its backend on first use only
    out = for_each_model(["local:smollm2", "hf:org/gpt-3.5-turbo"], {"gpt-3.5-turbo": "gpt"}, run)
    assert seen == ["local:smollm2", "hf:org/gpt-3.5-turbo"]
    assert out["evaluator"].tolist() == ["smollm2", "smollm2", "gpt", "gpt"]
    assert out["spec"].tolist() == ["local:smollm2"] * 2 + ["hf:org/gpt-3.5-turbo"] * 2
    assert out.index.tolist() == [0, 1, 2, 3]
    kept = for_each_model(["local:smollm2"], None, run, ignore_index=False)
    assert kept.index.tolist() == [7, 8]
    assert for_each_model([], None, run).empty
