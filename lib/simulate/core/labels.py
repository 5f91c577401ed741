"""Whether a passage states its item's true answer, decided by the simulator from the data it was
given (the demo items' gold answers and written false answers) and the false answers it wrote itself,
never from a label the pipeline wrote (notebook 02's `factuality` column): a bank that labels a true
text false is then caught, not followed."""
from __future__ import annotations


def _has(text: str, phrase: str) -> bool:
    """Whether `phrase` occurs in `text` (case-insensitive, whitespace collapsed)."""
    phrase = " ".join(str(phrase or "").split()).lower()
    return bool(phrase) and phrase in " ".join(str(text).split()).lower()


def simulator_false_answer(item: dict, answer: str) -> str:
    """The false answer the simulator writes for an item when notebook 02 asks for one: the item's
    written false answer, or (none, or one holding the answer) the answer plus 7 for a number, else a
    fixed place name."""
    fa = str(item.get("false_answer_ours") or "").strip()
    if not fa or str(answer).lower() in fa.lower():
        fa = str(int(answer) + 7) if str(answer).strip().isdigit() else "Valparaiso"
    return fa


def false_answers(item: dict) -> list[str]:
    """Every false answer a false passage of this item can state: the simulator's own and the item's written one."""
    out = [simulator_false_answer(item, str(item.get("answer", "")))]
    written = str(item.get("false_answer_ours") or "").strip()
    return list(dict.fromkeys(a for a in out + [written] if a))


def stated_answer(item: dict, text: str) -> tuple[bool, str]:
    """(true, the answer the passage states): false when it states one of the item's false answers and
    not its gold answer (how a false passage is made: every mention of the answer swapped), else true."""
    gold = str(item.get("answer", ""))
    if not _has(text, gold):
        for fa in false_answers(item):
            if _has(text, fa):
                return False, fa
    return True, gold
