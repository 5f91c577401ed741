"""The one call surface for every model: cached, batched generation and likelihoods."""
from __future__ import annotations

import threading

from tqdm.auto import tqdm

from . import cache
from .cache import cache_stats, reset_stats  # noqa: F401  (re-exported for notebooks)
from .cache_keys import make_key
from .llm_types import LogLik, OptionScores, Request, Response  # noqa: F401
from .specs import ModelSpec, SpecError, parse_spec, require_api_key  # noqa: F401


class LikelihoodUnavailable(NotImplementedError):
    """The model's server returns no prompt log-probabilities, so likelihood scoring cannot run."""

_models: dict[str, "CachedModel"] = {}
CHAT_EMBEDDED = {"smollm2"}  # embedded models with a chat template; gemma3 is a base LM


def _backend(spec: ModelSpec, **options):
    if spec.backend == "openai":
        from .backends.openai_api import OpenAIBackend

        return OpenAIBackend(spec, **options)
    from .backends.transformers_lm import TransformersBackend

    return TransformersBackend(spec, **options)


def user_request(text: str, chat: bool = True, **params) -> Request:
    """A one-turn request: a user chat message, or raw text for base LMs (chat=False)."""
    if chat:
        return Request(messages=[{"role": "user", "content": text}], **params)
    return Request(prompt=text, **params)


def get_model(spec: str, **options) -> "CachedModel":
    """A cached model for a spec string such as 'local:smollm2' or 'openai:gpt-4o-mini'."""
    parsed = parse_spec(spec)
    require_api_key(parsed)
    key = parsed.key + repr(sorted(options.items()))
    if key not in _models:
        # the backend is built on the first cache miss: a warm re-run never imports torch or loads weights
        _models[key] = CachedModel(parsed, factory=lambda: _backend(parsed, **options))
    return _models[key]


class CachedModel:
    """Wraps a backend: looks every request up in the disk cache, sends only the misses, stores each
    result the moment it arrives (so an interrupted batch resumes where it stopped)."""

    def __init__(self, spec: ModelSpec, backend=None, factory=None):
        if (backend is None) == (factory is None):
            raise ValueError("CachedModel needs a backend or a factory that builds one, not both.")
        self.spec = spec
        self._backend = backend
        self._factory = factory
        self._checked = False
        self._lock = threading.Lock()

    @property
    def backend(self):
        """The backend object, built on first use."""
        with self._lock:
            if self._backend is None:
                self._backend = self._factory()
            return self._backend

    @property
    def name(self) -> str:
        """Canonical, secret-free spec string."""
        return self.spec.key

    @property
    def is_chat(self) -> bool:
        """Whether the model takes chat messages (False for base LMs such as local:gemma3)."""
        if self.spec.backend == "openai":
            return True
        if self.spec.backend == "local":
            return self.spec.model in CHAT_EMBEDDED
        return bool(self.backend.tokenizer.chat_template)

    def request(self, content, chat: bool | None = None, **params) -> Request:
        """A one-turn Request: a message list as given; a string as a user chat message for chat
        models, as raw text for base LMs (or as `chat` says when given)."""
        if isinstance(content, (list, tuple)):
            return Request(messages=list(content), **params)
        return user_request(content, self.is_chat if chat is None else chat, **params)

    def _ensure_ready(self):
        if not self._checked:
            self.backend.check()
            self._checked = True

    def _run(self, kind: str, items: list, payloads: list[dict], call, decode, desc: str | None):
        store = cache.results_cache()
        keys = [make_key(kind, self.spec.key, p) for p in payloads]
        results: list = [None] * len(items)
        missing = []
        for i, k in enumerate(keys):
            hit = store.get(k)
            if hit is not None:
                results[i] = decode(hit, True)
            else:
                missing.append(i)
        cache.count(hits=len(items) - len(missing))
        if not missing:
            return results
        self._ensure_ready()

        def on_result(j, value):
            i = missing[j]
            store.set(keys[i], value.to_json() if hasattr(value, "to_json") else vars(value))
            results[i] = value
            cache.count(misses=1, tokens_in=getattr(value, "tokens_in", 0),
                        tokens_out=getattr(value, "tokens_out", getattr(value, "n_tokens", 0)))

        label = desc or f"{kind} {self.spec.key}"
        with tqdm(total=len(items), initial=len(items) - len(missing), desc=label, leave=False) as bar:
            call([items[i] for i in missing], on_result, bar)
        return results

    def generate(self, requests: list[Request], desc: str | None = None) -> list[Response]:
        """Responses for a list of requests, in the same order (cached ones cost nothing)."""
        requests = list(requests)
        return self._run("generate", requests, [r.as_dict() for r in requests], lambda *a: self.backend.generate(*a),
                         lambda d, c: Response(**d, cached=c), desc)

    def chat(self, prompt, **params) -> Response:
        """One chat turn: a user string or a message list, with Request fields as keywords."""
        messages = [{"role": "user", "content": prompt}] if isinstance(prompt, str) else prompt
        return self.generate([Request(messages=messages, **params)])[0]

    def complete(self, prompt: str, **params) -> Response:
        """One raw-text continuation (base models without a chat template)."""
        return self.generate([Request(prompt=prompt, **params)])[0]

    def loglikelihood(self, pairs: list[tuple], desc: str | None = None) -> list[LogLik]:
        """log P(continuation | context) for (context, continuation) pairs; context is text or messages."""
        pairs = [(list(c) if isinstance(c, (list, tuple)) else c, s) for c, s in pairs]
        payloads = [{"context": c, "continuation": s} for c, s in pairs]
        return self._run("loglikelihood", pairs, payloads, lambda *a: self.backend.loglikelihood(*a),
                         lambda d, c: LogLik(d["logprob"], d["n_tokens"], cached=c), desc)

    def score(self, items: list[dict], desc: str | None = None) -> list[float]:
        """One number per item from a scoring backend (a reward model's head), cached like replies;
        each item is a JSON-able dict that fully determines its score."""
        items = list(items)
        out = self._run("score", items, items, lambda *a: self.backend.score(*a),
                        lambda d, c: float(d["score"]), desc)
        return [r if isinstance(r, float) else float(r.score) for r in out]

    @property
    def scores_options(self) -> bool:
        """Whether option_logprobs can run here (hf: and local: models; servers only if they echo
        prompt log-probabilities, which is known only when asked)."""
        if self.spec.backend in ("local", "hf"):
            return True  # without building the backend (no torch import on a warm re-run)
        return hasattr(self.backend, "option_logprobs") or hasattr(self.backend, "loglikelihood")

    def option_logprobs(self, items: list[tuple], desc: str | None = None) -> list[list[float]]:
        """log P(option | context, assistant prefix) per option, for (context, prefix, options) items.

        `context` is raw text or chat messages (then the options continue the assistant turn, after
        `prefix`, e.g. "###" or the start of a reply); one list of floats per item, in option order.
        Cached per item. Single-token options cost one forward pass per item (next-token
        distribution); longer ones are summed continuation log-probabilities.
        """
        items = [(list(c) if isinstance(c, (list, tuple)) else c, p or "", list(o)) for c, p, o in items]
        payloads = [{"context": c, "prefix": p, "options": o} for c, p, o in items]
        # the backend is looked up only on a miss: building it imports torch (4 s), which a warm
        # re-run must not pay
        out = self._run("option_logprobs", items, payloads,
                        lambda *a: (getattr(self.backend, "option_logprobs", None) or self._options_by_loglikelihood)(*a),
                        lambda d, c: OptionScores(**d, cached=c), desc)
        return [list(o.logprobs) for o in out]

    def option_topk(self, items: list[tuple], k: int = 20, desc: str | None = None) -> list:
        """A different method from option_logprobs, for servers without prompt log-probabilities:
        single-token options read off one generated token's top-k log-probabilities (k at least the
        number of options). Returns one `TopKOptions` per (context, prefix, options) item; an option
        outside the top k is NaN and counted unavailable, never taken as zero probability."""
        from .backends.server_logprobs import TopKOptions

        items = [(list(c) if isinstance(c, (list, tuple)) else c, p or "", list(o)) for c, p, o in items]
        k = max(k, max((len(o) for _, _, o in items), default=1))
        payloads = [{"context": c, "prefix": p, "options": o, "k": k} for c, p, o in items]
        return self._run("option_topk", items, payloads, lambda its, *a: self.backend.option_topk(its, k, *a),
                         TopKOptions.from_json, desc)

    def _options_by_loglikelihood(self, items, on_result, progress=None):
        # Backends with only loglikelihood (an OpenAI-compatible server that echoes prompt
        # log-probabilities): log P(prefix + option) - log P(prefix), raw-text contexts only.
        if not hasattr(self.backend, "loglikelihood"):
            raise LikelihoodUnavailable(f"{self.spec.key}: likelihood scoring is unavailable for this server "
                                        "(it returns no prompt log-probabilities); use an hf: or local: model.")
        for j, (ctx, prefix, options) in enumerate(items):
            got = {}
            pairs = [(ctx, prefix + o) for o in options] + ([(ctx, prefix)] if prefix else [])
            try:
                self.backend.loglikelihood(pairs, lambda i, ll: got.__setitem__(i, ll))
            except LikelihoodUnavailable:
                raise  # already says why
            except Exception as e:  # the server's own error says why; keep it, under one type
                raise LikelihoodUnavailable(f"{self.spec.key}: likelihood scoring is unavailable ({e})") from e
            base = got[len(options)] if prefix else LogLik(0.0, 0)
            on_result(j, OptionScores([got[i].logprob - base.logprob for i in range(len(options))],
                                      [got[i].n_tokens - base.n_tokens for i in range(len(options))]))
            if progress is not None:
                progress.update(1)
