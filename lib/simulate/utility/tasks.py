"""Recognition of the utility study's prompts (lib.prompts.utility): the judgments of notebooks 10-12 in
every variant they send (utility / relevance, four input forms, both layouts, every extra
requirement), the QA prompts of 12 and the counterfactual-evidence prompt of 09.

No prompt text is retyped here: each judgment variant is built once by the study's own
`judgment_messages` with marker values for the question and the passages, and the fixed text around
the markers becomes the pattern (the passage count, the only number the templates fill, becomes
`\\d+`); the QA and evidence prompts are cut at their templates' slots."""
from __future__ import annotations

import re
from functools import lru_cache
from itertools import product

from lib.prompts import utility as U

from ..core.tasks import Task

_Q, _P = "\x00Q\x00", "\x00P\x00"  # marker values: never in a real prompt
_MARK = [f"\x00{c}\x00" for c in "ABCDEFGHIJ"]
ORDERS = ("question-first", "passages-first")


def _pattern(user: str, paras: str, listwise: bool) -> re.Pattern:
    """A regex of one filled user template: the question and passage block as groups."""
    fixed = re.escape(user.replace(paras, _P))
    if listwise:  # the passage count is the only number the templates fill (2 markers were given)
        fixed = fixed.replace("2", r"\d+")
    fixed = fixed.replace(re.escape(_Q), "(?P<question>.*?)").replace(re.escape(_P), "(?P<paras>.*?)")
    return re.compile("^" + fixed + "$", re.S)


def _ends(user: str, paras: str, listwise: bool) -> tuple[str, str]:
    """The fixed text a filled user template starts and ends with (before its first slot, after its
    last; for listwise forms cut at the passage count): a cheap test before the regex."""
    filled = user.replace(paras, _P)
    cuts = [i for i in (filled.find(_Q), filled.find(_P)) if i >= 0]
    head = filled[:min(cuts)]
    tail = filled[max(filled.rfind(_Q) + len(_Q), filled.rfind(_P) + len(_P)):]
    if listwise:  # the passage count ("2" for the markers) varies
        head, tail = head.split("2")[0], tail.split("2")[-1]
    return head, tail


@lru_cache(maxsize=1)
def _variants() -> dict[str, list[tuple[dict, re.Pattern, str, str]]]:
    """system prompt -> [(variant, user-pattern, fixed head, fixed tail)] over every judgment variant of
    lib.prompts.utility."""
    out: dict[str, list] = {}
    for judgment, form, order, req in product(U.JUDGMENTS, U.FORMS, ORDERS, U.S4_REQUIREMENTS):
        marks = _MARK[:1 if form == "pointwise" else 2]
        system, user = (m["content"] for m in U.judgment_messages(_Q, marks, judgment, form, order, req))
        paras = U.format_paras(marks, form)
        meta = {"judgment": judgment, "form": form, "order": order, "requirement": req}
        listwise = form.startswith("listwise")
        out.setdefault(system, []).append((meta, _pattern(user, paras, listwise), *_ends(user, paras, listwise)))
    return out


def split_paras(paras: str, form: str) -> list[str]:
    """The passages of a filled passage block, cut at the published labels (`passage_label`)."""
    if form == "pointwise":
        return [paras]
    first = ("\n" if form == "pairwise" else "") + U.passage_label(form, 0)
    rest = paras[len(first):] if paras.startswith(first) else paras
    passages, i = [], 1
    while True:
        cut = rest.split("\n" + U.passage_label(form, i), 1)
        passages.append(cut[0])
        if len(cut) == 1:
            return passages
        rest, i = cut[1], i + 1


def _judgment(system: str, user: str) -> Task | None:
    for meta, pat, head, tail in _variants().get(system, ()):
        if not (user.startswith(head) and user.endswith(tail)):  # most variants fail here, cheaply
            continue
        m = pat.match(user)
        if m:
            return Task("utility_judgment", {**meta, "question": m["question"],
                                             "passages": split_paras(m["paras"], meta["form"])})
    return None


def _cut(template: str, slot: str) -> tuple[str, str]:
    head, tail = template.split("{" + slot + "}", 1)
    return head, tail


def _qa(text: str) -> Task | None:
    for factoid, with_ev, template in ((True, True, U.S234_QA_FACTOID), (False, True, U.S234_QA_NON_FACTOID),
                                       (True, False, U.S234_QA_FACTOID_NO_EVIDENCE),
                                       (False, False, U.S234_QA_NON_FACTOID_NO_EVIDENCE)):
        head, rest = _cut(template, "question")
        if not text.startswith(head):
            continue
        if not with_ev:
            if text.endswith(rest):
                return Task("utility_answer", {"question": text[len(head):len(text) - len(rest)],
                                               "passages": [], "factoid": factoid})
            continue
        mid, tail = _cut(rest, "passages")
        body = text[len(head):]
        if mid in body and body.endswith(tail):
            question, block = body[:-len(tail)].split(mid, 1)
            return Task("utility_answer", {"question": question, "passages": split_paras(block, "listwise-set"),
                                           "factoid": factoid})
    return None


def recognise(messages: list[dict] | None, prompt: str | None = None) -> Task | None:
    """The utility task of one request, or None when it is none of the utility study's prompts."""
    system = "".join(m["content"] for m in messages or [] if m.get("role") == "system")
    text = (messages[-1]["content"] if messages else prompt) or ""
    if system:
        return _judgment(system, text)
    if not messages:  # a base LM gets system and user as one text (lib.prompts.utility.as_text)
        for sys_text in _variants():
            if text.startswith(sys_text + "\n\n"):
                found = _judgment(sys_text, text[len(sys_text) + 2:])
                if found:
                    return found
    head, tail = _cut(U.S224_GENERATE_COUNTERFACTUAL_EVIDENCE, "claim")
    if text.startswith(head) and text.endswith(tail):
        return Task("utility_evidence", {"claim": text[len(head):len(text) - len(tail)]})
    return _qa(text)
