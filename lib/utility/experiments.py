"""The experiments of notebooks 10-12 as functions: a judgment sweep over conditions (Table 2,
Table 3, Figures 4-6) returning one row per question and condition, and the answering table of
Table 4 returning answers with their cost keyed by (model, method)."""
from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from lib.records import write_records
from lib.utility.answering import answer_all, evidence_by_condition, evidence_from_judgment
from lib.utility.benchmark import Candidates
from lib.utility.calls import Ledger
from lib.utility.evaluate import HEADLINE, judgment_rows
from lib.utility.judging import judge
from lib.utility.replies import save_replies
from lib.utility.k_sampling import k_sampling_runs, k_sampling_selection, run_records
from lib.utility.model_loop import for_each_model


@dataclass
class Condition:
    """One judging setting: a factor and its level, the input form, and judge() options."""

    factor: str
    level: object
    form: str
    judgment: str = "utility"
    options: dict = field(default_factory=dict)

    @property
    def method(self) -> str:
        """The cost-ledger name of the setting."""
        return f"{self.judgment} {self.form} | {self.factor}={self.level}"


def sweep(models, rows: list[Candidates], conditions: list[Condition], seed: int = 0,
          ledger: Ledger | None = None, replies_path=None, pair_rows: list[Candidates] | None = None,
          get_model=None, k_retries: int = 0) -> pd.DataFrame:
    """Judge `rows` under every condition with every model: one row per (model, question, condition),
    with a `headline` column (F1 for sets, NDCG@1 for rankings). Pairwise uses `pair_rows` when given
    (it costs n(n-1)/2 requests per question). Raw replies go to `replies_path` (JSONL) for reparse."""
    def one(model, name, _spec):
        frames = []
        for c in conditions:
            use = pair_rows if (c.form == "pairwise" and pair_rows is not None) else rows
            js = judge(model, use, c.form, c.judgment, seed=seed, ledger=ledger, key=(name, c.method),
                       desc=f"{name} {c.method}", **{"k_retries": k_retries, **c.options})
            tags = dict(model=name, factor=c.factor, level=c.level)
            if replies_path:
                save_replies(js, replies_path, **tags)
            frames.append(judgment_rows(use, js, **tags))
        return frames

    frames = [f for part in for_each_model(models, one, get_model) for f in part]
    if not frames:  # no condition asked for (e.g. only the default order): an empty table
        return pd.DataFrame(columns=["id", "source", "form", "judgment", "model", "factor", "level", "n_ok",
                                     "n_repaired", "n_failed", "n_asked_again", "failed", "notes", "headline"])
    out = pd.concat(frames, ignore_index=True)
    out["headline"] = [row.get(HEADLINE[f]) for f, (_, row) in zip(out["form"], out.iterrows())]
    return out


def questions_per_method(per_q: pd.DataFrame) -> dict[tuple, int]:
    """(model, method) -> questions judged, for the cost table."""
    methods = per_q["judgment"] + " " + per_q["form"] + " | " + per_q["factor"] + "=" + per_q["level"].astype(str)
    return per_q.assign(method=methods).groupby(["model", "method"]).size().to_dict()


def answering(models, rows: list[Candidates], relevance_forms: list[str], utility_forms: list[str],
              k_values: list[int], k_curve: bool = False, seed: int = 0, ledger: Ledger | None = None,
              replies_path=None, get_model=None, k_retries: int = 0, k_runs_path=None) -> tuple[pd.DataFrame, dict]:
    """Table 4: answers from every evidence condition; returns (answers, parts) where parts maps
    (model, condition) to the ledger methods its cost is made of, with a share for shared runs.
    `k_runs_path`: the k-sampling runs are appended there (`k_sampling.run_records`)."""
    answers, parts = [], {}

    def one(model, name, _spec):
        def run_answers(condition, evidence):
            df = answer_all(model, rows, evidence, f"{name} {condition}", ledger=ledger,
                            key=(name, f"answer {condition}"))
            df["model"], df["condition"] = name, condition
            answers.append(df)

        for cond in ("none", "dense", "ground-truth"):
            run_answers(cond, [evidence_by_condition(r, cond) for r in rows])
            parts[(name, cond)] = {f"answer {cond}": 1.0}
        for judgment, forms in (("relevance", relevance_forms), ("utility", utility_forms)):
            wanted = list(forms)
            # A ranking hands over as many passages as the listwise-set judgment of its kind selected.
            need_set = any(f in ("pairwise", "listwise-rank") for f in wanted)
            judged = {}
            for form in dict.fromkeys((["listwise-set"] if need_set else []) + wanted):
                judged[form] = judge(model, rows, form, judgment, seed=seed, ledger=ledger,
                                     key=(name, f"{judgment} {form}"), desc=f"{name} {judgment} {form}",
                                     k_retries=k_retries)
                if replies_path:
                    save_replies(judged[form], replies_path, model=name, factor="answering", level="gtu")
            sizes = ([None if j.selected is None else len(j.selected) for j in judged["listwise-set"]]
                     if "listwise-set" in judged else [None] * len(rows))
            for form in wanted:
                cond = f"{judgment} {form}"
                run_answers(cond, [evidence_from_judgment(r, j, m) for r, j, m in zip(rows, judged[form], sizes)])
                parts[(name, cond)] = {cond: 1.0, f"answer {cond}": 1.0,
                                       **({f"{judgment} listwise-set": 1.0}
                                          if form in ("pairwise", "listwise-rank") else {})}
                answers[-1]["judgment failed"] = [j.failed for j in judged[form]]
        if k_values:
            kmax = max(k_values)
            runs = k_sampling_runs(model, rows, kmax, seed=seed, ledger=ledger, key=(name, "k-sampling"),
                                   desc=f"{name} k-sampling")
            if k_runs_path:
                write_records(k_runs_path, run_records(rows, runs, name), append=True)
            for k in (range(1, kmax + 1) if k_curve else k_values):
                cond = f"{k}-sampling"
                run_answers(cond, [[r.passage[i] for i in sel]
                                   for r, sel in zip(rows, k_sampling_selection(runs, k))])
                parts[(name, cond)] = {"k-sampling": k / kmax, f"answer {cond}": 1.0}

    for_each_model(models, one, get_model)  # each model adds its answers and cost parts
    return pd.concat(answers, ignore_index=True), parts


def cost_table(ledger: Ledger, parts: dict, n_questions: int) -> pd.DataFrame:
    """Requests and tokens per question of each (model, condition), summing its ledger methods
    (a shared run, such as the k-sampling runs, counted at its share)."""
    lt = ledger.table().set_index(["model", "method"])
    recs = []
    for (name, cond), shares in parts.items():
        tot = {"requests": 0.0, "tokens_in": 0.0, "tokens_out": 0.0, "cache_misses": 0}
        for method, share in shares.items():
            if (name, method) in lt.index:
                row = lt.loc[(name, method)]
                for c in ("requests", "tokens_in", "tokens_out"):
                    tot[c] += share * float(row[c])
                tot["cache_misses"] += int(row["cache_misses"])
        recs.append({"model": name, "condition": cond,
                     "requests / question": tot["requests"] / max(n_questions, 1),
                     "tokens in / question": tot["tokens_in"] / max(n_questions, 1),
                     "tokens out / question": tot["tokens_out"] / max(n_questions, 1),
                     "model calls this run": tot["cache_misses"]})
    return pd.DataFrame(recs)


def answer_summary(answers: pd.DataFrame, by: list[str], n_boot: int = 1000, seed: int = 0) -> pd.DataFrame:
    """Table 4 numbers per group: EM / F1 (factoid) and ROUGE-L (beta 1.2) means with intervals,
    corpus BLEU-1..4 (MS MARCO), the sentence-level extras, x100."""
    from lib.utility.answer_metrics import FACTOID_METRICS, MARCO_EXTRAS, corpus_scores
    from lib.utility.evaluate import summarize
    metrics = FACTOID_METRICS + ["ROUGE-L"] + MARCO_EXTRAS
    summary = summarize(answers.assign(failed=False), by, metrics, n_boot=n_boot, seed=seed)
    summary = summary.drop(columns=[c for c in summary if c.startswith("failure") or c == "n_failed_questions"])
    marco = answers[answers["source"] == "marco"]
    if len(marco):
        summary = summary.merge(corpus_scores(marco, by), on=by, how="left")
    return summary
