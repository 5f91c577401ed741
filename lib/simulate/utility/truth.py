"""The truth of notebook 10's findings from the planted utility model (`core.utility_model`), never from the
pipeline, and the parsed-reply shares of notebooks 10-12 for the check.

`set_f1.<source>.<judgment>` (10): the paper's set F1 (harmonic mean of the averaged precision and
recall, in %) of listwise-set selections. Its truth is 100 * H(E[P], E[R]) over the run's GTI
questions of that source, E over the question effect, the seeded shuffle (every order equally
likely) and the planted draws: a Monte Carlo of the planted model per candidate-set composition
(`monte_carlo_pr`), checked in the tests against exact enumeration (`exact_pr`). The composition of
each question's candidates (how many ground-truth, counterfactual and distractor passages) is the
run's design: the passages notebook 09's GTI file holds, each with the role the simulator knows from the
data (`utility.roles`), never 09's labels; nothing measured is read.
Unreadable replies are drawn independently of the selection, so they do not move the F1 truth.
`unreadable_share.<judgment>.<form>` (10): one reply per question, so 100 * the planted failure rate.

Notebook 11 (its GTI questions, from 09's file as above):
`role_selection_gap.<form>.<a>_minus_<b>`: the share of kind a's passages selected minus kind b's, per
question holding both (the study's noisy passages are the planted model's distractors); closed form:
every passage is shown at a uniformly random place, so a kind's expected share is the selection
probability averaged over places and the question effect (pointwise: no place, and an unreadable reply
selects nothing, a question with none readable is left out: (1 - f) / (1 - f^n) times the probability).
`position_effect.<form>`: E[per-question F1 (sets) or NDCG@1 (rankings) with the ground truth at the
first asked place] minus at the last, by a Monte Carlo of the planted model (`utility.draws`).
Notebook 12 (its GTU questions, roles as the simulator knows them): `answer_score.<source>.<condition>`
is 100 * the mean over questions of P(right) * score(gold) + (1 - P(right)) * (partial * score(its graded
answer) + (1 - partial) * score(its wrong answer)), each score the paper's metric of that text typed in
`utility.answers` (token F1, or ROUGE-L for MS MARCO, against the data's answers), P(right) =
E[sigmoid(answer_good or answer_bad + u)] with the evidence the condition hands over drawn by
`utility.draws` under the same question effect u; `answer_gain.<source>.<contrast>` the difference of two
conditions' means, in 0-1.
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

from lib.report.findings import slug

from ..core import planted as M
from ..core import utility_model as UM
from ..core.truth_file import Truth
from . import draws as UD
from .answers import answer_score, graded_answer

NB10, NB11, NB12 = "10_relevance_vs_utility", "11_utility_factors", "12_utility_for_answering"
JUDGMENTS = ("relevance", "utility")
LISTWISE = ("listwise-set", "listwise-rank")
DRAWS = 200_000  # Monte Carlo draws per composition: standard error of E[P] below 0.001


FACTOR_DRAWS = 20_000  # Monte Carlo draws per composition for 11 and 12 (standard error below 0.004)
# 11's passage kinds (lib.utility.findings_rows.KIND_GAPS) -> the planted model's roles
GAP_ROLE = {"ground_truth": "ground_truth", "counterfactual": "counterfactual", "noisy": "distractor"}
GAP_PAIRS = (("ground_truth", "counterfactual"), ("counterfactual", "noisy"))
# 12's contrasts (lib.utility.findings_rows.GAINS)
GAINS = {"utility_minus_dense": ("utility listwise-set", "dense"),
         "utility_minus_relevance": ("utility listwise-set", "relevance listwise-set")}


@dataclass(frozen=True)
class AnswerQuestion:
    """One GTU question of notebook 12 as far as its answer truth depends on it."""

    source: str
    roles: tuple  # roles of its candidates in stored order
    has_gt_evidence: bool  # the "ground-truth" condition hands over at least one ground-truth passage
    right: float  # the score (0-1, `utility.answers`) of the gold answer the simulator gives when right
    wrong: float  # ... of the simulator's wrong answer
    gold: str = ""  # the answer the simulator gives when right ('' : unknown, every answer wrong)
    golds: tuple = ()  # the data's answer and aliases its answers are scored against


@dataclass(frozen=True)
class UtilityDesign:
    """What notebooks 10-12 judge, as far as the truth depends on it: per source, one composition
    (sorted tuple of roles) per question of 10 and of 11; 11's set forms, position forms and the
    first and last asked places; 12's questions, evidence conditions and k values."""

    sets: tuple = ()  # ((source, (role, ...)), ...)
    factor_sets: tuple = ()  # 11's questions, the same shape
    set_forms: tuple = ()  # 11's Table 3 forms that select a set (pointwise, listwise-set)
    position_forms: tuple = ()
    positions: tuple = ()  # (first, last) asked 1-based places of 11's Figure 5
    answers: tuple = ()  # 12's AnswerQuestion rows
    conditions: tuple = ()  # 12's Table 4 conditions ("none", "dense", "utility listwise-set", "5-sampling", ...)


def design_from_gti(path, role, n_items: int = 0, datasets=()) -> UtilityDesign:
    """The compositions of the GTI questions notebook 10 judges (first n_items per dataset, as
    `lib.utility.benchmark.select` takes them; 0: all): which passages 09 put in each set, each passage's
    role as `role(question, passage)` knows it (`utility.roles`), never 09's kind labels."""
    path = Path(path)
    if not path.exists():
        return UtilityDesign()
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    names = list(datasets) or list(dict.fromkeys(r.get("source", "") for r in rows))
    sets = []
    for name in names:
        mine = [r for r in rows if r.get("source", "") == name]
        for r in mine[:n_items] if n_items else mine:
            sets.append((name, tuple(sorted(role(r["question"], p) for p in r["passage"]))))
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
    from ..core.truth import expect

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


def role_gap(truth: Truth, form: str, compositions: list[tuple], a: str, b: str) -> float:
    """E[share of kind a's passages selected - kind b's] over the questions holding both (utility prompts)."""
    from ..core.truth import expect

    u, ra, rb, f = truth.utility, GAP_ROLE[a], GAP_ROLE[b], truth.format_failure
    values = []
    for comp in compositions:
        if ra not in comp or rb not in comp:
            continue
        n = len(comp)
        offsets = UM.shown_offsets(u, n) if form == "listwise-set" else np.zeros(1)
        keep = (1 - f) / (1 - f ** n) if form == "pointwise" else 1.0

        def share(role):
            return keep * np.mean([expect(lambda e: float(M.sigmoid(u.select_utility[role] + o + e)), truth.question_sd)
                                   for o in offsets])
        values.append(share(ra) - share(rb))
    return float(np.mean(values)) if values else math.nan


def position_headline(truth: Truth, form: str, roles: tuple, shown: int, draws: int = FACTOR_DRAWS,
                      seed: int = 0) -> float:
    """E[per-question F1 (listwise-set) or NDCG@1 (listwise-rank) | the first ground truth shown at
    0-based place `shown`], over readable replies (a failure is independent of everything)."""
    d = UD.Draws(truth.utility, roles, truth.question_sd, 0.0, draws, seed,
                 fixed=(roles.index("ground_truth"), min(shown, len(roles) - 1)))
    if form == "listwise-rank":
        rank, _ = d.listwise_rank("utility")
        return float(d.gt[np.argmin(rank, axis=1)].mean())
    sel, _ = d.listwise_set("utility")
    p, r = _pr(sel, d.gt)
    return float(np.where(p + r > 0, 2 * p * r / np.where(p + r > 0, p + r, 1), 0.0).mean())


def position_effect(truth: Truth, form: str, compositions: list[tuple], first: int, last: int,
                    draws: int = FACTOR_DRAWS) -> float:
    """Mean over questions holding a ground truth of E[headline at 1-based place first] - at last
    (exactly 0 when no position effect is planted: the two Monte Carlo estimates would differ by noise)."""
    if truth.utility.position == 0:
        return 0.0 if any("ground_truth" in c for c in compositions) else math.nan
    counts = Counter(c for c in compositions if "ground_truth" in c)
    total = sum(counts.values())
    return float(sum(k * (position_headline(truth, form, c, first - 1, draws) - position_headline(truth, form, c, last - 1, draws))
                     for c, k in counts.items()) / total) if total else math.nan


def answer_right(truth: Truth, q: AnswerQuestion, conditions, draws: int = FACTOR_DRAWS, seed: int = 0) -> dict:
    """{condition: P(the answer is right)} for one GTU question under each evidence condition."""
    d = UD.Draws(truth.utility, q.roles, truth.question_sd, truth.format_failure, draws, seed)
    rows = np.ones(draws, bool)
    good = {"none": ~rows, "dense": rows & bool(d.gt.any()), "ground-truth": rows & q.has_gt_evidence}
    # the same planted judge under both prompts: one set of draws for both, so a planted null gain is exactly 0
    same = truth.utility.select_relevance == truth.utility.select_utility
    for judgment in ("relevance", "utility"):
        if not any(c.startswith(judgment + " ") for c in conditions):
            continue
        if same and judgment == "utility" and "relevance listwise-set" in good:
            good.update({"utility " + k.split(" ", 1)[1]: v for k, v in list(good.items()) if k.startswith("relevance ")})
            continue
        names = ("relevance", "utility") if same else (judgment,)

        def wants(form):
            return any(f"{j} {form}" in conditions for j in names)
        chosen, failed = d.listwise_set(judgment)
        m = np.where(failed, d.n, np.maximum(1, chosen.sum(axis=1)))  # a ranking hands over the set's size
        good[f"{judgment} listwise-set"] = (chosen & d.gt).any(axis=1)
        for form in ("listwise-rank", "pairwise"):
            if wants(form):
                rank, rank_failed = getattr(d, form.replace("-", "_"))(judgment)
                good[f"{judgment} {form}"] = (UD.top(rank, rank_failed, m) & d.gt).any(axis=1)
        if wants("pointwise"):
            good[f"{judgment} pointwise"] = (d.pointwise(judgment)[0] & d.gt).any(axis=1)
    ks = sampling_ks(conditions)
    if ks:
        for k, chosen in d.k_sampling(ks).items():
            good[f"{k}-sampling"] = (chosen & d.gt).any(axis=1)
    u = truth.utility
    right_good, right_bad = M.sigmoid(u.answer_good + d.q), M.sigmoid(u.answer_bad + d.q)
    return {c: float(np.where(good[c], right_good, right_bad).mean()) for c in conditions if c in good}


def sampling_ks(conditions) -> list[int]:
    """The k of each k-sampling condition ('5-sampling' -> 5) among 12's answer conditions."""
    return [int(c.split("-")[0]) for c in conditions if c.endswith("-sampling")]


def answer_scores(truth: Truth, questions: list[AnswerQuestion], conditions, draws: int = FACTOR_DRAWS) -> dict:
    """{source: {condition: mean score 0-1}}: P(right) * score(right) + (1 - P(right)) * (partial *
    score(graded) + (1 - partial) * score(wrong)), partial the planted share of graded answers."""
    cache, out = {}, {}
    partial = truth.utility.answer_partial
    for q in questions:
        key = (q.roles, q.has_gt_evidence)
        if key not in cache:
            cache[key] = answer_right(truth, q, conditions, draws)
        graded = answer_score(graded_answer(q.gold, truth.utility.answer_keep), q.golds[0], list(q.golds[1:]),
                              q.source) if q.gold and q.golds else q.wrong
        not_right = partial * graded + (1 - partial) * q.wrong
        for c, p in cache[key].items():
            out.setdefault(q.source, {}).setdefault(c, []).append(p * q.right + (1 - p) * not_right)
    return {s: {c: float(np.mean(v)) for c, v in by.items()} for s, by in out.items()}


def utility_truths(truth: Truth, design: UtilityDesign) -> dict:
    """{measure_id: (notebook, truth, null)} for the findings of notebooks 10, 11 and 12 (10's rows and
    12's scores have no null: they are not tests)."""
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
                out[f"unreadable_share.{slug(judgment)}.{slug(form)}"] = (NB10, 100 * truth.format_failure, math.nan)
    comps = [c for _, c in design.factor_sets]
    for form in design.set_forms if comps else ():
        for a, b in GAP_PAIRS:
            out[f"role_selection_gap.{slug(form)}.{a}_minus_{b}"] = (NB11, role_gap(truth, form, comps, a, b), 0.0)
    if comps and len(design.positions) == 2 and design.positions[0] != design.positions[1]:
        for form in design.position_forms:
            out[f"position_effect.{slug(form)}"] = (NB11, position_effect(truth, form, comps, *design.positions), 0.0)
    scores = answer_scores(truth, list(design.answers), design.conditions) if design.answers else {}
    for source, by in scores.items():
        for condition, value in by.items():
            out[f"answer_score.{slug(source)}.{slug(condition)}"] = (NB12, 100 * value, math.nan)
        for name, (a, b) in GAINS.items():
            if a in by and b in by:
                out[f"answer_gain.{slug(source)}.{name}"] = (NB12, by[a] - by[b], 0.0)
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
