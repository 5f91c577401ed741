"""The simulated model as an OpenAI-compatible server on 127.0.0.1: /v1/models, /v1/chat/completions
(with logprobs / top_logprobs) and /v1/completions. Start it in-process (`SimServer` as a context
manager: a thread) or as `python -m lib.simulate serve`."""
from __future__ import annotations

import json
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from .echo import echo_logprobs, tokenize
from .replies import Replier
from .roles import Roles
from .tasks import recognise
from .rm_params import BASE_MODEL, for_model, model_names
from .truth_file import Truth


def draw_key(body: dict) -> tuple:
    """What fixes the random draws of one request's reply: its messages (or prompt), seed and
    temperature, and the model's name unless it is the file's own ('sim')."""
    key = (json.dumps(body.get("messages") or body.get("prompt"), sort_keys=True), body.get("seed"),
           body.get("temperature"))
    if str(body.get("model", BASE_MODEL)) != BASE_MODEL:  # a second model draws its own replies
        key += (str(body["model"]),)
    return key


class _Server(ThreadingHTTPServer):
    """The HTTP server with a listen backlog above the clients' in-flight limit: at socketserver's
    default of 5, a batch's burst of connections overflowed it, and each dropped connection waited
    for the client's SYN retry (1 s, then 3 s, ...) with the notebook idle."""

    request_queue_size = 1024
    daemon_threads = True


class SimServer:
    """The simulated models of one truth file (its `models` section: one per name; any other name gets
    the file's own sections) over one run's data."""

    def __init__(self, truth: Truth, run_dir: Path | None = None, port: int = 0):
        self.truth = truth
        self.roles = Roles(run_dir, truth)
        self.replier = Replier(truth, self.roles)
        self.repliers = {name: Replier(for_model(truth, name), self.roles) for name in model_names(truth)}
        self.counts: Counter = Counter()  # requests per task kind
        self.started = time.time()
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            # keep-alive: HTTP/1.0 closed the connection after every reply, so each request opened a new
            # one (every reply carries its Content-Length, so 1.1's persistent connections are safe)
            protocol_version = "HTTP/1.1"
            # TCP_NODELAY: a reply goes out as two writes (headers, body), and on a kept-alive connection
            # Nagle's algorithm held the body until the client's delayed ACK of the headers (~40 ms)
            disable_nagle_algorithm = True

            def log_message(self, *a):  # the pipeline's progress bars are the log
                pass

            def _send(self, status: int, body: dict):
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                if self.path.rstrip("/").endswith("/stats"):
                    return self._send(200, server.stats())
                self._send(200, {"object": "list", "data": [{"id": m, "object": "model", "created": 0,
                                                             "owned_by": "rag-bias-lab simulator"}
                                                            for m in server.repliers]})

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                try:
                    self._send(200, server.answer(body, self.path))
                except Exception as e:  # a bug here must reach the pipeline as an error, not a hang
                    self._send(500, {"error": {"message": f"simulator: {e.__class__.__name__}: {e}"}})

        self.httpd = _Server(("127.0.0.1", port), Handler)
        self.port = self.httpd.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}/v1"

    def answer(self, body: dict, path: str = "/v1/chat/completions") -> dict:
        """The JSON reply to one completion request."""
        chat = "messages" in body
        task = recognise(body.get("messages"), body.get("prompt"))
        with self._lock:
            self.counts["echo" if body.get("echo") else task.kind] += 1
        key = draw_key(body)
        content = key[0]
        if chat:
            k = int(body.get("top_logprobs") or 0)
            text, entries = self._replier(body).reply(task, key, k)
            choice = {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
            if body.get("logprobs"):
                choice["logprobs"] = {"content": entries}
            return self._wrap(body, "chat.completion", choice, content, entries)
        if body.get("echo"):  # prompt log-probabilities (echo.py), the prompt echoed before any reply
            lp = echo_logprobs(self.replier, body["prompt"], int(body.get("logprobs") or 0),
                               min(int(body.get("max_tokens") or 0), 1))
            choice = {"index": 0, "text": body["prompt"] + "".join(lp["tokens"][len(tokenize(body["prompt"])):]),
                      "logprobs": lp, "finish_reason": "length"}
            return self._wrap(body, "text_completion", choice, content, [])
        k = int(body.get("logprobs") or 0)
        text, entries = self._replier(body).reply(task, key, k)
        lp = ({"tokens": [e["token"] for e in entries], "token_logprobs": [e["logprob"] for e in entries],
               "text_offset": [], "top_logprobs": [{t["token"]: t["logprob"] for t in e["top_logprobs"]}
                                                   for e in entries]} if k else None)
        return self._wrap(body, "text_completion", {"index": 0, "text": text, "logprobs": lp,
                                                    "finish_reason": "stop"}, content, entries)

    def _replier(self, body: dict) -> Replier:
        """The replier of the model the request names (its truth-file section); any other name: 'sim'."""
        return self.repliers.get(str(body.get("model", "")), self.replier)

    @staticmethod
    def _wrap(body, obj, choice, content, entries) -> dict:
        usage = {"prompt_tokens": len(content.split()), "completion_tokens": len(entries),
                 "total_tokens": len(content.split()) + len(entries)}
        return {"id": "sim", "object": obj, "created": 0, "model": body.get("model", "sim"),
                "choices": [choice], "usage": usage}

    def stats(self) -> dict:
        """Requests per task kind and per second since the start."""
        total = sum(self.counts.values())
        secs = max(time.time() - self.started, 1e-9)
        return {"requests": total, "per_task": dict(self.counts), "seconds": round(secs, 2),
                "requests_per_second": round(total / secs, 2), "own_texts": len(self.roles.own)}

    def __enter__(self):
        self.started = time.time()
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()
