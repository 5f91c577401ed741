"""Each self-preference notebook's work in one function (02-08), called by the notebook and by the
known-truth replications (lib/simulate/replicate_steps.py), so both run the same model calls and
computations up to the findings rows. A notebook loads its inputs, calls its study, then writes the
tables and figures only it makes; the replications call the same function with their run's settings.
Nothing here writes a file: the caller saves what its notebook saves (02's bank, 04's knowledge file)."""
from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from lib.models.specs import author_specs

from .bank import Bank, BankConfig
from .knowledge import KNOWLEDGE_RULE
from .pairwise import COMBOS
from .pointwise import SETTINGS


def passage_bank_study(items: pd.DataFrame, authors: list[str], *, k: int = BankConfig.k,
                       styles=BankConfig.styles, style_items: int = BankConfig.style_items,
                       max_tokens: int = BankConfig.max_tokens, long_max_tokens: int = BankConfig.long_max_tokens,
                       own_false_answers: bool = BankConfig.own_false_answers) -> Bank:
    """02: every author rewrites every item (true, false and styled passages), verified; not saved."""
    from lib.models import get_model
    from lib.models.specs import short_name

    from .bank import build_bank

    cfg = BankConfig(k=k, styles=tuple(styles), style_items=style_items, max_tokens=max_tokens,
                     long_max_tokens=long_max_tokens, own_false_answers=own_false_answers)
    return build_bank(items, {short_name(spec): get_model(spec) for spec in authors}, cfg)


@dataclass
class PerplexityStudy:
    """03's passages with their perplexity, the per-author statistics, the t-tests and findings rows."""

    ppl: pd.DataFrame
    stats: pd.DataFrame
    tests: pd.DataFrame
    rows: list[dict]


def perplexity_study(passages: pd.DataFrame, authors: list[str], ppl_model: str, *, paired: bool = True) -> PerplexityStudy:
    """03: perplexity of the bank's true normal-style passages under `ppl_model` (a table that already
    carries a `ppl` column, the release's values, is used as it is), human vs each author tested."""
    from lib.models.perplexity import perplexity

    from . import findings_rows, passage_stats

    if "ppl" in passages:
        ppl = passages
    else:
        ppl = passages[(passages["factuality"] == "true") & (passages["style"] == "normal")].copy()
        ppl["ppl"] = perplexity(ppl["text"].tolist(), model=ppl_model)
    tests = passage_stats.ppl_tests(ppl, paired=paired, pooled=True)  # "all": the datasets pooled (beyond the paper)
    return PerplexityStudy(ppl, passage_stats.author_stats(ppl), tests,
                           findings_rows.ppl_findings(tests, specs=author_specs(authors)))


@dataclass
class KnowledgeStudy:
    """04's knowledge levels (one row per model and item) and the share of questions per level."""

    knowledge: pd.DataFrame
    shares: pd.DataFrame


def knowledge_probe_study(items: pd.DataFrame | None, models: list[str], *, n_samples: int = 5,
                          temperature: float = 1.0, max_tokens: int = 24, rule: str = KNOWLEDGE_RULE,
                          use_aliases: bool = False, knowledge_input: str = "") -> KnowledgeStudy:
    """04: each question asked `n_samples` times to every model, the levels and their shares; with
    `knowledge_input` (knowledge files), their recorded replies re-scored instead, no model, no items."""
    from lib.models import get_model
    from lib.models.specs import short_name

    from . import knowledge

    if knowledge_input:
        know = knowledge.rescored_levels(knowledge_input)
    else:
        know = pd.concat([knowledge.probe(get_model(spec), items, short_name(spec), n_samples, temperature,
                                          max_tokens, rule=rule, use_aliases=use_aliases) for spec in models],
                         ignore_index=True)
    return KnowledgeStudy(know, knowledge.level_shares(know))


@dataclass
class PointwiseStudy:
    """05's ratings (every evaluator, setting and normal-style passage), human minus self, findings rows."""

    ratings: pd.DataFrame
    hms: pd.DataFrame
    rows: list[dict]


def pointwise_study(bank: pd.DataFrame, evaluators: list[str], author_names: dict | None = None, *,
                    settings=SETTINGS, k_retries: int = 1, max_tokens: int = 10, temperature: float = 0.0,
                    retry_temperature: float = 0.7, logprobs: int = 5, expected_from: str = "top_logprobs",
                    likelihood_scoring: bool = True) -> PointwiseStudy:
    """05: every evaluator rates the bank's normal-style passages 1..5 under each prompt setting (and,
    with `likelihood_scoring`, by the next-token distribution too), human minus self per method."""
    from . import findings_rows, likelihood, pointwise

    ratings = pointwise.rate_evaluators(bank[bank["style"] == "normal"], evaluators, author_names,
                                        settings=settings, k_retries=k_retries, max_tokens=max_tokens,
                                        temperature=temperature, retry_temperature=retry_temperature,
                                        logprobs=logprobs, expected_from=expected_from)
    if likelihood_scoring:
        ratings, notes = likelihood.rate_evaluators_likelihood(ratings, evaluators, author_names)
        print(*notes, sep="\n")
    hms = likelihood.human_minus_self_methods(ratings)
    return PointwiseStudy(ratings, hms, findings_rows.pointwise_findings(hms, author_specs(evaluators, author_names)))


@dataclass
class GenerationStudy:
    """06's scored pairs, each method's view of them, the methods' agreement (None without likelihood
    choices) and the findings rows."""

    scored: pd.DataFrame
    views: dict
    agreement: pd.DataFrame | None
    rows: list[dict]


def generation_study(bank: pd.DataFrame, evaluators: list[str], author_names: dict | None = None,
                     likelihood_scoring: bool = True, *, combos=COMBOS, k_retries: int = 1, max_tokens: int = 32,
                     temperature: float = 0.0, retry_temperature: float = 0.7, fallback_number: bool = False,
                     passage_rule: str = "authors") -> GenerationStudy:
    """06: every evaluator reads its own and another author's passage per factuality combination and
    answers; each pair decided from the parsed reply (and by likelihood), the preference rows."""
    from . import findings_rows, likelihood

    scored = likelihood.generation_phase_pairs(
        bank, evaluators, author_names, likelihood_scoring, combos=combos, k_retries=k_retries, max_tokens=max_tokens,
        temperature=temperature, retry_temperature=retry_temperature, fallback_number=fallback_number,
        passage_rule=passage_rule)
    views, agreement = likelihood.method_views(scored) if likelihood_scoring else ({"paper (parsed reply)": scored}, None)
    return GenerationStudy(scored, views, agreement,
                           findings_rows.preference_findings(views, author_specs(evaluators, author_names)))


@dataclass
class StratifiedStudy:
    """07's scored pairs and v1 Table 5 from the parsed reply and from the likelihood choice (None
    when no pair has one)."""

    scored: pd.DataFrame
    table5: pd.DataFrame
    lik_table5: pd.DataFrame | None


def knowledge_stratified_study(bank: pd.DataFrame, knowledge: pd.DataFrame, evaluators: list[str],
                               author_names: dict | None = None, likelihood_scoring: bool = True, *,
                               k_retries: int = 1, max_tokens: int = 32, temperature: float = 0.0,
                               retry_temperature: float = 0.7, fallback_number: bool = False,
                               passage_rule: str = "authors", scored: pd.DataFrame | None = None) -> StratifiedStudy:
    """07: 06's generation-phase pairs (`scored`: pairs already asked with these settings, else asked
    here), the factual preference per knowledge level (v1 Table 5) under each method."""
    from . import likelihood
    from . import tables as pt

    if scored is None:
        # 06's pairs, asked again with these settings (cache hits after 06)
        scored = likelihood.generation_phase_pairs(
            bank, evaluators, author_names, likelihood_scoring, combos=COMBOS, k_retries=k_retries,
            max_tokens=max_tokens, temperature=temperature, retry_temperature=retry_temperature,
            fallback_number=fallback_number, passage_rule=passage_rule)
    lik_table5 = None
    if likelihood_scoring and scored["lik_choice"].notna().any():
        lik_table5 = pt.knowledge_table(likelihood.likelihood_view(scored), knowledge)
    return StratifiedStudy(scored, pt.knowledge_table(scored, knowledge), lik_table5)


@dataclass
class StyleStudy:
    """08's bank without style duplicates, the duplicates left out, the scored style pairs, v2 Tables
    4 and 5 (`table`) and the findings rows."""

    bank: pd.DataFrame
    duplicates: pd.DataFrame
    scored: pd.DataFrame
    table: pd.DataFrame
    rows: list[dict]


def writing_style_study(bank: pd.DataFrame, evaluators: list[str], author_names: dict | None = None, *,
                        k_retries: int = 1, max_tokens: int = 32, temperature: float = 0.0,
                        retry_temperature: float = 0.7, passage_rule: str = "authors") -> StyleStudy:
    """08: true passages of two styles compared in both orders by every evaluator (gen-by-QA and long
    vs normal), the style preferences and their findings rows."""
    from . import pairwise
    from . import tables as pt
    from .findings_rows import style_findings
    from .release import drop_style_duplicates

    kept, duplicates = drop_style_duplicates(bank)
    scored = pairwise.ask_style_evaluators(kept, evaluators, author_names, k_retries=k_retries, max_tokens=max_tokens,
                                           temperature=temperature, retry_temperature=retry_temperature,
                                           passage_rule=passage_rule)
    table = pt.style_table(scored)
    return StyleStudy(kept, duplicates, scored, table, style_findings(table, author_specs(evaluators, author_names)))
