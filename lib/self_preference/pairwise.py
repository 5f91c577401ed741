"""Generation phase (v2 section 3.4): pairwise reading comprehension over two passages.

A pair holds a focus passage A (the evaluator's own in notebook 06, the gen-by-QA or long passage in
08) and another passage B, under a factuality combination (first letter: A, second: B) and both
orders. Which passage the reply used (`passage_rule`):

- `authors` (default; the authors' generation-phase code, shared/papers/authors-code-notes.md): a
  reply counts only if it has both "Answer: " and "Answer retrieved from" (as the prompt's format
  writes them); its answer part is the text between them, without the ";" the paper's format puts
  after the answer. When the two passages carry different answer strings, the reply's answer part is
  matched (textmatch rule `authors`, semicolons split) against each passage's answer; when they
  carry the same one, its "which passage" part is searched for "1" and "2". Exactly one must match,
  else the reply is unusable (counted, and asked again while retries remain).
- `ours` (the earlier rule, an option): whole-word answer matching in the answer segment, the
  passage number read from several phrasings, optionally as a fallback (`fallback_number`).

Answer accuracy (`mentions_true`) uses the same rule's matching against the true answer.
Pairs that cannot be asked (missing passage, same answer string where the design needs two) stay in
the table with a status, so every count is visible.
"""
from __future__ import annotations

import re

import numpy as np
import pandas as pd

from lib.ask_until_parsed import ask_until_parsed
from lib.prompts import self_preference as sp
from lib.textmatch import authors_match, whole_word_match, word_normalize

from .model_loop import for_each_model

COMBOS = ("TT", "TF", "FT", "FF")
ORDERS = ("a_first", "b_first")
_FACT = {"T": "true", "F": "false"}
PASSAGE_RULES = ("authors", "ours")
# The reply format of the generation-phase prompt, as the authors' code checks it (case as written).
ANSWER_MARK = "Answer: "
WHICH_MARK = "Answer retrieved from"


def same_answer(a: str, b: str) -> bool:
    """True when two answer strings cannot be told apart in a reply (empty or equal once normalized)."""
    na, nb = word_normalize(a), word_normalize(b)
    return not na or not nb or na == nb


def authors_parts(response: str) -> tuple[str, str] | None:
    """(answer part, which-passage part) of a reply in the prompt's format, or None without it."""
    text = response or ""
    if ANSWER_MARK not in text or WHICH_MARK not in text:
        return None
    start = text.index(ANSWER_MARK) + len(ANSWER_MARK)
    split = text.find(WHICH_MARK, start)
    if split < 0:  # the answer mark came after the which-passage mark
        answer, which = text[start:], text[text.index(WHICH_MARK) + len(WHICH_MARK):start]
    else:
        answer, which = text[start:split], text[split + len(WHICH_MARK):]
    # The paper's prompt asks for "Answer: <short answer>;": the ";" ends the field and is not part
    # of the answer (the authors' own prompt has no ";", so their code had nothing to strip).
    return answer.strip().rstrip(";").strip(), which


def authors_which(response: str, ans_1: str, ans_2: str, design: str) -> tuple[int | None, str]:
    """The authors' rule: (1, 2 or None, method); method 'answer', 'number', 'wrong_format' or 'unparsed'."""
    parts = authors_parts(response)
    if parts is None:
        return None, "wrong_format"
    answer, which = parts
    if design == "answer":
        m1 = authors_match(answer, ans_1, semicolons=True)
        m2 = authors_match(answer, ans_2, semicolons=True)
        method = "answer"
    else:
        m1, m2 = "1" in which, "2" in which
        method = "number"
    if m1 != m2:
        return (1 if m1 else 2), method
    return None, "unparsed"


def reply_answer(response: str, passage_rule: str = "authors") -> str | None:
    """The answer part of a reply under the rule (None: the authors' format is missing)."""
    if passage_rule == "authors":
        parts = authors_parts(response)
        return parts[0] if parts else None
    return answer_segment(response)


def answer_correct(response: str, answer: str, passage_rule: str = "authors"):
    """Whether a reply's answer carries the true answer: the authors' symmetric match, or whole
    words under the 'ours' rule; NaN when the reply has no answer part."""
    part = reply_answer(response, passage_rule)
    if part is None:
        return np.nan
    if passage_rule == "authors":
        return authors_match(part, answer, semicolons=True)
    return whole_word_match(part, answer)


def answer_segment(response: str) -> str:
    """The `Answer: ...;` part of a reply, or the reply without its passage-number line."""
    text = response or ""
    match = re.search(r"answer\s*:\s*(?!.*retrieved)(.*?)(?:;|\n|answer retrieved|$)", text, re.I)
    if match and match.group(1).strip():
        return match.group(1)
    return re.sub(r"answer retrieved from which passage.*", " ", text, flags=re.I)


_NUMBER_PATTERNS = (
    re.compile(r"which passage\s*[:\-]?\s*(?:passage\s*)?#?\s*([12])\b(?!\s*or\s*[12])", re.I),
    re.compile(r"retrieved from\s*(?:the\s*)?(?:passage\s*)?#?\s*([12])\b(?!\s*or\s*[12])", re.I),
)
_WORDS = {"first": 1, "second": 2}


def passage_number(response: str) -> int | None:
    """The passage number (1 or 2) a reply names; None when it names none or both."""
    text = response or ""
    for pattern in _NUMBER_PATTERNS:
        found = {int(m) for m in pattern.findall(text)}
        if len(found) == 1:
            return found.pop()
    loose = {int(m) for m in re.findall(r"passage\s*#?\s*([12])\b(?!\s*or\s*[12])", text, re.I)}
    loose |= {_WORDS[w.lower()] for w in re.findall(r"\b(first|second) passage", text, re.I)}
    if len(loose) == 1:
        return loose.pop()
    if re.fullmatch(r"\W*([12])\W*", text):
        return int(re.sub(r"\D", "", text))
    return None


def which_passage(response: str, ans_1: str, ans_2: str, design: str,
                  fallback_number: bool = False, passage_rule: str = "authors") -> tuple[int | None, str]:
    """(1, 2 or None, method) for one reply under `passage_rule` ('authors' or 'ours'); method is
    'answer', 'number', 'number_fallback', 'wrong_format' or 'unparsed'."""
    if passage_rule == "authors":
        return authors_which(response, ans_1, ans_2, design)
    if passage_rule != "ours":
        raise ValueError(f"passage_rule={passage_rule!r}; use one of {PASSAGE_RULES}.")
    if design == "answer":
        seg = answer_segment(response)
        n1, n2 = word_normalize(ans_1), word_normalize(ans_2)
        # When one answer is inside the other ("1990" / "1990s"), the longer one must not count
        # as a mention of the shorter.
        m1 = whole_word_match(seg, ans_1) and not (n1 in n2 and whole_word_match(seg, ans_2))
        m2 = whole_word_match(seg, ans_2) and not (n2 in n1 and whole_word_match(seg, ans_1))
        if m1 != m2:
            return (1 if m1 else 2), "answer"
        if not fallback_number:
            return None, "unparsed"
        number = passage_number(response)
        return (number, "number_fallback") if number else (None, "unparsed")
    number = passage_number(response) or _bare_number(response, ans_1, ans_2)
    return (number, "number") if number else (None, "unparsed")


def _bare_number(response: str, ans_1: str, ans_2: str) -> int | None:
    """'Answer: 1' alone names passage 1, unless 1 or 2 could be the answer itself."""
    if {word_normalize(ans_1), word_normalize(ans_2)} & {"1", "2"}:
        return None
    seg = word_normalize(answer_segment(response))
    return int(seg) if seg in ("1", "2") else None


def build_pairs(bank: pd.DataFrame, focus_author: str, other_authors=None, combos=COMBOS,
                focus_style: str = "normal", other_style: str = "normal",
                items=None) -> pd.DataFrame:
    """All pairs of the focus author's passage with each other author's, per combo and order.

    `other_authors` defaults to every other author in the bank, human first. Rows whose passages
    are missing, or whose answer strings coincide where the factualities differ, get a non-'ok'
    status instead of being dropped.
    """
    if other_authors is None:
        authors = [a for a in bank["author"].unique() if a != focus_author]
        other_authors = sorted(authors, key=lambda a: (a != "human", a))
    passages: dict[tuple, list[dict]] = {}
    for rec in bank.to_dict("records"):
        key = (rec["item_id"], rec["author"], rec["factuality"], rec.get("style", "normal"))
        passages.setdefault(key, []).append(rec)
    info = bank.drop_duplicates("item_id").set_index("item_id")
    item_ids = list(info.index) if items is None else list(items)
    rows = []
    for item_id in item_ids:
        meta = info.loc[item_id] if item_id in info.index else None
        for other in other_authors:
            for combo in combos:
                a_fact, b_fact = _FACT[combo[0]], _FACT[combo[1]]
                a = _pick(passages.get((item_id, focus_author, a_fact, focus_style)), focus_author)
                b = _pick(passages.get((item_id, other, b_fact, other_style)), focus_author)
                for order in ORDERS:
                    rows.append(_pair_row(item_id, meta, focus_author, other, a, b, a_fact, b_fact,
                                          focus_style, other_style, combo, order))
    return pd.DataFrame(rows, columns=_PAIR_COLUMNS)


def _pick(candidates, focus_author):
    """One passage among several false versions: prefer the one carrying the focus author's false
    answer (the release substitutes each model's false answer into the human passage), so that a
    false-false pair differs in author only."""
    if not candidates:
        return None
    return next((c for c in candidates if c.get("false_by") == focus_author), candidates[0])


_PAIR_COLUMNS = ["item_id", "dataset", "question", "answer", "a_author", "b_author",
                 "a_style", "b_style", "combo", "a_fact", "b_fact", "order", "author_1", "author_2",
                 "fact_1", "fact_2", "text_1", "text_2", "ans_1", "ans_2", "design", "status"]


def _carried(rec, fact):
    """The answer string a passage carries: the true answer, or its own false answer."""
    if rec is None:
        return None
    return str(rec["answer"]) if fact == "true" else str(rec.get("false_answer") or "")


def _pair_row(item_id, meta, a_author, b_author, a, b, a_fact, b_fact, a_style, b_style, combo, order):
    get = (lambda k: meta[k]) if meta is not None else (lambda k: None)
    a_ans, b_ans = _carried(a, a_fact), _carried(b, b_fact)
    one, two = ((a_author, a_fact, a, a_ans), (b_author, b_fact, b, b_ans))[:: 1 if order == "a_first" else -1]
    if a is None or b is None:
        status, design = "missing_passage", ""
    elif same_answer(a_ans, b_ans):
        # Same string in both passages: only the named passage number can tell them apart, which
        # the design allows only when the factualities are equal.
        status, design = ("ok" if a_fact == b_fact else "same_answer"), "number"
    else:
        status, design = "ok", "answer"
    return {"item_id": item_id, "dataset": get("dataset"), "question": get("question"),
            "answer": get("answer"), "a_author": a_author, "b_author": b_author,
            "a_style": a_style, "b_style": b_style, "combo": combo, "a_fact": a_fact, "b_fact": b_fact,
            "order": order, "author_1": one[0], "author_2": two[0], "fact_1": one[1],
            "fact_2": two[1], "text_1": one[2]["text"] if one[2] else None,
            "text_2": two[2]["text"] if two[2] else None, "ans_1": one[3], "ans_2": two[3],
            "design": design, "status": status}


def ask_evaluator(model, evaluator: str, pairs: pd.DataFrame, k_retries: int = 2, max_tokens: int = 48,
              temperature: float = 0.0, retry_temperature: float = 0.7,
              fallback_number: bool = False, chat: bool | None = None,
              passage_rule: str = "authors") -> pd.DataFrame:
    """Ask the generation-phase prompt for every 'ok' pair, with retries; adds the replies."""
    pairs = pairs.copy()
    pairs["evaluator"] = evaluator
    ok = pairs.index[pairs["status"] == "ok"].tolist()
    prompts = [sp.generation_phase_prompt(pairs.at[i, "question"], pairs.at[i, "text_1"],
                                          pairs.at[i, "text_2"]) for i in ok]

    # the fields parse reads, once: a pandas row look-up per reply took 40% of 06 at the papers' sizes
    fields = list(pairs.loc[ok, ["ans_1", "ans_2", "design"]].itertuples(index=False, name=None))

    def parse(j, text):
        ans_1, ans_2, design = fields[j]
        return which_passage(text, ans_1, ans_2, design, fallback_number, passage_rule)[0]

    results = ask_until_parsed(model, prompts, parse, k_retries=k_retries, max_tokens=max_tokens,
                               temperature=temperature, retry_temperature=retry_temperature,
                               desc=f"pairs {evaluator}", chat=chat)
    pairs["responses"] = [[] for _ in range(len(pairs))]
    pairs["attempts"] = 0
    for i, res in zip(ok, results):
        pairs.at[i, "responses"] = res["responses"]
        pairs.at[i, "attempts"] = res["attempts"]
    return score_pairs(pairs, fallback_number, passage_rule)


def ask_evaluators(bank: pd.DataFrame, evaluators: list[str], author_names: dict | None = None,
                   combos=COMBOS, **ask_kw) -> pd.DataFrame:
    """Every evaluator's own passages against every other author's, asked and scored, in one table."""
    return for_each_model(evaluators, author_names,
                          lambda model, name, _: ask_evaluator(model, name, build_pairs(bank, name, combos=combos), **ask_kw))


# v2 section 4.3 (Tables 4, 5): (kind, styled passage, compared with that author's normal passage;
# None = the same author's own normal passage)
STYLE_COMPARISONS = (("gen_by_qa", "qa", "human"), ("long", "long", None))


def style_pairs(bank: pd.DataFrame, focus_style: str, other_author: str | None = None) -> pd.DataFrame:
    """Each author's `focus_style` passage against a normal passage (TT, both orders)."""
    authors = sorted(bank.loc[bank["style"] == focus_style, "author"].unique())
    parts = [build_pairs(bank, a, other_authors=[other_author or a], combos=["TT"],
                         focus_style=focus_style, other_style="normal") for a in authors]
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=_PAIR_COLUMNS)


def ask_style_evaluators(bank: pd.DataFrame, evaluators: list[str], author_names: dict | None = None,
                         **ask_kw) -> pd.DataFrame:
    """The writing-style pairs of STYLE_COMPARISONS asked of every evaluator, with a `kind` column."""
    results = []
    for kind, focus_style, other in STYLE_COMPARISONS:
        pairs = style_pairs(bank, focus_style, other)
        print(f"{kind}: {len(pairs)} pairs, {(pairs['status'] == 'ok').sum()} askable")
        if not len(pairs):
            continue
        results.append(for_each_model(evaluators, author_names,
                                      lambda model, name, _: ask_evaluator(model, name, pairs, **ask_kw)).assign(kind=kind))
    return pd.concat(results, ignore_index=True) if results else pd.DataFrame()


def score_pairs(pairs: pd.DataFrame, fallback_number: bool = False, passage_rule: str = "authors") -> pd.DataFrame:
    """Decide the used passage from the stored replies and derive the preference columns (no model
    call); `passage_rule` as in `which_passage`, so a rule change re-scores without asking again."""
    pairs = pairs.copy()
    choices, methods, replies = [], [], []
    for row in pairs.itertuples(index=False):
        choice, method, used = None, "unparsed" if row.status == "ok" else row.status, ""
        for text in row.responses or []:
            used = text
            choice, method = which_passage(text, row.ans_1, row.ans_2, row.design, fallback_number, passage_rule)
            if choice is not None:
                break
        choices.append(choice)
        methods.append(method)
        replies.append(used)
    pairs["choice"] = pd.array(choices, dtype="Int64")
    pairs["method"] = methods
    pairs["response"] = replies
    pairs = derive_preferences(pairs)
    valid = pairs["valid"]
    pairs["passage_rule"] = passage_rule
    pairs["mentions_true"] = [answer_correct(r, a, passage_rule) if (s == "ok" and r and v) else np.nan
                              for r, a, s, v in zip(pairs["response"], pairs["answer"], pairs["status"], valid)]
    return pairs


def derive_preferences(pairs: pd.DataFrame) -> pd.DataFrame:
    """valid / chose_first / chose_a / chose_true from the `choice` column (1, 2 or missing)."""
    pairs = pairs.copy()
    valid = pairs["choice"].notna()
    first = pairs["choice"] == 1
    a_first = pairs["order"] == "a_first"
    pairs["valid"] = valid
    pairs["chose_first"] = first.astype("boolean").where(valid)
    pairs["chose_a"] = (first == a_first).astype("boolean").where(valid)
    asym = pairs["a_fact"] != pairs["b_fact"]
    pairs["chose_true"] = (pairs["chose_a"] == (pairs["a_fact"] == "true")).where(valid & asym)
    return pairs


def debiased_rate(pairs: pd.DataFrame, column: str) -> float:
    """Position-debiased rate: the mean over both orders of the per-order rate of `column`."""
    rates = [pairs.loc[pairs["order"] == o, column].dropna().astype(float).mean() for o in ORDERS]
    rates = [r for r in rates if not np.isnan(r)]
    return float(np.mean(rates)) if len(rates) == len(ORDERS) else np.nan
