"""CachedModel, the one cache loop: every model call of every study (generation, likelihoods,
option log-probabilities, perplexity, embeddings, reward scores) goes through `CachedModel._run`."""
from __future__ import annotations

import math
import threading
import time

from tqdm.auto import tqdm

from . import budget, cache
from .backends import Backend, declared
from .cache_keys import canonical_json, make_key
from .ledger import LEDGER, Ledger
from .prices import cost_usd, price_of
from .specs import ModelSpec
from .types import LogLik, OptionScores, Request, Response


PAID_KINDS = ("generate", "option_topk")  # what a priced API bills (it gives no likelihoods of given text)


class LikelihoodUnavailable(NotImplementedError):
    """The model's server returns no prompt log-probabilities, so likelihood scoring cannot run."""


class CapabilityError(NotImplementedError):
    """The backend does not declare the capability a call needs."""


def user_request(text: str, chat: bool = True, **params) -> Request:
    """A one-turn request: a user chat message, or raw text for base LMs (chat=False)."""
    if chat:
        return Request(messages=[{"role": "user", "content": text}], **params)
    return Request(prompt=text, **params)


def _tokens(value) -> tuple[int, int]:
    """(tokens in, tokens out) a result reports: a reply's own counts; a score's tokens read."""
    if isinstance(value, Response):
        return value.tokens_in, value.tokens_out
    return getattr(value, "tokens_in", 0) or getattr(value, "n_tokens", 0) or 0, 0


class CachedModel:
    """Wraps a backend: looks every request up in the disk cache, sends only the misses, stores each
    result the moment it arrives (so an interrupted batch resumes where it stopped), and books every
    batch in the cost ledger. Capability questions are answered from the backend's declaration, which
    is given here when the backend is built lazily (a warm re-run never builds it)."""

    def __init__(self, spec: ModelSpec, backend=None, factory=None, capabilities=None,
                 cache_name: str | None = None, deferred=frozenset()):
        if (backend is None) == (factory is None):
            raise ValueError("CachedModel needs a backend or a factory that builds one, not both.")
        if capabilities is None:
            if backend is None:
                raise ValueError("A lazily built backend needs its capabilities declared up front.")
            if not isinstance(backend, Backend):
                raise TypeError(f"{type(backend).__name__} declares no `capabilities` (see lib.models.backends).")
            capabilities = backend.capabilities
        self.spec = spec
        self.capabilities = declared(capabilities)
        self.deferred = declared(deferred)  # capabilities the built backend decides (asked then)
        # the model identity inside cache keys: the spec, unless a backend keeps an older identity
        # (embeddings were keyed by the embedding model's name before the model layer served them)
        self.cache_name = cache_name or spec.key
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
    def built(self) -> bool:
        """Whether the backend exists yet (a warm re-run never builds it)."""
        return self._backend is not None

    @property
    def name(self) -> str:
        """Canonical, secret-free model identity (the spec string; an embedding model's name)."""
        return self.cache_name

    def can(self, capability: str) -> bool:
        """Whether the backend declares this capability (see lib.models.backends.CAPABILITIES); a
        deferred one is asked of the built backend."""
        if capability in self.capabilities:
            return True
        return capability in self.deferred and capability in self.backend.capabilities

    @property
    def scores_options(self) -> bool:
        """Whether option_logprobs can run here: natively, or from likelihoods (servers: only if they
        echo prompt log-probabilities, which is known only when asked)."""
        return self.can("option_logprobs") or self.can("loglikelihood")

    @property
    def can_echo(self) -> bool:
        """Whether the backend declares likelihoods of given text (prompt log-probabilities)."""
        return self.can("loglikelihood")

    @property
    def is_chat(self) -> bool:
        """Whether the model takes chat messages (False for base LMs such as local:gemma3): the
        backend's declared `chat` capability."""
        return self.can("chat")

    def request(self, content, chat: bool | None = None, **params) -> Request:
        """A one-turn Request: a message list as given; a string as a user chat message for chat
        models, as raw text for base LMs (or as `chat` says when given)."""
        if isinstance(content, (list, tuple)):
            return Request(messages=list(content), **params)
        return user_request(content, self.is_chat if chat is None else chat, **params)

    def check(self) -> None:
        """Build the backend and reach the model now (a server's address, a key, weights), so a bad
        spec fails before any work; later calls do not check again."""
        self._ensure_ready()

    def _ensure_ready(self):
        if not self._checked:
            self.backend.check()
            self._checked = True

    def _run(self, kind: str, items: list, payloads: list[dict], call, decode, desc: str | None,
             encode=lambda v: v.to_json(), book: tuple[Ledger, tuple] | None = None) -> list:
        """The cache loop: decode(stored, cached) per item; `call(missing items, on_result, bar)` runs
        only on misses, and each result is stored as encode(result) as it arrives (cache.Writer: one
        commit per 50 ms at most, so a crash loses at most that). Items with the same key in one batch
        are asked once: the cache keeps one result per key, so a second call could only be overwritten
        (and a re-run would return the first's result for both); they count as cache hits."""
        store = cache.results_cache()
        keys = [make_key(kind, self.cache_name, p) for p in payloads]
        results: list = [None] * len(items)
        missing: list[int] = []
        asked: dict[str, int] = {}  # key -> its position in `missing`
        repeats: list[tuple[int, int]] = []  # (item, position in `missing` of the same key)
        for i, k in enumerate(keys):
            hit = store.get(k)
            if hit is not None:
                results[i] = decode(hit, True)
            elif k in asked:
                repeats.append((i, asked[k]))
            else:
                asked[k] = len(missing)
                missing.append(i)
        cache.count(hits=len(items) - len(missing))
        seconds = 0.0
        if missing:
            started = time.perf_counter()
            self._ensure_ready()

            writer = cache.Writer(store, tag=self.cache_name)  # the model: lets a cluster task take its own entries

            stored_of: dict[int, object] = {}

            def on_result(j, value):
                i = missing[j]
                stored = stored_of[j] = encode(value)
                writer.put(keys[i], stored)
                results[i] = decode(stored, False)
                t_in, t_out = _tokens(results[i])
                cache.count(misses=1, tokens_in=t_in, tokens_out=t_out)

            label = desc or f"{kind} {self.spec.key}"
            with writer, tqdm(total=len(items), initial=len(items) - len(missing), desc=label, leave=False) as bar:
                self._send(kind, [items[i] for i in missing], on_result, bar, call, label)
            for i, j in repeats:  # as a re-run would read them: from the stored result
                if j in stored_of:
                    results[i] = decode(stored_of[j], True)
            seconds = time.perf_counter() - started
        self._book(kind, results, len(missing), seconds, desc, book)
        return results

    def _send(self, kind: str, todo: list, on_result, bar, call, label: str) -> None:
        """call(todo, on_result, bar), or, for a priced model under a run's budget (lib.models.budget),
        as many as fit under the cap at their most, then the next that fit once those are booked;
        BudgetExhausted names what was not sent (everything received is stored already)."""
        path, price = budget.current(), price_of(self.spec)
        if path is None or price is None or kind not in PAID_KINDS:
            call(todo, on_result, bar)
            return
        costs = [budget.bound_usd(price, len(canonical_json(t.as_dict() if isinstance(t, Request) else t)),
                                  t.max_tokens if isinstance(t, Request) else 1, self.spec.batch) for t in todo]
        start = 0
        while start < len(todo):
            n = budget.reserve(path, costs[start:])
            if n == 0:
                st = budget.state(path)
                raise budget.BudgetExhausted(
                    f"budget_usd={st['cap_usd']:g} reached: ${st['spent_usd']:.4f} spent, ${st['reserved_usd']:.4f} in "
                    f"flight; {len(todo) - start} of {len(todo)} requests of '{label}' to {self.spec.key} not sent. "
                    "Finished results are cached: a re-run with a larger -p budget_usd resumes.")
            spent = [0.0]

            def booked(j, value, offset=start, chunk=costs[start:start + n]):
                t_in, t_out = _tokens(value)
                spent[0] += cost_usd(self.spec, t_in, t_out) if (t_in or t_out) else chunk[j]  # no count: its bound
                on_result(offset + j, value)
            try:
                call(todo[start:start + n], booked, bar)
            finally:
                budget.settle(path, sum(costs[start:start + n]), spent[0])
            start += n

    def _book(self, kind, results, misses, seconds, desc, book) -> None:
        tokens = [_tokens(r) for r in results]
        t_in, t_out = sum(t for t, _ in tokens), sum(t for _, t in tokens)
        row = dict(requests=len(results), hits=len(results) - misses, misses=misses, tokens_in=t_in,
                   tokens_out=t_out, seconds=seconds, cost_usd=cost_usd(self.spec, t_in, t_out))
        LEDGER.add((self.name, desc or kind), **row)
        if book is not None and book[0] is not None:
            book[0].add(book[1], **row)

    def _method(self, capability: str, error=CapabilityError):
        """The backend's method for a declared capability (looked up on a miss only)."""
        if not self.can(capability):
            raise error(f"{self.spec.key}: this backend does not declare {capability!r} "
                        f"(it declares {sorted(self.capabilities)}).")
        return getattr(self.backend, capability)

    def generate(self, requests: list[Request], desc: str | None = None,
                 ledger: Ledger | None = None, key: tuple | None = None) -> list[Response]:
        """Responses for a list of requests, in the same order (cached ones cost nothing); the batch
        is also booked in `ledger` under `key` when given."""
        requests = list(requests)
        return self._run("generate", requests, [r.as_dict() for r in requests],
                         lambda *a: self._method("generate")(*a), lambda d, c: Response(**d, cached=c), desc,
                         book=(ledger, key or (self.name, desc or "generate")))

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
        return self._run("loglikelihood", pairs, payloads,
                         lambda *a: self._checked_echo()._method("loglikelihood", LikelihoodUnavailable)(*a),
                         lambda d, c: LogLik(d["logprob"], d["n_tokens"], cached=c), desc)

    def perplexity(self, texts: list[str], stride: int = 512, max_length: int | None = None,
                   desc: str | None = None) -> list[float]:
        """exp(mean token negative log-likelihood) of each text, from the backend's rolling
        log-likelihood over sliding windows (`stride` tokens apart, at most `max_length` long);
        cached per (model, text, stride, max_length), so a warm run loads no model."""
        texts = list(texts)
        payloads = [{"text": t, "stride": stride, "max_length": max_length} for t in texts]
        # the cache stores the perplexity itself (as before the model layer served it): same entries
        return self._run("perplexity", [(t, stride, max_length) for t in texts], payloads,
                         lambda *a: self._method("rolling_loglikelihood")(*a), lambda d, c: float(d), desc,
                         encode=lambda ll: math.exp(-ll.logprob / ll.n_tokens))

    def embed(self, texts: list[str], desc: str | None = None) -> list:
        """Normalized embedding vector (float32 numpy array) of each text, cached per (model, text)."""
        import numpy as np

        texts = list(texts)
        return self._run("embedding", texts, [{"text": t} for t in texts],
                         lambda *a: self._method("embed")(*a), lambda d, c: np.asarray(d), desc,
                         encode=lambda v: np.asarray(v, dtype=np.float32))

    def score(self, items: list[dict], desc: str | None = None) -> list[float]:
        """One number per item from a scoring backend (a reward model's head), cached like replies;
        each item is a JSON-able dict that fully determines its score."""
        items = list(items)
        return self._run("score", items, items, lambda *a: self._method("score")(*a),
                         lambda d, c: float(d["score"]), desc)

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
                        lambda *a: (self.backend.option_logprobs if self.can("option_logprobs")
                                    else self._options_by_loglikelihood)(*a),
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
        return self._run("option_topk", items, payloads,
                         lambda its, *a: self._method("option_topk", LikelihoodUnavailable)(its, k, *a),
                         TopKOptions.from_json, desc)

    def echo_problem(self) -> str | None:
        """Why this server's likelihoods cannot be used (its cached echo probe's verdict), or None
        when the probe passed or the backend needs no probe."""
        if not self.can("echo_probe"):
            return None
        return self._checked_echo().backend.echo_verdict

    def _checked_echo(self) -> "CachedModel":
        """Before a server's likelihoods: its echo probe's verdict, cached per server and model (a
        warm re-run asks nothing), handed to the backend, which refuses to score if it failed."""
        if self.can("echo_probe"):
            from .backends.server_logprobs import PROBE_TEXT

            backend = self.backend
            backend.echo_verdict = self._run(
                "echo_probe", [PROBE_TEXT], [{"text": PROBE_TEXT}],
                lambda _items, on_result, _bar: on_result(0, {"problem": backend.echo_probe()}),
                lambda d, c: d["problem"], "likelihood probe", encode=lambda v: v)[0]
        return self

    def _options_by_loglikelihood(self, items, on_result, progress=None):
        # Backends with only loglikelihood (an OpenAI-compatible server that echoes prompt
        # log-probabilities): log P(prefix + option) - log P(prefix), raw-text contexts only.
        if not self.can("loglikelihood"):
            raise LikelihoodUnavailable(f"{self.spec.key}: likelihood scoring is unavailable for this server "
                                        "(it returns no prompt log-probabilities); use an hf: or local: model.")
        backend = None
        for j, (ctx, prefix, options) in enumerate(items):
            got = {}
            pairs = [(ctx, prefix + o) for o in options] + ([(ctx, prefix)] if prefix else [])
            try:
                backend = backend or self._checked_echo().backend  # the server's probe once per batch
                backend.loglikelihood(pairs, lambda i, ll: got.__setitem__(i, ll))
            except LikelihoodUnavailable:
                raise  # already says why
            except Exception as e:  # the server's own error says why; keep it, under one type
                raise LikelihoodUnavailable(f"{self.spec.key}: likelihood scoring is unavailable ({e})") from e
            base = got[len(options)] if prefix else LogLik(0.0, 0)
            on_result(j, OptionScores([got[i].logprob - base.logprob for i in range(len(options))],
                                      [got[i].n_tokens - base.n_tokens for i in range(len(options))]))
            if progress is not None:
                progress.update(1)
