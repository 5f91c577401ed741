"""Items drawn with replacement (lib.sources.item_sampling): the papers' sizes from the small demo
data, every copy a distinct unit (own id, own text) and never on unless asked for."""
from pathlib import Path

import pytest

from lib import sources
from lib.records import DataError
from lib.sources.item_sampling import copy_tag

FIX = Path(__file__).parents[1] / "fixtures" / "sp1"


def test_draws_exactly_n_with_distinct_ids_and_texts():
    items = sources.parse_demo(FIX / "demo_nq.jsonl")
    kept, dropped = sources.sample_items(items, n=40, seed=3, replace=True)
    usable = len(items) - len(dropped)
    assert len(kept) == 40 > usable  # more items than the file holds
    assert kept["id"].is_unique and kept["question"].is_unique and kept["human_passage"].is_unique
    base = kept["id"].str.split("~").str[0]
    assert set(base) <= set(items["id"]) and "nq-004" not in set(base)  # the unusable item is never drawn
    copies = kept[kept["id"].str.contains("~")]
    assert len(copies) == 40 - base.nunique()
    for row in copies.to_dict("records"):  # the tag sits at the end; the answer is still in the passage
        tag = row["id"].split("~")[1]
        assert row["question"].endswith(f"[copy {tag}]") and row["human_passage"].endswith(f"[copy {tag}]")
        assert sources.answer_in_passage(row["human_passage"], row["answer"], row["aliases"]) == row["answer"]


def test_seeded_and_off_by_default():
    items = sources.parse_demo(FIX / "demo_nq.jsonl")
    a, _ = sources.sample_items(items, n=25, seed=1, replace=True)
    b, _ = sources.sample_items(items, n=25, seed=1, replace=True)
    assert a["id"].tolist() == b["id"].tolist()
    plain, _ = sources.sample_items(items, n=25, seed=1)
    assert len(plain) < 25 and not plain["id"].str.contains("~").any()


def test_prepare_items_reaches_the_papers_size_from_demo_data():
    items, _ = sources.prepare_items(["nq", "triviaqa"], 700, 0, replace=True)
    assert items.groupby("source").size().to_dict() == {"nq": 700, "triviaqa": 700}
    assert items["id"].is_unique and items["question"].is_unique


def test_copy_tags_are_letters_only():
    assert [copy_tag(k) for k in (1, 2, 26, 27, 28, 702)] == ["a", "b", "z", "aa", "ab", "zz"]
    assert all(t.isalpha() for t in map(copy_tag, range(1, 800)))


def test_nothing_usable_is_one_clear_error():
    items = sources.parse_demo(FIX / "demo_nq.jsonl")
    items["answer"], items["aliases"] = "", [[] for _ in range(len(items))]
    with pytest.raises(DataError, match="at least one usable item"):
        sources.sample_items(items, n=5, replace=True)
