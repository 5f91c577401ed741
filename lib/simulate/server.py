"""The simulated model as an OpenAI-compatible server on 127.0.0.1: /v1/models, /v1/chat/completions
(with logprobs / top_logprobs) and /v1/completions. Start it in-process (`SimServer` as a context
manager: a thread) or as `python -m lib.simulate serve`."""
from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections import Counter
from pathlib import Path

from aiohttp import web

from .batch_api import BatchAPI
from .core.roles import Roles
from .core.truth_file import BASE_MODEL, Truth, for_model, model_names
from .echo import echo_logprobs
from .replies import Replier
from .tasks import recognise
from .token_count import PromptTokens


def draw_key(body: dict) -> tuple:
    """What fixes the random draws of one request's reply: its messages (or prompt), seed and
    temperature, and the model's name unless it is the file's own ('sim')."""
    key = (json.dumps(body.get("messages") or body.get("prompt"), sort_keys=True), body.get("seed"),
           body.get("temperature"))
    if str(body.get("model", BASE_MODEL)) != BASE_MODEL:  # a second model draws its own replies
        key += (str(body["model"]),)
    return key


BACKLOG = 1024  # the listen queue: above any client's in-flight burst (socketserver's 5 dropped connections)


class SimServer:
    """The simulated models of one truth file (its `models` section: one per name; any other name gets
    the file's own sections) over one run's data.

    HTTP is aiohttp's server on one event-loop thread: every reply is computed on that thread, one at a
    time, as the threaded standard-library server's handlers did under the GIL anyway, without 64 handler
    threads contending for it (the HTTP part of the simulator's CPU per request fell by more than half,
    docs/benchmarks.md).
    Connections are kept alive, replies go out without Nagle's delay (aiohttp's default), and the listen
    backlog holds a full in-flight burst."""

    def __init__(self, truth: Truth, run_dir: Path | None = None, port: int = 0, count_tokens: bool = False):
        self.truth = truth
        self.roles = Roles(run_dir, truth)
        self.replier = Replier(truth, self.roles)
        self.repliers = {name: Replier(for_model(truth, name), self.roles) for name in model_names(truth)}
        self.counts: Counter = Counter()  # requests per task kind
        # prompt tokens per task kind, by the simulator's own tokenizer count (token_count.py), when asked:
        # it costs about as much CPU as the replies
        self.tokens = PromptTokens() if count_tokens else None
        self.prompt_tokens: Counter = Counter()
        self.batches = BatchAPI(self.answer)  # /v1/files and /v1/batches (batch_api.py)
        self.started = time.time()
        self._lock = threading.Lock()
        # the socket is bound here, so the address is known before the server starts
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", port))
        self._sock.listen(BACKLOG)
        self.backlog = BACKLOG
        self.port = self._sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}/v1"
        self._loop: asyncio.AbstractEventLoop | None = None
        self._runner: web.AppRunner | None = None
        self._thread: threading.Thread | None = None

    def _app(self) -> web.Application:
        app = web.Application(client_max_size=64 * 2 ** 20)  # a listwise prompt of long passages fits
        app.add_routes(self.batches.routes())  # before the catch-all routes
        app.router.add_get("/{tail:.*}", self._get)
        app.router.add_post("/{tail:.*}", self._post)
        return app

    async def _get(self, request: web.Request) -> web.Response:
        if request.path.rstrip("/").endswith("/stats"):
            return _json(200, self.stats())
        return _json(200, {"object": "list", "data": [{"id": m, "object": "model", "created": 0,
                                                       "owned_by": "rag-bias-lab simulator"} for m in self.repliers]})

    async def _post(self, request: web.Request) -> web.Response:
        body = json.loads(await request.read())
        try:
            return _json(200, self.answer(body, request.path))
        except Exception as e:  # a bug here must reach the pipeline as an error, not a hang
            return _json(500, {"error": {"message": f"simulator: {e.__class__.__name__}: {e}"}})

    def answer(self, body: dict, path: str = "/v1/chat/completions") -> dict:
        """The JSON reply to one completion request."""
        chat = "messages" in body
        task = recognise(body.get("messages"), body.get("prompt"))
        kind = "echo" if body.get("echo") else task.kind
        key = draw_key(body)
        n_prompt = self.tokens.count(body) if self.tokens else len(key[0].split())  # else: words, a rough count
        with self._lock:
            self.counts[kind] += 1
            self.prompt_tokens[kind] += n_prompt
        if chat:
            k = int(body.get("top_logprobs") or 0)
            text, entries = self._replier(body).reply(task, key, k)
            choice = {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
            if body.get("logprobs"):
                choice["logprobs"] = {"content": entries}
            return self._wrap(body, "chat.completion", choice, n_prompt, entries)
        if body.get("echo"):  # prompt log-probabilities (echo.py), the prompt echoed before any reply
            generated = min(int(body.get("max_tokens") or 0), 1)
            lp = echo_logprobs(self.replier, body["prompt"], int(body.get("logprobs") or 0), generated)
            # the generated tokens are the last ones (the prompt is not tokenized a second time)
            choice = {"index": 0, "text": body["prompt"] + "".join(lp["tokens"][len(lp["tokens"]) - generated:]),
                      "logprobs": lp, "finish_reason": "length"}
            return self._wrap(body, "text_completion", choice, n_prompt, [])
        k = int(body.get("logprobs") or 0)
        text, entries = self._replier(body).reply(task, key, k)
        lp = ({"tokens": [e["token"] for e in entries], "token_logprobs": [e["logprob"] for e in entries],
               "text_offset": [], "top_logprobs": [{t["token"]: t["logprob"] for t in e["top_logprobs"]}
                                                   for e in entries]} if k else None)
        return self._wrap(body, "text_completion", {"index": 0, "text": text, "logprobs": lp,
                                                    "finish_reason": "stop"}, n_prompt, entries)

    def _replier(self, body: dict) -> Replier:
        """The replier of the model the request names (its truth-file section); any other name: 'sim'."""
        return self.repliers.get(str(body.get("model", "")), self.replier)

    @staticmethod
    def _wrap(body, obj, choice, prompt_tokens, entries) -> dict:
        usage = {"prompt_tokens": prompt_tokens, "completion_tokens": len(entries),
                 "total_tokens": prompt_tokens + len(entries)}
        return {"id": "sim", "object": obj, "created": 0, "model": body.get("model", "sim"),
                "choices": [choice], "usage": usage}

    def stats(self) -> dict:
        """Requests per task kind and per second since the start; with count_tokens, their prompt tokens
        (total and per task kind) and the rule that counted them."""
        total = sum(self.counts.values())
        secs = max(time.time() - self.started, 1e-9)
        out = {"requests": total, "per_task": dict(self.counts), "seconds": round(secs, 2),
               "requests_per_second": round(total / secs, 2), "own_texts": len(self.roles.own),
               "by_batch": self.batches.requests}
        if self.tokens:
            out.update(prompt_tokens=sum(self.prompt_tokens.values()),
                       prompt_tokens_per_task=dict(self.prompt_tokens), prompt_tokens_rule=self.tokens.rule)
        return out

    def __enter__(self):
        self.started = time.time()
        self._loop = asyncio.new_event_loop()
        ready = threading.Event()

        async def start():
            self._runner = web.AppRunner(self._app(), access_log=None, handle_signals=False)
            await self._runner.setup()
            await web.SockSite(self._runner, self._sock, backlog=BACKLOG).start()

        failed: list[BaseException] = []

        def serve():
            asyncio.set_event_loop(self._loop)
            try:
                self._loop.run_until_complete(start())
            except BaseException as e:  # handed to the thread that waits for the start
                failed.append(e)
                return
            finally:
                ready.set()
            self._loop.run_forever()

        self._thread = threading.Thread(target=serve, name="simulator-http", daemon=True)
        self._thread.start()
        ready.wait()
        if failed:
            raise RuntimeError(f"the simulator's HTTP server did not start: {failed[0]}") from failed[0]
        return self

    def __exit__(self, *exc):
        if self._loop is not None and self._runner is not None:
            asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop).result(timeout=30)
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=30)
            self._loop.close()
        self._sock.close()


def _json(status: int, body: dict) -> web.Response:
    return web.Response(status=status, body=json.dumps(body).encode(), content_type="application/json")
