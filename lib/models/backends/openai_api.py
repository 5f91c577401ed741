"""OpenAI-compatible backend: payloads and replies of the chat and completions APIs, sent through
async_http.py (one event loop thread, an aiohttp session per backend, the openai client's retry policy:
exponential backoff with jitter on 408 / 409 / 429 / 5xx, connection errors and timeouts, `Retry-After`
honoured) with bounded concurrency (inflight.py: a ceiling from the spec, the run or the server; AIMD
on the OpenAI API)."""
from __future__ import annotations

import re
import threading
import warnings

from ..types import LogLik, Request, Response
from ..specs import ModelSpec, api_key_for, require_api_key
from . import OPENAI
from .async_http import HTTPStatusError, RequestFailed, ServerSession
from .inflight import SLOW_START, InFlightLimit, default_concurrency
from .server_logprobs import (PROBE_TEXT, echo_problem, echoed_span, options_from_top, split_common_prefix,
                              top_after_prefix)

OPENAI_URL = "https://api.openai.com/v1"
CHAT, COMPLETIONS = "/chat/completions", "/completions"  # the two endpoints, under the server's base URL
NO_KEY = "EMPTY"  # what keyless local servers (vLLM, llama.cpp, Ollama) get; never an OpenAI key


class BackendError(RuntimeError):
    """A request that failed for good (after retries, or with a status that retrying cannot fix)."""


def is_openai(spec: ModelSpec) -> bool:
    """Whether the spec names OpenAI's own API (not another OpenAI-compatible server)."""
    return spec.base_url is None or "api.openai.com" in spec.base_url


class OpenAIBackend:
    """Chat completions (and completions for raw prompts and echoed likelihoods) against any
    OpenAI-compatible server, at most `workers` requests in flight: the spec's `concurrency`, else
    `workers` as given, else RAGBIAS_CONCURRENCY, else a default by server (inflight.py)."""

    capabilities = OPENAI

    def __init__(self, spec: ModelSpec, workers: int | None = None, max_retries: int = 6, timeout: float = 120.0,
                 adaptive: bool | None = None):
        self.spec = spec
        self.base_url = spec.base_url or OPENAI_URL
        self.workers = spec.concurrency or workers or default_concurrency(spec.base_url, is_openai(spec))
        # the OpenAI API rate-limits per key: halve the in-flight limit on a 429, grow it back (AIMD)
        self.limit = InFlightLimit(self.workers, adaptive=is_openai(spec) if adaptive is None else adaptive,
                                   start=SLOW_START)
        self.max_retries = max_retries
        self.timeout = timeout
        # OpenAI's chat API rejects max_tokens for newer models; other servers may not know the new name
        self.token_param = "max_completion_tokens" if is_openai(spec) else "max_tokens"
        self._session = None
        self._lock = threading.Lock()
        self._warned_logprobs = False
        self.gives_logprobs = None  # unknown until a reply says
        self.echo_verdict = _UNKNOWN  # the likelihood probe's verdict: None = trusted, text = why not

    @property
    def session(self) -> ServerSession:
        """The server's HTTP session; the key is chosen per server (an OpenAI key is never sent elsewhere)."""
        with self._lock:
            if self._session is None:
                self._session = ServerSession(self.base_url, api_key_for(self.spec) or NO_KEY, self.limit,
                                              self.max_retries, self.timeout)
            return self._session

    def check(self) -> None:
        """Fail early, with the fix, on a missing key or a server that does not answer."""
        require_api_key(self.spec)
        try:
            self.session.get("/models", max_retries=0, timeout=10.0)
        except RequestFailed as e:
            raise BackendError(f"{self.spec.key}: the server at {self.base_url} is unreachable "
                               f"({e.__class__.__name__}). Start it, or fix the URL after '@' in the spec "
                               "(it usually ends in /v1).") from e
        except HTTPStatusError:
            pass  # some servers have no /models; a real request will tell

    def _call(self, path: str, payload: dict) -> dict:
        """One request (retried), waited for; errors name what the server refused."""
        return self.session.run(self._acall(path, payload))

    async def _acall(self, path: str, payload: dict) -> dict:
        """One request on the event loop: the reply as plain JSON (no typed objects: converting every
        field cost a third of the client's CPU per request, docs/benchmarks.md)."""
        try:
            return await self.session.request("POST", path, payload)
        except HTTPStatusError as e:
            if e.status_code in (400, 422):
                # 400 from OpenAI-style servers; 422 from FastAPI-based ones (llama-cpp-python), which name
                # the field in the body's `detail[].loc` instead of `param`
                param = e.param or _validation_param(e.body, payload) or _refused_param(e.message, payload)
                if param == "max_tokens" and "max_tokens" in payload and "messages" in payload:
                    # a server that wants the newer name: switch for this backend and send again
                    self.token_param = "max_completion_tokens"
                    payload = {("max_completion_tokens" if k == "max_tokens" else k): v for k, v in payload.items()}
                    return await self._acall(path, payload)
                sent = repr(payload.get(param))
                sent = sent if len(sent) <= 80 else sent[:60] + f"... ({len(sent)} characters)"
                where = f"refused the parameter {param!r} (sent {param}={sent})" if param else "refused"
                raise BackendError(f"{self.spec.key}: the server {where}: {e.message[:300]}. Change or drop that "
                                   "parameter for this model (reasoning models accept only their default "
                                   "sampling settings).") from e
            # llama-cpp-python answers a request-schema error with HTTP 500 (retried, as any 5xx is)
            # whose text carries pydantic's "'loc': ('body', '<field>')": name the field all the same
            found = _LOC.search(e.message or "")
            if found and found.group(1) in payload:
                param = found.group(1)
                raise BackendError(f"{self.spec.key}: the server refused the parameter {param!r} (sent "
                                   f"{param}={payload.get(param)!r}; HTTP {e.status_code}): "
                                   f"{e.message[:200]}") from e
            raise BackendError(f"{self.spec.key}: HTTP {e.status_code} after {self.max_retries} retries: "
                               f"{e.message[:300]}") from e
        except RequestFailed as e:
            raise BackendError(f"{self.spec.key}: still failing after {self.max_retries} retries "
                               f"({e.__class__.__name__}).") from e

    def _payload(self, req: Request) -> dict:
        p = {"model": self.spec.model, "temperature": req.temperature, "top_p": req.top_p,
             "seed": req.seed + req.sample}
        if req.stop:
            p["stop"] = list(req.stop)
        if req.messages is not None:
            p[self.token_param] = req.max_tokens
            p["messages"] = [dict(m) for m in req.messages]
            if req.logprobs:
                p.update(logprobs=True, top_logprobs=req.logprobs)
            return p
        p.update(prompt=req.prompt, max_tokens=req.max_tokens)  # the completions API knows only max_tokens
        if req.logprobs:
            p["logprobs"] = req.logprobs
        return p

    def _parse(self, req: Request, data: dict) -> Response:
        choice = data["choices"][0]
        text = (choice.get("message") or {}).get("content") if choice.get("message") else choice.get("text", "")
        top = None
        if req.logprobs:
            top = top_logprobs(choice.get("logprobs"))
            self.gives_logprobs = top is not None
            if top is None and not self._warned_logprobs:
                warnings.warn(f"{self.spec.key}: the server returned no log-probabilities; scores that need "
                              "them are reported as missing (never estimated).")
                self._warned_logprobs = True
        usage = data.get("usage") or {}
        return Response(text=text or "", top_logprobs=top, tokens_in=usage.get("prompt_tokens") or 0,
                        tokens_out=usage.get("completion_tokens") or 0, finish_reason=choice.get("finish_reason"))

    async def _aone(self, req: Request) -> Response:
        path = CHAT if req.messages is not None else COMPLETIONS
        return self._parse(req, await self._acall(path, self._payload(req)))

    def _one(self, req: Request) -> Response:
        """One request, waited for (the cache is not asked)."""
        return self.session.run(self._aone(req))

    def generate(self, requests: list[Request], on_result, progress=None) -> None:
        """Send all requests with bounded concurrency; on_result(i, Response) as each one arrives."""
        self._map(self._aone, requests, on_result, progress)

    def _map(self, job, items, on_result, progress) -> None:
        """`await job(item)` for every item on the event loop; on_result on this thread as each is done.
        A failed request is counted and named once all others are done (they are cached)."""
        errors = []
        for i, got in self.session.map(job, items):
            if isinstance(got, BackendError):
                errors.append((i, str(got)))
            elif isinstance(got, Exception):
                raise got
            else:
                on_result(i, got)
            if progress is not None:
                progress.update(1)
        if errors:
            raise BackendError(f"{len(errors)} of {len(items)} requests failed (the others are cached; "
                               f"re-running resumes). First error: {errors[0][1]}")

    def echo_probe(self) -> str | None:
        """Why this server's echoed prompt log-probabilities cannot be trusted (None when they can):
        one probe request on a near-certain text, checked by `echo_problem`. Uncached here:
        CachedModel keeps the verdict in the results cache per server and model."""
        data = self._call(COMPLETIONS,
                          {"model": self.spec.model, "prompt": PROBE_TEXT, "echo": True, "max_tokens": 1,
                           "logprobs": 1, "temperature": 0})
        return echo_problem(PROBE_TEXT, data["choices"][0].get("logprobs"))

    def likelihood_problem(self) -> str | None:
        """The probe's verdict, asked once per process unless CachedModel set it from its cache."""
        with _PROBE_LOCK:
            if self.echo_verdict is _UNKNOWN:
                self.echo_verdict = self.echo_probe()
            return self.echo_verdict

    def loglikelihood(self, pairs: list[tuple], on_result, progress=None) -> None:
        """Continuation log-probabilities via completions with echo, after the server passed the probe
        (`likelihood_problem`); otherwise LikelihoodUnavailable naming the cause."""
        from ..cached_model import LikelihoodUnavailable

        if any(not isinstance(ctx, str) for ctx, _ in pairs):
            raise LikelihoodUnavailable(f"{self.spec.key}: likelihoods over an API need a raw-text context (the "
                                        "server's chat template is not known here); chat prompts can use the "
                                        "top-k option method (CachedModel.option_topk).")
        problem = self.likelihood_problem()
        if problem:
            raise LikelihoodUnavailable(f"{self.spec.key}: likelihood scoring is unavailable: {problem}.")

        async def one(pair):
            ctx, cont = pair
            # max_tokens=1, not 0: llama-cpp-python reads 0 as "up to the context length"; the one
            # generated token lies past the prompt and is not counted
            data = await self._acall(COMPLETIONS,
                              {"model": self.spec.model, "prompt": ctx + cont, "echo": True, "max_tokens": 1,
                               "logprobs": 0, "temperature": 0})
            lp = data["choices"][0].get("logprobs")
            if echo_problem_missing(lp):
                raise BackendError(f"{self.spec.key}: this server returned no echoed log-probabilities, so "
                                   "likelihood scores are not available; use an hf: or local: model.")
            return LogLik(*echoed_span(lp, len(ctx), len(ctx) + len(cont)))
        self._map(one, pairs, on_result, progress)

    def option_topk(self, items: list[tuple], k: int, on_result, progress=None) -> None:
        """Single-token options read off the top-k list of one generated token (TopKOptions per item).

        Raw-text contexts: a completion of context + prefix, one token. Chat contexts: the greedy reply
        with top-k log-probabilities; the options are read at the position right after the reply spells
        the prefix (the same distribution as forcing the prefix, when the model writes it itself);
        a reply that does not begin with the prefix leaves every option unavailable, with the reason.
        """
        async def one(item):
            path, payload = self.topk_payload(item, k)
            return self.topk_parse(item, k, await self._acall(path, payload))
        self._map(one, items, on_result, progress)

    def topk_payload(self, item: tuple, k: int) -> tuple[str, dict]:
        """(endpoint, body) of one option_topk item: one generated token of context + prefix (raw text),
        or the greedy reply with its top-k log-probabilities (chat)."""
        ctx, prefix, _ = item
        prefix, _ = split_common_prefix(prefix, item[2])
        if isinstance(ctx, str):
            return COMPLETIONS, {"model": self.spec.model, "prompt": ctx + prefix, "max_tokens": 1, "logprobs": k,
                                 "temperature": 0}
        return CHAT, {"model": self.spec.model, "messages": [dict(m) for m in ctx], self.token_param: len(prefix) + 1,
                      "temperature": 0, "logprobs": True, "top_logprobs": k}

    def topk_parse(self, item: tuple, k: int, data: dict):
        """The TopKOptions of one option_topk item from the server's reply to `topk_payload`."""
        ctx, prefix, options = item
        prefix, options = split_common_prefix(prefix, options)
        if isinstance(ctx, str):
            tops = top_logprobs(data["choices"][0].get("logprobs")) or [None]
            top, reason = tops[0], ("" if tops[0] else "the server returned no top log-probabilities")
        else:
            entries = ((data["choices"][0].get("logprobs") or {}).get("content")) or []
            top, reason = top_after_prefix(entries, prefix) if entries else \
                (None, "the server returned no top log-probabilities")
        out = options_from_top(top, options, k, reason)
        out.tokens_in = (data.get("usage") or {}).get("prompt_tokens") or 0
        return out


_LOC = re.compile(r"'loc': \('body', '(\w+)'")
_PROBE_LOCK = threading.Lock()
_UNKNOWN = object()  # the probe has not run yet


def echo_problem_missing(lp: dict | None) -> bool:
    """Whether an echo reply carries no prompt log-probabilities at all."""
    return not lp or not lp.get("text_offset") or not lp.get("token_logprobs")


def top_logprobs(lp: dict | None) -> list | None:
    """One {token: logprob} dict per generated token from either reply shape, or None."""
    if lp and isinstance(lp.get("content"), list):  # chat shape
        return [{t["token"]: t["logprob"] for t in (e.get("top_logprobs") or [e])} for e in lp["content"]]
    if lp and isinstance(lp.get("top_logprobs"), list):  # legacy completions shape
        return [dict(d or {}) for d in lp["top_logprobs"]]
    return None


def _validation_param(body, payload: dict) -> str | None:
    """The request field a FastAPI validation error (HTTP 422) points at, when it is one we sent."""
    details = body.get("detail") if isinstance(body, dict) else None
    for d in details if isinstance(details, list) else []:
        loc = d.get("loc") if isinstance(d, dict) else None
        named = [p for p in (loc or []) if isinstance(p, str) and p in payload]
        if named:
            return named[-1]
    return None


def _refused_param(message: str, payload: dict) -> str | None:
    """The parameter a 400 message names when the server gave no `param` field."""
    named = [k for k in payload if k not in ("model", "messages", "prompt") and f"'{k}'" in (message or "")]
    return named[0] if len(named) == 1 else None
