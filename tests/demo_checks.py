"""Helpers shared by the demo-data tests (tests/sources/test_demo_*.py): reading a demo file, the answer
strings a leak check looks for, word counts."""
import json
from pathlib import Path

DEMO_DIR = Path(__file__).resolve().parent.parent / "data" / "demo"


def load(path) -> list[dict]:
    """Items of a demo JSONL file, one dict per non-empty line (a bad line is named by its number)."""
    rows = []
    with open(path, encoding="utf-8") as fh:
        for line_no, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as err:
                raise AssertionError(f"{Path(path).name} line {line_no}: not valid JSON ({err})") from err
    return rows


def answer_names(item: dict) -> list[str]:
    """Answer plus aliases, lower-cased, blanks dropped: every string the substring checks look for."""
    return [s.lower() for s in [item["answer"], *item["aliases"]] if s.strip()]


def words(text: str) -> int:
    """Whitespace-separated word count."""
    return len(text.split())


def item_ids(items: list[dict]) -> list[str]:
    """Test ids: each item's id, or its line number."""
    return [it.get("id", f"line-{i}") for i, it in enumerate(items, 1)]


def leak_is_caught(item: dict, folder) -> bool:
    """Writes `item` with a negative that repeats its answer upper-cased, reads the file back, and
    says whether the substring rule flags that negative."""
    bad = Path(folder) / "bad.jsonl"
    bad.write_text(json.dumps({**item, "negatives": [{"title": "t", "text": "filler " + item["answer"].upper()}]})
                   + "\n", encoding="utf-8")
    loaded = load(bad)[0]
    return any(n in loaded["negatives"][0]["text"].lower() for n in answer_names(loaded))
