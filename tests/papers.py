"""Where the tests find the paper texts: `../shared/papers` beside the repository (env RAGBIAS_PAPERS
overrides, e.g. for a worktree elsewhere). A missing text skips a test on a developer's machine but
fails it under CI (env CI set), so a run without the papers cannot go green by skipping."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from lib.paths import ROOT


def papers_dir() -> Path:
    """Folder of the paper texts and the authors' code notes."""
    return Path(os.environ.get("RAGBIAS_PAPERS") or ROOT.parent / "shared" / "papers").expanduser()


def under_ci() -> bool:
    """True when the CI environment variable is set to anything but empty / false / 0."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def paper_path(name: str) -> Path:
    """Path of one paper text; skips the calling test when it is missing, fails it under CI."""
    path = papers_dir() / name
    if not path.exists():
        msg = f"{path} not found: the shared papers folder must sit beside the repository (or set RAGBIAS_PAPERS)"
        if under_ci():
            pytest.fail(msg)
        pytest.skip(msg)
    return path
