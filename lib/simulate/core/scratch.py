"""A run's own results cache (and runs folder) for the simulator's checks: replies depend on the truth
file and its seed, so a cache shared with other runs would answer from another truth."""
from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def own_cache(cache: Path, runs: Path | None = None):
    """RAGBIAS_CACHE (and RAGBIAS_RUNS when given) at these folders while the block runs, the open
    caches closed on entry and exit (their handles belong to the folder they were opened in), the
    previous values restored after."""
    from lib.models import cache as results

    values = {"RAGBIAS_CACHE": cache, **({"RAGBIAS_RUNS": runs} if runs is not None else {})}
    old = {k: os.environ.get(k) for k in values}
    os.environ.update({k: str(v) for k, v in values.items()})
    results.close_all()
    try:
        yield cache
    finally:
        results.close_all()
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
