"""Notebooks 10-12's work, one function each, called by the notebook and by the known-truth
replications alike (lib/simulate/replicate_steps.py), so that what the replications check is the
notebook's own pipeline: the candidate sets read, the model calls, and the computations its findings
rows need, ending with those rows. What only a notebook's tables and figures need stays in the notebook,
from what the function returns."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from lib.utility.benchmark import Candidates, load_benchmark, select
from lib.utility.calls import Ledger
from lib.utility.factors import FactorSweep


def load_rows(path, release_dataset: str = "", answers_path: str = "", datasets=(),
              n_items: int = 0) -> list[Candidates]:
    """A GTI or GTU file's candidate sets: `n_items` questions per dataset of `datasets` (empty: all)."""
    return select(load_benchmark(path, release_dataset, answers_path or None), list(datasets), n_items)


def _fresh(replies_path) -> Path | None:
    """The replies file emptied first, so that it holds this run's replies only."""
    if replies_path is None:
        return None
    Path(replies_path).unlink(missing_ok=True)
    return Path(replies_path)


@dataclass
class RelevanceVsUtility:
    """Notebook 10's results: one row per question and condition, Table 2's summary, the cost
    ledger, and the findings rows."""

    questions: list[Candidates]
    per_question: pd.DataFrame
    summary: pd.DataFrame
    ledger: Ledger
    rows: list[dict]


def relevance_vs_utility(chat_model: str, gti_path, *, release_dataset: str = "", answers_path: str = "",
                         datasets=(), n_items: int = 0, failures: str = "exclude", k_retries: int = 0,
                         seed: int = 0, n_boot: int = 1000, replies_path=None,
                         get_model=None) -> RelevanceVsUtility:
    """Notebook 10 (Table 2): relevance and utility judgments, listwise set and rank, of the GTI sets."""
    from lib.utility.evaluate import RANK_METRICS, SET_METRICS, summarize
    from lib.utility.experiments import Condition, sweep
    from lib.utility.findings_rows import table2_findings

    questions = load_rows(gti_path, release_dataset, answers_path, datasets, n_items)
    conditions = [Condition("judgment", j, f, judgment=j) for j in ("relevance", "utility")
                  for f in ("listwise-set", "listwise-rank")]
    ledger = Ledger()
    per_q = sweep([chat_model], questions, conditions, seed=seed, ledger=ledger,
                  replies_path=_fresh(replies_path), k_retries=k_retries, get_model=get_model)
    summary = summarize(per_q, ["source", "judgment", "form"], SET_METRICS + RANK_METRICS, n_boot=n_boot,
                        seed=seed, failures=failures)
    return RelevanceVsUtility(questions, per_q, summary, ledger,
                              table2_findings(summary, chat_model, failures=failures))


@dataclass
class UtilityFactors:
    """Notebook 11's results: the sweep (its summaries, ledger and cost), one row per question and
    condition of each factor (empty for a factor given no form), and the findings rows."""

    sweep: FactorSweep
    forms: pd.DataFrame
    orders: pd.DataFrame
    positions: pd.DataFrame
    requirements: pd.DataFrame
    rows: list[dict]


def utility_factors(models, gti_path, replies_path, *, forms, positions, position_forms, orders=(),
                    order_forms=(), requirements=(), requirement_forms=(), requirement_dataset: str = "nq",
                    release_dataset: str = "", answers_path: str = "", datasets=(), n_items: int = 0,
                    n_pairwise_items: int = 1, failures: str = "exclude", k_retries: int = 0, seed: int = 0,
                    n_boot: int = 1000, get_model=None) -> UtilityFactors:
    """Notebook 11 (Table 3, Figures 4-6): the GTI sets judged under each factor, in the notebook's
    order (forms, orders, positions, requirements); a factor given no form asks nothing (an empty table)."""
    from lib.utility.findings_rows import factor_findings

    run = FactorSweep(models, load_rows(gti_path, release_dataset, answers_path, datasets, n_items), replies_path,
                      seed=seed, k_retries=k_retries, n_boot=n_boot, failures=failures,
                      n_pairwise_items=n_pairwise_items, get_model=get_model)
    form_q = run.forms(forms)
    order_q = run.orders(orders, order_forms, form_q)
    pos_q = run.positions(positions, position_forms)
    req_q = run.requirements(requirements, requirement_forms, requirement_dataset)
    return UtilityFactors(run, form_q, order_q, pos_q, req_q, factor_findings(form_q, pos_q, n_boot=n_boot, seed=seed))


@dataclass
class UtilityAnswering:
    """Notebook 12's results: the answers of every evidence condition, each (model, condition)'s
    ledger methods (`parts`, for `experiments.cost_table`), the summary of every condition, its
    Table 4 rows, and the findings rows."""

    questions: list[Candidates]
    answers: pd.DataFrame
    parts: dict
    ledger: Ledger
    summary: pd.DataFrame
    table4: pd.DataFrame
    rows: list[dict]


def table4_conditions(relevance_forms, utility_forms, k_values) -> list[str]:
    """Table 4's rows: no, dense and ground-truth evidence, each judged selection, each k of k-sampling."""
    return (["none", "dense", "ground-truth"] + [f"relevance {f}" for f in relevance_forms]
            + [f"utility {f}" for f in utility_forms] + [f"{k}-sampling" for k in k_values])


def utility_for_answering(models, gtu_path, *, utility_forms, relevance_forms, k_values, k_curve: bool,
                          release_dataset: str = "", answers_path: str = "", datasets=(), n_items: int = 0,
                          k_retries: int = 0, seed: int = 0, n_boot: int = 1000, replies_path=None,
                          get_model=None, k_runs_path=None) -> UtilityAnswering:
    """Notebook 12 (Table 4): answers of the GTU questions from every evidence condition, scored;
    the k-sampling runs go to `k_runs_path` (emptied first) when given."""
    from lib.utility.experiments import answer_summary, answering
    from lib.utility.findings_rows import answering_findings

    questions = load_rows(gtu_path, release_dataset, answers_path, datasets, n_items)
    ledger = Ledger()
    answers, parts = answering(models, questions, relevance_forms, utility_forms, k_values, k_curve, seed=seed,
                               ledger=ledger, replies_path=_fresh(replies_path), get_model=get_model,
                               k_retries=k_retries, k_runs_path=_fresh(k_runs_path))
    summary = answer_summary(answers, ["model", "source", "condition"], n_boot=n_boot, seed=seed)
    table4 = summary[summary.condition.isin(table4_conditions(relevance_forms, utility_forms, k_values))]
    return UtilityAnswering(questions, answers, parts, ledger, summary, table4,
                            answering_findings(answers, table4, n_boot=n_boot, seed=seed))
