"""The Batch API (`openai:<model>;batch`): a notebook's cache misses go to the server as JSONL files
through the `openai` SDK (`files.create`, `batches.create`, `batches.retrieve`, the output and error
files) instead of one request each; the replies are parsed as the synchronous backend parses them.

- A file holds at most MAX_LINES requests and MAX_BYTES bytes (the provider's limits); each becomes a
  batch, and its results reach `on_result` (so the cache) as soon as that batch is done.
- Every submitted batch is recorded in the batch folder (the run folder under the runner, else the
  cache folder) under the hash of its lines: a killed run asked the same misses again finds its batch
  and polls it instead of paying twice.
- A line that failed (the error file, an error status, or left out of an expired batch) is sent again
  synchronously; what still fails is counted in one error, as the synchronous backend does.
- Log-probability requests go as they are (`logprobs` in the body), and so do log-probability verdicts
  (`option_topk`: one generated token's top k); a re-ask round of
  ask-until-parsed is one more batch. Likelihoods of given text (echo) stay synchronous.
"""
from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path

from ..cache_keys import canonical_json
from ..specs import api_key_for
from ..types import Request
from .openai_api import CHAT, COMPLETIONS, NO_KEY, BackendError, OpenAIBackend

MAX_LINES = 50_000
MAX_BYTES = 200 * 2 ** 20
WINDOW = "24h"
DIR_ENV = "RAGBIAS_BATCH_DIR"  # where batch ids are kept (the runner sets the run folder)
POLL_ENV = "RAGBIAS_BATCH_POLL"  # seconds between polls (default POLL_SECONDS)
POLL_SECONDS = 30.0
DONE = ("completed", "failed", "expired", "cancelled")


def batch_folder() -> Path:
    """The folder that keeps this process's submitted batches."""
    from ...paths import cache_dir

    folder = Path(os.environ.get(DIR_ENV) or cache_dir()) / "batches"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def split_lines(lines: list[bytes], max_lines: int = MAX_LINES, max_bytes: int = MAX_BYTES) -> list[list[int]]:
    """Indexes of `lines` in consecutive files of at most `max_lines` lines and `max_bytes` bytes."""
    parts, part, size = [], [], 0
    for i, line in enumerate(lines):
        if len(line) > max_bytes:
            raise BackendError(f"a batch request of {len(line):,} bytes is over the file limit of {max_bytes:,}")
        if part and (len(part) >= max_lines or size + len(line) > max_bytes):
            parts.append(part)
            part, size = [], 0
        part.append(i)
        size += len(line)
    return parts + ([part] if part else [])


class BatchBackend(OpenAIBackend):
    """An OpenAI-compatible server's Batch API for generation; everything else as OpenAIBackend."""

    def __init__(self, spec, poll_seconds: float | None = None, max_lines: int = MAX_LINES,
                 max_bytes: int = MAX_BYTES, **options):
        super().__init__(spec, **options)
        self.poll_seconds = poll_seconds if poll_seconds is not None else float(os.environ.get(POLL_ENV) or POLL_SECONDS)
        self.max_lines, self.max_bytes = max_lines, max_bytes
        self._client = None
        self._records: dict[str, Path] = {}  # batch id -> its record in the batch folder

    @property
    def client(self):
        """The `openai` SDK's client for this server (its key as the synchronous backend chooses it)."""
        if self._client is None:
            import openai

            self._client = openai.OpenAI(api_key=api_key_for(self.spec) or NO_KEY, base_url=self.base_url,
                                         max_retries=self.max_retries, timeout=self.timeout)
        return self._client

    def generate(self, requests: list[Request], on_result, progress=None) -> None:
        """Send the requests as batches; on_result(i, Response) as each batch's results arrive; failed
        lines again synchronously (the synchronous backend's error counts what still fails)."""
        jobs = [(CHAT if r.messages is not None else COMPLETIONS, self._payload(r)) for r in requests]
        again = self._send_batches(jobs, lambda j, body: self._parse(requests[j], body), on_result, progress)
        if again:
            super().generate([requests[i] for i in again], lambda j, r: on_result(again[j], r), progress)

    def option_topk(self, items: list[tuple], k: int, on_result, progress=None) -> None:
        """Log-probability verdicts (one generated token's top k) as batches, as `generate` sends."""
        jobs = [self.topk_payload(item, k) for item in items]
        again = self._send_batches(jobs, lambda j, body: self.topk_parse(items[j], k, body), on_result, progress)
        if again:
            super().option_topk([items[i] for i in again], k, lambda j, r: on_result(again[j], r), progress)

    def _send_batches(self, jobs: list[tuple[str, dict]], parse, on_result, progress) -> list[int]:
        """(endpoint, body) jobs as batches, one endpoint per batch; on_result(i, parse(i, reply body));
        the positions of the lines that failed, in order."""
        failed: list[int] = []
        for endpoint in (CHAT, COMPLETIONS):
            idx = [i for i, (e, _) in enumerate(jobs) if e == endpoint]
            if idx:
                failed += [idx[j] for j in self._batches(endpoint, [jobs[i][1] for i in idx],
                                                         lambda j, body, idx=idx: on_result(idx[j], parse(idx[j], body)),
                                                         progress)]
        return sorted(failed)

    def _batches(self, endpoint: str, bodies: list[dict], on_reply, progress) -> list[int]:
        """Submit (or find) one batch per file of `bodies`, poll them all, hand each reply body to
        on_reply(position, body) when its batch is done; the positions whose lines failed."""
        lines = [canonical_json({"custom_id": f"r{j}", "method": "POST", "url": "/v1" + endpoint,
                                 "body": body}).encode("utf-8") + b"\n" for j, body in enumerate(bodies)]
        pending = {}
        for part in split_lines(lines, self.max_lines, self.max_bytes):
            blob = b"".join(lines[j] for j in part)
            pending[self._submit(endpoint, blob, len(part))] = part
        failed: list[int] = []
        while pending:
            for batch_id in list(pending):
                batch = self.client.batches.retrieve(batch_id)
                counts = batch.request_counts
                if progress is not None and counts is not None:
                    progress.set_postfix_str(f"batch {batch.status} {counts.completed + counts.failed}/{counts.total}",
                                             refresh=False)
                if batch.status in DONE:
                    part = pending.pop(batch_id)
                    got = self._results(batch, part, on_reply, progress)
                    failed += [j for j in part if j not in got]
                    self._record(batch_id, status=batch.status)
            if pending:
                time.sleep(self.poll_seconds)
        return failed

    def _submit(self, endpoint: str, blob: bytes, n: int) -> str:
        """The id of the batch of these lines: a recorded one that can still give results, else a new
        upload and batch, recorded before anything else happens."""
        digest = hashlib.sha256(self.base_url.encode() + b"\n" + blob).hexdigest()[:32]
        path = batch_folder() / f"{digest}.json"
        if path.exists():
            rec = json.loads(path.read_text())
            if rec.get("status") in (None, "completed"):  # in flight, or done but not all cached: read it again
                self._records[rec["batch_id"]] = path
                return rec["batch_id"]
        uploaded = self.client.files.create(file=(f"{digest}.jsonl", blob), purpose="batch")
        batch = self.client.batches.create(input_file_id=uploaded.id, endpoint="/v1" + endpoint,
                                           completion_window=WINDOW, metadata={"requests": str(n)})
        path.write_text(json.dumps({"batch_id": batch.id, "input_file_id": uploaded.id, "endpoint": endpoint,
                                    "requests": n, "model": self.spec.key, "submitted": time.time()}))
        self._records[batch.id] = path
        return batch.id

    def _record(self, batch_id: str, **fields) -> None:
        """Add fields to a submitted batch's record."""
        path = self._records[batch_id]
        path.write_text(json.dumps({**json.loads(path.read_text()), **fields}))

    def _results(self, batch, part: list[int], on_reply, progress) -> set[int]:
        """Hand over a finished batch's replies (its output file); the positions that got one."""
        got: set[int] = set()
        if not batch.output_file_id:
            return got
        import openai

        wanted = set(part)
        try:
            text = self.client.files.content(batch.output_file_id).text
        except openai.NotFoundError:  # the output file expired: its lines go again synchronously
            return got
        for line in text.splitlines():
            if not line.strip():
                continue
            rec = json.loads(line)
            j = int(str(rec.get("custom_id", "r-1"))[1:])
            response = rec.get("response") or {}
            if j not in wanted or rec.get("error") or response.get("status_code") != 200:
                continue
            on_reply(j, response["body"])
            got.add(j)
            if progress is not None:
                progress.update(1)
        return got
