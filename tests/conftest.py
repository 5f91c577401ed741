"""Shared fixtures: every test gets its own empty results cache; converted model weights are shared."""
import os

import pytest

from lib import cache, config

# One torch thread per process in tests: notebook kernels and model tests may run side by side, and two
# threads per process on 2 shared cores collapse (measured 8x slower); kernels inherit this variable.
os.environ.setdefault("RAGBIAS_THREADS", "1")


@pytest.fixture(autouse=True)
def fresh_cache(tmp_path, monkeypatch):
    """An empty results cache and zeroed counters per test (the converted models stay shared)."""
    cache.close_all()
    monkeypatch.setenv("RAGBIAS_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("RAGBIAS_MODELS", os.environ.get("RAGBIAS_MODELS", str(config.ROOT / ".cache" / "models")))
    cache.reset_stats()
    yield tmp_path / "cache"
    cache.close_all()
