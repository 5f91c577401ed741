"""`make power`'s utility row: does a judge select the ground-truth evidence over the counterfactual
passages (relevant-looking passages that carry a wrong answer: the utility paper's point), drawn from
the planted model of 09-12 (`core.utility_model`).

One question shows the paper's GTI candidate set (notebook 09 at n_candidates 10, n_counterfactual 3:
the ground-truth passage, then 9 slots spread evenly over counterfactual, highly and weakly related
noisy passages: 1 + 3 + 6 distractors) in a random order; each passage is selected with
`core.utility_model.selection_logits`'s log-odds (its role's, the place it is shown at, the question
effect), drawn by `utility.draws.Draws` (the truths of 11 and 12 draw the same way). Listwise-set: one
reply per question (an unreadable one drops the question); pointwise: one reply per passage, shown
alone (no place effect), each unreadable with the planted rate (selecting nothing, as in the study).
Per question: the ground-truth passage selected (0/1) minus the share of counterfactual passages
selected; tested against 0 by `lib.stats.clustered_mean` over questions (sign flips), as the study's
per-question differences are. The planted size puts the ground truth's log-odds that far above the
counterfactuals' (the file's `select_utility.counterfactual`; distractors keep the file's value).
Beyond the papers: the paper reports set F1 without a test; this per-question contrast is the
selection-rate reading the power analysis tests.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..core import planted as M
from ..core import utility_model as UM
from ..core.power_draw import Draw
from ..core.truth import expect
from ..core.truth_file import Truth
from . import draws as UD

GTI_ROLES = ("ground_truth",) + ("counterfactual",) * 3 + ("distractor",) * 6
FORMS = ("listwise-set", "pointwise")
JUDGMENT = "utility"


def planted(truth: Truth, shift: float, judgment: str = JUDGMENT) -> UM.Utility:
    """The file's utility model with the ground truth's log-odds `shift` above the counterfactuals'."""
    u = truth.utility
    name = "select_relevance" if judgment == "relevance" else "select_utility"
    select = dict(getattr(u, name))
    select["ground_truth"] = select["counterfactual"] + shift
    return replace(u, **{name: select})


def _offsets(u: UM.Utility, form: str) -> np.ndarray:
    """Place effects a passage can get: every place of the list (listwise), none when shown alone."""
    return UM.shown_offsets(u, len(GTI_ROLES)) if form != "pointwise" else np.zeros(1)


def utility_implied(truth: Truth, shift: float, form: str = FORMS[0], judgment: str = JUDGMENT) -> float:
    """E[ground truth selected - share of counterfactuals selected]: each passage's place is uniform
    over the list's places, the question effect integrated out. An unreadable listwise reply drops its
    question (drawn apart from the selection: it does not move the mean); an unreadable pointwise reply
    selects nothing (the study's rule, `utility.draws.Draws.pointwise`), which scales the contrast by
    1 - the failure rate."""
    u = planted(truth, shift, judgment)
    sel, off = u.select(judgment), _offsets(u, form)

    def at(q):
        return float(np.mean(M.sigmoid(sel["ground_truth"] + off + q) - M.sigmoid(sel["counterfactual"] + off + q)))
    readable = 1 - truth.format_failure if form == "pointwise" else 1.0
    return readable * expect(at, truth.question_sd)


def utility_draw(truth: Truth, shift: float, n: int, rng: np.random.Generator, form: str = FORMS[0],
                 judgment: str = JUDGMENT) -> Draw:
    """n questions' per-question contrasts (NaN where the question's reply is unreadable), drawn by
    the truths' own `utility.draws.Draws` (listwise set, or pointwise: one reply per passage)."""
    d = UD.Draws(planted(truth, shift, judgment), GTI_ROLES, truth.question_sd, truth.format_failure, n, rng)
    chosen, failed = d.pointwise(judgment) if form == "pointwise" else d.listwise_set(judgment)
    value = chosen[:, d.gt][:, 0].astype(float) - chosen[:, np.array(GTI_ROLES) == "counterfactual"].mean(axis=1)
    return Draw(np.where(failed, np.nan, value), np.arange(n), rate=False)
