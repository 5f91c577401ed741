"""What each passage of a utility prompt is for its question, from the run's data: the candidate sets
notebook 09 wrote (utility_gti.jsonl: ground truth, counterfactual, noisy; utility_gtu.jsonl:
ground truth, retrieved) and, before they exist, the items (an item's human passage and HotpotQA's
supporting passages are its ground-truth evidence). Files are read again when they change."""
from __future__ import annotations

from pathlib import Path

from ..core.roles import Roles, norm, read_if_changed, stamp_of

# passages_types of lib.utility.benchmark -> the planted model's roles (every other kind: distractor)
KIND_ROLE = {"ground_truth": "ground_truth", "counterfactual": "counterfactual"}
FILES = ("utility_gti.jsonl", "utility_gtu.jsonl")


class UtilityRoles:
    """Look-ups over one run's candidate sets and items (`roles` gives the run folder and the items)."""

    def __init__(self, roles: Roles):
        self.roles = roles
        self._stamps: dict[str, tuple | None] = {}
        self.by_question: dict[str, dict] = {}  # question -> {passage: role}, {"gold": answer, ...}

    def refresh(self) -> None:
        """Read the candidate files again where they changed (`roles.read_if_changed`: size and
        modification time, kept only for a whole read). The simulator asks once per request."""
        run_dir = self.roles.run_dir
        if run_dir is None:
            return
        files = [str(Path(run_dir) / name) for name in FILES]
        # files unchanged: no read and no lock (a look-up of another thread may hold it)
        if all(self._stamps.get(f) == stamp_of(f) for f in files):
            return
        with self.roles._lock:
            for f in files:
                for row in read_if_changed(f, self._stamps) or ():
                    self._add(row)

    def _add(self, row: dict) -> None:
        entry = self.by_question.setdefault(norm(row["question"]), {"passages": {}})
        entry.update(answer=row.get("answer", ""), source=row.get("source", ""))
        types = row.get("passages_types") or ["ground_truth" if y else "retrieved" for y in row["ground_truth_label"]]
        for text, kind in zip(row["passage"], types):
            role = KIND_ROLE.get(kind, "distractor")
            key = norm(text)
            if entry["passages"].get(key) != "ground_truth":  # a ground truth stays one in every file
                entry["passages"][key] = role
        for text in row.get("ground_truth_passages") or []:
            entry["passages"][norm(text)] = "ground_truth"

    def role(self, question: str, passage: str, check: bool = True) -> str:
        """ground_truth, counterfactual or distractor (check=False: the caller has just called `refresh`,
        as the simulator does once per request rather than once per passage)."""
        if check:
            self.refresh()
        found = self.by_question.get(norm(question), {}).get("passages", {}).get(norm(passage))
        if found:
            return found
        item = self.roles.item_of_question(question) or {}
        truths = [item.get("human_passage", "")] + list(item.get("supporting_passages") or [])
        return "ground_truth" if norm(passage) in {norm(t) for t in truths if t} else "distractor"

    def answer(self, question: str, check: bool = True) -> str:
        """The question's gold answer (candidate file, else the item), '' when unknown."""
        if check:
            self.refresh()
        got = self.by_question.get(norm(question), {}).get("answer")
        return str(got or (self.roles.item_of_question(question) or {}).get("answer", ""))
