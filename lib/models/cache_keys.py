"""Where the cache key is made: canonical JSON of everything that determines a result, hashed."""
from __future__ import annotations

import hashlib
import json

KEY_VERSION = 1  # bump when the meaning of a cached value changes


def canonical_json(obj) -> str:
    """Stable JSON: sorted keys, no whitespace, floats as Python repr."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def make_key(kind: str, model_key: str, payload: dict) -> str:
    """SHA-256 over (kind, secret-free model spec, request payload)."""
    blob = canonical_json({"v": KEY_VERSION, "kind": kind, "model": model_key, "payload": payload})
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()
