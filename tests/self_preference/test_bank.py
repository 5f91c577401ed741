"""Passage-bank logic: substitution, verification, parsing, regeneration bookkeeping.
The backend is scripted under a real CachedModel: these tests check our bookkeeping, not a model."""
from pathlib import Path

import pandas as pd
import pytest

from lib import falsify as pb_text
from lib import sources
from lib.prompts import self_preference as P
from lib.self_preference import bank as pb
from lib.self_preference import passage_stats, release
from lib.textmatch import matches
from tests.papers import paper_path

FIX = Path(__file__).parents[1] / "fixtures" / "sp1"


def test_substitute_every_occurrence_case_insensitive():
    text = "Canberra is the capital. CANBERRA hosts parliament; canberra's lake."
    out = pb_text.substitute_answer(text, "Canberra", "Perth")
    assert out == "Perth is the capital. Perth hosts parliament; Perth's lake."
    # regex characters in the answer are literal
    assert pb_text.substitute_answer("costs $5.00 (approx.)", "$5.00", "$9") == "costs $9 (approx.)"
    # a false answer with backslashes or group refs is inserted as is
    assert pb_text.substitute_answer("a X b", "x", r"\1 \g<0>") == r"a \1 \g<0> b"
    with pytest.raises(ValueError):
        pb_text.substitute_answer("text", "  ", "y")


def test_verification_rule_is_substring_then_bag_of_words():
    assert pb.VERIFY_RULE == "substring_or_words"
    ok = lambda text, answer: matches(text, answer, rule=pb.VERIFY_RULE)  # noqa: E731
    assert ok("written by HERMAN MELVILLE in 1851", "Herman Melville")
    # bag of words: all answer words present, not contiguous
    assert ok("Melville, first name Herman, wrote it", "Herman Melville")
    assert not ok("Herman wrote it", "Herman Melville")
    assert not ok("anything", "")
    # word tokens, not substrings of other words
    assert not ok("the bellwether", "Bell Labs")


def test_parse_false_answer_rejects_unusable_replies():
    assert pb_text.parse_false_answer("Answer: Perth.", "Canberra") == "Perth"
    assert pb_text.parse_false_answer("\n**Sydney**\nbecause...", "Canberra") == "Sydney"
    assert pb_text.parse_false_answer("Question: x\nAnswer: Perth", "Canberra") == "Perth"
    assert pb_text.parse_false_answer("Canberra", "Canberra") is None
    assert pb_text.parse_false_answer("East Canberra", "Canberra") is None
    assert pb_text.parse_false_answer("", "Canberra") is None
    assert pb_text.parse_false_answer(" ".join(["word"] * 30), "Canberra") is None


def test_clean_generation_strips_lead_in_and_quotes():
    assert pb_text.clean_generation('Sure! Here is the rewritten paragraph:\n\n"Canberra is it."') == "Canberra is it."
    assert pb_text.clean_generation("Canberra is it.") == "Canberra is it."


def test_false_passage_requires_a_real_swap():
    assert pb_text.false_passage("Paris is in France", "Paris", "Lyon") == "Lyon is in France"
    assert pb_text.false_passage("Melville, first name Herman", "Herman Melville", "Mark Twain") is None


@pytest.fixture
def toy(scripted_model):
    """Factory: a CachedModel whose scripted backend replies from (the user's prompt text, attempt)."""
    return lambda reply: scripted_model(lambda text, request: reply(request.messages[-1]["content"], request.sample))


def _items():
    items = sources.parse_demo(FIX / "demo_nq.jsonl")
    kept, _ = sources.sample_items(items, seed=0)
    return kept.sort_values("id").reset_index(drop=True)


def _reply(text, attempt):
    """Rewrites keep the answer except nq-002's first try; false answers are fixed strings."""
    if text.startswith(P.B1_GENERATE_FALSE_ANSWER.split("\n")[0]):
        if "moby dick" in text:
            return "Herman Melville"  # unusable every time: it is the true answer
        return "Answer: Perth" if "australia" in text else "Claude Monet"
    passage = text.split("\n\n", 1)[1]
    if "Canberra" in passage and attempt == 0:
        return "Sure, here it is:\nThe capital was a compromise."
    if text.startswith(P.B1_GENERATE_GEN_BY_QA_PASSAGES.split(".")[0]):
        return "A passage."
    return "Rewritten: " + passage


def test_build_bank_counts_retries_drops_and_substitutes(toy):
    items = _items()
    model = toy(_reply)
    cfg = pb.BankConfig(k=2, styles=("long",), style_items=2)
    bank = pb.build_bank(items, {"toy": model}, cfg)
    p, rep = bank.passages, bank.report.set_index(["author", "kind"])
    assert set(pb.BANK_COLUMNS) <= set(p.columns)
    # rewrite: nq-002 fails once then passes
    assert rep.loc[("toy", "rewrite"), ["n", "ok_first_try", "ok_after_retry", "dropped"]].tolist() == [3, 2, 1, 0]
    # false answer: moby dick keeps answering the true answer, dropped after k retries
    assert rep.loc[("toy", "false answer"), ["ok_first_try", "dropped"]].tolist() == [2, 1]
    retries = [r for r in model.backend.requests if "moby dick" in r.messages[0]["content"]
               and r.messages[0]["content"].startswith("Generate something")]
    assert [r.sample for r in retries] == [0, 1, 2] and retries[1].temperature == cfg.retry_temperature
    # false passages: human and own, every occurrence swapped, by the author's false answer
    fp = p[(p["item_id"] == "nq-002") & (p["factuality"] == "false")]
    assert set(fp["author"]) == {"human", "toy"} and set(fp["false_by"]) == {"toy"}
    human_false = fp[fp["author"] == "human"]["text"].iloc[0]
    assert "canberra" not in human_false.lower() and human_false.count("Perth") == 2
    assert p[(p["item_id"] == "nq-001") & (p["factuality"] == "false")].empty
    # long passages only for the configured subset
    assert len(p[p["style"] == "long"]) == 2
    assert set(p[p["author"] == "human"]["style"]) == {"normal"}


def test_bank_round_trips_through_load_bank(tmp_path, toy):
    bank = pb.build_bank(_items(), {"toy": toy(_reply)}, pb.BankConfig(k=1, styles=()))
    path = pb.save_bank(bank.passages, tmp_path / "passage_bank.jsonl")
    back = pb.load_bank(path)
    pd.testing.assert_frame_equal(bank.passages.reset_index(drop=True), back[pb.BANK_COLUMNS])


def test_side_by_side_one_row_per_author(toy):
    bank = pb.build_bank(_items(), {"toy": toy(_reply)}, pb.BankConfig(k=1, styles=()))
    table = pb.side_by_side(bank.passages, "nq-003")
    assert table["author"].tolist() == ["human", "toy"]
    assert table["words"].iloc[0] == len(table["text"].iloc[0].split())


def test_prompts_are_verbatim_from_appendix_b1():
    paper = paper_path("self-preference-v2-fact-centric.txt")
    text = " ".join(paper.read_text().split())
    for const in (P.B1_GENERATE_NORMAL_PASSAGES, P.B1_GENERATE_LONG_PASSAGES, P.B1_POINTWISE_BASELINE,
                  P.B1_GENERATION_PHASE):
        assert " ".join(const.split()) in text
    for const in (P.B1_GENERATE_FALSE_ANSWER, P.B1_GENERATE_GEN_BY_QA_PASSAGES, P.B1_POINTWISE_RAG):
        flat = " ".join(const.replace("{question}", "<question>").replace("{answer}", "<answer>")
                        .replace("{passage}", "<passage>").split())
        assert flat in text


def _ppl_frame():
    ppl = release.load_perplexity(FIX / "nq_perplexity.json")
    return ppl.assign(item_id=ppl["position"].astype(str))


def test_author_stats_from_perplexities():
    stats = passage_stats.author_stats(_ppl_frame()).set_index("author")
    assert stats.loc["human", "n"] == 4
    assert stats.loc["gpt", "ppl_mean"] == pytest.approx((20.1 + 22.4 + 19.8 + 25.0) / 4, abs=0.01)


def test_ppl_tests_paired_and_welch_differ_and_match_scipy():
    from scipy import stats as sps
    df = _ppl_frame()
    paired = passage_stats.ppl_tests(df, paired=True).set_index("author")
    welch = passage_stats.ppl_tests(df, paired=False).set_index("author")
    h = [30.5, 41.0, 28.2, 35.9]
    g = [20.1, 22.4, 19.8, 25.0]
    assert paired.loc["gpt", "test"] == "paired t" and welch.loc["gpt", "test"] == "Welch t"
    assert paired.loc["gpt", "t"] == pytest.approx(sps.ttest_rel(h, g).statistic, rel=1e-6)
    assert welch.loc["gpt", "t"] == pytest.approx(sps.ttest_ind(h, g, equal_var=False).statistic, rel=1e-6)
    assert {"p", "cohen_d"} <= set(paired.columns)


def test_ppl_tests_pair_each_item_once_even_if_listed_twice():
    df = _ppl_frame()
    doubled = pd.concat([df, df[df["author"] == "human"]], ignore_index=True)
    res = passage_stats.ppl_tests(doubled, paired=True).set_index("author")
    assert res.loc["gpt", "n_human"] == 4
    assert res.loc["gpt", "t"] == pytest.approx(passage_stats.ppl_tests(df, paired=True).set_index("author").loc["gpt", "t"])


def test_our_false_answer_is_the_counted_fallback_only_where_the_model_failed(toy):
    items = _items()
    items["false_answer_ours"] = ["Mark Twain", "Sydney", "Gauguin"][: len(items)]
    cfg = pb.BankConfig(k=1, styles=())
    bank = pb.build_bank(items, {"toy": toy(_reply)}, cfg)
    p, rep = bank.passages, bank.report.set_index(["author", "kind"])
    moby = p[(p["item_id"] == "nq-001") & (p["factuality"] == "false")]
    assert set(moby["false_by"]) == {"ours"} and set(moby["false_answer"]) == {"Mark Twain"}
    assert set(moby["author"]) == {"human", "toy"}
    assert rep.loc[("toy", "false answer (ours, fallback)"), "n"] == 1
    # items whose model false answer parsed keep the model's (the paper's method)
    assert set(p[(p["item_id"] == "nq-002") & (p["factuality"] == "false")]["false_by"]) == {"toy"}
    off = pb.build_bank(items, {"toy": toy(_reply)}, pb.BankConfig(k=1, styles=(), own_false_answers=False))
    assert off.passages[(off.passages["item_id"] == "nq-001") & (off.passages["factuality"] == "false")].empty
