"""Replications of the known-truth check: the studies' own code for notebooks 02, 05 and 06 (bank,
ratings, pairs, findings rows, Holm), called in-process against a fresh simulator per seed, without
papermill, so that many seeds fit in minutes. Each seed draws new questions and new replies."""
from __future__ import annotations

import math
import os
import tempfile
from dataclasses import replace
from pathlib import Path

import pandas as pd

from .server import SimServer
from .truth import Design, measure_truths
from .truth_file import Truth
from .validate import compare

DATASETS = ("nq", "marco", "triviaqa")
SETTINGS = ("rag",)


def family(measure_id: str) -> str:
    """The measure family of a row: its id up to the first dot (human_minus_self, self_preference_rate, ...)."""
    return measure_id.split(".", 1)[0]


def one_replication(truth: Truth, n_items: int, seed: int) -> pd.DataFrame:
    """Validation rows of one seed: n_items questions per dataset, the truth file's seed moved by `seed`."""
    from lib.models import cache, get_model
    from lib.report.findings import adjust
    from lib.self_preference import bank as B
    from lib.self_preference import findings_rows, likelihood, pairwise, pointwise
    from lib.sources import items_for_run

    truth = replace(truth, seed=truth.seed + 1000 * (seed + 1))
    with tempfile.TemporaryDirectory() as tmp:
        run_dir = Path(tmp)
        old = os.environ.get("RAGBIAS_CACHE")
        os.environ["RAGBIAS_CACHE"] = str(run_dir / "cache")  # replies change with the seed: no shared cache
        cache.close_all()
        try:
            with SimServer(truth, run_dir) as sim:
                spec = f"openai:sim@{sim.url}"
                items = items_for_run("", list(DATASETS), n_items, seed)
                built = B.build_bank(items, {"sim": get_model(spec)}, B.BankConfig(k=1, styles=()))
                B.save_bank(built.passages, run_dir / "passage_bank.jsonl")
                bank = built.passages
                ratings = pointwise.rate_evaluators(bank[bank["style"] == "normal"], [spec], settings=SETTINGS,
                                                    k_retries=0, max_tokens=10, logprobs=5)
                pairs = pairwise.ask_evaluators(bank, [spec], k_retries=0, max_tokens=32)
        finally:
            cache.close_all()
            if old is None:
                os.environ.pop("RAGBIAS_CACHE", None)
            else:
                os.environ["RAGBIAS_CACHE"] = old
    rows = findings_rows.pointwise_findings(likelihood.human_minus_self_methods(ratings), {"sim": spec})
    rows += findings_rows.preference_findings({"paper (parsed reply)": pairs}, {"sim": spec})
    found = adjust(pd.DataFrame(rows))
    table = compare(found, measure_truths(truth, Design(datasets=DATASETS, settings=SETTINGS)))
    return table.drop(columns="has_p").assign(seed=seed)


def summarize(tables: pd.DataFrame) -> pd.DataFrame:
    """Per measure family: coverage over seeds (rows with an interval), and the share of rows whose
    planted effect is null that were detected anyway (false detection)."""
    t = tables.assign(family=tables["measure_id"].map(family))
    t = t[~t["measure_id"].str.contains(r"\.all\.")]  # pooled rows repeat the datasets' data
    out = []
    for fam, g in t.groupby("family", sort=False):
        cov = g["covered"].dropna()
        nulls = g[(g["truth"] - g["null"]).abs() < 1e-9]
        judged = nulls["detected"].dropna()
        out.append({"family": fam, "rows": len(cov), "coverage": cov.mean() if len(cov) else math.nan,
                    "null_rows": len(judged),
                    "false_detection": judged.mean() if len(judged) else math.nan})
    return pd.DataFrame(out)
