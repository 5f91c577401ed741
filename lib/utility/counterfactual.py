"""Counterfactual passages (CP) for GTI, by dataset, as section 2.2.4 builds them.

Entity-style data (nq, hotpotqa, triviaqa): entity substitution. Every answer of the dataset goes
into an entity corpus, typed; for each item a different answer of the same type (corpus
substitution) or of another type (type swap) replaces EVERY occurrence of the answer and its aliases
in each ground-truth passage, case-insensitive, whole words. For HotpotQA (2+ ground-truth passages)
each supporting passage that carries the answer is substituted; yes / no answers carry no entity and
get no CP (counted). Seeded per item. A result that still carries the answer is dropped (counted).
MS MARCO: always generation. The claim is the answer with one of its entities swapped the same way
(2.2.4 step i), the paper's evidence prompt (verbatim, temperature 0.7, cached) writes fake evidence
for it, and evidence that still carries the true answer is dropped (counted).
Deviations, stated in notebook 09: no spaCy offline, so entities are typed by surface form (date,
numeric, other) instead of spaCy's five types, and MS MARCO entities are the capitalised or numeric
spans of the answer not in the question; no DeBERTa NLI filter (steps ii and iv).
"""
from __future__ import annotations

import random
import re

from lib.prompts.utility import counterfactual_evidence_prompt
from lib.textmatch import matches
from lib.utility.benchmark import ground_truths, item_seed
from lib.utility.calls import Ledger, ask

EVIDENCE_TOKENS = 140
ENTITY_STYLE = ("nq", "hotpotqa", "triviaqa")
_MONTHS = ("january|february|march|april|may|june|july|august|september|october|november|december")
_DATE = re.compile(rf"\b(1\d{{3}}|20\d{{2}})\b|\b({_MONTHS})\b", re.I)
_NUM = re.compile(r"\d")
_SPAN = re.compile(r"\b(?:[A-Z][\w'-]*|\d[\d,.]*)(?:\s+(?:of\s+|the\s+|de\s+|da\s+)?(?:[A-Z][\w'-]*|\d[\d,.]*))*")
YES_NO = {"yes", "no"}


def entity_type(text: str) -> str:
    """Surface type of an answer: date, numeric or other (stand-in for spaCy's five types)."""
    if _DATE.search(text or ""):
        return "date"
    if _NUM.search(text or ""):
        return "numeric"
    return "other"


def entity_corpus(answers: list[str]) -> dict[str, list[str]]:
    """Distinct answers by type (yes / no left out: they name no entity)."""
    corpus: dict[str, list[str]] = {}
    for a in dict.fromkeys(a.strip() for a in answers if a and a.strip()):
        if a.lower() not in YES_NO:
            corpus.setdefault(entity_type(a), []).append(a)
    return corpus


def replacements(answer: str, aliases: list[str], corpus: dict[str, list[str]], n: int,
                 rng: random.Random) -> list[tuple[str, str]]:
    """Up to n (substitute, kind) pairs, alternating corpus substitution (same type) and type swap
    (another type); never the answer or an alias."""
    taken = {s.lower() for s in [answer, *aliases]}
    own = entity_type(answer)
    same = [a for a in corpus.get(own, []) if a.lower() not in taken]
    other = [a for t, v in corpus.items() if t != own for a in v if a.lower() not in taken]
    rng.shuffle(same)
    rng.shuffle(other)
    out = []
    while len(out) < n and (same or other):
        for pool, kind in ((same, "corpus"), (other, "type-swap")):
            if pool and len(out) < n:
                out.append((pool.pop(), kind))
    return out


def substitute(text: str, targets: list[str], new: str) -> str:
    """Every occurrence of each target (longest first), case-insensitive, whole words, -> new."""
    for t in sorted((t for t in targets if t and t.strip()), key=len, reverse=True):
        text = re.sub(rf"(?<!\w){re.escape(t)}(?!\w)", lambda _: new, text, flags=re.I)
    return text


def substituted_passages(item: dict, corpus: dict[str, list[str]], n: int, seed: int = 0
                         ) -> tuple[list[str], int]:
    """n CP passages of one entity-style item, and how many substitutions were dropped."""
    answer, aliases = item["answer"], list(item.get("aliases") or [])
    if answer.strip().lower() in YES_NO:
        return [], 0
    rng = random.Random(item_seed(seed, "cp/" + str(item["id"])))
    carriers = [p for p in ground_truths(item) if matches(p, answer, rule="whole_word", aliases=aliases)]
    out, dropped = [], 0
    for new, _ in replacements(answer, aliases, corpus, n * 2, rng):
        for p in carriers:
            made = substitute(p, [answer, *aliases], new)
            if matches(made, answer, rule="whole_word", aliases=aliases) or made == p:
                dropped += 1
            elif made not in out:
                out.append(made)
        if len(out) >= n:
            break
    return out[:n], dropped


def answer_entities(answer: str) -> list[str]:
    """Capitalised or numeric spans of a sentence answer (MS MARCO's entity corpus, no spaCy)."""
    return _SPAN.findall(answer or "")


def false_claim(item: dict, corpus: dict[str, list[str]], rng: random.Random) -> tuple[str, str] | None:
    """MS MARCO claim (2.2.4 step i): the answer with one entity not in the question swapped; returns
    (claim, the swapped-out true entity)."""
    answer, question = item["answer"], item["question"].lower()
    spans = [s for s in answer_entities(answer) if s.lower() not in question]
    if not spans:
        return None
    target = rng.choice(spans)
    subs = replacements(target, [], corpus, 1, rng)
    if not subs:
        return None
    swapped = substitute(answer, [target], subs[0][0])
    # OUR wording for short (entity-only) answers, so the claim is a statement.
    claim = swapped if len(answer.split()) >= 4 else f"The answer to '{item['question']}' is {swapped}."
    return claim, target


def claim_jobs(items: list[dict], corpora: dict[str, dict], n: int, seed: int = 0
               ) -> tuple[list[tuple[int, tuple[str, str]]], int]:
    """The evidence requests of MS MARCO items: (item index, (claim, swapped-out entity)) for up to n
    distinct claims per item (3n seeded draws; an answer with no entity to swap has none), and how
    many items got no claim. The plan counts 09's requests with it (lib.planning.sizes)."""
    jobs = []
    no_claim = 0
    for k, it in enumerate(items):
        rng = random.Random(item_seed(seed, "claim/" + str(it["id"])))
        corpus = corpora.get(it.get("source", ""), {})
        claims = list(dict.fromkeys(c for c in (false_claim(it, corpus, rng) for _ in range(3 * n)) if c))
        no_claim += not claims
        jobs += [(k, c) for c in claims[:n]]
    return jobs, no_claim


def generated_passages(model, items: list[dict], corpora: dict[str, dict], n: int, seed: int = 0,
                       ledger: Ledger | None = None, key: tuple | None = None
                       ) -> tuple[list[list[str]], dict]:
    """n generated CP per MS MARCO item (one claim per sample), answer-carrying ones dropped."""
    jobs, no_claim = claim_jobs(items, corpora, n, seed)
    replies = ask(model, [counterfactual_evidence_prompt(c) for _, (c, _) in jobs], EVIDENCE_TOKENS,
                  temperature=0.7, desc="counterfactual evidence", ledger=ledger, key=key)
    out: list[list[str]] = [[] for _ in items]
    kept_answer = 0
    for (k, (_, target)), text in zip(jobs, replies):
        text = " ".join((text or "").split())
        it = items[k]
        if not text:
            continue
        # "Still carries the true answer": the answer itself, an alias, or the entity the claim replaced.
        if matches(text, it["answer"], rule="whole_word", aliases=[*(it.get("aliases") or []), target]):
            kept_answer += 1
            continue
        out[k].append(text)
    return out, {"claims": len(jobs), "items_without_claim": no_claim,
                 "generated_with_true_answer_dropped": kept_answer}


def entity_corpora(items: list[dict], pool: list[dict]) -> dict[str, dict[str, list[str]]]:
    """Per source of `items`, the entity corpus of its answers in `pool` (MS MARCO: the answers'
    entities; the others: the answers themselves)."""
    return {src: entity_corpus([e for it in pool if it.get("source") == src
                                for e in (answer_entities(it["answer"]) if src not in ENTITY_STYLE
                                          else [it["answer"]])])
            for src in {it.get("source", "") for it in items}}


def counterfactuals(model, items: list[dict], n: int, seed: int = 0, ledger: Ledger | None = None,
                    corpus_items: list[dict] | None = None) -> tuple[list[list[str]], dict]:
    """n CP passages per item by its dataset, plus a report of what was made and dropped."""
    corpora = entity_corpora(items, corpus_items if corpus_items is not None else items)
    result: list[list[str]] = [[] for _ in items]
    report = {"substitutions_dropped": 0, "entity_items_without_cp": 0}
    marco = [k for k, it in enumerate(items) if it.get("source") not in ENTITY_STYLE]
    for k, it in enumerate(items):
        if k not in marco:
            result[k], dropped = substituted_passages(it, corpora[it.get("source", "")], n, seed)
            report["substitutions_dropped"] += dropped
            report["entity_items_without_cp"] += not result[k]
    if marco:
        gen, rep = generated_passages(model, [items[k] for k in marco], corpora, n, seed, ledger)
        for k, g in zip(marco, gen):
            result[k] = g
        report.update(rep)
    report["items_short_of_n"] = sum(len(r) < n for r in result)
    return result, report
