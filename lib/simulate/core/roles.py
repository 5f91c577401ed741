"""What the simulator knows about the texts it is shown: which item a passage belongs to, whether
it states the true answer, whether the simulator wrote it, and which RM response was chosen.

Everything comes from the data given for the run: the demo items (data/demo) and the run's
items.jsonl (notebook 01), the texts of the run's passage bank (notebook 02; whether a passage is true
is decided from its text and the item's answers, `labels`, not from the bank's label), the RM pair data
file (which response is chosen), and what the simulator itself generated (recorded as it replies).
Files are read again when they change, so one server follows a run from notebook to notebook.
"""
from __future__ import annotations

import json
import os
import threading
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from lib import paths
from lib.falsify import false_passage

from .labels import false_answers, stated_answer

RM_PAIRS = paths.DATA / "demo" / "rag_rewardbench_pairs.jsonl"  # the RM pair data file (chosen / reject)


@lru_cache(maxsize=2 ** 16)
def norm(text: str) -> str:
    """A text as it is compared here: whitespace collapsed (the prompt layout may re-wrap it). Kept:
    a question's passages are looked up again in every prompt that shows them (60 and more each)."""
    return " ".join(str(text).split())


@dataclass(frozen=True)
class Passage:
    """One bank passage's role."""

    item_id: str
    true: bool
    answer: str  # the answer this passage states (the item's, or the false one swapped in)


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def stamp_of(path) -> tuple | None:
    """(modification time, size) of a file, None when there is none (`read_if_changed`'s stamp)."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    return st.st_mtime_ns, st.st_size


def read_if_changed(path, stamps: dict) -> list[dict] | None:
    """The rows of a JSONL file the run is writing, when it changed since `stamps` saw it whole; else
    None. The stamp is the size with the modification time, and is kept only for a read that got the
    whole file (as many bytes as the stat said, ending in a new line): file times tick every few ms,
    and a read in the same tick as the writer's last writes once left the simulator with part of the
    passage bank for the rest of a run (it no longer knew the false passages)."""
    path = Path(path)
    stamp = stamp_of(path)
    if stamp is None or stamps.get(str(path)) == stamp:
        return None
    data = path.read_bytes()
    whole = len(data) == stamp[1] and (not data or data.endswith(b"\n"))
    stamps[str(path)] = stamp if whole else None  # a part is used now and read again next time
    complete = data if whole else data[:data.rfind(b"\n") + 1]
    return [json.loads(line) for line in complete.decode("utf-8").splitlines() if line.strip()]


class Roles:
    """Look-ups over the run's data; thread-safe (the server answers requests in threads)."""

    def __init__(self, run_dir: Path | None, truth):
        self.run_dir = Path(run_dir) if run_dir else None
        self.truth = truth
        self._lock = threading.RLock()
        self._stamps: dict[str, tuple | None] = {}
        self.items: dict[str, dict] = {}          # item id -> item
        self.by_passage: dict[str, str] = {}      # human passage -> item id
        self.by_question: dict[str, str] = {}     # question -> item id
        self.bank: dict[str, Passage] = {}        # bank text -> role
        self.bank_false: dict[str, set] = {}      # item id -> false answers in the bank
        self.own: dict[str, str] = {}             # text the simulator generated -> item id
        self.own_style: dict[str, str] = {}       # text the simulator generated -> "normal", "long" or "qa"
        self.own_false: set[str] = set()          # own texts with a bank false answer substituted
        self.rm: dict[str, tuple] = {}            # chosen response of the pair file -> (category, question)
        for path in sorted((paths.DATA / "demo").glob("*.jsonl")):
            if path.stem != "rag_rewardbench_pairs":
                self._add_items(_jsonl(path))

    # ------------------------------------------------------------ loading
    def _add_items(self, rows: list[dict]) -> None:
        for it in rows:
            self.items[it["id"]] = it
            self.by_passage[norm(it.get("human_passage", ""))] = it["id"]
            self.by_question[norm(it["question"])] = it["id"]

    def refresh(self) -> None:
        """Read the run's items, bank and RM pairs again where their files changed."""
        if self.run_dir is None:
            return
        with self._lock:
            items = read_if_changed(self.run_dir / "items.jsonl", self._stamps)
            if items is not None:
                self._add_items(items)
            rows = read_if_changed(self.run_dir / "passage_bank.jsonl", self._stamps)
            if rows is not None:
                # true or false from the text and the item's own answers (`labels`), never from the
                # bank's factuality column: only the item id (which item a row belongs to) is read
                self.bank = {}
                self.bank_false = {}
                for r in rows:
                    it = self.items.get(r["item_id"])
                    true, answer = stated_answer(it, r["text"]) if it else (True, "")
                    self.bank[norm(r["text"])] = Passage(r["item_id"], true, answer)
                    if it is not None:
                        self.bank_false[r["item_id"]] = set(false_answers(it))
                self._derive_own_false()

    def _derive_own_false(self) -> None:
        """Own texts with a false answer substituted (how notebook 02 makes false passages)."""
        self.own_false = set()
        for text, item_id in list(self.own.items()):
            it = self.items.get(item_id)
            for fa in self.bank_false.get(item_id, ()):
                fp = false_passage(text, it["answer"], fa) if it else None
                if fp:
                    self.own_false.add(norm(fp))

    # ------------------------------------------------------------ what the simulator wrote
    def record_own(self, text: str, item_id: str, style: str = "normal") -> None:
        """Remember a generated text as the simulator's own (self-recognition is by this record)."""
        with self._lock:
            self.own[norm(text)] = item_id
            self.own_style[norm(text)] = style
            if self.run_dir is not None:
                with open(self.run_dir / "simulator_own_texts.jsonl", "a", encoding="utf-8") as f:
                    f.write(json.dumps({"item_id": item_id, "style": style, "text": text}, ensure_ascii=False) + "\n")

    def is_styled(self, text: str) -> bool:
        """Whether the simulator wrote this text as a gen-by-QA or long passage (notebook 08's styles)."""
        return self.own_style.get(norm(text), "normal") != "normal"

    def is_own(self, text: str) -> bool:
        """Whether the simulator takes this text as its own (inverted under the planted defect)."""
        key = norm(text)
        mine = key in self.own or key in self.own_false
        return (not mine) if self.truth.inverted else mine

    # ------------------------------------------------------------ passages and items
    def item_of_passage(self, human_passage: str) -> dict | None:
        """The item whose human passage this is."""
        self.refresh()
        return self.items.get(self.by_passage.get(norm(human_passage), ""))

    def item_of_question(self, question: str) -> dict | None:
        """The item asking this question."""
        self.refresh()
        return self.items.get(self.by_question.get(norm(question), ""))

    def passage(self, text: str) -> Passage | None:
        """The bank role of a passage (None when it is not in the run's bank)."""
        self.refresh()
        return self.bank.get(norm(text))

    # ------------------------------------------------------------ RM pairs
    def rm_pair(self, response1: str, response2: str) -> tuple | None:
        """(category, the pair's question, chosen shown first) of an ordered RM pair, or None when
        neither response (or both) is a chosen response of the pair data file."""
        with self._lock:
            if not self.rm:
                self._index_rm()
            first, second = self.rm.get(norm(response1)), self.rm.get(norm(response2))
        if (first is None) == (second is None):
            return None
        category, question = first or second
        return category, question, first is not None

    def _index_rm(self) -> None:
        """Every chosen response of the RM pair data file, read here as JSON (not through the
        pipeline's loader or the pairs notebook 13 builds): chosen text -> (category from the subset
        name, question). Notebook 13 rebuilds the demo pairs with the bank's false passages; their
        chosen responses are the file's, only some rejected ones differ."""
        for row in _jsonl(RM_PAIRS):
            category = str(row.get("subset") or row.get("category") or "").split("-", 1)[0].strip().lower()
            self.rm[norm(row["chosen"])] = (category, norm(row.get("question") or row.get("prompt", "")))
