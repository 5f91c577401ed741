"""The utility study's questions: its own samples, not the self-preference study's.

The utility paper's MS MARCO-QA is non-factoid, so MS MARCO questions are sampled from the whole loaded
dataset: every query type (no PERSON / ENTITY / LOCATION filter) and no check that the answer appears
verbatim in the passage. They never come from the run's items of notebook 01, which carry both of the
self-preference study's filters. A question is usable when it has an answer and a ground-truth passage
(the GTI set needs both); the other datasets may take the run's items.
"""
from __future__ import annotations

import pandas as pd

from lib.sources import load_source
from lib.sources.hotpotqa import load_hotpotqa
from lib.utility.build import gather_items

SELF_SAMPLED = ("marco",)  # sampled by the utility study itself, never from notebook 01's items


def usable(items: pd.DataFrame) -> pd.DataFrame:
    """Items with a non-empty answer and ground-truth passage (HotpotQA: its supporting passages)."""
    has_answer = items["answer"].fillna("").astype(str).str.strip() != ""
    has_passage = items["human_passage"].fillna("").astype(str).str.strip() != ""
    if "supporting_passages" in items:
        has_passage |= items["supporting_passages"].map(lambda p: bool(p) if isinstance(p, list) else False)
    return items[has_answer & has_passage].reset_index(drop=True)


def loaders(datasets, dataset_paths: dict | None = None, hotpotqa_pages_path: str = "") -> dict:
    """dataset -> function returning its usable items (MS MARCO with every query type)."""
    paths = dataset_paths or {}
    out = {d: (lambda d=d: usable(load_source(d, paths.get(d, ""), query_types=None)))
           for d in datasets if d != "hotpotqa"}
    out["hotpotqa"] = lambda: usable(load_hotpotqa(paths.get("hotpotqa", ""), pages_path=hotpotqa_pages_path or None))
    return out


def run_items_for_utility(run_items: pd.DataFrame | None) -> pd.DataFrame | None:
    """The run's items (notebook 01) without the datasets the utility study samples itself."""
    if run_items is None or "source" not in run_items:
        return run_items
    return run_items[~run_items["source"].isin(SELF_SAMPLED)].reset_index(drop=True)


def utility_items(datasets, n_items: int, seed: int, dataset_paths: dict | None = None,
                  hotpotqa_pages_path: str = "", run_items: pd.DataFrame | None = None,
                  sizes: dict | None = None, replace: bool = False):
    """(items, corpus items, provenance) for notebook 09: `build.gather_items` over `loaders`, with
    MS MARCO always sampled from its loaded dataset; `sizes` gives questions per dataset (else
    `n_items`), drawn with replacement past the data when `replace` (the known-truth run only)."""
    return gather_items(list(datasets), n_items, seed, loaders(datasets, dataset_paths, hotpotqa_pages_path),
                        run_items_for_utility(run_items), sizes, replace)


def benchmark_sets(chat_model: str, items, corpus_items, ledger=None, *, retriever: str = "dense",
                   n_candidates: int = 10, n_counterfactual: int = 3, seed: int = 0, max_words: int = 0,
                   gti_release: str = "", gtu_release: str = "", release_dataset: str = "",
                   answers_path: str = "") -> tuple[list, list, dict]:
    """(GTI, GTU, build report) for notebook 09: the authors' released files where both are given
    (no model), else built from `items` (the chat model writes MS MARCO's counterfactual passages),
    with a released file replacing the built set of its kind."""
    from lib.models import get_model
    from lib.utility.benchmark import load_benchmark
    from lib.utility.build import build_benchmarks

    def released(path):
        return load_benchmark(path, release_dataset, answers_path or None)

    if gti_release and gtu_release:
        return released(gti_release), released(gtu_release), {}
    gti, gtu, report = build_benchmarks(get_model(chat_model), items, corpus_items, retriever, n_candidates,
                                        n_counterfactual, seed, ledger, max_words)
    return (released(gti_release) if gti_release else gti), (released(gtu_release) if gtu_release else gtu), report
