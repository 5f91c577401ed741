"""`own_cache`: a check's own cache folder while it runs, the caller's folders back after (even on an error)."""
import os

import pytest

from lib.models import cache
from lib.simulate.core.scratch import own_cache


def test_own_cache_points_the_env_there_and_restores_it(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGBIAS_CACHE", "/caller/cache")
    monkeypatch.delenv("RAGBIAS_RUNS", raising=False)
    closed = []
    monkeypatch.setattr(cache, "close_all", lambda: closed.append(1))
    with pytest.raises(RuntimeError):
        with own_cache(tmp_path / "c", tmp_path / "r") as folder:
            assert folder == tmp_path / "c"
            assert (os.environ["RAGBIAS_CACHE"], os.environ["RAGBIAS_RUNS"]) == (str(tmp_path / "c"), str(tmp_path / "r"))
            raise RuntimeError("a failing check")
    assert os.environ["RAGBIAS_CACHE"] == "/caller/cache" and "RAGBIAS_RUNS" not in os.environ
    assert len(closed) == 2  # handles opened in the caller's folder, then in the check's, are closed


def test_own_cache_without_runs_leaves_the_runs_folder_alone(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGBIAS_RUNS", "/caller/runs")
    with own_cache(tmp_path / "c"):
        assert os.environ["RAGBIAS_RUNS"] == "/caller/runs"
    assert os.environ["RAGBIAS_RUNS"] == "/caller/runs"
