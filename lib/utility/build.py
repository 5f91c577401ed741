"""Notebook 09's pipeline: items -> pooled corpus -> retrieval -> GTI and GTU candidate sets."""
from __future__ import annotations

import pandas as pd

from lib.sources.item_sampling import COPY_SEP
from lib.utility.benchmark import Candidates, build_gti, build_gtu, clipped, pooled_corpus
from lib.utility.calls import Ledger
from lib.utility.counterfactual import counterfactuals
from lib.utility.retrieval import get_retriever, rankings


def items_as_dicts(items: pd.DataFrame | list[dict]) -> list[dict]:
    """Items as plain dicts (the loaders return DataFrames)."""
    if isinstance(items, pd.DataFrame):
        return items.to_dict(orient="records")
    return list(items)


def build_benchmarks(model, items, corpus_items=None, retriever: str = "dense", n: int = 10,
                     n_counterfactual: int = 3, seed: int = 0, ledger: Ledger | None = None,
                     max_words: int = 0) -> tuple[list[Candidates], list[Candidates], dict]:
    """GTI and GTU sets for `items`, retrieving from the pooled corpus of `corpus_items` (default:
    the items themselves), passages clipped to `max_words` (0: whole); returns (gti, gtu, report)."""
    items = items_as_dicts(items)
    pool = items_as_dicts(corpus_items) if corpus_items is not None else items
    corpus = pooled_corpus(pool)
    ret = get_retriever(retriever, corpus)
    ranked = rankings(ret, [it["question"] for it in items])
    cps, report = counterfactuals(model, items, n_counterfactual, seed, ledger, corpus_items=pool)
    gti = [clipped(build_gti(it, cp, rk, n=n, seed=seed), max_words)
           for it, cp, rk in zip(items, cps, ranked)]
    gtu = [clipped(build_gtu(it, rk, n=n), max_words) for it, rk in zip(items, ranked)]
    report.update({"corpus_passages": len(corpus), "retriever": ret.name,
                   "gtu_with_ground_truth": sum(any(r.ground_truth_label) for r in gtu)})
    return gti, gtu, report


def composition(rows: list[Candidates]) -> pd.DataFrame:
    """Table 1 shape: mean number of passages of each kind per question, by source."""
    recs = []
    for r in rows:
        rec = {"source": r.source}
        for t in r.passages_types:
            rec[t] = rec.get(t, 0) + 1
        recs.append(rec)
    df = pd.DataFrame(recs).fillna(0)
    out = df.groupby("source").mean().round(2)
    out.insert(0, "#queries", df.groupby("source").size())
    return out.reset_index()


def seeded_sample(items: pd.DataFrame, n: int, seed: int = 0, replace: bool = False) -> pd.DataFrame:
    """Up to n items in a seeded random choice, kept in file order (0: all); with `replace`, exactly n
    drawn with replacement when n exceeds the items (`copies`), else as without."""
    if replace and n and n > len(items):
        return copies(items, n, seed)
    if not n or n >= len(items):
        return items.reset_index(drop=True)
    return items.sample(n=n, random_state=seed).sort_index().reset_index(drop=True)


def copies(items: pd.DataFrame, n: int, seed: int) -> pd.DataFrame:
    """n questions drawn with replacement (notebook 01's `draw_copies`): a copy gets its own id
    (`<id>~u<letters>`) and a tag at the end of its question only, so the simulator keys it (roles,
    question effect) and the statistics count it as a separate question, while its passages stay the
    corpus's own (GTU retrieval still finds its ground truth). For the known-truth simulator only."""
    from lib.sources.item_sampling import draw_copies

    return pd.DataFrame(draw_copies(items.to_dict("records"), n, seed, mark="u", tagged=("question",)))


def gather_items(datasets: list[str], n_items: int, seed: int, loaders: dict,
                 run_items: pd.DataFrame | None = None, sizes: dict | None = None,
                 replace: bool = False) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Questions and retrieval corpus per dataset: questions from the run's items (notebook 01) when
    it holds the dataset, else from the loaded dataset; the corpus is the whole loaded dataset.
    `loaders[d]()` returns all items of dataset d; `sizes[d]` replaces `n_items` for dataset d, drawn
    with replacement when `replace` and more are asked than there are. Returns (items, corpus items,
    provenance).

    With `replace`, run items that hold copies (notebook 01 drawn with replacement) are not used: 01
    tags each copy's passage too, so a copy's ground truth would be missing from the corpus; the
    questions are drawn from the dataset instead, whose copies tag the question only."""
    chosen, pools, prov = [], [], []
    for d in datasets:
        if d not in loaders:
            raise ValueError(f"No loader for dataset {d!r}; datasets: {sorted(loaders)}.")
        pool = loaders[d]()
        mine = run_items[run_items["source"] == d] if run_items is not None and "source" in run_items else None
        copied = replace and mine is not None and mine["id"].astype(str).str.contains(COPY_SEP, regex=False).any()
        from_run = mine is not None and len(mine) > 0 and not copied
        origin = ("run items (notebook 01)" if from_run
                  else "dataset (notebook 01's items are copies)" if copied else "dataset")
        picked = seeded_sample(mine if from_run else pool, (sizes or {}).get(d, n_items), seed, replace)
        chosen.append(picked)
        pools.append(pool)
        prov.append({"dataset": d, "questions from": origin, "questions": len(picked),
                     "corpus items": len(pool)})
    return (pd.concat(chosen, ignore_index=True), pd.concat(pools, ignore_index=True), pd.DataFrame(prov))
