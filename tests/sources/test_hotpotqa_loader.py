"""The HotpotQA loader: distractor-setting, datasets-library and KILT layouts, with clear errors."""
import json
from pathlib import Path

import pytest

from lib.records import DataError
from lib.sources.hotpotqa import COLUMNS, ITEM_COLUMNS, parse_hotpotqa

FIX = Path(__file__).parents[1] / "fixtures" / "hotpotqa"


def test_item_columns_match_the_shared_loaders():
    from lib import sources
    assert ITEM_COLUMNS == sources.ITEM_COLUMNS and COLUMNS == ITEM_COLUMNS + ["supporting_passages"]
    demo = sources.load_source("hotpotqa")
    assert list(demo.columns) == COLUMNS and len(demo) >= 30 and set(demo["false_answer_ours"]) == {""}


def test_distractor_setting_supporting_paragraphs_are_the_ground_truth():
    df = parse_hotpotqa(FIX / "distractor.json")
    it = df.iloc[0]
    assert list(df.columns) == COLUMNS and it["id"] == "hotpotqa-5a8b57f25542995d1e6f1371"
    assert it["supporting_passages"] == ["Swimmer X won eight golds at Games Y. He trained hard.",
                                         "Games Y were held in Beijing. They opened in August."]
    assert it["human_passage"] == it["supporting_passages"][0] and it["title"] == "Swimmer X"
    assert [n["title"] for n in it["negatives"]] == ["Pool Z"] and it["query_type"] == "bridge"


def test_datasets_library_layout():
    it = parse_hotpotqa(FIX / "hf_layout.json").iloc[0]
    assert it["supporting_passages"] == ["A was born in 1900.", "B was born in 1950."]
    assert it["answer"] == "A" and it["negatives"][0]["text"] == "C is a distractor."


def test_kilt_layout_needs_pages_and_reads_provenance():
    with pytest.raises(DataError, match="pages_path"):
        parse_hotpotqa(FIX / "kilt.jsonl")
    it = parse_hotpotqa(FIX / "kilt.jsonl", pages_path=FIX / "kilt_pages.jsonl").iloc[0]
    assert it["supporting_passages"] == ["River R flows past Town T.", "Town T is in France. It is small."]
    assert it["answer"] == "France" and it["aliases"] == ["French Republic"]


def test_one_supporting_passage_or_unknown_layout_is_an_error(tmp_path):
    rec = json.loads((FIX / "distractor.json").read_text())[0]
    rec["supporting_facts"] = [["Games Y", 0]]
    bad = tmp_path / "one.json"
    bad.write_text(json.dumps([rec]))
    with pytest.raises(DataError, match="item 1.*1 supporting passage"):
        parse_hotpotqa(bad)
    bad.write_text(json.dumps([{"q": "x"}]))
    with pytest.raises(DataError, match="unknown HotpotQA layout"):
        parse_hotpotqa(bad)
