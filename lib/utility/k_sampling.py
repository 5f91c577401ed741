"""k-sampling (section 5): judge k shuffles of the list, then vote.

The paper: the evidence used is the passages with the highest vote counts, and how many of them is the
size of the most frequent listwise-set result across the k runs. Size ties go to the smaller size and
vote ties to the better retrieval rank (lower stored index), so the vote is deterministic. A failed
(unreadable) run casts no vote and its set size does not count.
"""
from __future__ import annotations

from collections import Counter

from lib.utility.benchmark import Candidates
from lib.utility.calls import Ledger
from lib.utility.judging import Judgment, judge


def vote(selections: list[list[int] | None]) -> list[int]:
    """Aggregate k selected sets into one: top-m passages by votes, m = modal set size."""
    selections = [s for s in selections if s is not None]
    if not selections:
        return []
    sizes = Counter(len(s) for s in selections)
    top = max(sizes.values())
    m = min(size for size, c in sizes.items() if c == top)
    votes = Counter(i for s in selections for i in set(s))
    ranked = sorted(votes, key=lambda i: (-votes[i], i))
    return sorted(ranked[:m])


def k_sampling_runs(model, rows: list[Candidates], k: int, judgment: str = "utility", seed: int = 0,
                    ledger: Ledger | None = None, key: tuple | None = None, desc: str = ""
                    ) -> list[list[Judgment]]:
    """k listwise-set judgments per row, each on its own seeded shuffle; runs[r][row]."""
    return [judge(model, rows, "listwise-set", judgment, seed=seed, shuffle_key=f"/k{r}",
                  ledger=ledger, key=key, desc=desc or f"{judgment}-k-sampling") for r in range(k)]


def k_sampling_selection(runs: list[list[Judgment]], k: int) -> list[list[int]]:
    """Voted selection per row from the first k runs (so one set of runs gives the curve over k)."""
    if k > len(runs):
        raise ValueError(f"k={k} but only {len(runs)} sampled runs exist; sample more runs.")
    return [vote([runs[r][i].selected for r in range(k)]) for i in range(len(runs[0]))]
