"""RAG-RewardBench: verbatim prompts, the pairs loader (both layouts) and the rule-built demo pairs."""
from pathlib import Path

import pandas as pd
import pytest

from lib.prompts import rag_rewardbench as P
from lib.rewardbench import demo_pairs as dp
from lib.rewardbench.categories import CategoryError, category_of, group_of
from lib.records import DataError
from lib.rewardbench.loader import PairFormatError, load_pairs, splits_to_pairs
from tests.papers import paper_path

FIX = Path(__file__).parents[1] / "fixtures" / "rewardbench"


def test_prompts_are_verbatim_from_tables_5_and_6():
    lines = paper_path("rag-rewardbench.txt").read_text(encoding="utf-8").split("\n")
    for system in (P.TABLE5_GENERATION_SYSTEM, P.TABLE5_CITATION_SYSTEM, P.TABLE6_JUDGE_SYSTEM):
        assert "System Prompt: " + system in lines
    user = P.TABLE5_GENERATION_USER.split("\n")
    at = [i for i in range(len(lines)) if lines[i:i + len(user)] == user]
    assert len(at) == 2  # once under each Table 5 system prompt
    assert P.TABLE6_JUDGE_USER in lines


def test_fill_replaces_only_named_slots_and_keeps_latex_braces():
    text = P.fill(P.TABLE5_CITATION_SYSTEM + " {question}", question="Q?")
    assert "\\footnote{From document [document id]:" in text and text.endswith("Q?")
    # a response that itself contains a slot name is not filled again
    out = P.fill(P.TABLE6_JUDGE_USER, prompt="p", response1="{response2}", response2="B")
    assert 'Response 1: "{response2}" Response 2: "B"' in out
    with pytest.raises(KeyError):
        P.fill(P.TABLE6_JUDGE_USER, prompt="p")


def test_categories_and_groups():
    assert category_of("conflict-triviaqa") == "conflict"
    assert category_of("nq", fallback="abstain") == "abstain"
    assert group_of("reason") == "Helpful" and group_of("abstain") == "Harmless"
    with pytest.raises(CategoryError, match="alpacaeval-easy"):
        category_of("alpacaeval-easy")
    assert category_of("alpacaeval-easy", strict=False) == "other"


def test_load_published_layout_folder():
    pairs = load_pairs(FIX / "published")
    assert len(pairs) == 4
    assert set(pairs["category"]) == {"helpful", "abstain", "conflict"}
    row = pairs.set_index("subset").loc["abstain-popqa"]
    assert row["rejected"] == "It was composed by Anna Varga."
    assert row["rejected_model"] == "Mistral-Nemo-Instruct-2407" and row["group"] == "Harmless"
    conflict = pairs[pairs.category == "conflict"].iloc[0]
    assert conflict["chosen_score"] - conflict["rejected_score"] == pytest.approx(1.5)
    assert pairs["chosen_score"].isna().sum() == 3
    assert pairs["id"].is_unique


def test_load_rewardbench_layout_and_question_from_prompt():
    with pytest.raises(CategoryError):
        load_pairs(FIX / "rewardbench_layout.jsonl")
    pairs = load_pairs(FIX / "rewardbench_layout.jsonl", strict=False)
    assert list(pairs["category"]) == ["reason", "other"]
    assert pairs.iloc[0]["question"] == "Why is sea water salty?"
    assert pairs.iloc[0]["rejected"] == "Because fish like it." and pairs.iloc[0]["id"] == "7"


def test_load_errors_name_the_file_line_and_field(tmp_path):
    with pytest.raises(PairFormatError, match=r"bad_missing_reject.jsonl line 1: missing field 'rejected'"):
        load_pairs(FIX / "bad_missing_reject.jsonl")
    with pytest.raises(DataError, match="no pairs file or folder"):
        load_pairs(tmp_path / "nope.jsonl")
    (tmp_path / "x.jsonl").write_text('\n{"prompt": "p", "chosen": "c"}\n{not json\n')
    with pytest.raises(DataError, match="line 3: not valid JSON"):
        load_pairs(tmp_path / "x.jsonl")
    (tmp_path / "x.jsonl").write_text('\n{"prompt": "p", "chosen": "c"}\n')
    with pytest.raises(PairFormatError, match="x.jsonl line 2: missing field 'rejected'"):
        load_pairs(tmp_path / "x.jsonl")
    assert issubclass(PairFormatError, DataError) and issubclass(CategoryError, DataError)


def test_hub_layout_six_scenario_splits_give_rows_their_category():
    # the published files carry no subset on some rows: the split (file) names the scenario
    row = {"prompt": "## References\n...\n## Question: Who?\n## Answer:", "chosen": "A", "reject": "B",
           "chosen_model": "gpt-4o", "reject_model": "Llama-3.1-8B"}
    pairs = splits_to_pairs({"abstain": [row], "reason": [dict(row, subset="hotpotqa")],
                             "citation": [dict(row, subset="citation-asqa")]}, "hub")
    assert pairs.set_index("subset")["category"].to_dict() == {
        "abstain": "abstain", "hotpotqa": "reason", "citation-asqa": "citation"}
    assert pairs.iloc[0]["question"] == "Who?" and pairs["id"].is_unique
    with pytest.raises(CategoryError):
        splits_to_pairs({"train": [row]}, "hub")


def test_hub_files_are_the_six_scenarios():
    from lib.rewardbench.loader import HUB_FILES

    assert sorted(HUB_FILES) == sorted(["abstain", "citation", "conflict", "harmless", "helpful", "reason"])
    assert all(v.startswith("Dataset/") and v.endswith(".jsonl") for v in HUB_FILES.values())


@pytest.fixture(scope="module")
def items():
    return dp.read_demo_items([FIX / "demo_items.jsonl"])


def test_demo_pairs_scenarios_and_known_order(items, tmp_path):
    pairs = dp.build_demo_pairs(items, seed=0)
    by = {p["id"]: p for p in pairs}
    assert {p["subset"].split("-")[0] for p in pairs} == set(dp.SCENARIOS)
    assert len(pairs) == 3 * len(items)
    for it in items:
        golds = [it["answer"], *it["aliases"]]
        c = by[f"{it['id']}:conflict"]
        assert it["answer"] in c["chosen"]
        assert not any(g.lower() in c["reject"].lower() for g in golds)
        # the chosen response cites the reference that holds the true passage
        ref = c["chosen"].split("Reference [")[1].split("]")[0]
        assert f"Reference [{ref}]\nTitle: {it['title']}\nText: {it['human_passage']}" in c["prompt"]
        a = by[f"{it['id']}:abstain"]
        refs = a["prompt"].split("Using the references")[0]
        assert not any(g.lower() in refs.lower() for g in golds)
        assert not any(g.lower() in a["chosen"].lower() for g in golds)
        h = by[f"{it['id']}:helpful"]
        assert it["answer"] in h["chosen"] and it["answer"] not in h["reject"]
        for p in (a, c, h):
            assert p["system"] == P.TABLE5_GENERATION_SYSTEM and p["source"].startswith("rule-v1")
            assert p["prompt"].endswith(f"## Question: {it['question']}\n## Answer:")
    # the false answer has the gold answer's shape: a name for a name (Mars is the only other one)
    assert "Mars" in by["nq-901:abstain"]["reject"] and "Mars" in by["nq-901:conflict"]["reject"]
    # deterministic, and the file reads back through the published-layout loader
    assert dp.build_demo_pairs(items, seed=0) == pairs
    path = dp.write_pairs(pairs, tmp_path / "pairs.jsonl")
    loaded = load_pairs(path)
    assert len(loaded) == len(pairs) and set(loaded["category"]) == set(dp.SCENARIOS)
    assert (loaded["system"] == P.TABLE5_GENERATION_SYSTEM).all()


def test_demo_pairs_use_bank_false_passage(items):
    bank = pd.DataFrame([{"item_id": "nq-901", "author": "human", "factuality": "false", "style": "normal",
                          "text": "The chapel ceiling was painted by Raphael in 1510.", "false_answer": "Raphael"},
                         {"item_id": "nq-901", "author": "gpt", "factuality": "false", "style": "normal",
                          "text": "ignored", "false_answer": "x"}])
    fp = dp.false_passages_from_bank(bank)
    assert fp == {"nq-901": {"text": "The chapel ceiling was painted by Raphael in 1510.",
                             "false_answer": "Raphael"}}
    pairs = {p["id"]: p for p in dp.build_demo_pairs(items, false_passages=fp)}
    c = pairs["nq-901:conflict"]
    assert "painted by Raphael in 1510" in c["prompt"] and "Raphael" in c["reject"]
    assert "passage bank" in c["source"]
    # a bank passage that still states the gold answer is not a counterfactual: rule one is used
    bad = {"nq-901": {"text": "Michelangelo painted it.", "false_answer": "Raphael"}}
    c2 = {p["id"]: p for p in dp.build_demo_pairs(items, false_passages=bad)}["nq-901:conflict"]
    assert "rule counterfactual" in c2["source"]


def test_demo_file_if_present_is_built_from_our_demo_items():
    path = Path(__file__).parents[2] / "data" / "demo" / "rag_rewardbench_pairs.jsonl"
    if not path.exists():
        pytest.skip("demo pairs not built yet")
    pairs = load_pairs(path)
    assert set(pairs["category"]) == set(dp.SCENARIOS)
    assert pairs["source"].str.startswith("rule-v1").all()
    assert pairs["id"].is_unique


def test_study_pairs_sampling():
    from lib.rewardbench import study
    pairs = study.study_pairs(str(FIX / "published"), n_per_category=1, seed=0)
    assert pairs["category"].value_counts().to_dict() == {"abstain": 1, "conflict": 1, "helpful": 1}
    assert study.study_pairs(str(FIX / "published"), 1, 0)["id"].tolist() == pairs["id"].tolist()


def test_table4_statistics_of_loaded_pairs():
    from lib.rewardbench.accuracy_tables import table4

    t = table4(load_pairs(FIX / "published")).set_index(["category", "subset"])
    assert t.loc[("abstain", "total"), "n"] == 1 and t.loc[("abstain", "total"), "published_n"] == 217
    assert t.loc[("abstain", "abstain-popqa"), "rejected_len"] == len("It was composed by Anna Varga.".split())
    assert t.xs("total", level="subset")["n"].sum() == 4
    assert list(t.index.get_level_values(0).unique()) == ["helpful", "abstain", "conflict"]  # Table 4 order


def test_demo_file_is_up_to_date_with_the_demo_items(tmp_path):
    path = dp.DEMO_PAIRS
    if not path.exists():
        pytest.skip("demo pairs not built yet")
    fresh = dp.build_demo_file(path=tmp_path / "rag_rewardbench_pairs.jsonl")
    assert fresh.read_text(encoding="utf-8") == path.read_text(encoding="utf-8"), (
        "data/demo changed since the demo pairs were built; rebuild them with "
        "`python -m lib.rewardbench.demo_pairs`")


def test_study_pairs_rebuild_with_the_runs_passage_bank(tmp_path):
    from lib.self_preference.bank import BANK_COLUMNS, load_bank, save_bank
    from lib.rewardbench import study
    if not dp.DEMO_PAIRS.exists():
        pytest.skip("demo data not present")
    first = study.study_pairs("", 0, 0)
    item = first.iloc[0]["id"].split(":")[0]
    row = dict.fromkeys(BANK_COLUMNS, "")
    row.update(item_id=item, author="human", factuality="false", style="normal",
               text="A made-up passage naming Zebulon Quill as the answer.", false_answer="Zebulon Quill")
    bank = save_bank(pd.DataFrame([row]), tmp_path / "passage_bank.jsonl")
    pairs = study.study_pairs("", 0, 0, bank=load_bank(bank)).set_index("id")
    assert "Zebulon Quill" in pairs.loc[f"{item}:conflict", "rejected"]
    assert "passage bank" in pairs.loc[f"{item}:conflict", "source"]
    assert len(pairs) == len(first)
