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
