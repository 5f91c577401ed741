"""k-sampling (section 5): judge k shuffles of the list, then vote.

The paper: the evidence used is the passages with the highest vote counts, and how many of them is the
size of the most frequent listwise-set result across the k runs. Size ties go to the smaller size and
vote ties to the better retrieval rank (lower stored index), so the vote is deterministic. A failed
(unreadable) run casts no vote and its set size does not count.

The runs are kept in the run folder (`RUNS_FILE`, one line per model and question) for notebook 18's
order-averaging arm, which reads the file, not this package.
"""
from __future__ import annotations

from collections import Counter

from lib.utility.benchmark import Candidates
from lib.utility.calls import Ledger
from lib.utility.judging import Judgment, judge

RUNS_FILE = "utility_k_runs.jsonl"  # notebook 12's k runs (read by notebook 18: lib.mitigation.inputs)


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


def run_records(rows: list[Candidates], runs: list[list[Judgment]], model: str) -> list[dict]:
    """`RUNS_FILE`'s lines for one model: per question, each run's shown order and selection (stored
    indices; None: failed), its failed flag, the vote over all runs and the ground-truth passages."""
    voted = k_sampling_selection(runs, len(runs)) if runs else [[] for _ in rows]
    return [{"model": model, "id": row.id, "source": row.source, "k": len(runs),
             "ground_truth": [j for j, g in enumerate(row.ground_truth_label) if g],
             "orders": [run[i].order for run in runs], "selected": [run[i].selected for run in runs],
             "failed": [run[i].failed for run in runs], "voted": voted[i]} for i, row in enumerate(rows)]
