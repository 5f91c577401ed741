"""Seeded samples of usable items, the items of one run, and what was dropped and why."""
from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from lib.records import DataError, as_list, write_records
from lib.textmatch import first_match

from .common import ITEM_COLUMNS, SOURCES, items_frame
from .demo import demo_path, parse_demo
from .loading import load_source
from .marco import MARCO_V1_QUERY_TYPES

# An item is usable when its passage holds the answer (or an alias) as a case-insensitive
# substring: the bank swaps that string for a false answer.
PASSAGE_RULE = "substring"


def answer_in_passage(passage: str, answer: str, aliases) -> str | None:
    """The first of answer and aliases the passage holds (rule `substring`), or None."""
    return first_match(passage, [c for c in [answer, *as_list(aliases)] if str(c).strip()], rule=PASSAGE_RULE)


def sample_items(items: pd.DataFrame, n: int | None = None, seed: int = 0, replace: bool = False
                 ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Seeded sample of up to n usable items (exactly n drawn with replacement when `replace`), plus
    the dropped items with their reason.

    Items are shuffled with the seed and taken in order; an item is dropped when its passage is
    empty, it has no answer, or no answer string occurs in the passage (the bank needs it to make
    false passages). When an alias occurs but the main answer does not, the alias becomes the
    answer. Only items examined before n were found count as dropped (with `replace`, every item
    is examined)."""
    order = np.random.default_rng(seed).permutation(len(items))
    kept, dropped = [], []
    for pos in order:
        if n is not None and len(kept) >= n and not replace:
            break
        row = items.iloc[int(pos)].to_dict()
        if not str(row["human_passage"]).strip():
            dropped.append({"id": row["id"], "source": row["source"], "reason": "empty passage"})
            continue
        if not str(row["answer"]).strip():
            dropped.append({"id": row["id"], "source": row["source"], "reason": "no answer"})
            continue
        found = answer_in_passage(row["human_passage"], row["answer"], row["aliases"])
        if found is None:
            dropped.append({"id": row["id"], "source": row["source"],
                            "reason": "answer not in passage"})
            continue
        if found != row["answer"]:
            row["aliases"] = [row["answer"]] + [a for a in row["aliases"] if a != found]
            row["answer"] = found
        kept.append(row)
    if replace and n is not None:
        kept = draw_copies(kept, n, seed)
    return (items_frame(kept).reset_index(drop=True),
            pd.DataFrame(dropped, columns=["id", "source", "reason"]))


def copy_tag(k: int) -> str:
    """Letters that name copy k (2 -> 'b', 27 -> 'aa'): no digits, so a numeric answer never matches it."""
    letters = ""
    while k > 0:
        k, r = divmod(k - 1, 26)
        letters = chr(ord("a") + r) + letters
    return letters


COPY_SEP = "~"  # between an item's id and its copy's tag (`<id>~b`): a copy's id holds it, a first draw's does not


def draw_copies(usable: list[dict], n: int, seed: int, mark: str = "",
                tagged: tuple = ("question", "human_passage")) -> list[dict]:
    """n items drawn with replacement from `usable` (seeded); the k-th draw of one item (k >= 2) is a
    copy with its own id (`<id>~<mark><tag>`) and a tag at the end of its `tagged` texts (question and
    passage). `mark` keeps a second drawing's copies apart from the first's (09 draws again from 01's
    items, which may hold copies already).

    The tag makes each copy's prompts differ: the results cache and any seeded model would otherwise
    return the first copy's reply for every copy. Copies of one question are not independent
    evidence about a real model; only a simulator that draws each copy's question effect anew
    treats them as separate questions (used by the papers'-size known-truth run, never by default)."""
    if not usable:
        raise DataError("Drawing with replacement needs at least one usable item; none was found.")
    picks = np.random.default_rng([seed, 1]).integers(0, len(usable), size=n)
    seen: dict[int, int] = {}
    out = []
    for i in picks:
        seen[int(i)] = seen.get(int(i), 0) + 1
        row = dict(usable[int(i)])
        if seen[int(i)] > 1:
            tag = mark + copy_tag(seen[int(i)])
            row.update({"id": f"{row['id']}{COPY_SEP}{tag}", **{f: f"{row[f]} [copy {tag}]" for f in tagged}})
        out.append(row)
    return out


def load_demo(source: str, n: int | None = None, seed: int = 0) -> pd.DataFrame:
    """Demo items of one source (nq, marco, triviaqa), optionally a seeded sample of n."""
    items = parse_demo(demo_path(source))
    if n is None:
        return items
    kept, _ = sample_items(items, n, seed)
    return kept


def save_items(items: pd.DataFrame, path) -> Path:
    """Write items as JSONL (the demo layout)."""
    return write_records(path, items[ITEM_COLUMNS])


def as_sources(datasets) -> list[str]:
    """Source names from a list or a comma-separated string ('nq,marco'), each checked."""
    names = [d.strip() for d in datasets.split(",")] if isinstance(datasets, str) else list(datasets)
    for name in names:
        if name not in SOURCES:
            raise DataError(f"Unknown dataset {name!r}; choose from {SOURCES}.")
    return names


def prepare_items(datasets=SOURCES, n_items: int | None = 40, seed: int = 0, paths: dict | None = None,
                  query_types=MARCO_V1_QUERY_TYPES, replace: bool = False) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Seeded sample of n usable items per source (demo data unless `paths[source]` is set), and a
    table of what was dropped and why; `replace` draws exactly n with replacement (copies get their
    own ids: see `draw_copies`)."""
    kept, dropped = [], []
    for source in as_sources(datasets):
        items = load_source(source, (paths or {}).get(source, ""), query_types=query_types)
        if source == "marco" and query_types:
            items = items[items["query_type"].str.upper().isin({t.upper() for t in query_types})]
        k, d = sample_items(items, n_items, seed, replace=replace)
        kept.append(k)
        dropped.append(d)
    return (pd.concat(kept, ignore_index=True),
            pd.concat(dropped, ignore_index=True) if dropped else pd.DataFrame(columns=["id", "source", "reason"]))


def drop_summary(items: pd.DataFrame, dropped: pd.DataFrame) -> pd.DataFrame:
    """Kept and dropped counts per source and reason."""
    d = dropped.groupby(["source", "reason"]).size().unstack(fill_value=0) if len(dropped) else None
    out = items.groupby("source").size().rename("kept").to_frame()
    if d is not None:
        out = out.join(d, how="outer").fillna(0).astype(int)
    return out.reset_index()


def items_for_run(items_path, datasets=SOURCES, n_items: int | None = None, seed: int = 0
                  ) -> pd.DataFrame:
    """Items of a run: the file written by notebook 01 when it exists (first n per source), else a
    seeded sample of the demo data, said in one printed line (never silently)."""
    if items_path and Path(items_path).exists():
        items = parse_demo(items_path)
        items = items[items["source"].isin(as_sources(datasets))]
        kept, dropped = sample_items(items, None, seed)
        if len(dropped):
            warnings.warn(f"{items_path}: dropped {len(dropped)} unusable items "
                          f"({dropped['reason'].value_counts().to_dict()}).", stacklevel=2)
        items = items[items["id"].isin(kept["id"])].drop(columns=["answer", "aliases"]).merge(
            kept[["id", "answer", "aliases"]], on="id")[ITEM_COLUMNS]
        if n_items:
            items = items.groupby("source", sort=False).head(n_items)
        return items.reset_index(drop=True)
    print(f"No items file at {items_path or '(none given)'}: the dataset notebook did not run in this run, so "
          "these items are a seeded sample of the demo data (run it first, or pass items_path).")
    items, _ = prepare_items(datasets, n_items, seed)
    return items
