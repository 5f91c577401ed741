"""The records the arms correct, read from the run folder (written by notebooks 05, 06, 08, 12 and 13):
no other study's package is imported, only their files. Every table keys its question as `question`
(dataset | item id for 05-06 and 08, where item ids repeat across datasets; for 12 dataset | its GTU question's id; for
13 the id before ':', the question its pairs were built from)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from lib.records import DataError, read_records

RATINGS_FILE = "pointwise_ratings.jsonl"  # notebook 05
PAIRS_FILE = "generation_pairs.jsonl"  # notebook 06
JUDGE_FILE = "rewardbench_raw.jsonl"  # notebook 13
K_RUNS_FILE = "utility_k_runs.jsonl"  # notebook 12 (lib.utility.k_sampling.RUNS_FILE)
STYLE_FILE = "style_pairs.jsonl"  # notebook 08 (lib.self_preference.style_records.STYLE_FILE)
READS = {RATINGS_FILE: "05_pointwise_reranking", PAIRS_FILE: "06_generation_phase", JUDGE_FILE: "13_rewardbench",
         K_RUNS_FILE: "12_utility_for_answering", STYLE_FILE: "08_writing_style"}
STYLE_FIELDS = {"dataset", "item_id", "evaluator", "kind", "a_author", "b_author", "order", "len_a", "len_b", "choice"}
K_RUNS_FIELDS = {"model", "id", "source", "ground_truth", "orders", "selected", "failed", "voted"}


def _frame(folder: Path, name: str, needed: set[str]) -> pd.DataFrame:
    """One record file as a table ({} rows when the notebook did not write it); a record lacking a
    field the arms need fails naming the file and the field."""
    path = Path(folder) / name
    if not path.exists():
        return pd.DataFrame(columns=sorted(needed))
    records = read_records(path)
    table = pd.DataFrame(records if isinstance(records, list) else [records])
    missing = needed - set(table.columns)
    if len(table) and missing:
        raise DataError(f"{path}: missing field(s) {sorted(missing)} (written by {READS[name]}).")
    return table


def question_key(table: pd.DataFrame) -> pd.Series:
    """dataset | item id: the question a judgment is about (the unit intervals resample)."""
    return table["dataset"].astype(str) + "|" + table["item_id"].astype(str)


def pointwise_ratings(folder: Path) -> pd.DataFrame:
    """05's likelihood ratings: one row per rating with its five probabilities (`lik_probs`)."""
    got = _frame(folder, RATINGS_FILE, {"dataset", "item_id", "evaluator", "author", "factuality", "setting", "lik_probs"})
    if not len(got):
        return got.assign(question=pd.Series(dtype=str))
    got = got[got["lik_probs"].map(lambda p: isinstance(p, list) and len(p) == 5)]
    return got.assign(question=question_key(got)).reset_index(drop=True)


def pairwise_choices(folder: Path) -> pd.DataFrame:
    """06's pairs decided by likelihood: per (question, evaluator, other author, combo) and order, the
    log-probabilities of passage A's and passage B's answer (`lp_a`, `lp_b`)."""
    got = _frame(folder, PAIRS_FILE, {"dataset", "item_id", "evaluator", "a_author", "b_author", "combo", "order",
                                      "a_fact", "b_fact", "status"})
    if not len(got) or "lik_lp_1" not in got:
        return pd.DataFrame(columns=["question", "evaluator", "b_author", "combo", "order", "a_fact", "b_fact", "lp_a", "lp_b"])
    got = got[(got["status"] == "ok")].copy()
    if "lik_choice" in got:  # a pair whose two passages carry one answer string is undecidable by likelihood
        got = got[got["lik_choice"].notna()]
    lp1, lp2 = (pd.to_numeric(got[c], errors="coerce") for c in ("lik_lp_1", "lik_lp_2"))
    a_first = got["order"] == "a_first"
    got["lp_a"], got["lp_b"] = np.where(a_first, lp1, lp2), np.where(a_first, lp2, lp1)
    got = got.dropna(subset=["lp_a", "lp_b"]).assign(question=lambda t: question_key(t))
    return got.reset_index(drop=True)


def parsed_pairs(folder: Path) -> pd.DataFrame:
    """06's pairs as the paper reads them (the parsed reply): valid pairs with `chose_a`."""
    got = _frame(folder, PAIRS_FILE, {"dataset", "item_id", "evaluator", "b_author", "combo", "order", "valid", "chose_a"})
    if not len(got):
        return got.assign(question=pd.Series(dtype=str))
    got = got[got["valid"].astype(bool)].copy()
    got["chose_a"] = got["chose_a"].astype(float)
    return got.assign(question=question_key(got)).reset_index(drop=True)


def judge_records(folder: Path) -> pd.DataFrame:
    """13's raw records: log-probability judges (`logprobs_cr`, `logprobs_rc`), generated verdicts
    and scalar scores, each with the pair's category and the two responses' lengths in words."""
    got = _frame(folder, JUDGE_FILE, {"rm", "kind", "spec", "id"})
    if not len(got):
        return got.assign(question=pd.Series(dtype=str))
    # pairs built from one question share it (demo ids '<item>:<scenario>'): the question is the unit
    return got.assign(question=got["id"].astype(str).str.split(":", n=1).str[0]).reset_index(drop=True)


def k_runs(folder: Path) -> pd.DataFrame:
    """12's k-sampling runs: per model and question each run's shown order and selection (stored
    indices, None: failed), the vote over all runs (`voted`) and the ground-truth passages."""
    got = _frame(folder, K_RUNS_FILE, K_RUNS_FIELDS)
    if not len(got):
        return got.assign(question=pd.Series(dtype=str))
    return got.assign(question=got["source"].astype(str) + "|" + got["id"].astype(str)).reset_index(drop=True)


def style_pairs(folder: Path) -> pd.DataFrame:
    """08's style pairs: per pair and order the styled passage A's and the other passage B's authors
    and lengths in words, and the parsed choice (1 or 2 shown; missing: the reply did not parse)."""
    got = _frame(folder, STYLE_FILE, STYLE_FIELDS)
    if not len(got):
        return got.assign(question=pd.Series(dtype=str))
    return got.assign(question=question_key(got)).reset_index(drop=True)
