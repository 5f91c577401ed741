"""Read preference pairs (RAG-RewardBench or RewardBench layout) into one pairs table.

Pairs table columns: id, category, group, subset, system, prompt, question, chosen, rejected,
chosen_model, rejected_model, chosen_score, rejected_score, answer (gold, demo pairs only), source.
"""
from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from lib.records import DataError, read_records
from lib.rewardbench.categories import CATEGORIES, category_of, group_of

PAIR_COLUMNS = ["id", "category", "group", "subset", "system", "prompt", "question", "chosen",
                "rejected", "chosen_model", "rejected_model", "chosen_score", "rejected_score", "answer", "source"]
_QUESTION = re.compile(r"##\s*Question:\s*(.*?)\s*(?:\n##|\Z)", re.S)


HUB_ID = "jinzhuoran/RAG-RewardBench"
# the published benchmark: six JSON-lines files under Dataset/, one per scenario (named after it)
HUB_FILES = {c: f"Dataset/*{c}*.jsonl" for c in CATEGORIES}


class PairFormatError(DataError):
    """A row that is not a preference pair in either supported layout."""


def _text(value, where: str, field: str) -> str:
    """Plain text of a field that may be a string or a list of chat messages."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and value and all(isinstance(m, dict) for m in value):
        # chat layout: the response is the last assistant turn, the prompt the user turns
        roles = [m.get("role") for m in value]
        if field in ("chosen", "rejected") and "assistant" in roles:
            return [m for m in value if m.get("role") == "assistant"][-1].get("content", "")
        return "\n\n".join(m.get("content", "") for m in value if m.get("role") != "assistant")
    raise PairFormatError(f"{where}: field {field!r} must be text or a list of chat messages, "
                          f"got {type(value).__name__}")


def normalize_row(row: dict, where: str, fallback_category: str | None = None,
                  strict: bool = True) -> dict:
    """One raw row (either layout) -> one pairs-table record; errors name the row and field."""
    rejected_key = "reject" if "reject" in row else "rejected"
    for field in ("prompt", "chosen", rejected_key):
        if field not in row:
            raise PairFormatError(
                f"{where}: missing field {field!r}. Expected RAG-RewardBench fields (prompt, question, "
                f"chosen, chosen_model, reject, reject_model, subset) or RewardBench fields "
                f"(prompt, chosen, rejected, subset); found {sorted(row)}")
    prompt = _text(row["prompt"], where, "prompt")
    question = row.get("question")
    if not question:
        found = _QUESTION.search(prompt)
        question = found.group(1) if found else prompt[-300:]
    subset = str(row.get("subset") or row.get("category") or fallback_category or "")
    category = category_of(subset, row.get("category") or fallback_category, strict=strict)
    return {
        "id": str(row.get("id", where)),
        "category": category,
        "group": group_of(category),
        "subset": subset or category,
        "system": str(row.get("system", "") or ""),
        "prompt": prompt,
        "question": str(question),
        "chosen": _text(row["chosen"], where, "chosen"),
        "rejected": _text(row[rejected_key], where, "rejected"),
        "chosen_model": str(row.get("chosen_model", "") or ""),
        "rejected_model": str(row.get("reject_model", row.get("rejected_model", "")) or ""),
        "chosen_score": _number(row.get("chosen_score")),
        "rejected_score": _number(row.get("reject_score", row.get("rejected_score"))),
        "answer": str(row.get("answer", "") or ""),
        "source": str(row.get("source", "") or ""),
    }


def _number(value) -> float:
    """Float of an optional score field (NaN when absent)."""
    try:
        return float(value)
    except (TypeError, ValueError):
        return float("nan")


def _rows_of(path: Path):
    """Yield (row, where) from a JSON-lines file or a JSON array file (via `read_records`)."""
    if path.suffix == ".json":
        rows = read_records(path)
        if not isinstance(rows, list):
            raise PairFormatError(f"{path}: expected a JSON array of pairs, got {type(rows).__name__}")
        for i, row in enumerate(rows, start=1):
            yield row, f"{path.name} item {i}"
        return
    # JSON lines: numbered by line, blank lines included, so messages point at the right line
    lines = path.read_text(encoding="utf-8").splitlines()
    numbers = [i for i, line in enumerate(lines, start=1) if line.strip()]
    for i, row in zip(numbers, read_records(path)):
        yield row, f"{path.name} line {i}"


def _category_from_name(path: Path) -> str | None:
    """Category named in a file name such as 'abstain.jsonl' or 'rag_conflict_pairs.jsonl'."""
    words = re.split(r"[^a-z]+", path.stem.lower())
    hits = [w for w in words if w in CATEGORIES]
    return hits[0] if len(hits) == 1 else None


def load_pairs(paths, strict: bool = True) -> pd.DataFrame:
    """Load pairs from files or folders of .jsonl/.json (one file per category, or any mix)."""
    paths = [paths] if isinstance(paths, (str, Path)) else list(paths)
    files: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            files += sorted(f for f in p.iterdir() if f.suffix in (".jsonl", ".json"))
        elif p.exists():
            files.append(p)
        else:
            raise DataError(f"no pairs file or folder at {p}; pass the folder of the downloaded "
                            "RAG-RewardBench .jsonl files (its Dataset/ folder) or a demo pairs file")
    records = []
    for f in files:
        fallback = _category_from_name(f)
        for row, where in _rows_of(f):
            records.append(normalize_row(row, where, fallback, strict=strict))
    if not records:
        raise PairFormatError(f"no preference pairs found in {', '.join(map(str, paths))}")
    return _finish(records)


def _finish(records: list[dict]) -> pd.DataFrame:
    """Records -> pairs table with unique ids (duplicates get a numeric suffix)."""
    df = pd.DataFrame.from_records(records, columns=PAIR_COLUMNS)
    dup = df["id"].duplicated(keep=False)
    if dup.any():
        df.loc[dup, "id"] = df.loc[dup, "id"] + "#" + df[dup].groupby("id").cumcount().astype(str)
    return df


def load_hub(name: str = HUB_ID, strict: bool = True, data_files: dict | None = None) -> pd.DataFrame:
    """Load the published benchmark through `datasets` (needs network): its six scenario files as
    six named splits, so a row without a subset takes its scenario from its split (file)."""
    from datasets import load_dataset  # slow import, only for users online

    data = load_dataset(name, data_files=data_files or HUB_FILES)
    return splits_to_pairs({split: list(rows) for split, rows in data.items()}, name, strict)


def splits_to_pairs(splits: dict, name: str, strict: bool = True) -> pd.DataFrame:
    """Pairs table from {split name: rows}; a split named after a scenario is the fallback category."""
    records = []
    for split, rows in splits.items():
        fallback = split if split in CATEGORIES else None
        for i, row in enumerate(rows):
            records.append(normalize_row(dict(row), f"{name}[{split}] row {i}", fallback, strict=strict))
    if not records:
        raise PairFormatError(f"{name}: no preference pairs in splits {sorted(splits)}")
    return _finish(records)
