"""The simulator's Batch API: `/v1/files` and `/v1/batches` over the server's own one-request answer,
so the model layer's batch path (lib.models.backends.openai_batch) is tested offline.

A batch is answered when it is first asked for `delay` seconds after it was created (a planted
completion delay); a seeded `fail_share` of its lines go to the error file instead of the output file;
with `expire`, a batch ends "expired" with only its first half answered. `requests` counts the requests
that arrived by batch (the server's statistics show it as `by_batch`)."""
from __future__ import annotations

import hashlib
import itertools
import json
import threading
import time

from aiohttp import web

DONE = ("completed", "expired", "failed", "cancelled")


class BatchAPI:
    """Files and batches kept in memory, answered through `answer(body, path) -> reply JSON`."""

    def __init__(self, answer, delay: float = 0.2, fail_share: float = 0.0, expire: bool = False):
        self.answer = answer
        self.delay, self.fail_share, self.expire = delay, fail_share, expire
        self.files: dict[str, dict] = {}
        self.batches: dict[str, dict] = {}
        self.requests = 0
        self.created = 0  # batches created (a resumed run creates none)
        self._ids = itertools.count(1)
        self._lock = threading.Lock()

    def routes(self) -> list:
        """aiohttp routes, to be added before the server's catch-all ones."""
        return [web.post("/v1/files", self._upload), web.get("/v1/files/{id}/content", self._content),
                web.get("/v1/files/{id}", self._file), web.post("/v1/batches", self._create),
                web.get("/v1/batches/{id}", self._retrieve), web.post("/v1/batches/{id}/cancel", self._cancel)]

    def _new_id(self, prefix: str) -> str:
        return f"{prefix}-sim{next(self._ids)}"

    def _file_object(self, fid: str) -> dict:
        f = self.files[fid]
        return {"id": fid, "object": "file", "bytes": len(f["data"]), "created_at": int(f["created"]),
                "filename": f["name"], "purpose": f["purpose"], "status": "processed"}

    def _store(self, data: bytes, name: str, purpose: str) -> str:
        fid = self._new_id("file")
        self.files[fid] = {"data": data, "name": name, "purpose": purpose, "created": time.time()}
        return fid

    async def _upload(self, request: web.Request) -> web.Response:
        form = await request.post()
        upload = form.get("file")
        if upload is None or form.get("purpose") != "batch":
            return _error(400, "a batch input file needs `file` and purpose `batch`")
        fid = self._store(upload.file.read(), upload.filename or "input.jsonl", "batch")
        return web.json_response(self._file_object(fid))

    async def _file(self, request: web.Request) -> web.Response:
        fid = request.match_info["id"]
        return web.json_response(self._file_object(fid)) if fid in self.files else _error(404, f"no file {fid}")

    async def _content(self, request: web.Request) -> web.Response:
        fid = request.match_info["id"]
        if fid not in self.files:
            return _error(404, f"no file {fid}")
        return web.Response(body=self.files[fid]["data"], content_type="application/octet-stream")

    async def _create(self, request: web.Request) -> web.Response:
        body = await request.json()
        fid = body.get("input_file_id")
        if fid not in self.files or body.get("completion_window") != "24h":
            return _error(400, "a batch needs an uploaded input_file_id and completion_window 24h")
        lines = [json.loads(x) for x in self.files[fid]["data"].decode("utf-8").splitlines() if x.strip()]
        bid = self._new_id("batch")
        with self._lock:
            self.created += 1
        self.batches[bid] = {"id": bid, "object": "batch", "endpoint": body.get("endpoint"), "errors": None,
                             "input_file_id": fid, "completion_window": "24h", "status": "in_progress",
                             "output_file_id": None, "error_file_id": None, "created_at": int(time.time()),
                             "metadata": body.get("metadata"), "_created": time.time(), "_lines": lines,
                             "request_counts": {"total": len(lines), "completed": 0, "failed": 0}}
        return web.json_response(self._public(bid))

    async def _retrieve(self, request: web.Request) -> web.Response:
        bid = request.match_info["id"]
        if bid not in self.batches:
            return _error(404, f"no batch {bid}")
        b = self.batches[bid]
        if b["status"] not in DONE and time.time() - b["_created"] >= self.delay:
            self._finish(b)
        return web.json_response(self._public(bid))

    async def _cancel(self, request: web.Request) -> web.Response:
        bid = request.match_info["id"]
        if bid not in self.batches:
            return _error(404, f"no batch {bid}")
        self.batches[bid]["status"] = "cancelled"
        return web.json_response(self._public(bid))

    def _public(self, bid: str) -> dict:
        return {k: v for k, v in self.batches[bid].items() if not k.startswith("_")}

    def _planted_failure(self, fid: str, custom_id: str) -> bool:
        h = int(hashlib.sha256(f"{fid}/{custom_id}".encode()).hexdigest()[:8], 16) / 0xFFFFFFFF
        return h < self.fail_share

    def _finish(self, b: dict) -> None:
        """Answer a batch's lines (its first half only when it expires)."""
        lines = b["_lines"][: len(b["_lines"]) // 2] if self.expire else b["_lines"]
        out, err = [], []
        for line in lines:
            cid = line.get("custom_id")
            if self._planted_failure(b["input_file_id"], cid):
                err.append({"id": f"req-{cid}", "custom_id": cid, "response": None,
                            "error": {"code": "server_error", "message": "planted failure"}})
                continue
            reply = self.answer(line["body"], line.get("url", b["endpoint"]))
            with self._lock:
                self.requests += 1
            out.append({"id": f"req-{cid}", "custom_id": cid, "error": None,
                        "response": {"status_code": 200, "request_id": f"req-{cid}", "body": reply}})
        encode = lambda rows: "".join(json.dumps(r) + "\n" for r in rows).encode("utf-8")  # noqa: E731
        b["output_file_id"] = self._store(encode(out), "output.jsonl", "batch_output") if out else None
        b["error_file_id"] = self._store(encode(err), "errors.jsonl", "batch_output") if err else None
        b["request_counts"].update(completed=len(out), failed=len(err))
        b["status"] = "expired" if self.expire else "completed"
        b["completed_at" if not self.expire else "expired_at"] = int(time.time())


def _error(status: int, message: str) -> web.Response:
    return web.json_response({"error": {"message": f"simulator: {message}", "type": "invalid_request_error"}},
                             status=status)
