"""Every path the project uses, in one place."""
from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"
DEMO = DATA / "demo"
RUNS = DATA / "runs"
FIGURES = ROOT / "figures"
NOTEBOOKS = ROOT / "notebooks"
CONFIGS = ROOT / "configs"


def cache_dir() -> Path:
    """Folder of the response cache and converted model weights (env RAGBIAS_CACHE overrides)."""
    path = Path(os.environ.get("RAGBIAS_CACHE", ROOT / ".cache")).expanduser()
    path.mkdir(parents=True, exist_ok=True)
    return path


def model_dir() -> Path:
    """Folder of converted model weights (env RAGBIAS_MODELS overrides); kept apart from the results
    cache so tests with a fresh cache do not convert the models again."""
    path = Path(os.environ.get("RAGBIAS_MODELS", ROOT / ".cache" / "models")).expanduser()
    path.mkdir(parents=True, exist_ok=True)
    return path


def runs_root() -> Path:
    """Folder of all runs (env RAGBIAS_RUNS overrides, e.g. a temporary folder in tests)."""
    return Path(os.environ.get("RAGBIAS_RUNS") or RUNS).expanduser()


def figures_root() -> Path:
    """Folder of all runs' figures (env RAGBIAS_FIGURES overrides)."""
    return Path(os.environ.get("RAGBIAS_FIGURES") or FIGURES).expanduser()


def run_dir(run_name: str) -> Path:
    """Folder of one named run's tables, executed notebooks and manifest."""
    return runs_root() / run_name


def figure_dir(run_name: str) -> Path:
    """Folder of one named run's figures and LaTeX tables."""
    return figures_root() / run_name


def display_path(p: Path) -> str:
    """A path relative to the repository when inside it (the manifest's usual form), else absolute."""
    p = Path(p).resolve()
    return str(p.relative_to(ROOT)) if p.is_relative_to(ROOT) else str(p)
