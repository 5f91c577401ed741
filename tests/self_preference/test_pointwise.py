"""Pointwise reranking: parsing, expected score, tables (scripted backend under a real CachedModel)."""
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from lib.prompts import self_preference as sp
from lib.self_preference import pointwise as pw
from lib.self_preference import tables as pt
from lib.self_preference.bank import load_bank
from lib.self_preference.replies import reparse

FIX = Path(__file__).parents[1] / "fixtures" / "sp2"


@pytest.mark.parametrize("text,value,how", [
    ("###4***", 4.0, "strict"),
    ("Sure. ### 3 ***", 3.0, "strict"),
    ("###2.5***", 2.5, "strict"),
    ("###4", 4.0, "lenient"),
    ("5***", 5.0, "lenient"),
    ("Score: 3", 3.0, "lenient"),
    ("I give it 4/5.", 4.0, "lenient"),
    ("  2. ", 2.0, "lenient"),
    ("The passage is rated 3.", 3.0, "lenient"),
    ("I would rate it a 4.", 4.0, "lenient"),
    ("###9***", None, "unparsed"),
    ("A passage with flaws should be rated 1.", None, "unparsed"),
    # echoes of the instructions never count as a rating
    ("A normal passage should have a score of 3.", None, "unparsed"),
    ("On a scale of 1 to 5, please evaluate this passage.", None, "unparsed"),
    ("Your reply format: ###<number>***.", None, "unparsed"),
    ("Excellent passages can be rated 5. A passage that adequately answers a question should be rated 3.",
     None, "unparsed"),
    ("A normal passage should have a score of 3. I would rate it a 4.", 4.0, "lenient"),
    ("On a scale of 1 to 5: ###2***", 2.0, "strict"),
    # the authors' parse: between the first ### and the first *** after it
    ("###<number>*** then ###5***", 5.0, "lenient"),
    ("### 4.5 ***", 4.5, "strict"),
    ("", None, "unparsed"),
    (None, None, "unparsed"),
])
def test_parse_score(text, value, how):
    parsed = pw.parse_score(text)
    assert parsed.value == value and parsed.how == how


def test_parse_score_strict_mode_rejects_lenient_forms():
    assert pw.parse_score("Score: 3", strict=True).value is None
    assert pw.parse_score("###3***", strict=True).value == 3.0


def test_authors_parse_reads_the_text_between_the_first_marks():
    assert pw.authors_parse("Sure ###3*** and ###5***") == 3.0
    assert pw.authors_parse("###<number>*** then ###5***") is None  # their parse fails: asked again
    assert pw.authors_parse("***4###") is None and pw.authors_parse("###4") is None
    assert pw.authors_parse("###7***") is None


def test_echo_phrases_come_from_the_prompts():
    assert "should have a score of 3" in pw.ECHO_PHRASES and "scale of 1 to 5" in pw.ECHO_PHRASES
    for phrase in pw.ECHO_PHRASES:
        assert phrase in (sp.B1_POINTWISE_BASELINE + sp.B1_POINTWISE_RAG).lower()


def test_expected_score_from_top_logprobs():
    tops = [{"###": -0.1, "#": -2.5},
            {"4": math.log(0.6), " 3": math.log(0.3), "x": math.log(0.05)}]
    value, mass = pw.expected_score(tops)
    assert mass == pytest.approx(0.9)
    assert value == pytest.approx((4 * 0.6 + 3 * 0.3) / 0.9)


def test_expected_score_without_logprobs_is_nan():
    assert math.isnan(pw.expected_score(None)[0])
    assert math.isnan(pw.expected_score([{"hello": -0.1}])[0])


def test_expected_score_from_loglikelihood(scripted_model):
    # the reply ###4*** is three times as likely as ###2***; the others next to impossible
    table = {"###4***": math.log(0.3), "###2***": math.log(0.1)}
    model = scripted_model(loglik=lambda ctx, cont: (table.get(cont, -50.0), 3))
    (value, mass), = pw.expected_score_loglik(model, ["rate this"])
    assert value == pytest.approx((4 * 0.3 + 2 * 0.1) / 0.4, rel=1e-6)
    assert mass == pytest.approx(0.4, rel=1e-6)
    pairs = model.backend.loglik_pairs
    assert [c for _, c in pairs] == [f"###{s}***" for s in range(1, 6)]
    # the chat model reads the prompt as a user turn, through its chat template
    assert {ctx for ctx, _ in pairs} == {"<|im_start|>user\nrate this<|im_end|>\n<|im_start|>assistant\n"}


def test_prompts_are_the_verbatim_templates():
    rag = pw.pointwise_prompt("rag", "who?", "Some passage.")
    assert rag.startswith(sp.B1_POINTWISE_RAG.split("{question}")[0])
    assert "Question: who?" in rag and "Passage: Some passage." in rag
    normal = pw.pointwise_prompt("normal", "who?", "Some passage.")
    assert normal.startswith(sp.B1_POINTWISE_BASELINE) and "who?" not in normal
    with pytest.raises(ValueError, match="setting"):
        pw.pointwise_prompt("other", "q", "p")


def test_rate_passages_tables_keep_unparsed_rows(scripted_model):
    bank = load_bank(FIX / "bank.jsonl")
    bank = bank[bank["style"] == "normal"]

    # Human passages get 3, own passages 4, gemma3's are never parseable.
    def reply(text, sample):
        if "Put simply" in text:
            return "hmm"
        return "###4***" if "In my words" in text else "###3***"
    model = scripted_model(lambda text, request: reply(text, request.sample), top_logprobs=[{"5": -0.2, "4": -1.8}])
    ratings = pw.rate_passages(model, "smollm2", bank, k_retries=1)
    assert len(ratings) == 2 * len(bank)
    summary = pt.pointwise_summary(ratings)
    g = summary[summary["author"] == "gemma3"]
    assert (g["parse_fail_rate"] == 1.0).all() and (g["n_parsed"] == 0).all()
    s = summary[summary["author"] == "smollm2"]
    assert (s["mean"] == 4.0).all()
    assert summary["n"].sum() == len(ratings)
    assert ratings["expected_score"].dropna().between(4, 5).all()

    dist = pt.score_distribution(ratings)
    counted = dist[["1", "2", "3", "4", "5", "other", "unparsed"]].sum(axis=1)
    assert (counted.to_numpy() == summary["n"].to_numpy()).all()

    table2 = pt.human_vs_self(ratings)
    nq = table2[(table2["dataset"] == "nq") & (table2["setting"] == "rag")].iloc[0]
    assert nq["diff_true"] == pytest.approx(-1.0) and nq["n_true"] == 3
    wide = pt.pointwise_wide(summary, "rag", "true")
    assert list(wide.columns[:3]) == ["dataset", "evaluator", "human"]
    assert (wide["gemma3"] == "-").all()


def test_reparse_uses_stored_replies_only(tmp_path):
    df = pd.DataFrame({"item_id": ["q1", "q2"], "responses": [["junk", "###5***"], ["junk"]]})
    out = reparse(df)
    assert out["score"].iloc[0] == 5.0 and np.isnan(out["score"].iloc[1])
    assert out["parsed"].tolist() == [True, False]
    # the same from the run's stored file, as notebook 05 writes it
    path = tmp_path / "pointwise_ratings.jsonl"
    df.to_json(path, orient="records", lines=True)
    again = reparse(path)
    assert again["score"].iloc[0] == 5.0 and again["parsed"].tolist() == [True, False]
    assert again["item_id"].tolist() == ["q1", "q2"]


def test_human_vs_self_marks_significant_paired_differences():
    human, own = [3, 3, 4, 3], [5, 4, 5, 5]
    rows = [{"dataset": "nq", "evaluator": "smollm2", "setting": "rag", "factuality": "true",
             "author": a, "item_id": f"q{i}", "score": float(s)}
            for a, scores in (("human", human), ("smollm2", own)) for i, s in enumerate(scores)]
    table = pt.human_vs_self(pd.DataFrame(rows)).iloc[0]
    assert table["diff_true"] == pytest.approx(-1.5)
    assert table["p_true"] < 0.05 and table["diff_true_fmt"] == "-1.50 †"
    assert table["n_false"] == 0 and table["self_false"] == "-"


def test_v1_table3_human_minus_each_model_with_dagger():
    human, a, b = [3, 3, 4, 3], [5, 4, 5, 5], [3, 3, 4, 4]
    rows = [{"dataset": "nq", "evaluator": "e", "setting": "normal", "factuality": "true",
             "author": who, "item_id": f"q{i}", "score": float(s)}
            for who, scores in (("human", human), ("gpt", a), ("llama", b)) for i, s in enumerate(scores)]
    t = pt.human_vs_authors(pd.DataFrame(rows)).set_index("author")
    assert t.loc["gpt", "diff"] == pytest.approx(-1.5) and t.loc["gpt", "diff_fmt"] == "-1.50 †"
    assert t.loc["llama", "diff"] == pytest.approx(-0.25) and "†" not in t.loc["llama", "diff_fmt"]
    assert t.loc["gpt", "human_true"] == "3.25±0.50" and t.loc["gpt", "n"] == 4


def test_false_tables_keep_human_false_passages_apart_by_false_answer_source():
    rows = []
    for i in range(3):
        rows += [{"dataset": "nq", "evaluator": "e", "setting": "rag", "factuality": "false", "author": "human",
                  "false_by": "gpt", "item_id": f"q{i}", "score": 2.0, "expected_score": np.nan, "attempts": 1},
                 {"dataset": "nq", "evaluator": "e", "setting": "rag", "factuality": "false", "author": "human",
                  "false_by": "llama", "item_id": f"q{i}", "score": 4.0, "expected_score": np.nan, "attempts": 1},
                 {"dataset": "nq", "evaluator": "e", "setting": "rag", "factuality": "false", "author": "gpt",
                  "false_by": "gpt", "item_id": f"q{i}", "score": 3.0, "expected_score": np.nan, "attempts": 1}]
    wide = pt.pointwise_wide(pt.pointwise_summary(pd.DataFrame(rows)), "rag", "false").iloc[0]
    assert wide["human (false by gpt)"] == "2.00±0.00" and wide["human (false by llama)"] == "4.00±0.00"
    assert wide["gpt"] == "3.00±0.00"
