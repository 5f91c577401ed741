"""What every study's truth functions share: the expectation over the question effect (Gauss-Hermite
quadrature), the run's design as far as a truth depends on it, the methods the simulator answers for,
and when an estimate counts as on its truth's side. Nothing here runs the pipeline or reads its outputs."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lib.report.findings import slug


PAPER = slug("paper (parsed reply)")  # the method the simulator answers for (generate and parse)
JUDGE = slug("generate-and-parse")
COMBOS = ("TT", "TF", "FT", "FF")
_NODES, _WEIGHTS = np.polynomial.hermite_e.hermegauss(80)  # E[f(Z)], Z ~ N(0, 1)
_WEIGHTS = _WEIGHTS / _WEIGHTS.sum()


NULL_TOLERANCE = 1e-9  # a truth this close to its null is a planted null (float noise of the quadrature)


def on_truths_side(estimate: float, truth: float, null: float) -> bool:
    """Whether a significant estimate counts as detected against this truth: on the truth's side of the
    null, or on either side when the truth is the null itself (a planted null has no side, and any
    detection of it is a false one: the replications' false detection counts them)."""
    if abs(truth - null) < NULL_TOLERANCE:
        return True
    return bool(np.sign(estimate - null) == np.sign(truth - null))


def expect(f, sd: float) -> float:
    """E[f(u)] for u ~ N(0, sd^2) (exact to quadrature precision for smooth f)."""
    return float(sum(w * f(sd * z) for z, w in zip(_NODES, _WEIGHTS))) if sd else float(f(0.0))


@dataclass(frozen=True)
class Design:
    """What the run asks, as far as the truth depends on it (from the runner config, not its outputs)."""

    datasets: tuple = ("nq", "marco", "triviaqa")
    settings: tuple = ("normal", "rag")
    combos: tuple = COMBOS
    rm_categories: tuple = ("helpful", "abstain", "conflict")
    rm_retries: int = 0
    utility: object = None  # notebook 10's candidate sets (utility.truth.UtilityDesign)
    temperature: float = 2.0  # 18's temperature scaling of 05's score log-probabilities (its parameter)
    # 08's own style pairs as the run asks them: (kind, dataset, styled minus other passage's words), ...
    style_pairs: tuple = ()
