"""The reward-model study's findings measures (lib.report.measures), declared once: notebook 13 writes
them (lib.rewardbench.findings_rows.judge_findings), compare pairs the judges' accuracy across runs from
rewardbench_raw.jsonl; the bias card reads `CARD`."""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from lib.report.measures import CLUSTERED_UNIT_COLUMNS, CardRow, Judgments, Measure, secondary_family

from .categories import category_weights
from .judgments import verdict_judgments

STUDY = "rewardbench"
NOTEBOOK = "13_rewardbench"
ACCURACY_ID = "judge_overall_accuracy.{method}"
CONSISTENCY_ID = "judge_position_consistency.{method}"
# the known-truth check's functions that give these measures' truths (lib.simulate, named, never imported)
JUDGE_TRUTH = "lib.simulate.rewardbench.truth:judge_reading_truths"
LIKELIHOOD_TRUTH = "lib.simulate.self_preference.likelihood_truth:likelihood_truths"  # 13's top-k judge too
RM_TRUTH = "lib.simulate.rewardbench.truth:rm_truths"


def judge_units(folder: Path, params: dict) -> pd.DataFrame:
    """Per pair: each generative judge's accuracy over both orders (unparsed = wrong), stratum =
    category, cluster = the pair's question (pairs built from one question are one cluster, as the
    finding resamples them), re-read from the run's rewardbench_raw.jsonl without model calls."""
    from lib.models.specs import parse_reward_spec
    from lib.report.findings import slug

    from .accuracy_tables import question_units
    from .judge import judge_method
    from .replies import RAW_FILE, reparse

    path = Path(folder) / RAW_FILE
    if not path.exists():
        return pd.DataFrame(columns=CLUSTERED_UNIT_COLUMNS)
    results = reparse(path)
    rows = []
    for _, res in results[results["kind"] == "judge"].groupby("rm", sort=False):
        parsed = parse_reward_spec(res["spec"].iloc[0])
        mid = ACCURACY_ID.format(method=slug(judge_method(res)))
        rows += [(mid, parsed.target, str(i), c, float(v), q)
                 for i, c, v, q in zip(res["id"], res["category"], res["correct"], question_units(res))]
    return pd.DataFrame(rows, columns=CLUSTERED_UNIT_COLUMNS)


# where the inspector (lib.inspect) finds 13's verdicts: both orders of every pair, keyed by pair id
VERDICTS = Judgments("rewardbench_raw.jsonl", ("id",), verdict_judgments, pairwise=True)
NO_RECORDS = "{nb} keeps no records in the run folder (its verdicts come from the cached calls, in memory)"
_ACC_AXIS = "accuracy on preference pairs (0.5: chance)"
_CONSISTENCY_AXIS = "share of pairs with the same verdict in both orders"
MEASURES: tuple[Measure, ...] = (
    Measure(ACCURACY_ID.replace("{method}", "generate_and_parse"), "judge overall accuracy", STUDY, NOTEBOOK,
            "pair", 0.5, axis=_ACC_AXIS, units=judge_units, strata_weights=category_weights, truth=JUDGE_TRUTH, judgments=VERDICTS),
    Measure(ACCURACY_ID, "judge overall accuracy (beyond the paper: no generated reply)", STUDY, NOTEBOOK, "pair",
            0.5, reading="secondary", family=secondary_family(STUDY), method="likelihood", axis=_ACC_AXIS, units=judge_units,
            strata_weights=category_weights, truth=LIKELIHOOD_TRUTH, judgments=VERDICTS),
    Measure(CONSISTENCY_ID.replace("{method}", "generate_and_parse"), "judge position consistency (beyond the paper)",
            STUDY, NOTEBOOK, "pair", None, reading="secondary", holm=False, axis=_CONSISTENCY_AXIS,
            truth=JUDGE_TRUTH, judgments=VERDICTS),
    Measure(CONSISTENCY_ID, "judge position consistency (beyond the paper)", STUDY, NOTEBOOK, "pair", None,
            reading="secondary", holm=False, method="likelihood", axis=_CONSISTENCY_AXIS, truth=LIKELIHOOD_TRUTH, judgments=VERDICTS),
    Measure("judge_unparsed_share.{method}", "share of judge verdicts that did not parse (a pipeline diagnostic)",
            STUDY, NOTEBOOK, "question", None, reading="secondary", holm=False,
            axis="share of verdicts without a readable choice",
            no_truth="a pipeline diagnostic (how many replies did not parse), not a bias of the judge",
            judgments=VERDICTS),
    # notebooks 14 and 15 (lib.rewardbench.findings_rows): no test, an interval over questions
    Measure("rm_prefers_longer.{method}", "preference for the longer response (beyond the paper)", STUDY,
            "14_rm_difficulty", "question", 0.5, reading="secondary", holm=False,
            axis="share of verdicts picking the longer response (0.5: none)", truth=RM_TRUTH, no_judgments=NO_RECORDS.format(nb="14")),
    Measure("best_of_n_gain.{method}", "best-of-N gain in answer recall", STUDY, "15_best_of_n", "question", 0.0,
            holm=False, axis="recall of the pick minus the mean recall of the N samples", truth=RM_TRUTH, no_judgments=NO_RECORDS.format(nb="15")),
)

CARD: tuple[CardRow, ...] = (
    CardRow("judge_accuracy", "Judge accuracy on RAG preference pairs (RAG-RewardBench prompt, both orders)",
            ("judge_overall_accuracy.log_probability_verdict", "judge_overall_accuracy.generate_and_parse"),
            "accuracy", 0.5, (),
            "RAG-RewardBench tests no GPT-3.5 or LLaMA-2 judge (its judges are GPT-4o-class and reward models).",
            phrase='prefers the better (chosen) response on {value} of RAG preference pairs'),
    CardRow("judge_consistency", "Judge order consistency: share of pairs given the same verdict in both orders",
            ("judge_position_consistency.log_probability_verdict", "judge_position_consistency.generate_and_parse"),
            "consistency", None, (), "No paper reports it (beyond the papers).",
            phrase='gives the same verdict in both orders on {value} of pairs'),
)
