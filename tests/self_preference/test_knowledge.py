"""Knowledge probe: the authors' prompt and matching rule, per-item levels, level shares (scripted
backend under a real CachedModel; the prompt is checked against the real local:smollm2 elsewhere)."""
from pathlib import Path

import pytest

from lib import sources
from lib.prompts import self_preference as P
from lib.self_preference import knowledge

FIX = Path(__file__).parents[1] / "fixtures" / "sp1"


def test_is_correct_uses_the_authors_symmetric_rule():
    assert knowledge.is_correct("Herman Melville", "Herman Melville")
    assert knowledge.is_correct("Melville", "Herman Melville")  # reply inside the answer counts
    assert knowledge.is_correct("It was written by Herman Melville", "herman melville")
    assert not knowledge.is_correct("Nathaniel Hawthorne", "Herman Melville")
    assert knowledge.is_correct("", "Herman Melville")  # loose on purpose, as the authors' code
    assert knowledge.is_correct("melville", "Herman Melville", rule="substring") is False
    assert knowledge.is_correct("Melville!", "Herman Melville", ["Melville"], rule="whole_word")


def test_probe_prompt_is_the_question_plus_the_authors_suffix():
    assert P.knowledge_probe_prompt("who wrote moby dick") == "who wrote moby dick Short answer with less than 5 words:"


@pytest.fixture
def probed(scripted_model):
    """Factory: a CachedModel answering item questions by a fixed list of replies per question, in
    sample order."""
    def make(replies):
        return scripted_model(lambda text, request: replies[next(k for k in replies if k in text)][request.sample])
    return make


def _items():
    kept, _ = sources.sample_items(sources.parse_demo(FIX / "demo_nq.jsonl"), seed=0)
    return kept


def test_probe_asks_n_times_with_sample_index_and_scores_levels(probed):
    model = probed({"moby dick": ["Herman Melville"] * 5,
                      "australia": ["Sydney", "Canberra", "Sydney", "Perth", "the capital is canberra"],
                      "starry night": ["Claude Monet"] * 5})
    k = knowledge.probe(model, _items(), "toy", n_samples=5, temperature=0.7).set_index("item_id")
    sent = model.backend.requests
    assert len(sent) == 15
    assert sorted(r.sample for r in sent) == sorted(list(range(5)) * 3)
    assert {r.temperature for r in sent} == {0.7}
    assert all(r.messages[0]["content"].endswith(P.KNOWLEDGE_PROBE_SUFFIX) for r in sent)
    # the chat template wraps the probe as one user turn
    turn_end = P.KNOWLEDGE_PROBE_SUFFIX + "<|im_end|>\n<|im_start|>assistant\n"
    assert all(t.endswith(turn_end) for t in model.backend.texts)
    assert k.loc["nq-001", "level"] == "full" and k.loc["nq-001", "n_correct"] == 5
    assert k.loc["nq-002", "level"] == "partial" and k.loc["nq-002", "n_correct"] == 2
    assert k.loc["nq-003", "level"] == "none"


def test_level_shares_and_file_round_trip(tmp_path, probed):
    model = probed({"moby dick": ["Herman Melville"] * 5, "australia": ["Canberra"] * 5,
                      "starry night": ["no idea"] * 5})
    k = knowledge.probe(model, _items(), "toy")
    shares = knowledge.level_shares(k).iloc[0]
    assert shares["none (%)"] == pytest.approx(33.3) and shares["full (%)"] == pytest.approx(66.7)
    assert shares["partial (%)"] == 0 and shares["n"] == 3
    path = tmp_path / "knowledge.jsonl"
    k.to_json(path, orient="records", lines=True)
    back = knowledge.load_knowledge(path).set_index("item_id")
    assert back.loc["nq-003", "level"] == "none" and back.loc["nq-001", "n_correct"] == 5


def test_score_responses_rejects_wrong_sample_count():
    with pytest.raises(ValueError, match="nq-001: 2 replies, expected 5"):
        knowledge.score_responses(_items(), "toy", ["nq-001", "nq-001"], ["a", "b"], n_samples=5)


def test_fewer_samples_keep_their_levels_through_the_file(tmp_path, probed):
    model = probed({"moby dick": ["Herman Melville"] * 2, "australia": ["Canberra", "Perth"],
                      "starry night": ["no", "no"]})
    k = knowledge.probe(model, _items(), "toy", n_samples=2)
    back = knowledge.load_knowledge(knowledge.save_knowledge(k, tmp_path / "k.jsonl")).set_index("item_id")
    assert back["level"].to_dict() == {"nq-001": "full", "nq-002": "partial", "nq-003": "none"}
