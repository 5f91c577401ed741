"""The budget cap of a run (`-p budget_usd=40`): dollars its priced requests may cost, shared by every
notebook kernel of the run through one file in the run folder (RAGBIAS_BUDGET names it).

Before a batch of paid requests goes out, CachedModel reserves what it could cost at most (prompt
characters over BOUND_CHARS_PER_TOKEN, every completion at max_tokens); what does not fit is not
sent, and `BudgetExhausted` says what was spent and what was left. When the batch is done the
reservation is replaced by what the results' tokens cost. So spent plus in flight never passes the
cap. The file keeps what was spent across re-runs of the same run: a re-run with a larger cap goes
on from the cache and pays only for the rest.
"""
from __future__ import annotations

import contextlib
import fcntl
import json
import os
from pathlib import Path

ENV = "RAGBIAS_BUDGET"
FILE = "budget.json"
BOUND_CHARS_PER_TOKEN = 2.0  # fewer characters per token than any English text has: never an underestimate


class BudgetExhausted(RuntimeError):
    """A paid request that would take the run past its budget was not sent."""


def activate(run_folder: Path, cap_usd: float) -> Path:
    """Set this run's cap (the spent total is kept from earlier runs of it; nothing is in flight now)
    and point RAGBIAS_BUDGET at the file, for this process and the kernels it starts."""
    path = Path(run_folder) / FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    with _locked(path) as state:
        state.update(cap_usd=float(cap_usd), reserved_usd=0.0)
        state.setdefault("spent_usd", 0.0)
    os.environ[ENV] = str(path)
    return path


def deactivate() -> None:
    """No budget for what this process starts next."""
    os.environ.pop(ENV, None)


def spent(run_folder: Path) -> float:
    """Dollars the run's priced requests have cost so far (0 for a run without a budget file)."""
    path = Path(run_folder) / FILE
    return float(json.loads(path.read_text()).get("spent_usd", 0.0)) if path.exists() else 0.0


def current() -> Path | None:
    """The budget file this process books into, or None when the run has no budget."""
    text = os.environ.get(ENV)
    return Path(text) if text else None


@contextlib.contextmanager
def _locked(path: Path):
    """The budget state, read and written back under an exclusive lock (kernels share it)."""
    with open(path, "a+", encoding="utf-8") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            f.seek(0)
            text = f.read()
            state = json.loads(text) if text.strip() else {}
            yield state
            f.seek(0)
            f.truncate()
            f.write(json.dumps(state))
            f.flush()
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def bound_usd(price, chars_in: int, max_tokens: int, batch: bool = False) -> float:
    """The most a request of `chars_in` prompt characters and `max_tokens` completion can cost (at
    the Batch API's prices with `batch`)."""
    inp, out = (price.batch_input, price.batch_output) if batch else (price.input, price.output)
    return (chars_in / BOUND_CHARS_PER_TOKEN * inp + max_tokens * out) / 1e6


def reserve(path: Path, costs: list[float]) -> int:
    """Reserve the longest prefix of `costs` that fits under the cap; how many fit (0: none)."""
    with _locked(path) as state:
        room = state["cap_usd"] - state.get("spent_usd", 0.0) - state.get("reserved_usd", 0.0)
        total, n = 0.0, 0
        for c in costs:
            if total + c > room:
                break
            total, n = total + c, n + 1
        state["reserved_usd"] = state.get("reserved_usd", 0.0) + total
        return n


def settle(path: Path, reserved_usd: float, spent_usd: float) -> None:
    """Replace a reservation by what its requests cost."""
    with _locked(path) as state:
        state["reserved_usd"] = max(state.get("reserved_usd", 0.0) - reserved_usd, 0.0)
        state["spent_usd"] = state.get("spent_usd", 0.0) + spent_usd


def state(path: Path) -> dict:
    """The cap, spent and reserved dollars."""
    return json.loads(Path(path).read_text())
