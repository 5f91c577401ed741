"""Notebook 11's experiments (RQ2: Table 3, Figures 4-6): one sweep object that judges the GTI rows
under each factor with shared settings, a shared cost ledger and one replies file."""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from lib.utility.benchmark import Candidates, select
from lib.utility.calls import Ledger
from lib.utility.evaluate import RANK_METRICS, SET_EXTRA, SET_METRICS, cost_per_question, failure_table, summarize
from lib.utility.experiments import Condition, questions_per_method, sweep

COUNTS = ["n", "n_failed_questions", "failure rate"]


class FactorSweep:
    """Judges `rows` with every model under a list of conditions; pairwise on the first
    `n_pairwise_items` questions per dataset (it costs n(n-1)/2 requests per question)."""

    def __init__(self, models, rows: list[Candidates], replies_path, seed: int = 0, k_retries: int = 0,
                 n_boot: int = 1000, failures: str = "exclude", n_pairwise_items: int = 1, get_model=None):
        self.models, self.rows, self.seed, self.k_retries = list(models), rows, seed, k_retries
        self.get_model = get_model  # None: lib.models.get_model
        self.n_boot, self.failures, self.n_pairwise_items = n_boot, failures, n_pairwise_items
        self.ledger = Ledger()
        self.replies_path = Path(replies_path)
        self.replies_path.unlink(missing_ok=True)  # this run's replies only

    def run(self, conditions: list[Condition], rows: list[Candidates] | None = None) -> pd.DataFrame:
        """One row per (model, question, condition), as `experiments.sweep` gives it."""
        rows = self.rows if rows is None else rows
        return sweep(self.models, rows, conditions, seed=self.seed, ledger=self.ledger,
                     replies_path=self.replies_path, pair_rows=select(rows, None, self.n_pairwise_items),
                     k_retries=self.k_retries, get_model=self.get_model)

    def summary(self, per_q: pd.DataFrame, by: list[str]) -> pd.DataFrame:
        """`evaluate.summarize` with this sweep's bootstrap size, seed and failure handling."""
        return summarize(per_q, by, SET_METRICS + RANK_METRICS, n_boot=self.n_boot, seed=self.seed,
                         failures=self.failures)

    def forms(self, forms) -> pd.DataFrame:
        """Table 3: every input form, question first."""
        return self.run([Condition("form", "question-first", f) for f in forms])

    def orders(self, orders, forms, form_q: pd.DataFrame) -> pd.DataFrame:
        """Figure 4: the other orders judged anew; question-first reused from `form_q`."""
        new = self.run([Condition("order", o, f, options={"order": o}) for o in orders
                        if o != "question-first" for f in forms])
        return pd.concat([form_q[form_q["form"].isin(forms)], new], ignore_index=True)

    def positions(self, positions, forms) -> pd.DataFrame:
        """Figure 5: the ground-truth evidence fixed at each 1-based position (column `position`)."""
        per_q = self.run([Condition("position", p, f, options={"gt_position": p}) for p in positions for f in forms])
        return per_q.assign(position=per_q["level"].astype(int))

    def requirements(self, requirements, forms, dataset: str) -> pd.DataFrame:
        """Figure 6: no requirement and each extra requirement, on `dataset`'s questions (all when
        the GTI file has none of it)."""
        rows = [r for r in self.rows if r.source == dataset] or self.rows
        return self.run([Condition("requirement", r, f, options={"requirement": r})
                         for r in ["none", *requirements] for f in forms], rows)

    def cost_and_failures(self, *per_q: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
        """Requests and tokens per question and method (from the ledger), and failures per model,
        factor and form, over every sweep given (each question judged once per condition)."""
        every = pd.concat(per_q, ignore_index=True)
        return (cost_per_question(self.ledger.table(), questions_per_method(every)),
                failure_table(every, ["model", "factor", "form"]))


def split_forms(summary: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Table 3's two halves: set forms with P / R / F1 (and the extra), ranking forms with NDCG / MRR."""
    keys = [c for c in ("model", "source", "form") if c in summary]
    sets = summary[summary["form"].isin(["pointwise", "listwise-set"])]
    ranks = summary[summary["form"].isin(["pairwise", "listwise-rank"])]
    set_cols = [c for c in summary if c.split(" ")[0] in SET_METRICS or c.startswith(SET_EXTRA)]
    rank_cols = [c for c in summary if c.split(" ")[0] in RANK_METRICS]
    return sets[keys + COUNTS + set_cols], ranks[keys + COUNTS + rank_cols]
