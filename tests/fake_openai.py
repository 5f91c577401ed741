"""A small OpenAI-compatible server on 127.0.0.1 for tests and benchmarks: chat completions,
completions (with `echo` log-probabilities), /models, transient failures, refused parameters, and a
rate limit (429 past `capacity` requests in flight). Run as a module it serves in its own process
(benchmarks): `python -m tests.fake_openai --delay 0.5` prints its URL; GET /stats gives its counts."""
from __future__ import annotations

import argparse
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class FakeOpenAI:
    """Answers after `delay` seconds; can fail the first attempts of a prompt (optionally with a
    Retry-After header) and refuse named parameters with a 400 naming them, as OpenAI does."""

    def __init__(self, delay: float = 0.0, fail_first: int = 0, fail_status: int = 429, logprobs: bool = True,
                 broken_prompts: tuple = (), retry_after: float | None = None, refuse: tuple = (),
                 capacity: int | None = None, port: int = 0):
        self.delay, self.fail_first, self.fail_status = delay, fail_first, fail_status
        self.logprobs, self.broken_prompts = logprobs, set(broken_prompts)
        self.retry_after, self.refuse = retry_after, set(refuse)
        self.calls = 0  # successful completions served
        self.attempts: dict[str, int] = {}
        self.attempt_times: dict[str, list] = {}
        self.bodies: list[dict] = []
        self.in_flight = self.max_in_flight = 0
        self.capacity, self.rate_limited = capacity, 0  # 429s answered past `capacity` in flight
        self.auth_headers: list[str] = []
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep connections alive, as real servers do (1.0 closes each one)
            disable_nagle_algorithm = True  # headers and body go out as two writes: without this, 40 ms stalls

            def log_message(self, *a):
                pass

            def _send(self, status, body, headers=None):
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                if self.path.endswith("/stats"):
                    return self._send(200, server.stats())
                self._send(200, {"object": "list", "data": [{"id": "fake-model", "object": "model",
                                                             "created": 0, "owned_by": "test"}]})

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.auth_headers.append(self.headers.get("Authorization", ""))
                self._send(*server.answer(body, self.path))

        class Server(ThreadingHTTPServer):
            request_queue_size = 1024  # the listen backlog (5 by default drops connections opened at once)

        self.httpd = Server(("127.0.0.1", port), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def answer(self, body: dict, path: str = "/v1/chat/completions") -> tuple:
        """The reply to one request: (status, json body[, headers])."""
        chat = "messages" in body
        prompt = body["messages"][-1]["content"] if chat else body["prompt"]
        with self._lock:
            self.bodies.append(body)
            n = self.attempts[prompt] = self.attempts.get(prompt, 0) + 1
            self.attempt_times.setdefault(prompt, []).append(time.perf_counter())
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            if self.capacity is not None and self.in_flight > self.capacity:
                with self._lock:
                    self.rate_limited += 1
                return 429, {"error": {"message": "rate limit: too many requests in flight"}}
            time.sleep(self.delay)
            refused = sorted(self.refuse & set(body))
            if refused:
                return 400, {"error": {"message": f"Unsupported parameter: '{refused[0]}' is not supported "
                                                  "with this model.", "type": "invalid_request_error",
                                       "param": refused[0], "code": "unsupported_parameter"}}
            if prompt in self.broken_prompts:
                return 400, {"error": {"message": "bad prompt", "type": "invalid_request_error"}}
            if n <= self.fail_first:
                headers = {"Retry-After": str(self.retry_after)} if self.retry_after is not None else {}
                return self.fail_status, {"error": {"message": "try again"}}, headers
            with self._lock:
                self.calls += 1
            usage = {"prompt_tokens": 5, "completion_tokens": 3, "total_tokens": 8}
            if not chat:
                return 200, self._completion(body, prompt, usage)
            text = f"echo: {prompt} (t={body.get('temperature')}, seed={body.get('seed')})"
            choice = {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
            if self.logprobs and body.get("logprobs"):
                choice["logprobs"] = {"content": [{"token": "echo", "logprob": -0.1, "bytes": None,
                                                   "top_logprobs": [{"token": "echo", "logprob": -0.1},
                                                                    {"token": "x", "logprob": -2.5}]}]}
            return 200, {"id": "c", "object": "chat.completion", "created": 0, "model": body["model"],
                         "choices": [choice], "usage": usage}
        finally:
            with self._lock:
                self.in_flight -= 1

    def _completion(self, body: dict, prompt: str, usage: dict) -> dict:
        """Legacy completions: one word per token, log-probability -0.5 per word; echo returns them."""
        words = prompt.split(" ")
        offsets, pos = [], 0
        for w in words:
            offsets.append(pos)
            pos += len(w) + 1
        if body.get("echo"):
            text = prompt
            lp = {"tokens": words, "token_logprobs": [None] + [-0.5] * (len(words) - 1),
                  "text_offset": offsets, "top_logprobs": None} if self.logprobs else None
        else:
            text = f" continued: {prompt[-20:]}"
            lp = ({"tokens": ["continued"], "token_logprobs": [-0.3], "text_offset": [0],
                   "top_logprobs": [{"continued": -0.3, "stop": -1.9}]} if self.logprobs and body.get("logprobs")
                  else None)
        return {"id": "t", "object": "text_completion", "created": 0, "model": body["model"],
                "choices": [{"index": 0, "text": text, "logprobs": lp, "finish_reason": "length"}], "usage": usage}

    def stats(self) -> dict:
        """Counts so far: completions served, most in flight at once, 429s for the rate limit."""
        with self._lock:
            return {"calls": self.calls, "max_in_flight": self.max_in_flight, "rate_limited": self.rate_limited}

    def __enter__(self):
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()


if __name__ == "__main__":  # its own process, so the client's threads and the server's do not share a GIL
    ap = argparse.ArgumentParser(description="Serve the fake OpenAI-compatible API on 127.0.0.1.")
    ap.add_argument("--delay", type=float, default=0.5)
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--seconds", type=float, default=600, help="stop after this long at most")
    args = ap.parse_args()
    fake = FakeOpenAI(delay=args.delay, port=args.port)
    with fake:
        print(fake.url, flush=True)
        time.sleep(args.seconds)
