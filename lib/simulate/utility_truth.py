"""The truth of notebook 10's findings from the planted utility model (`utility_model`), never from the
pipeline, and the parsed-reply shares of notebooks 10-12 for the check.

`set_f1.<source>.<judgment>` (10): the paper's set F1 (harmonic mean of the averaged precision and
recall, in %) of listwise-set selections. Its truth is 100 * H(E[P], E[R]) over the run's GTI
questions of that source, E over the question effect, the seeded shuffle (every order equally
likely) and the planted draws: a Monte Carlo of the planted model per candidate-set composition
(`monte_carlo_pr`), checked in the tests against exact enumeration (`exact_pr`). The composition of
each question's candidates (how many ground-truth, counterfactual and distractor passages) is the
run's design, read from notebook 09's GTI file, as the items are; nothing measured is read.
Unreadable replies are drawn independently of the selection, so they do not move the F1 truth.
`unreadable_share.<judgment>.<form>` (10): one reply per question, so 100 * the planted failure rate.
"""
from __future__ import annotations

import json
import math
from collections import Counter
from dataclasses import dataclass
from itertools import permutations, product
from pathlib import Path

import numpy as np
import pandas as pd

from . import planted as M
from . import utility_model as UM
from .truth_file import Truth

NB10, NB11, NB12 = "10_relevance_vs_utility", "11_utility_factors", "12_utility_for_answering"
JUDGMENTS = ("relevance", "utility")
LISTWISE = ("listwise-set", "listwise-rank")
DRAWS = 200_000  # Monte Carlo draws per composition: standard error of E[P] below 0.001
KIND_ROLE = {"ground_truth": "ground_truth", "counterfactual": "counterfactual"}


@dataclass(frozen=True)
class UtilityDesign:
    """What notebook 10 judges, as far as the truth depends on it: per source, one composition
    (sorted tuple of roles) per question."""

    sets: tuple = ()  # ((source, (role, ...)), ...)


def design_from_gti(path, n_items: int = 0, datasets=()) -> UtilityDesign:
    """The compositions of the GTI questions notebook 10 judges (first n_items per dataset, as
    `lib.utility.benchmark.select` takes them; 0: all)."""
    path = Path(path)
    if not path.exists():
        return UtilityDesign()
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    names = list(datasets) or list(dict.fromkeys(r.get("source", "") for r in rows))
    sets = []
    for name in names:
        mine = [r for r in rows if r.get("source", "") == name]
        for r in mine[:n_items] if n_items else mine:
            types = r.get("passages_types") or ["ground_truth" if y else "retrieved" for y in r["ground_truth_label"]]
            sets.append((name, tuple(sorted(KIND_ROLE.get(t, "distractor") for t in types))))
    return UtilityDesign(tuple(sets))


def _pr(selected: np.ndarray, gt: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per draw precision (0 for an empty set, as lib.utility.judgment_metrics) and recall."""
    hits = (selected & gt).sum(axis=-1)
    size = selected.sum(axis=-1)
    return np.where(size > 0, hits / np.maximum(size, 1), 0.0), hits / max(int(gt.sum()), 1)


def monte_carlo_pr(u: UM.Utility, judgment: str, roles: tuple, sd: float, draws: int = DRAWS,
                   seed: int = 0) -> tuple[float, float]:
    """(E[P], E[R]) of one listwise-set selection over a random shown order, question effect and draws."""
    rng = np.random.default_rng(seed)
    n = len(roles)
    base = np.array([u.select(judgment)[r] for r in roles], float)
    gt = np.array([r == "ground_truth" for r in roles])
    place = np.argsort(rng.random((draws, n)), axis=1)  # place[d, j]: where passage j is shown
    logits = base + UM.shown_offsets(u, n)[place] + sd * rng.standard_normal((draws, 1))
    selected = rng.random((draws, n)) < M.sigmoid(logits)
    p, r = _pr(selected, gt)
    return float(p.mean()), float(r.mean())


def exact_pr(u: UM.Utility, judgment: str, roles: tuple, sd: float) -> tuple[float, float]:
    """The same expectation by enumeration: every shown order, every selected subset, and the
    question effect by Gauss-Hermite quadrature (small n only: n! * 2^n terms)."""
    from .truth import expect

    n = len(roles)
    base = np.array([u.select(judgment)[r] for r in roles], float)
    gt = np.array([r == "ground_truth" for r in roles])
    subsets = np.array(list(product((False, True), repeat=n)))
    p_sub, r_sub = _pr(subsets, gt)
    orders = list(permutations(range(n)))

    def at(q_effect: float) -> np.ndarray:
        out = np.zeros(2)
        for place in orders:
            q = M.sigmoid(base + UM.shown_offsets(u, n)[list(place)] + q_effect)
            w = np.prod(np.where(subsets, q, 1 - q), axis=1)
            out += [w @ p_sub, w @ r_sub]
        return out / len(orders)
    return expect(lambda e: at(e)[0], sd), expect(lambda e: at(e)[1], sd)


def set_f1(truth: Truth, judgment: str, compositions: list[tuple], pr=monte_carlo_pr) -> float:
    """100 * H(mean E[P], mean E[R]) over questions (the paper's set F1 of averaged P and R)."""
    counts = Counter(compositions)
    got = {c: pr(truth.utility, judgment, c, truth.question_sd) for c in counts}
    total = sum(counts.values())
    p = sum(counts[c] * got[c][0] for c in counts) / total
    r = sum(counts[c] * got[c][1] for c in counts) / total
    return 100 * 2 * p * r / (p + r) if p + r else 0.0


def utility_truths(truth: Truth, design: UtilityDesign) -> dict:
    """{measure_id: (notebook, truth, null)} for notebook 10's findings (no null: neither is a test)."""
    out = {}
    by_source: dict[str, list] = {}
    for source, comp in design.sets:
        by_source.setdefault(source, []).append(comp)
    for source, comps in by_source.items():
        for judgment in JUDGMENTS:
            out[f"set_f1.{source}.{judgment}"] = (NB10, set_f1(truth, judgment, comps), math.nan)
    if design.sets:
        for judgment in JUDGMENTS:
            for form in LISTWISE:
                out[f"unreadable_share.{judgment}.{form}"] = (NB10, 100 * truth.format_failure, math.nan)
    return out


def reply_readable(form: str, text: str, n: int) -> bool:
    """Whether the study's parser reads a judgment reply of this form (lib.utility.parsing)."""
    from lib.utility import parsing

    if form == "listwise-set":
        return parsing.parse_set(text, n).value is not None
    if form == "listwise-rank":
        return parsing.parse_ranking(text, n).value is not None
    if form == "pointwise":
        return parsing.parse_yes_no(text).value is not None
    return parsing.parse_pair(text).value is not None


def prompt_key(rec: dict) -> tuple:
    """What fixes a judgment's prompts: 11 asks some twice (its question-first and no-requirement
    conditions repeat the form condition), and the cache answers the repeat with the same reply, so
    each distinct prompt set counts once (the planted draws are independent per prompt, not per row)."""
    level = str(rec.get("level", ""))
    layout = level if rec.get("factor") == "order" else "question-first"
    requirement = level if rec.get("factor") == "requirement" else "none"
    return rec["id"], rec["form"], rec["judgment"], tuple(rec["order"]), layout, requirement


def utility_parsed(run_dir: Path) -> dict:
    """{notebook: [readable?] per distinct judgment reply} from the replies files of notebooks 10-12."""
    found = {}
    for nb, name in ((NB10, "utility_rq1_replies.jsonl"), (NB11, "utility_rq2_replies.jsonl"),
                     (NB12, "utility_rq3_replies.jsonl")):
        f = Path(run_dir) / name
        if f.exists():
            recs = {prompt_key(r): r for r in pd.read_json(f, lines=True).to_dict("records")}
            found[nb] = [reply_readable(r["form"], text, len(r["order"])) for r in recs.values()
                         for text in r["replies"]]
    return found
