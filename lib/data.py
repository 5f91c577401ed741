"""Self-preference study data: QA sources (NQ, MS MARCO, TriviaQA, demo), the passage bank and the
knowledge files, in our layout or in the layout of the study's public release.

Every loader returns items with the columns of `ITEM_COLUMNS`; every bank loader returns the long
table of `BANK_COLUMNS`. Structural problems (unknown layout, missing field) raise `DataError` naming
the file, the item and the field; items that are unusable for the study (no passage, answer not in
the passage) are dropped and counted, never skipped silently.
"""
from __future__ import annotations

import json
import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from lib import config
from lib.records import DataError, as_list as _as_list, field as _field, read_records as _read_records  # noqa: F401

SOURCES = ("nq", "marco", "triviaqa")
ITEM_COLUMNS = ["id", "source", "question", "answer", "aliases", "title", "human_passage",
                "query_type", "negatives"]
BANK_COLUMNS = ["item_id", "dataset", "question", "answer", "false_answer", "author", "factuality",
                "style", "text", "false_by"]
# v1 of the paper keeps only these MS MARCO query types (section 3.1).
MARCO_V1_QUERY_TYPES = ("PERSON", "ENTITY", "LOCATION")
MARCO_NO_ANSWER = "no answer present."


# ---------------------------------------------------------------- small helpers

def _words(text: str) -> int:
    """Whitespace word count, the length unit of the paper's tables."""
    return len(str(text).split())


def dataset_from_name(name: str) -> str:
    """Dataset short name guessed from a file name ('marco-both-true.json' -> 'marco')."""
    low = Path(str(name)).name.lower()
    if "marco" in low:
        return "marco"
    if "trivia" in low:
        return "triviaqa"
    if re.search(r"(^|[^a-z])nq([^a-z]|$)", low) or "natural" in low:
        return "nq"
    return "unknown"


def _items_frame(rows: list[dict]) -> pd.DataFrame:
    """Item rows as a DataFrame with exactly ITEM_COLUMNS."""
    return pd.DataFrame(rows, columns=ITEM_COLUMNS)


def _load_hf(spec: str):
    """'hf:<id>[:<config>[:<split>]]' through `datasets` (needs network or a local HF cache)."""
    import datasets  # imported here: slow, and only needed online

    parts = spec[3:].split(":")
    name, cfg = parts[0], (parts[1] or None) if len(parts) > 1 else None
    split = parts[2] if len(parts) > 2 else "validation"
    try:
        return datasets.load_dataset(name, cfg, split=split)
    except Exception as err:  # noqa: BLE001 - re-raised with the fix
        raise DataError(f"{spec}: could not load through `datasets` ({err}). Offline, download the "
                        "files and pass their path instead.") from None


def _records(source) -> tuple[list, str]:
    """Records from a path, an 'hf:' spec or an in-memory list, plus a label for messages."""
    if isinstance(source, (list, tuple)):
        return list(source), "<records>"
    if isinstance(source, str) and source.startswith("hf:"):
        return list(_load_hf(source)), source
    path = Path(source)
    data = _read_records(path)
    return data, str(path)


# ---------------------------------------------------------------- QA sources

def parse_nq(source) -> pd.DataFrame:
    """NQ in the DPR layout (question, answers, positive_ctxs[title, text]); Tevatron's
    query / positive_passages spelling is accepted too. The human passage is the first positive."""
    recs, label = _records(source)
    if isinstance(recs, dict):
        raise DataError(f"{label}: expected a list of NQ items (DPR layout), got a JSON object.")
    rows = []
    for i, rec in enumerate(recs):
        question = rec.get("question", rec.get("query")) if isinstance(rec, dict) else None
        if question is None:
            _field(rec, "question", label, i)
        answers = _as_list(_field(rec, "answers", label, i))
        pos_key = "positive_ctxs" if "positive_ctxs" in rec else "positive_passages"
        positives = _as_list(_field(rec, pos_key if pos_key in rec else "positive_ctxs", label, i))
        neg_key = next((k for k in ("hard_negative_ctxs", "negative_ctxs", "negative_passages")
                        if rec.get(k)), None)
        first = positives[0] if positives else {}
        rows.append({
            "id": str(rec.get("id", f"nq-{i}")), "source": "nq", "question": str(question),
            "answer": str(answers[0]) if answers else "", "aliases": [str(a) for a in answers[1:]],
            "title": str(first.get("title", "")), "human_passage": str(first.get("text", "")),
            "query_type": "",
            "negatives": [{"title": str(n.get("title", "")), "text": str(n.get("text", ""))}
                          for n in _as_list(rec.get(neg_key)) if neg_key],
        })
    return _items_frame(rows)


def _marco_passages(value, label, i) -> list[dict]:
    """MS MARCO passages as a list of {is_selected, passage_text, url}, from either layout
    (list of objects in the JSON files, object of lists in `datasets`)."""
    if isinstance(value, dict):
        texts = _as_list(_field(value, "passage_text", label, i))
        sel = _as_list(_field(value, "is_selected", label, i))
        urls = _as_list(value.get("url")) or [""] * len(texts)
        return [{"is_selected": s, "passage_text": t, "url": u} for s, t, u in zip(sel, texts, urls)]
    return [{"is_selected": _field(p, "is_selected", label, f"{i} passage {j}"),
             "passage_text": _field(p, "passage_text", label, f"{i} passage {j}"),
             "url": p.get("url", "")} for j, p in enumerate(_as_list(value))]


def _columns_to_records(data: dict) -> list[dict]:
    """The official v2.1 JSON files store columns ({'query': {'0': ...}, ...}); make rows."""
    keys = list(next(iter(data.values())).keys())
    return [{col: data[col].get(k) for col in data} for k in keys]


def parse_marco(source, query_types=MARCO_V1_QUERY_TYPES) -> pd.DataFrame:
    """MS MARCO v2.1 (query, query_type, passages[is_selected, passage_text], answers); the human
    passage is the first selected one. `query_types=None` keeps every type."""
    recs, label = _records(source)
    if isinstance(recs, dict):
        if "query" not in recs:
            raise DataError(f"{label}: unknown MS MARCO layout; expected rows or v2.1 columns with "
                            "'query', 'query_type', 'passages', 'answers'.")
        recs = _columns_to_records(recs)
    wanted = {t.upper() for t in query_types} if query_types else None
    rows = []
    for i, rec in enumerate(recs):
        qtype = str(_field(rec, "query_type", label, i)).upper()
        if wanted is not None and qtype not in wanted:
            continue
        passages = _marco_passages(_field(rec, "passages", label, i), label, i)
        chosen = next((p for p in passages if int(p["is_selected"]) == 1), None)
        answers = [a for a in _as_list(_field(rec, "answers", label, i))
                   if str(a).strip().lower() != MARCO_NO_ANSWER]
        rows.append({
            "id": str(rec.get("query_id", f"marco-{i}")), "source": "marco",
            "question": str(_field(rec, "query", label, i)),
            "answer": str(answers[0]) if answers else "", "aliases": [str(a) for a in answers[1:]],
            "title": str(chosen.get("url", "")) if chosen else "",
            "human_passage": str(chosen["passage_text"]) if chosen else "",
            "query_type": qtype,
            "negatives": [{"title": str(p.get("url", "")), "text": str(p["passage_text"])}
                          for p in passages if int(p["is_selected"]) != 1],
        })
    return _items_frame(rows)


def _evidence_window(text: str, needles: list[str], width: int) -> str:
    """About `width` words of evidence around the first mention of any answer string."""
    low = text.lower()
    hits = [low.find(n.lower()) for n in needles if n and low.find(n.lower()) >= 0]
    if not hits:
        return " ".join(text.split()[:width])
    start_word = len(text[:min(hits)].split())
    words = text.split()
    lo = max(0, start_word - width // 3)
    return " ".join(words[lo:lo + width])


def parse_triviaqa(source, window_words: int = 200) -> pd.DataFrame:
    """TriviaQA: question, answer value and aliases, evidence text. Accepts the `datasets` rc
    layout (answer{value, aliases}, entity_pages.wiki_context, search_results.search_context), the
    original JSON ({'Data': [...]} with Question/Answer and inline evidence) and a flat
    layout (question, answer, aliases, evidence). The human passage is a window of evidence."""
    recs, label = _records(source)
    if isinstance(recs, dict):
        recs = _field(recs, "Data", label, "top level")
    rows = []
    for i, rec in enumerate(recs):
        question = rec.get("question", rec.get("Question")) if isinstance(rec, dict) else None
        if question is None:
            _field(rec, "question", label, i)
        ans = rec.get("answer", rec.get("Answer"))
        if ans is None:
            _field(rec, "answer", label, i)
        if isinstance(ans, dict):
            value = ans.get("value", ans.get("Value"))
            if value is None:
                raise DataError(f"{label}, item {i}: field 'answer' has no 'value'.")
            aliases = _as_list(ans.get("aliases", ans.get("Aliases")))
        else:
            value, aliases = ans, _as_list(rec.get("aliases"))
        evidence, title = [], ""
        for key, sub, tkey in (("entity_pages", "wiki_context", "title"),
                               ("search_results", "search_context", "title"),
                               ("EntityPages", "Text", "Title"), ("SearchResults", "Text", "Title")):
            block = rec.get(key)
            if isinstance(block, dict):
                evidence += [str(t) for t in _as_list(block.get(sub)) if t]
                title = title or next(iter(_as_list(block.get(tkey))), "")
            elif isinstance(block, list):
                evidence += [str(b.get(sub, "")) for b in block if b.get(sub)]
                title = title or next((b.get(tkey, "") for b in block), "")
        if isinstance(rec.get("evidence"), str):
            evidence.append(rec["evidence"])
        needles = [str(value)] + [str(a) for a in aliases]
        doc = next((e for e in evidence if any(n.lower() in e.lower() for n in needles if n)),
                   evidence[0] if evidence else "")
        rows.append({
            "id": str(rec.get("question_id", rec.get("QuestionId", f"triviaqa-{i}"))),
            "source": "triviaqa", "question": str(question), "answer": str(value),
            "aliases": [a for a in map(str, aliases) if a != str(value)], "title": str(title),
            "human_passage": _evidence_window(doc, needles, window_words) if doc else "",
            "query_type": "", "negatives": [],
        })
    return _items_frame(rows)


def demo_path(source: str) -> Path:
    """Path of one demo file (data/demo/<source>.jsonl)."""
    if source not in SOURCES:
        raise DataError(f"Unknown demo source {source!r}; choose one of {SOURCES}.")
    return config.DEMO / f"{source}.jsonl"


def parse_demo(path) -> pd.DataFrame:
    """Items of one demo-layout JSONL file, every field checked."""
    path = Path(path)
    recs = _read_records(path)
    rows = []
    for i, rec in enumerate(recs, 1):
        where = f"line {i} ({rec.get('id', '?') if isinstance(rec, dict) else '?'})"
        row = {c: _field(rec, c, path, where) for c in ITEM_COLUMNS if c not in ("query_type", "title")}
        row["title"] = rec.get("title", "")
        row["query_type"] = rec.get("query_type", "") or ""
        if not isinstance(row["aliases"], list) or not isinstance(row["negatives"], list):
            raise DataError(f"{path}, item {where}: 'aliases' and 'negatives' must be lists.")
        for j, neg in enumerate(row["negatives"]):
            if not isinstance(neg, dict) or "text" not in neg:
                raise DataError(f"{path}, item {where}: negatives[{j}] needs a 'text' field.")
        rows.append(row)
    return _items_frame(rows)


def load_source(source: str, path: str = "", query_types=MARCO_V1_QUERY_TYPES,
                window_words: int = 200) -> pd.DataFrame:
    """All items of one source: the demo file when `path` is empty, else a downloaded file, an
    'hf:<id>[:<config>[:<split>]]' spec, or a demo-layout JSONL."""
    if source not in SOURCES:
        raise DataError(f"Unknown source {source!r}; choose one of {SOURCES}.")
    if not path:
        return parse_demo(demo_path(source))
    if str(path).endswith(".jsonl") and not str(path).startswith("hf:"):
        first = next(iter(_read_records(Path(path))), {})
        if isinstance(first, dict) and "human_passage" in first:
            return parse_demo(path)
    if source == "nq":
        return parse_nq(path)
    if source == "marco":
        return parse_marco(path, query_types=query_types)
    return parse_triviaqa(path, window_words=window_words)


def answer_in_passage(passage: str, answer: str, aliases) -> str | None:
    """The first of answer and aliases found in the passage (case-insensitive), or None."""
    low = str(passage).lower()
    for cand in [answer, *_as_list(aliases)]:
        if str(cand).strip() and str(cand).lower() in low:
            return str(cand)
    return None


def sample_items(items: pd.DataFrame, n: int | None = None, seed: int = 0
                 ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Seeded sample of up to n usable items, plus the dropped items with their reason.

    Items are shuffled with the seed and taken in order; an item is dropped when its passage is
    empty, it has no answer, or no answer string occurs in the passage (the bank needs it to make
    false passages). When an alias occurs but the main answer does not, the alias becomes the
    answer. Only items examined before n were found count as dropped."""
    order = np.random.default_rng(seed).permutation(len(items))
    kept, dropped = [], []
    for pos in order:
        if n is not None and len(kept) >= n:
            break
        row = items.iloc[int(pos)].to_dict()
        if not str(row["human_passage"]).strip():
            dropped.append({"id": row["id"], "source": row["source"], "reason": "empty passage"})
            continue
        if not str(row["answer"]).strip():
            dropped.append({"id": row["id"], "source": row["source"], "reason": "no answer"})
            continue
        found = answer_in_passage(row["human_passage"], row["answer"], row["aliases"])
        if found is None:
            dropped.append({"id": row["id"], "source": row["source"],
                            "reason": "answer not in passage"})
            continue
        if found != row["answer"]:
            row["aliases"] = [row["answer"]] + [a for a in row["aliases"] if a != found]
            row["answer"] = found
        kept.append(row)
    return (_items_frame(kept).reset_index(drop=True),
            pd.DataFrame(dropped, columns=["id", "source", "reason"]))


def load_demo(source: str, n: int | None = None, seed: int = 0) -> pd.DataFrame:
    """Demo items of one source (nq, marco, triviaqa), optionally a seeded sample of n."""
    items = parse_demo(demo_path(source))
    if n is None:
        return items
    kept, _ = sample_items(items, n, seed)
    return kept


def save_items(items: pd.DataFrame, path) -> Path:
    """Write items as JSONL (the demo layout)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    items[ITEM_COLUMNS].to_json(path, orient="records", lines=True, force_ascii=False)
    return path


def length_stats(items: pd.DataFrame) -> pd.DataFrame:
    """Per source: item count, query and passage length in words (mean, sd), like v1 Table 2."""
    df = items.assign(q_len=items["question"].map(_words),
                      p_len=items["human_passage"].map(_words))
    out = df.groupby("source").agg(n=("id", "size"), query_len_mean=("q_len", "mean"),
                                   query_len_sd=("q_len", "std"), passage_len_mean=("p_len", "mean"),
                                   passage_len_sd=("p_len", "std"))
    return out.round(2).reset_index()


# ---------------------------------------------------------------- the study's public release

RELEASE_BOTH_TRUE = ["index", "question", "answer", "human_true", "gpt_true", "llama_true",
                     "gpt_false_ans", "llama_false_ans", "gpt_false", "llama_false",
                     "human_false_gpt", "human_false_llama"]
RELEASE_WRITING_STYLE = ["index", "question", "answer", "gpt_false_ans", "llama_false_ans", "human",
                         "gpt_normal", "llama_normal", "gpt_long", "llama_long", "gpt_qa", "llama_qa"]
RELEASE_READING = ["question", "true_answer", "false_answer", "human_true", "human_false",
                   "ai_true", "ai_false"]
RELEASE_MODELS = ("gpt", "llama")
LAYOUT_HELP = ("Known passage layouts: our bank (JSONL with " + ", ".join(BANK_COLUMNS[:-1]) +
               "); the release's '*-both-true.json' (" + ", ".join(RELEASE_BOTH_TRUE) +
               "); '*-writing-style.json' (" + ", ".join(RELEASE_WRITING_STYLE) +
               "); 'reading_comprehension_data_<model>_1000.json' (" + ", ".join(RELEASE_READING) + ").")


def _check_fields(recs: list, fields: list[str], path) -> None:
    """Every record has every field, else a DataError naming file, item and field."""
    for i, rec in enumerate(recs):
        for f in fields:
            _field(rec, f, path, rec.get("index", i) if isinstance(rec, dict) else i)


def _bank_row(item_id, dataset, q, a, fa, author, fact, style, text, false_by="") -> dict:
    """One bank row in BANK_COLUMNS order."""
    return dict(zip(BANK_COLUMNS, [str(item_id), dataset, str(q), str(a), str(fa), author, fact,
                                   style, "" if text is None else str(text), false_by]))


def _release_both_true(recs, dataset) -> list[dict]:
    """Rows of a '*-both-true.json' file: true and false passages by human, gpt, llama."""
    rows = []
    for r in recs:
        iid, q, a = f"{dataset}-{r['index']}", r["question"], r["answer"]
        for author in ("human", *RELEASE_MODELS):
            rows.append(_bank_row(iid, dataset, q, a, "", author, "true", "normal", r[f"{author}_true"]))
        for m in RELEASE_MODELS:
            fa = r[f"{m}_false_ans"]
            rows.append(_bank_row(iid, dataset, q, a, fa, m, "false", "normal", r[f"{m}_false"], m))
            rows.append(_bank_row(iid, dataset, q, a, fa, "human", "false", "normal",
                                  r[f"human_false_{m}"], m))
    return rows


def _release_writing_style(recs, dataset) -> list[dict]:
    """Rows of a '*-writing-style.json' file: true passages in normal, long and QA style."""
    rows = []
    for r in recs:
        iid, q, a = f"{dataset}-{r['index']}", r["question"], r["answer"]
        rows.append(_bank_row(iid, dataset, q, a, "", "human", "true", "normal", r["human"]))
        for m in RELEASE_MODELS:
            for style in ("normal", "long", "qa"):
                rows.append(_bank_row(iid, dataset, q, a, "", m, "true", style, r[f"{m}_{style}"]))
    return rows


def _release_reading(recs, dataset, model) -> list[dict]:
    """Rows of 'reading_comprehension_data_<model>_1000.json': human and <model> passages."""
    rows = []
    for i, r in enumerate(recs):
        iid, q, a, fa = f"{dataset}-{i}", r["question"], r["true_answer"], r["false_answer"]
        for author, key in (("human", "human"), (model, "ai")):
            rows.append(_bank_row(iid, dataset, q, a, "", author, "true", "normal", r[f"{key}_true"]))
            rows.append(_bank_row(iid, dataset, q, a, fa, author, "false", "normal",
                                  r[f"{key}_false"], model))
    return rows


def _bank_from_file(path: Path, dataset: str | None) -> pd.DataFrame:
    """One passage file, its layout found from its fields."""
    recs = _read_records(path)
    dataset = dataset or dataset_from_name(path.name)
    if isinstance(recs, dict) or not recs:
        raise DataError(f"{path}: not a passage file (expected a non-empty list of objects). "
                        + LAYOUT_HELP)
    first = recs[0] if isinstance(recs[0], dict) else {}
    if {"item_id", "author", "factuality", "text"} <= set(first):
        _check_fields(recs, [c for c in BANK_COLUMNS if c != "false_by"], path)
        df = pd.DataFrame(recs)
        if "false_by" not in df:
            df["false_by"] = ""
        return df
    if "human_true" in first and "gpt_true" in first:
        _check_fields(recs, RELEASE_BOTH_TRUE, path)
        return pd.DataFrame(_release_both_true(recs, dataset), columns=BANK_COLUMNS)
    if "gpt_normal" in first:
        _check_fields(recs, RELEASE_WRITING_STYLE, path)
        return pd.DataFrame(_release_writing_style(recs, dataset), columns=BANK_COLUMNS)
    if "ai_true" in first:
        _check_fields(recs, RELEASE_READING, path)
        m = re.search(r"reading_comprehension_data_(.+?)_\d+\.json$", path.name)
        model = m.group(1) if m else "ai"
        return pd.DataFrame(_release_reading(recs, dataset, model), columns=BANK_COLUMNS)
    raise DataError(f"{path}: unknown passage layout (first item has fields {sorted(first)}). "
                    + LAYOUT_HELP)


def load_bank(path, dataset: str | None = None, return_dropped: bool = False):
    """The passage bank as one long DataFrame (item_id, dataset, question, answer, false_answer,
    author, factuality, style, text, false_by), from our bank JSONL, a release JSON file, or a
    folder of them. Rows with an empty text are dropped with a warning that counts them;
    `return_dropped=True` also returns those rows."""
    path = Path(path)
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.suffix in (".json", ".jsonl")
                       and "knowledge" not in p.name and "perplexity" not in p.name)
        if not files:
            raise DataError(f"{path}: folder holds no passage files. " + LAYOUT_HELP)
        df = pd.concat([_bank_from_file(p, dataset) for p in files], ignore_index=True)
        df = df.drop_duplicates(subset=BANK_COLUMNS).reset_index(drop=True)
    else:
        df = _bank_from_file(path, dataset)
    empty = df["text"].fillna("").astype(str).str.strip() == ""
    if empty.any():
        warnings.warn(f"{path}: dropped {int(empty.sum())} passages with empty text "
                      f"(first: item {df.loc[empty, 'item_id'].iloc[0]}, "
                      f"author {df.loc[empty, 'author'].iloc[0]}).", stacklevel=2)
    kept = df[~empty].reset_index(drop=True)
    return (kept, df[empty].reset_index(drop=True)) if return_dropped else kept


def save_bank(bank: pd.DataFrame, path) -> Path:
    """Write a bank as JSONL that `load_bank` reads back."""
    missing = [c for c in BANK_COLUMNS if c not in bank]
    if missing:
        raise DataError(f"bank to save at {path} lacks columns {missing}.")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    bank.to_json(path, orient="records", lines=True, force_ascii=False)
    return path


# ---------------------------------------------------------------- knowledge and perplexity files

KNOWLEDGE_LEVELS = ("none", "partial", "full")


def knowledge_level(n_correct: int, n_samples: int = 5) -> str:
    """'none' if never correct, 'full' if always, else 'partial' (section 3.1)."""
    n = int(n_correct)
    if not 0 <= n <= n_samples:
        raise DataError(f"n_correct={n} is outside 0..{n_samples}.")
    return "none" if n == 0 else "full" if n == n_samples else "partial"


def _knowledge_from_file(path: Path) -> pd.DataFrame:
    """One knowledge file: our JSONL (one row per model and item) or a release JSON."""
    recs = _read_records(path)
    if isinstance(recs, dict):
        levels = _as_list(_field(recs, "knowledge_level", path, "top level"))
        m = re.search(r"knowledge_scale_of_5_?(.*?)\.json$", path.name)
        model = (m.group(1) if m and m.group(1) else "unknown")
        dataset = dataset_from_name(path.name)
        dist = recs.get("distribution")
        counts = [int(sum(1 for x in levels if int(x) == k)) for k in range(6)]
        if dist is not None and [int(x) for x in dist] != counts:
            warnings.warn(f"{path}: 'distribution' {list(dist)} disagrees with the counts of "
                          f"'knowledge_level' {counts}; using 'knowledge_level'.", stacklevel=3)
        rows = []
        for i, lvl in enumerate(levels):
            if not isinstance(lvl, (int, float)) or not 0 <= lvl <= 5:
                raise DataError(f"{path}, item {i}: 'knowledge_level' must be 0..5, got {lvl!r}.")
            rows.append({"item_id": f"{dataset}-{i}", "dataset": dataset, "model": model,
                         "n_correct": int(lvl)})
        return pd.DataFrame(rows)
    if not recs:
        raise DataError(f"{path}: knowledge file is empty.")
    for i, rec in enumerate(recs):
        for f in ("item_id", "model", "n_correct"):
            _field(rec, f, path, rec.get("item_id", i) if isinstance(rec, dict) else i)
    df = pd.DataFrame(recs)
    if "dataset" not in df:
        df["dataset"] = df["item_id"].map(lambda s: str(s).split("-")[0])
    return df


def load_knowledge(path) -> pd.DataFrame:
    """Knowledge levels, one row per (model, item): item_id, n_correct (0..5), level
    (none / partial / full), plus dataset and model; from our knowledge JSONL, a release
    '*_knowledge_scale_of_5_*.json', or a folder of those."""
    path = Path(path)
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if "knowledge" in p.name
                       and p.suffix in (".json", ".jsonl"))
        if not files:
            raise DataError(f"{path}: folder holds no knowledge files (names containing 'knowledge').")
        df = pd.concat([_knowledge_from_file(p) for p in files], ignore_index=True)
    else:
        df = _knowledge_from_file(path)
    df["n_correct"] = df["n_correct"].astype(int)
    n_samples = df["n_samples"].fillna(5).astype(int) if "n_samples" in df else pd.Series(5, index=df.index)
    df["level"] = [knowledge_level(n, s) for n, s in zip(df["n_correct"], n_samples)]
    front = ["item_id", "n_correct", "level", "dataset", "model"]
    return df[front + [c for c in df.columns if c not in front]]


def load_perplexity(path) -> pd.DataFrame:
    """A release '*_perplexity.json' ({author: [ppl, ...]}) as long rows: dataset, author,
    position, ppl. Lists of equal length are taken as the same items in the same order."""
    path = Path(path)
    data = _read_records(path)
    if not isinstance(data, dict) or not data:
        raise DataError(f"{path}: expected an object of author -> list of perplexities.")
    dataset = dataset_from_name(path.name)
    rows = []
    for author, values in data.items():
        if not isinstance(values, list):
            raise DataError(f"{path}, author {author!r}: expected a list of numbers.")
        for i, v in enumerate(values):
            if not isinstance(v, (int, float)) or not np.isfinite(v):
                raise DataError(f"{path}, author {author!r}, item {i}: perplexity {v!r} is not a number.")
            rows.append({"dataset": dataset, "author": author, "position": i, "ppl": float(v)})
    return pd.DataFrame(rows)


# ---------------------------------------------------------------- items of one run

def as_sources(datasets) -> list[str]:
    """Source names from a list or a comma-separated string ('nq,marco'), each checked."""
    names = [d.strip() for d in datasets.split(",")] if isinstance(datasets, str) else list(datasets)
    for name in names:
        if name not in SOURCES:
            raise DataError(f"Unknown dataset {name!r}; choose from {SOURCES}.")
    return names


def prepare_items(datasets=SOURCES, n_items: int | None = 40, seed: int = 0, paths: dict | None = None,
                  query_types=MARCO_V1_QUERY_TYPES) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Seeded sample of n usable items per source (demo data unless `paths[source]` is set), and a
    table of what was dropped and why."""
    kept, dropped = [], []
    for source in as_sources(datasets):
        items = load_source(source, (paths or {}).get(source, ""), query_types=query_types)
        if source == "marco" and query_types:
            items = items[items["query_type"].str.upper().isin({t.upper() for t in query_types})]
        k, d = sample_items(items, n_items, seed)
        kept.append(k)
        dropped.append(d)
    return (pd.concat(kept, ignore_index=True),
            pd.concat(dropped, ignore_index=True) if dropped else pd.DataFrame(columns=["id", "source", "reason"]))


def drop_summary(items: pd.DataFrame, dropped: pd.DataFrame) -> pd.DataFrame:
    """Kept and dropped counts per source and reason."""
    d = dropped.groupby(["source", "reason"]).size().unstack(fill_value=0) if len(dropped) else None
    out = items.groupby("source").size().rename("kept").to_frame()
    if d is not None:
        out = out.join(d, how="outer").fillna(0).astype(int)
    return out.reset_index()


def items_for_run(items_path, datasets=SOURCES, n_items: int | None = None, seed: int = 0
                  ) -> pd.DataFrame:
    """Items of a run: the file written by notebook 01 when it exists (first n per source), else a
    seeded sample of the demo data."""
    if items_path and Path(items_path).exists():
        items = parse_demo(items_path)
        items = items[items["source"].isin(as_sources(datasets))]
        kept, dropped = sample_items(items, None, seed)
        if len(dropped):
            warnings.warn(f"{items_path}: dropped {len(dropped)} unusable items "
                          f"({dropped['reason'].value_counts().to_dict()}).", stacklevel=2)
        items = items[items["id"].isin(kept["id"])].drop(columns=["answer", "aliases"]).merge(
            kept[["id", "answer", "aliases"]], on="id")[ITEM_COLUMNS]
        if n_items:
            items = items.groupby("source", sort=False).head(n_items)
        return items.reset_index(drop=True)
    items, _ = prepare_items(datasets, n_items, seed)
    return items
