"""The authors' released files (lib.self_preference.release, bank, knowledge): layouts, model names,
the knowledge files' replies, the swapped perplexity files, the writing-style duplicates."""
import json
import shutil
import warnings
from pathlib import Path

import pandas as pd
import pytest

from lib.records import DataError
from lib import sources
from lib.self_preference import bank as sp_bank
from lib.self_preference import knowledge, passage_stats, release

FIX = Path(__file__).parents[1] / "fixtures" / "sp1"
REL = Path(__file__).parents[1] / "fixtures" / "release"


def test_length_stats_in_words():
    items = sources.parse_demo(FIX / "demo_nq.jsonl")
    stats = passage_stats.length_stats(items).set_index("source")
    expected = items["question"].str.split().str.len()
    assert stats.loc["nq", "query_len_mean"] == pytest.approx(expected.mean(), abs=0.01)
    assert stats.loc["nq", "query_len_sd"] == pytest.approx(expected.std(), abs=0.01)


def test_release_both_true_becomes_long_bank():
    with pytest.warns(UserWarning, match="dropped 2 passages with empty text"):
        bank, dropped = sp_bank.load_bank(FIX / "marco-both-true.json", return_dropped=True)
    assert set(sp_bank.BANK_COLUMNS) <= set(bank.columns)
    assert set(bank["dataset"]) == {"marco"}
    item = bank[bank["item_id"] == "marco-7"]
    assert len(item) == 3 + 4  # 3 true passages, 2 own false + 2 human false
    hf = item[(item["author"] == "human") & (item["factuality"] == "false") & (item["false_by"] == "llama")]
    assert hf["text"].iloc[0].startswith("Samuel Finley Morse")
    assert hf["false_answer"].iloc[0] == "Samuel Finley Morse"
    assert set(dropped["author"]) == {"llama"}


def test_release_writing_style_and_reading_layouts():
    ws = sp_bank.load_bank(FIX / "nq-writing-style.json")
    assert set(ws["style"]) == {"normal", "long", "qa"}
    assert set(ws["author"]) == {"human", "gpt", "llama"}
    assert len(ws[ws["style"] == "long"]) == 2
    rc = sp_bank.load_bank(FIX / "reading_comprehension_data_gpt_1000.json", dataset="nq")
    assert set(rc["author"]) == {"human", "gpt"}
    assert rc[(rc["author"] == "gpt") & (rc["factuality"] == "false")]["text"].iloc[0].endswith("Perth.")


def test_release_missing_field_and_unknown_layout_errors():
    with pytest.raises(DataError, match=r"marco-both-true-missing\.json.*item 7.*'gpt_false_ans'"):
        sp_bank.load_bank(FIX / "marco-both-true-missing.json")
    with pytest.raises(DataError, match=r"unknown_layout\.json: unknown passage layout"):
        sp_bank.load_bank(FIX / "unknown_layout.json")


def test_our_bank_round_trips(tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        bank = sp_bank.load_bank(FIX / "marco-both-true.json")
    path = sp_bank.save_bank(bank, tmp_path / "bank.jsonl")
    back = sp_bank.load_bank(path)
    pd.testing.assert_frame_equal(bank[sp_bank.BANK_COLUMNS], back[sp_bank.BANK_COLUMNS])


def test_bank_folder_reads_every_passage_file(tmp_path):
    for name in ("marco-both-true.json", "nq-writing-style.json", "nq_perplexity.json"):
        shutil.copy(FIX / name, tmp_path / name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        bank = sp_bank.load_bank(tmp_path)
    assert set(bank["dataset"]) == {"marco", "nq"}


def test_release_knowledge_levels_and_distribution_check():
    k = knowledge.load_knowledge(FIX / "marco_knowledge_scale_of_5_gpt.json")
    assert list(k.columns[:3]) == ["item_id", "n_correct", "level"]
    assert k["level"].tolist() == ["none", "full", "partial", "full"]
    assert set(k["model"]) == {"gpt"} and set(k["dataset"]) == {"marco"}
    with pytest.warns(UserWarning, match="disagrees"):
        knowledge.load_knowledge(FIX / "nq_knowledge_scale_of_5_llama.json")


def test_our_knowledge_file(tmp_path):
    path = tmp_path / "knowledge.jsonl"
    pd.DataFrame([{"item_id": "nq-1", "model": "m", "n_correct": 3},
                  {"item_id": "nq-2", "model": "m", "n_correct": 0}]).to_json(
        path, orient="records", lines=True)
    k = knowledge.load_knowledge(path)
    assert k["level"].tolist() == ["partial", "none"] and k["dataset"].tolist() == ["nq", "nq"]
    bad = tmp_path / "bad_knowledge.jsonl"
    bad.write_text('{"item_id": "nq-1", "model": "m"}\n')
    with pytest.raises(DataError, match=r"bad_knowledge\.jsonl, item nq-1: missing field 'n_correct'"):
        knowledge.load_knowledge(bad)


def test_knowledge_level_bounds():
    assert [knowledge.knowledge_level(n) for n in range(6)] == ["none"] + ["partial"] * 4 + ["full"]
    with pytest.raises(DataError):
        knowledge.knowledge_level(6)


def test_release_perplexity_file():
    ppl = release.load_perplexity(FIX / "nq_perplexity.json")
    assert set(ppl["author"]) == {"human", "gpt", "llama"}
    assert ppl.groupby("author").size().tolist() == [4, 4, 4]
    assert ppl[ppl["author"] == "human"]["ppl"].mean() == pytest.approx((30.5 + 41.0 + 28.2 + 35.9) / 4)


def test_dataset_from_name():
    assert release.dataset_from_name("marco-both-true.json") == "marco"
    assert release.dataset_from_name("nq_knowledge_scale_of_5_gpt.json") == "nq"
    assert release.dataset_from_name("triviaqa-writing-style.json") == "triviaqa"
    assert release.dataset_from_name("reading_comprehension_data_gpt_1000.json") == "unknown"


def test_release_model_names_map_to_the_passage_files_authors():
    assert release.knowledge_file_model("nq_knowledge_scale_of_5_openai.json") == ("gpt", "main")
    assert release.knowledge_file_model("marco_knowledge_scale_of_5_llama.json") == ("llama", "main")
    assert release.knowledge_file_model("nq_knowledge_scale_of_5_1000_openai.json") == ("gpt", "1000")
    assert {release.release_author(n) for n in ("gpt", "chatgpt", "openai", "OpenAI")} == {"gpt"}
    know = knowledge.load_knowledge(REL)
    assert set(know["model"]) == {"gpt", "llama"}
    assert set(know.loc[know["run"] == "1000", "model"]) == {"gpt"}
    passages = sp_bank.load_bank(REL / "marco-both-true.json")
    main = know[(know["run"] == "main") & (know["dataset"] == "marco")]
    # every passage item finds its knowledge level for both authors: no 'unknown' join
    joined = passages[passages["author"] != "human"].merge(
        main.rename(columns={"model": "author"})[["item_id", "author", "level"]], on=["item_id", "author"], how="left")
    assert joined["level"].notna().all()


def test_knowledge_replies_are_cut_in_fives_so_neighbours_with_one_answer_stay_apart():
    k = knowledge.load_knowledge(REL / "nq_knowledge_scale_of_5_openai.json").set_index("item_id")
    assert (k["n_replies"] == 5).all() and set(k["cut"]) == {"fives"}
    # items 366 and 367 share the answer "paris": grouped by ground truth they would merge
    assert k.loc["nq-366", "ground_truth"] == k.loc["nq-367", "ground_truth"] == "paris"
    assert k.loc["nq-366", "n_correct"] == 0 and k.loc["nq-367", "n_correct"] == 2
    assert k.loc["nq-368", "ground_truth"] == "march 3, 2011"
    recs = json.loads((REL / "nq_knowledge_scale_of_5_openai.json").read_text())
    runs, cut = release.cut_replies(recs["ai_answers"][:-1], 1000)  # one reply short: cut by runs
    assert cut == "runs" and len(runs) == 999  # the merged neighbours: why runs are a fallback only


def test_retries_keep_the_last_five_replies_of_their_run():
    k = knowledge.load_knowledge(REL / "nq_knowledge_scale_of_5_1000_openai.json")
    assert k["n_recorded"].tolist() == [5, 5, 8, 5, 9, 5, 5] and (k["n_replies"] == 5).all()
    assert k.loc[2, "responses"] == ["Lyon", "paris", "Paris, France", "Lyon", "Marseille"]
    assert k.loc[4, "responses"][0] == "3.5" and set(k["scored_by"]) == {"authors_cased"}


def test_rescore_knowledge_gives_the_release_counts_for_every_item_of_every_file():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no item may disagree, so no warning
        table = knowledge.rescore_knowledge(REL)
    assert list(table.columns[:4]) == ["item_id", "model", "run", "n_replies"]
    assert len(table) == 4 * 1000 + 7 and table["agree"].all()
    run = table[table["run"] == "1000"]
    assert set(run["rule"]) == {"authors_cased"} and run["n_correct_ours"].tolist() == [2, 2, 1, 3, 3, 2, 2]


def test_rescore_with_a_lower_cased_rule_misses_the_case_sensitive_run_and_names_the_items():
    path = REL / "nq_knowledge_scale_of_5_1000_openai.json"
    with pytest.warns(UserWarning, match=r"differs from the release's count on 4 of 7 items: nq-1 \(gpt, run 1000\): "
                                         r"release 2, ours 4"):
        other = knowledge.rescore_knowledge(path, rule="authors")
    assert other["agree"].sum() == 3
    with pytest.warns(UserWarning, match="differs from the release's count"):
        assert not knowledge.rescore_knowledge(path, rule="whole_word")["agree"].all()


def test_a_planted_wrong_reply_changes_our_count_and_is_named(tmp_path):
    path = tmp_path / "nq_knowledge_scale_of_5_openai.json"
    recs = json.loads((REL / path.name).read_text())
    recs["ai_answers"][5 * 999]["AI_answer"] = "no idea"  # item 999 had five right replies
    path.write_text(json.dumps(recs))
    with pytest.warns(UserWarning, match=r"on 1 of 1000 items: nq-999 \(gpt, run main\): release 5, ours 4"):
        knowledge.rescore_knowledge(path)
    levels = knowledge.rescored_levels(path).set_index("item_id")
    assert levels.loc["nq-999", "n_correct"] == 4 and levels.loc["nq-999", "level"] == "partial"
    assert set(levels["counted_by"]) == {"ours"}


def test_swapped_perplexity_files_are_relabelled_with_a_reason():
    with pytest.warns(UserWarning, match=r"nq_perplexity\.json.*MARCO row.*hold each other's data"):
        ppl = release.load_perplexity(REL / "nq_perplexity.json")
    assert set(ppl["dataset"]) == {"marco"}
    assert ppl[ppl["author"] == "human"]["ppl"].mean() == pytest.approx(29.2, abs=0.05)
    with pytest.warns(UserWarning, match="fix_swapped=False"):
        kept = release.load_perplexity(REL / "nq_perplexity.json", fix_swapped=False)
    assert set(kept["dataset"]) == {"nq"}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a file that agrees with its own row says nothing
        assert set(release.load_perplexity(FIX / "nq_perplexity.json")["dataset"]) == {"nq"}


def test_writing_style_records_with_qa_equal_to_long_are_flagged_and_dropped():
    ws = sp_bank.load_bank(REL / "marco-writing-style.json")
    dups = release.style_duplicates(ws)
    assert dups.to_dict("records") == [{"item_id": "marco-1", "author": "llama"}]
    kept, dropped = release.drop_style_duplicates(ws)
    assert len(dropped) == 1 and len(ws) - len(kept) == 2
    gone = kept[(kept["item_id"] == "marco-1") & (kept["author"] == "llama")]
    assert set(gone["style"]) == {"normal"}
    assert len(kept[(kept["item_id"] == "marco-0") & (kept["author"] == "llama")]) == 3
