"""Utility and relevance judgments in the four input forms of section 2.3.2.

Each judge takes candidate sets, presents their passages in a seeded order (shuffled, or with the
ground-truth evidence fixed at one position), asks the model with the authors' prompts, and parses
(`lib.utility.parsing`). Replies are kept, so `from_replies` re-reads them without a model call
(`reparse` in `lib.utility.replies`). An unreadable set or ranking stays a failure (value None).
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from itertools import combinations

from lib.prompts.utility import judgment_messages
from lib.utility import parsing
from lib.utility.benchmark import Candidates, item_seed
from lib.ask_until_parsed import ask_until_parsed
from lib.utility.calls import Ledger, ask, default_key, for_model

FORMS = ("pointwise", "pairwise", "listwise-set", "listwise-rank")
# The authors' prompts ask for a reason or an answer before the judgment: room for both.
MAX_TOKENS = {"pointwise": 48, "pairwise": 24, "listwise-set": 64}
REQUIREMENT_TOKENS = 96


@dataclass
class Judgment:
    """One question's judgment: selected set and/or ranking in stored passage indices (None: failed)."""

    id: str
    form: str
    judgment: str
    order: list[int]
    selected: list[int] | None = None
    ranking: list[int] | None = None
    counts: dict = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    raw: list[str] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        """True when nothing of this question's judgment could be read."""
        return self.selected is None and self.ranking is None


def presentation_order(row: Candidates, seed: int = 0, gt_position: int | None = None,
                       shuffle_key: str = "") -> list[int]:
    """Stored indices in the order shown to the model: seeded shuffle, first ground truth at 1-based
    `gt_position` when given (other passages keep their shuffled order)."""
    order = list(range(len(row.passage)))
    random.Random(item_seed(seed, row.id + shuffle_key)).shuffle(order)
    if gt_position is not None:
        gts = [i for i in order if row.ground_truth_label[i]]
        if not gts:
            raise ValueError(f"{row.id}: no ground-truth passage to place at position {gt_position}.")
        rest = [i for i in order if i != gts[0]]
        pos = max(1, min(gt_position, len(order))) - 1
        order = rest[:pos] + [gts[0]] + rest[pos:]
    return order


def max_tokens_for(form: str, requirement: str = "none", n: int = 10) -> int:
    """Reply budget of a form; a ranking of n ids such as "[9]>" takes about 4 tokens per passage."""
    base = 4 * n + 48 if form == "listwise-rank" else MAX_TOKENS[form]
    return base + (REQUIREMENT_TOKENS if requirement != "none" else 0)


def wins_ranking(n: int, outcomes: list[tuple[int, int, int | None]]) -> list[int] | None:
    """Ranking from pairwise outcomes (a, b, winner or None): most wins first, ties by position.
    Unreadable comparisons give no win to either side; all unreadable -> None (a failure)."""
    if outcomes and all(w is None for _, _, w in outcomes):
        return None
    wins = [0] * n
    for _, _, winner in outcomes:
        if winner is not None:
            wins[winner] += 1
    return sorted(range(n), key=lambda i: (-wins[i], i))


def jobs_for(form: str, order: list[int]) -> list[tuple[int, ...]]:
    """The shown positions each request of a question covers: all (listwise), one, or a pair i < j
    (every pair once, as the authors' script does)."""
    if form in ("listwise-set", "listwise-rank"):
        return [tuple(range(len(order)))]
    if form == "pointwise":
        return [(i,) for i in range(len(order))]
    return list(combinations(range(len(order)), 2))


def from_replies(row_id: str, form: str, judgment: str, order: list[int], replies: list[str],
                 authors_default: bool = False) -> Judgment:
    """Parse one question's replies (in `jobs_for` order) into a Judgment: no model call."""
    j = Judgment(row_id, form, judgment, list(order), raw=list(replies))
    n = len(order)
    if form in ("listwise-set", "listwise-rank"):
        p = (parsing.parse_set if form == "listwise-set" else parsing.parse_ranking)(replies[0], n)
        if p.value is not None:
            shown = [order[i] for i in p.value]
            if form == "listwise-set":
                j.selected = sorted(shown)
            else:
                j.ranking = shown
        parsed = [p]
        j.notes = [p.note] if p.note else []
    elif form == "pointwise":
        parsed = [parsing.parse_yes_no(t) for t in replies]
        # An unreadable reply does not select its passage (the authors read it as "no"); it is counted.
        if any(p.value is not None for p in parsed):
            j.selected = sorted(order[i] for (i,), p in zip(jobs_for(form, order), parsed) if p.value)
        j.notes = [f"passage {order[i]}: {p.note}" for (i,), p in zip(jobs_for(form, order), parsed)
                   if p.note]
    else:
        parsed = [parsing.parse_pair(t, authors_default) for t in replies]
        outcomes = [(a, b, None if p.value is None else (a, b)[p.value])
                    for (a, b), p in zip(jobs_for(form, order), parsed)]
        shown_rank = wins_ranking(n, outcomes)
        j.ranking = None if shown_rank is None else [order[i] for i in shown_rank]
        j.notes = [p.note for p in parsed if p.note]
    j.counts = parsing.status_counts(parsed)
    return j


def judge(model, rows: list[Candidates], form: str, judgment: str = "utility",
          order: str = "question-first", requirement: str = "none", seed: int = 0,
          gt_position: int | None = None, shuffle_key: str = "", ledger: Ledger | None = None,
          key: tuple | None = None, desc: str = "", max_tokens: int | None = None,
          authors_default: bool = False, k_retries: int = 0) -> list[Judgment]:
    """Judge every candidate set in one input form; returns one Judgment per row, in row order.
    `k_retries` > 0 (beyond the paper, which asks once) asks an unreadable reply again at temperature
    0.7 with a new sample index; the last reply is kept and the re-asks are counted."""
    if form not in FORMS:
        raise ValueError(f"form={form!r}: choose one of {FORMS}.")
    orders = [presentation_order(r, seed, gt_position, shuffle_key) for r in rows]
    kwargs = dict(judgment=judgment, form=form, order=order, requirement=requirement)
    jobs = [(k, shown) for k, o in enumerate(orders) for shown in jobs_for(form, o)]
    prompts = [judgment_messages(rows[k].question, [rows[k].passage[orders[k][i]] for i in shown], **kwargs)
               for k, shown in jobs]
    n_max = max((len(o) for o in orders), default=1)
    tokens, label = max_tokens or max_tokens_for(form, requirement, n_max), desc or f"{judgment}-{form}"
    asked_again = [0] * len(jobs)
    if k_retries:
        def readable(i, text):
            """The job's parse value, or None to ask again."""
            k, shown = jobs[i]
            return _parse_one(form, text, len(shown), authors_default)
        got = ask_until_parsed(model, [for_model(model, p) for p in prompts], readable, k_retries=k_retries,
                               max_tokens=tokens, desc=label, ledger=ledger, key=key or default_key(model, label))
        replies = [g["responses"][-1] for g in got]
        asked_again = [g["attempts"] - 1 for g in got]
    else:
        replies = ask(model, prompts, tokens, desc=label, ledger=ledger, key=key)
    by_row: dict[int, list[str]] = {k: [] for k in range(len(rows))}
    again: dict[int, int] = {k: 0 for k in range(len(rows))}
    for (k, _), text, extra in zip(jobs, replies, asked_again):
        by_row[k].append(text)
        again[k] += extra
    out = [from_replies(r.id, form, judgment, o, by_row[k], authors_default)
           for k, (r, o) in enumerate(zip(rows, orders))]
    for k, j in enumerate(out):
        j.counts["asked_again"] = again[k]
    return out


def _parse_one(form: str, text: str, n: int, authors_default: bool = False):
    """Value of one reply of a form (None: unreadable), for the ask-again loop."""
    if form == "listwise-set":
        return parsing.parse_set(text, n).value
    if form == "listwise-rank":
        return parsing.parse_ranking(text, n).value
    if form == "pointwise":
        return parsing.parse_yes_no(text).value
    return parsing.parse_pair(text, authors_default).value
