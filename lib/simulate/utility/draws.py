"""Vectorised draws of the planted utility judge (`core.utility_model`) over many simulated questions of one
candidate-set composition, for the truths of notebooks 11 and 12 that have no closed form.

Each draw is one question: a question effect, one shown order (the study shows every input form of a
question in the same seeded order; k-sampling's runs each in their own), and independent draws of
every reply, as the simulator makes them (`utility.replies`): a listwise set draws each shown passage,
a listwise ranking is Plackett-Luce over the shown log-odds, a pointwise or pairwise prompt holds one or
two passages (so their position log-odds are those of a one- or two-passage list), and each reply is
outside the format with the planted failure rate. Selections and ranks are returned in stored order.
Nothing here runs the pipeline; the tests check these draws against a plain loop over the study's own
vote, wins-ranking and evidence functions."""
from __future__ import annotations

from itertools import combinations

import numpy as np

from ..core import planted as M
from ..core import utility_model as UM


class Draws:
    """`draws` simulated questions of one composition (roles in stored order) under one truth."""

    def __init__(self, u: UM.Utility, roles, sd: float, failure: float, draws: int, seed: int = 0,
                 fixed: tuple[int, int] | None = None):
        self.u, self.roles, self.n = u, tuple(roles), len(roles)
        self.failure, self.size = failure, draws
        self.rng = np.random.default_rng(seed)
        self.q = sd * self.rng.standard_normal(draws)  # the question effect, shared by every reply
        self.gt = np.array([r == "ground_truth" for r in self.roles])
        self.place = self.places(fixed)

    def places(self, fixed: tuple[int, int] | None = None) -> np.ndarray:
        """place[d, j]: where stored passage j is shown (a uniform order); `fixed` = (stored, shown)
        puts one passage at one place and the others in a uniform order around it."""
        place = np.argsort(self.rng.random((self.size, self.n)), axis=1)
        if fixed is not None:
            j, at = fixed
            k = np.argmax(place == at, axis=1)  # the passage the order put there swaps with j
            rows = np.arange(self.size)
            place[rows, k] = place[rows, j]
            place[:, j] = at
        return place

    def base(self, judgment: str) -> np.ndarray:
        """Selection log-odds of each stored passage's role."""
        return np.array([self.u.select(judgment)[r] for r in self.roles], float)

    def logits(self, judgment: str, place: np.ndarray | None = None) -> np.ndarray:
        """Listwise log-odds per stored passage: role + the position of its shown place + question."""
        place = self.place if place is None else place
        return self.base(judgment) + UM.shown_offsets(self.u, self.n)[place] + self.q[:, None]

    def _fails(self, *shape) -> np.ndarray:
        return self.rng.random(shape) < self.failure

    def listwise_set(self, judgment: str, place: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(selected [d, j], failed [d]) of one listwise-set reply per question."""
        sel = self.rng.random((self.size, self.n)) < M.sigmoid(self.logits(judgment, place))
        failed = self._fails(self.size)
        return sel & ~failed[:, None], failed

    def listwise_rank(self, judgment: str) -> tuple[np.ndarray, np.ndarray]:
        """(rank [d, j], 0 = first, failed [d]): Plackett-Luce by a Gumbel draw per passage."""
        gumbel = -np.log(-np.log(self.rng.random((self.size, self.n)).clip(1e-12, 1 - 1e-12)))
        return _ranks(-(self.logits(judgment) + gumbel)), self._fails(self.size)

    def pointwise(self, judgment: str) -> tuple[np.ndarray, np.ndarray]:
        """(selected, failed): a 'yes' per passage prompt (one passage: no position); an unreadable
        reply selects nothing, and a question fails when every reply is unreadable."""
        yes = self.rng.random((self.size, self.n)) < M.sigmoid(self.base(judgment) + self.q[:, None])
        readable = ~self._fails(self.size, self.n)
        return yes & readable, ~readable.any(axis=1)

    def pairwise(self, judgment: str) -> tuple[np.ndarray, np.ndarray]:
        """(rank, failed): every shown pair once, Bradley-Terry on the two-passage prompt's log-odds
        (the second shown gets the planted position), ranked by wins, ties by shown place."""
        stored_at = np.argsort(self.place, axis=1)  # stored_at[d, s]: the passage shown at s
        shown = self.base(judgment)[stored_at]
        wins = np.zeros((self.size, self.n))
        readable_any = np.zeros(self.size, bool)
        for a, b in combinations(range(self.n), 2):
            first = self.rng.random(self.size) < M.sigmoid(shown[:, a] - shown[:, b] - self.u.position)
            ok = ~self._fails(self.size)
            wins[:, a] += ok & first
            wins[:, b] += ok & ~first
            readable_any |= ok
        rank_shown = _ranks(-wins * (self.n + 1) + np.arange(self.n))
        return np.take_along_axis(rank_shown, self.place, axis=1), ~readable_any

    def k_runs(self, k: int) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """(place, selected, failed) of the utility listwise-set judgment on k shuffles, each its own."""
        out = []
        for _ in range(k):
            place = self.places()
            out.append((place, *self.listwise_set("utility", place)))
        return out

    def k_sampling(self, k_values, runs=None) -> dict[int, np.ndarray]:
        """{k: chosen [d, j]}: the vote of the first k of `runs` (default: `k_runs(max(k_values))`;
        `lib.utility.k_sampling.vote`: as many passages as the modal set size, size ties to the
        smaller, the most voted first, vote ties to the lower stored index)."""
        runs = self.k_runs(max(k_values)) if runs is None else runs
        return {k: _vote([s for _, s, _ in runs[:k]], [f for _, _, f in runs[:k]], self.n) for k in k_values}


def _ranks(keys: np.ndarray) -> np.ndarray:
    """Rank (0 = smallest key) of every column, per row."""
    return np.argsort(np.argsort(keys, axis=1, kind="stable"), axis=1)


def _vote(selections: list[np.ndarray], failed: list[np.ndarray], n: int) -> np.ndarray:
    sel = np.stack(selections, axis=1)  # [d, run, j]
    ok = ~np.stack(failed, axis=1)
    sizes = sel.sum(axis=2)
    counts = np.stack([(ok & (sizes == s)).sum(axis=1) for s in range(n + 1)], axis=1)
    m = np.argmax(counts, axis=1)  # the first maximum: the smaller size on a tie
    votes = (sel & ok[:, :, None]).sum(axis=1)
    rank = _ranks(-votes * (n + 1) + np.arange(n))
    return (rank < m[:, None]) & (votes > 0) & ok.any(axis=1)[:, None]


def top(rank: np.ndarray, failed: np.ndarray, m: np.ndarray) -> np.ndarray:
    """The first m[d] passages of each readable ranking (a failed one hands over none)."""
    return (rank < m[:, None]) & ~failed[:, None]
