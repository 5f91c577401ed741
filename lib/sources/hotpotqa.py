"""HotpotQA items (multi-hop; two or more ground-truth passages per question).

Returns items with the shared item columns (`id, source, question, answer, aliases, title,
human_passage, query_type, negatives`) plus `supporting_passages` (list of texts, 2+ per question):
the ground-truth evidence of the utility study is the supporting paragraphs (section 2.2.1).
`human_passage` is the first of them, `negatives` the other paragraphs of the record (HotpotQA's
distractors), `query_type` HotpotQA's type (bridge / comparison). Layouts read:
- the distractor-setting release (`hotpot_dev_distractor_v1.json`): `_id, question, answer,
  supporting_facts` ([title, sentence id] pairs), `context` ([title, sentences] pairs);
- the same records as the `datasets` library gives them (`context` / `supporting_facts` as dicts of
  lists);
- KILT (`hotpotqa-dev-kilt.jsonl`): `id, input, output[].answer, output[].provenance` pointing into
  the KILT knowledge source, whose pages (`wikipedia_id`, `text` paragraphs) come from `pages_path`;
- our demo layout (`data/demo/hotpotqa.jsonl`): the item columns with `supporting_passages` as
  [{title, text}] records.
"""
from __future__ import annotations

import random
from pathlib import Path

import pandas as pd

from lib import paths
from lib.records import DataError, as_list, field, read_records

from .common import ITEM_COLUMNS, items_frame

SOURCE = "hotpotqa"
EXTRA_COLUMNS = ["supporting_passages"]
COLUMNS = ITEM_COLUMNS + EXTRA_COLUMNS
DEMO_PATH = paths.DEMO / "hotpotqa.jsonl"
MIN_SUPPORTING = 2


def _item(path, where, qid, question, answer, supporting: list[dict], negatives: list[dict],
          query_type: str = "", aliases=()) -> dict:
    """One item row; fewer than two supporting passages is a DataError naming the item."""
    if len(supporting) < MIN_SUPPORTING:
        raise DataError(f"{path}, item {where}: {len(supporting)} supporting passage(s) found; HotpotQA "
                        f"items need {MIN_SUPPORTING}+ (check 'supporting_facts' titles against 'context').")
    return {"id": f"hotpotqa-{qid}" if not str(qid).startswith("hotpotqa-") else str(qid),
            "source": SOURCE, "question": str(question), "answer": str(answer),
            "aliases": [str(a) for a in aliases], "title": supporting[0]["title"],
            "human_passage": supporting[0]["text"], "query_type": query_type or "",
            "negatives": negatives, "supporting_passages": [s["text"] for s in supporting]}


def _paragraphs(context, path, where) -> list[tuple[str, str]]:
    """(title, paragraph text) pairs from either context layout."""
    if isinstance(context, dict):
        context = list(zip(field(context, "title", path, where), field(context, "sentences", path, where)))
    out = []
    for pair in context:
        if not isinstance(pair, (list, tuple)) or len(pair) != 2:
            raise DataError(f"{path}, item {where}: 'context' entries must be [title, sentences] pairs.")
        title, sents = pair
        out.append((str(title), "".join(as_list(sents)).strip()))
    return out


def _from_distractor(rec: dict, path, where) -> dict:
    """One record of the distractor-setting layout."""
    facts = field(rec, "supporting_facts", path, where)
    titles = list(facts["title"]) if isinstance(facts, dict) else [f[0] for f in facts]
    paras = _paragraphs(field(rec, "context", path, where), path, where)
    sup_titles = list(dict.fromkeys(titles))
    by_title = dict(paras)
    supporting = [{"title": t, "text": by_title[t]} for t in sup_titles if by_title.get(t)]
    negatives = [{"title": t, "text": x} for t, x in paras if t not in sup_titles and x]
    return _item(path, where, rec.get("_id", rec.get("id", where)), field(rec, "question", path, where),
                 field(rec, "answer", path, where), supporting, negatives, rec.get("type", ""))


def _from_kilt(rec: dict, pages: dict, path, where) -> dict:
    """One KILT record; supporting passages are the provenance paragraphs from the knowledge source."""
    outputs = field(rec, "output", path, where)
    answers = [o["answer"] for o in outputs if isinstance(o, dict) and o.get("answer")]
    if not answers:
        raise DataError(f"{path}, item {where}: no 'answer' in 'output'.")
    supporting, seen = [], set()
    for o in outputs:
        for prov in (o.get("provenance") or []) if isinstance(o, dict) else []:
            page = pages.get(str(prov.get("wikipedia_id")))
            if page is None:
                raise DataError(f"{path}, item {where}: page {prov.get('wikipedia_id')} is not in the "
                                "knowledge-source file; pass pages_path= a KILT knowledge-source JSONL "
                                "holding every page the provenance names.")
            start, end = int(prov.get("start_paragraph_id", 0)), int(prov.get("end_paragraph_id", 0))
            text = " ".join(p.strip() for p in page["text"][start:end + 1])
            if text and text not in seen:
                seen.add(text)
                supporting.append({"title": page.get("wikipedia_title", prov.get("title", "")), "text": text})
    return _item(path, where, rec.get("id", where), field(rec, "input", path, where), answers[0],
                 supporting, [], "", aliases=list(dict.fromkeys(answers[1:])))


def _from_demo(rec: dict, path, where) -> dict:
    """One record of our demo layout."""
    sup = field(rec, "supporting_passages", path, where)
    if not all(isinstance(s, dict) and s.get("text") for s in sup):
        raise DataError(f"{path}, item {where}: supporting_passages must be [{{title, text}}] records.")
    negs = field(rec, "negatives", path, where)
    return _item(path, where, field(rec, "id", path, where), field(rec, "question", path, where),
                 field(rec, "answer", path, where), [{"title": s.get("title", ""), "text": s["text"]} for s in sup],
                 list(negs), rec.get("query_type", ""), aliases=as_list(rec.get("aliases")))


def _pages(pages_path) -> dict:
    """KILT knowledge-source pages by wikipedia_id."""
    recs = read_records(pages_path)
    return {str(p["wikipedia_id"]): p for p in (recs if isinstance(recs, list) else [recs])}


def parse_hotpotqa(path, pages_path=None) -> pd.DataFrame:
    """HotpotQA items from a distractor-setting, datasets-library, KILT or demo-layout file."""
    path = Path(path)
    recs = read_records(path)
    recs = recs if isinstance(recs, list) else recs.get("data", [recs]) if isinstance(recs, dict) else []
    pages = None
    rows = []
    for i, rec in enumerate(recs, 1):
        where = f"{i} ({rec.get('_id', rec.get('id', '?')) if isinstance(rec, dict) else '?'})"
        if not isinstance(rec, dict):
            raise DataError(f"{path}, item {where}: expected a JSON object.")
        if "supporting_passages" in rec:
            rows.append(_from_demo(rec, path, where))
        elif "context" in rec:
            rows.append(_from_distractor(rec, path, where))
        elif "input" in rec and "output" in rec:
            if pages is None:
                if not pages_path:
                    raise DataError(f"{path}: KILT records point into the KILT knowledge source; pass "
                                    "pages_path= the knowledge-source JSONL (wikipedia_id, text).")
                pages = _pages(pages_path)
            rows.append(_from_kilt(rec, pages, path, where))
        else:
            raise DataError(f"{path}, item {where}: unknown HotpotQA layout (fields {sorted(rec)}); expected "
                            "the distractor setting (_id, question, answer, supporting_facts, context), "
                            "KILT (id, input, output) or the demo layout.")
    return items_frame(rows, extra=EXTRA_COLUMNS)


def load_hotpotqa(path="", n: int | None = None, seed: int = 0, pages_path=None) -> pd.DataFrame:
    """HotpotQA items (the demo file when `path` is empty), optionally a seeded sample of n."""
    items = parse_hotpotqa(path or DEMO_PATH, pages_path)
    if n is None or n >= len(items):
        return items
    order = list(range(len(items)))
    random.Random(seed).shuffle(order)
    return items.iloc[sorted(order[:n])].reset_index(drop=True)
