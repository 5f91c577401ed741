"""What each passage of a utility prompt is for its question, from the dataset's own labels and the
simulator's own wording, never from notebook 09's candidate files (their `passages_types` and
`ground_truth_label` are the pipeline's labels under test: a swap there is caught, not followed).

- ground truth: the item's gold passage in the data files (its human passage; HotpotQA's supporting
  paragraphs), whole or a clipped window of it;
- counterfactual: a ground-truth passage with every mention of the item's answer and aliases replaced
  by one other text (how section 2.2.4 makes the entity-style counterfactuals: a definition shared with
  09, docs/known_truth.md), or fake evidence the simulator itself wrote for 09's counterfactual claims
  (MS MARCO: its own lead `EVIDENCE_LEAD`), whose claim restates this item's answer or question;
- distractor: every other passage (a negative or another item's passage, even one naming the answer).

The items are those of `core.roles.Roles` (the demo data and the run's items.jsonl); a question drawn
with replacement (`[copy <tag>]` at its end, `lib.sources.item_sampling.draw_copies`) is its item's."""
from __future__ import annotations

import re
from functools import lru_cache

from lib.sources.item_sampling import COPY_SEP

from ..core.roles import Roles, norm

EVIDENCE_LEAD = "Records of the period support this claim:"  # how the simulator opens 09's fake evidence
COPY_TAG = re.compile(r"\s*\[copy [a-z]+\]$")  # a question drawn again keeps its item
WINDOW_WORDS = 12  # a shorter text is a ground truth only when it is the whole passage (no chance hits)
CLAIM_OVERLAP = 0.5  # share of the answer's words a long answer's claim keeps (one entity swapped)


def ground_truths(item: dict) -> list[str]:
    """The item's gold evidence as its data file labels it: HotpotQA's supporting paragraphs (texts, or
    {title, text} records in the demo file), else its human passage."""
    sup = item.get("supporting_passages")
    if isinstance(sup, (list, tuple)) and len(sup):
        return [str(s.get("text", "")) if isinstance(s, dict) else str(s) for s in sup]
    return [str(item.get("human_passage", ""))]


def answer_texts(item: dict) -> tuple[str, ...]:
    """The item's answer and aliases (the texts a counterfactual replaces), longest first."""
    got = [str(item.get("answer", ""))] + [str(a) for a in (item.get("aliases") or [])]
    return tuple(sorted({norm(a) for a in got if a.strip()}, key=len, reverse=True))


def _mentions(targets: tuple[str, ...]) -> str:
    return "(?<!\\w)(?:" + "|".join(re.escape(t) for t in targets) + ")(?!\\w)"


@lru_cache(maxsize=2 ** 14)
def substitution_pattern(passage: str, targets: tuple[str, ...]) -> re.Pattern | None:
    """A regex matching the passage with every mention of the targets (whole words, case ignored)
    replaced by one and the same text; None when it mentions none (it has no counterfactual)."""
    if not targets:
        return None
    pieces = re.split(_mentions(targets), passage, flags=re.I)
    if len(pieces) < 2:
        return None
    body = re.escape(pieces[0]) + "(?P<new>.+?)" + "(?P=new)".join(re.escape(p) for p in pieces[1:])
    return re.compile(body, re.S)


def states_answer(text: str, targets: tuple[str, ...]) -> bool:
    """Whether the text mentions the answer or an alias (whole words, case ignored)."""
    return bool(targets) and re.search(_mentions(targets), text, flags=re.I) is not None


def _words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text.lower()))


def claim_of_item(text: str, item: dict) -> bool:
    """Whether the simulator's fake evidence restates a claim about this item: the claim names the
    question (a short answer's claim) or keeps most of the answer's words (one entity swapped)."""
    claim = text[len(EVIDENCE_LEAD):].lower()
    if norm(item.get("question", "")).lower() in claim:
        return True
    answer = _words(str(item.get("answer", "")))
    return bool(answer) and len(answer & _words(claim)) >= CLAIM_OVERLAP * len(answer)


def passage_role(items: list[dict], passage: str) -> str:
    """ground_truth, counterfactual or distractor of one passage (normalised) for the items asking its
    question (two datasets may ask the same question: a gold passage of either is the question's)."""
    truths = [(it, norm(t)) for it in items for t in ground_truths(it) if t.strip()]
    if any(passage == t or (len(passage.split()) >= WINDOW_WORDS and passage in t) for _, t in truths):
        return "ground_truth"
    for it in items:
        if _counterfactual_of(it, passage, [t for i, t in truths if i is it]):
            return "counterfactual"
    return "distractor"


def _counterfactual_of(item: dict, passage: str, truths: list[str]) -> bool:
    targets = answer_texts(item)
    if states_answer(passage, targets):
        return False
    if passage.startswith(EVIDENCE_LEAD):
        return claim_of_item(passage, item)
    return any((pattern := substitution_pattern(t, targets)) is not None and pattern.fullmatch(passage)
               for t in truths)


class UtilityRoles:
    """Role and gold-answer look-ups over one run's items (`roles`: the run's core look-ups)."""

    def __init__(self, roles: Roles):
        self.roles = roles
        self._asked: dict[str, list[str]] = {}  # question -> ids of every item asking it
        self._indexed = -1

    def refresh(self) -> None:
        """Read the run's items again where they changed (the simulator asks once per request)."""
        self.roles.refresh()

    def items(self, question: str, check: bool = True) -> list[dict]:
        """Every item asking this question (a copy's item for a question drawn again)."""
        if check:
            self.refresh()
        known = self.roles.items
        if len(known) != self._indexed:  # items are only added (01's items.jsonl over the demo data)
            asked: dict[str, list[str]] = {}
            for item_id, it in list(known.items()):
                asked.setdefault(norm(it["question"]), []).append(item_id)
            self._asked, self._indexed = asked, len(known)
        key = norm(question)
        ids = self._asked.get(key) or self._asked.get(COPY_TAG.sub("", key), [])
        return [known[i] for i in ids if i in known]

    def item_by_id(self, item_id: str) -> dict | None:
        """The data's item of this id (a copy's, `<id>~<tag>`, is its original's)."""
        known = self.roles.items
        return known.get(str(item_id)) or known.get(str(item_id).split(COPY_SEP)[0])

    def role(self, question: str, passage: str, check: bool = True) -> str:
        """ground_truth, counterfactual or distractor (check=False: the caller has just called `refresh`,
        as the simulator does once per request rather than once per passage)."""
        return passage_role(self.items(question, check), norm(passage))

    def answer(self, question: str, check: bool = True) -> str:
        """The question's gold answer in the data (the item `core.roles` takes for the question), ''
        when the question is unknown."""
        items = self.items(question, check)
        first = self.roles.items.get(self.roles.by_question.get(norm(question), ""))
        return str((first or (items[0] if items else {})).get("answer", ""))
