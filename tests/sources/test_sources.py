"""QA-source loaders (lib.sources): NQ, MS MARCO, TriviaQA, demo layout, sampling, bad input."""
from pathlib import Path

import pandas as pd
import pytest

from lib import sources
from lib.records import DataError

FIX = Path(__file__).parents[1] / "fixtures" / "sp1"


def test_nq_dpr_layout_takes_first_positive_and_answers():
    items = sources.parse_nq(FIX / "nq_dpr.json")
    assert list(items.columns) == sources.ITEM_COLUMNS
    assert len(items) == 3
    first = items.iloc[0]
    assert first["answer"] == "Herman Melville"
    assert first["human_passage"].startswith("Moby-Dick is an 1851 novel")
    assert first["negatives"][0]["title"] == "Nantucket"
    assert items.iloc[1]["aliases"] == ["9 November 1989"]


def test_marco_filters_query_types_and_takes_selected_passage():
    items = sources.parse_marco(FIX / "marco_v21.json")
    assert set(items["query_type"]) <= set(sources.MARCO_V1_QUERY_TYPES)
    assert "how long to boil an egg" not in set(items["question"])
    bell = items[items["question"] == "who invented the telephone"].iloc[0]
    assert bell["human_passage"].startswith("Alexander Graham Bell was granted")
    assert [n["text"] for n in bell["negatives"]] == ["Telephones spread quickly in the 1880s."]
    everything = sources.parse_marco(FIX / "marco_v21.json", query_types=None)
    assert len(everything) == 4
    # 'No Answer Present.' is not an answer
    assert everything[everything["question"].str.contains("kilimanjaro")].iloc[0]["answer"] == ""


def test_marco_official_column_layout_matches_row_layout():
    rows = sources.parse_marco(FIX / "marco_v21.json", query_types=None)
    cols = sources.parse_marco(FIX / "marco_v21_columns.json", query_types=None)
    pd.testing.assert_frame_equal(rows.drop(columns="id"), cols.drop(columns="id"))


def test_triviaqa_reads_wiki_and_search_evidence():
    items = sources.parse_triviaqa(FIX / "triviaqa_rc.json", window_words=12)
    assert list(items["answer"]) == ["Iron", "Mali"]
    assert "Fe" in items.iloc[0]["aliases"] and "Iron" not in items.iloc[0]["aliases"]
    assert len(items.iloc[0]["human_passage"].split()) == 12
    assert "Mali" in items.iloc[1]["human_passage"]


def test_sampling_is_seeded_and_counts_what_it_drops():
    items = sources.parse_demo(FIX / "demo_nq.jsonl")
    kept, dropped = sources.sample_items(items, n=None, seed=0)
    assert len(kept) + len(dropped) == len(items)
    assert dropped["reason"].tolist() == ["answer not in passage"]
    assert dropped["id"].tolist() == ["nq-004"]
    # the alias found in the passage becomes the answer; the old answer is kept as an alias
    gogh = kept.set_index("id").loc["nq-003"]
    assert gogh["answer"] == "van Gogh" and "Vincent van Gogh" in gogh["aliases"]
    a, _ = sources.sample_items(items, n=2, seed=1)
    b, _ = sources.sample_items(items, n=2, seed=1)
    assert a["id"].tolist() == b["id"].tolist() and len(a) == 2


def test_sample_from_real_layouts_drops_missing_answers():
    kept, dropped = sources.sample_items(sources.parse_nq(FIX / "nq_dpr.json"), seed=0)
    assert set(dropped["id"]) == {"nq-2"} and len(kept) == 2  # Apollo passage lacks the answer
    kept, dropped = sources.sample_items(sources.parse_marco(FIX / "marco_v21.json"), seed=0)
    # kilimanjaro has no selected passage (and no answer): the first check that fails names it
    assert dropped.set_index("id")["reason"].to_dict() == {"103": "empty passage"}


def test_demo_missing_field_names_file_item_and_field():
    with pytest.raises(DataError) as err:
        sources.parse_demo(FIX / "demo_missing_answer.jsonl")
    msg = str(err.value)
    assert "demo_missing_answer.jsonl" in msg and "nq-001" in msg and "'answer'" in msg


def test_items_for_run_filters_a_given_file_and_keeps_its_order():
    with pytest.warns(UserWarning, match="dropped 1 unusable items"):
        items = sources.items_for_run(FIX / "demo_nq.jsonl", ["nq"], n_items=None)
    assert items["id"].tolist() == ["nq-001", "nq-002", "nq-003"]
    assert items.set_index("id").loc["nq-003", "answer"] == "van Gogh"
    with pytest.warns(UserWarning):
        assert len(sources.items_for_run(FIX / "demo_nq.jsonl", "nq", n_items=2)) == 2
    with pytest.raises(DataError, match="Unknown dataset 'squad'"):
        sources.items_for_run(FIX / "demo_nq.jsonl", ["squad"])


def test_hf_spec_goes_through_datasets_with_config_and_split(monkeypatch):
    import datasets
    calls = []
    rows = [{"query_id": 1, "query": "who invented the telephone", "query_type": "PERSON",
             "answers": ["Alexander Graham Bell"], "wellFormedAnswers": [],
             "passages": {"is_selected": [0, 1], "url": ["u1", "u2"],
                          "passage_text": ["Phones spread.", "Alexander Graham Bell patented it."]}}]

    def fake_load(name, config, split):
        calls.append((name, config, split))
        return rows
    monkeypatch.setattr(datasets, "load_dataset", fake_load)
    items = sources.parse_marco("hf:microsoft/ms_marco:v2.1:validation")
    assert calls == [("microsoft/ms_marco", "v2.1", "validation")]
    assert items.iloc[0]["human_passage"] == "Alexander Graham Bell patented it."
    assert items.iloc[0]["title"] == "u2"


def test_hf_failure_says_how_to_work_offline(monkeypatch):
    import datasets

    def fail(*a, **k):
        raise ConnectionError("no network")
    monkeypatch.setattr(datasets, "load_dataset", fail)
    with pytest.raises(DataError, match="Offline, download the files"):
        sources.parse_nq("hf:some/nq")
