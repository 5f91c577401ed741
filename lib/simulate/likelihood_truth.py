"""The truth of the measures the echo and the knowledge probe serve: notebook 03's perplexity
difference, notebook 04's knowledge accuracy and levels, notebook 07's factual preference per
knowledge level, and 13's log-probability verdicts; from the planted parameters only (closed forms,
or Gauss-Hermite quadrature over the question effect), never from the pipeline's outputs."""
from __future__ import annotations

import math
from dataclasses import dataclass

from scipy.stats import norm

from . import planted as M
from .knowledge import p_correct
from .truth import expect, pairwise_truths
from .truth_file import Truth

LEVELS = ("none", "partial", "full")
PPL_TESTS = ("paired_t", "welch_t")  # slugs of the tests notebook 03 reports (lib.stats.ttest_table)


@dataclass(frozen=True)
class KnowledgeDesign:
    """What notebooks 04 and 07 ask, as far as the truth depends on it."""

    datasets: tuple = ("nq", "marco", "triviaqa")
    n_samples: int = 5
    combos: tuple = ("TT", "TF", "FT", "FF")


def mean_perplexity(logprob: float, text_sd: float) -> float:
    """E[exp(-(logprob + e))] for e ~ N(0, text_sd^2): the mean perplexity of texts whose every token
    has log-probability logprob + e (a log-normal mean)."""
    return math.exp(-logprob + text_sd ** 2 / 2)


def ppl_human_minus_model(truth: Truth) -> float:
    """Notebook 03: E[perplexity of a human passage] - E[perplexity of the simulator's passage]."""
    pp = truth.perplexity
    return mean_perplexity(pp.other_logprob, pp.text_sd) - mean_perplexity(pp.own_logprob, pp.text_sd)


def knowledge_truths(truth: Truth, dataset: str, n_samples: int = 5) -> dict:
    """Notebook 04 per dataset: P(a reply is right), and the shares of items with no, some and all
    n_samples replies right (levels none / partial / full)."""
    sd = truth.knowledge.question_sd
    acc = expect(lambda v: p_correct(truth, dataset, v), sd)
    none = expect(lambda v: (1 - p_correct(truth, dataset, v)) ** n_samples, sd)
    full = expect(lambda v: p_correct(truth, dataset, v) ** n_samples, sd)
    return {"accuracy": acc, "none": none, "partial": 1 - none - full, "full": full}


def stratified_factual(truth: Truth, combos) -> float:
    """Notebook 07: the factual preference rate within any knowledge level. The planted choice does
    not depend on knowledge (independent question effects), so each level's truth is 06's rate."""
    return pairwise_truths(truth, combos)["factual"]


def _p_above(x: float, sd: float) -> float:
    """P(x + u > 0) for u ~ N(0, sd^2)."""
    return float(norm.cdf(x / sd)) if sd else float(x > 0)


def logprob_judge_truths(truth: Truth, categories) -> dict:
    """13's log-probability verdicts (the likelier of "Choose 1" / "Choose 2", read where the reply
    is in format): accuracy (order-averaged, an out-of-format reply counted wrong, the paper's
    category weights) and position consistency. The verdict names the chosen response in an order
    exactly when its log-odds logit(acc) +- position + u is above 0, so each probability is a
    normal CDF in u."""
    from lib.rewardbench.categories import PUBLISHED_COUNTS

    sd, pos = truth.question_sd, truth.rewardbench.position
    acc, cons = {}, {}
    for cat in categories:
        base = M.logit(truth.rewardbench.accuracy.get(cat, 0.75))
        first, second = _p_above(base + pos, sd), _p_above(base - pos, sd)
        acc[cat] = (1 - truth.format_failure) * (first + second) / 2
        # consistent: the chosen named in both orders (u > -(base - pos)) or in neither (u < -(base + pos))
        cons[cat] = second + 1 - first
    w = {c: float(PUBLISHED_COUNTS.get(c, 1)) for c in categories}
    return {"accuracy": sum(w[c] * acc[c] for c in categories) / sum(w.values()),
            "consistency": sum(cons[c] for c in categories) / len(categories)}


def likelihood_truths(truth: Truth, design) -> dict:
    """{measure_id: (notebook, truth, null)} of 03's findings and 13's log-probability verdicts (read
    from one generated token's top-k: the simulator is a chat model, whose prompt the pipeline does
    not score by echo), for a `truth.Design`."""
    from lib.report.findings import slug
    from lib.rewardbench.judge import TOPK_METHOD

    out, topk_method = {}, slug(TOPK_METHOD)
    diff = ppl_human_minus_model(truth)
    for dataset in tuple(design.datasets) + ("all",):
        for test in PPL_TESTS:
            out[f"ppl_human_minus_model.{dataset}.{test}"] = ("03_perplexity", diff, 0.0)
    jt = logprob_judge_truths(truth, design.rm_categories)
    out[f"judge_overall_accuracy.{topk_method}"] = ("13_rewardbench", jt["accuracy"], 0.5)
    out[f"judge_position_consistency.{topk_method}"] = ("13_rewardbench", jt["consistency"], float("nan"))
    return out
