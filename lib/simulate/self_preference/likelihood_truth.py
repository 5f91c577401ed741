"""The truth of the measures the echo and the knowledge probe serve: notebook 03's perplexity
difference, notebook 04's knowledge accuracy and levels, notebook 07's factual preference per
knowledge level, 13's log-probability verdicts, and 05-07's likelihood readings of a base LM; from the planted parameters only (closed forms,
or Gauss-Hermite quadrature over the question effect), never from the pipeline's outputs."""
from __future__ import annotations

import math
from dataclasses import dataclass

from scipy.stats import norm

from ..core import planted as M
from ..core.truth import expect
from ..core.truth_file import Truth
from .knowledge import p_correct
from .truth import pairwise_truths

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


def logprob_judge_truths(truth: Truth, categories, pairs=()) -> dict:
    """13's log-probability verdicts (the likelier of "Choose 1" / "Choose 2", read where the reply
    is in format): accuracy (order-averaged, an out-of-format reply counted wrong, the paper's
    category weights) and position consistency. The verdict names the chosen response in an order
    exactly when its log-odds logit(acc) +- position + u is above 0, so each probability is a
    normal CDF in u; with a planted length term each category's values are the mean over its pairs'
    (`rewardbench.length.length_terms`)."""
    from ..rewardbench.length import length_terms
    from ..rewardbench.paper_counts import PAPER_COUNTS  # typed from the paper, not the pipeline's copy

    sd, pos = truth.question_sd, truth.rewardbench.position
    acc, cons = {}, {}
    for cat in categories:
        a, c = [], []
        for lean in length_terms(truth, cat, pairs):
            base = M.logit(truth.rewardbench.accuracy.get(cat, 0.75)) + lean
            first, second = _p_above(base + pos, sd), _p_above(base - pos, sd)
            a.append((1 - truth.format_failure) * (first + second) / 2)
            # consistent: the chosen named in both orders (u above minus the smaller log-odds) or in neither
            # (u below minus the larger): a negative position bias swaps which order is the harder one
            c.append(_p_above(min(base + pos, base - pos), sd) + 1 - _p_above(max(base + pos, base - pos), sd))
        acc[cat], cons[cat] = sum(a) / len(a), sum(c) / len(c)
    w = {c: float(PAPER_COUNTS.get(c, 1)) for c in categories}
    return {"accuracy": sum(w[c] * acc[c] for c in categories) / sum(w.values()),
            "consistency": sum(cons[c] for c in categories) / len(categories)}


# ---------------------------------------------------------------- 05-07's likelihood readings
# A base LM's echo (echo.py) puts the planted distribution on the option's token, and the pipeline
# takes the likelier option (argmax), so each reading is a deterministic function of the question
# effect u: a normal CDF in u, never a draw. 06's per-word variant divides by the answers' word
# counts, which the planted model does not fix: it has no truth here.
LIK_ARGMAX, LIK_EXPECTED, LIK_SUM = "next-token argmax after ###", "next-token expected score after ###", "likelihood sum"


def argmax_rating(mu: float, sd: float) -> float:
    """E[argmax_s P(s)] over u ~ N(0, sd^2) for a latent rating mu + u: the planted P(s) peaks at the
    score nearest mu + u (clipped to 1..5), so E = 1 + sum over k = 1..4 of P(mu + u > k + 1/2)."""
    return 1.0 + sum(_p_above(mu - (k + 0.5), sd) for k in range(1, len(M.SCORES)))


def likelihood_hms(truth: Truth, self_true: bool) -> dict:
    """05's human-minus-self difference under the two next-token readings: the expected score (the
    planted mean rating: the five echoed probabilities sum to 1) and the argmax."""
    from .truth import human_minus_self

    sd = truth.pointwise.rating_sd
    return {LIK_EXPECTED: human_minus_self(truth, self_true),
            LIK_ARGMAX: argmax_rating(M.rating_mu(truth, False, True), sd)
            - argmax_rating(M.rating_mu(truth, True, self_true), sd)}


def likelihood_pair_truths(truth: Truth, combos) -> dict:
    """06's rates under the summed-likelihood choice, on the pairs it decides (two answer strings: TF
    and FT; TT and FF pairs carry one answer and are undecidable): passage 1 is taken exactly when
    its planted log-odds x plus the question's effects is above 0 (u lean + u_position + u_factual
    (true1 - true2), one normal of sd `planted.pair_sd`), which has probability Phi(x / sd)."""
    cells = []
    for combo in [c for c in combos if c in ("TF", "FT")]:
        for own_first in (True, False):
            lean = 1 if own_first else -1
            true = (combo[0] == "T", combo[1] == "T") if own_first else (combo[1] == "T", combo[0] == "T")
            x = M.pair_logit(truth, (own_first, not own_first), true)  # at u = 0
            p_first = _p_above(float(x), M.pair_sd(truth, (own_first, not own_first), true))
            cells.append((combo, p_first, p_first if true[0] else 1 - p_first))
    if not cells:
        return {}
    tf, ft = [t for c, _, t in cells if c == "TF"], [t for c, _, t in cells if c == "FT"]
    out = {"first": sum(p for _, p, _ in cells) / len(cells), "factual": sum(t for *_, t in cells) / len(cells)}
    if tf and ft:
        out["asymmetry"] = sum(tf) / len(tf) - sum(ft) / len(ft)
    return out


def reading_truths(truth: Truth, design) -> dict:
    """{measure_id: (notebook, truth, null)} of 05's and 06's likelihood readings (a run that names
    the simulator a base LM, `;base`, writes them)."""
    from lib.report.findings import slug

    out = {}
    hms = {fact: likelihood_hms(truth, fact == "true") for fact in ("true", "false")}
    for dataset in tuple(design.datasets) + ("all",):
        for setting in design.settings:
            for fact, values in hms.items():
                for method, value in values.items():
                    out[f"human_minus_self.{dataset}.{setting}.self_{fact}.{slug(method)}"] = (
                        "05_pointwise_reranking", value, 0.0)
    pairs, method = likelihood_pair_truths(truth, design.combos), slug(LIK_SUM)
    for key, label, null in (("first", "first_position_rate", 0.5), ("factual", "factual_preference_rate", 0.5),
                             ("asymmetry", "tf_minus_ft_asymmetry", 0.0)):
        if key in pairs:
            out[f"{label}.{method}"] = ("06_generation_phase", pairs[key], null)
    return out


def likelihood_truths(truth: Truth, design) -> dict:
    """{measure_id: (notebook, truth, null)} of 03's findings, 13's log-probability verdicts (read
    from one generated token's top-k: 13's judge is served as a chat model, whose prompt the pipeline
    does not score by echo) and 05-06's likelihood readings, for a `truth.Design`."""
    from lib.report.findings import slug
    from lib.rewardbench.judge import TOPK_METHOD

    out, topk_method = {}, slug(TOPK_METHOD)
    diff = ppl_human_minus_model(truth)
    for dataset in tuple(design.datasets) + ("all",):
        for test in PPL_TESTS:
            out[f"ppl_human_minus_model.{dataset}.{test}"] = ("03_perplexity", diff, 0.0)
    jt = logprob_judge_truths(truth, design.rm_categories, design)
    out[f"judge_overall_accuracy.{topk_method}"] = ("13_rewardbench", jt["accuracy"], 0.5)
    out[f"judge_position_consistency.{topk_method}"] = ("13_rewardbench", jt["consistency"], float("nan"))
    out.update(reading_truths(truth, design))
    return out
