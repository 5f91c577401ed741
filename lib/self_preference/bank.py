"""The passage bank (section 3.2, appendix B.1): build it with the author models, load it (ours or
the authors' release), save it, and subsample it for a run.

Building: each author model rewrites each human passage and writes a false answer; false passages
swap the answer for it (lib.falsify); rewrites must still carry the answer (rule
`substring_or_words`, the paper's footnote 2) and are asked again up to k times; gen-by-QA and long
passages for the writing-style experiments. Every drop is counted in the report.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from lib.ask_until_parsed import ask_until_parsed
from lib.falsify import clean_generation, false_passage, parse_false_answer
from lib.prompts import self_preference as P
from lib.records import DataError, field as record_field, read_records, write_records
from lib.textmatch import matches

from .columns import BANK_COLUMNS, bank_row
from .release import LAYOUT_HELP, dataset_from_name, release_passages

# A rewrite keeps the fact when it still carries the answer: substring, else every answer word
# (the paper's footnote 2).
VERIFY_RULE = "substring_or_words"


# ---------------------------------------------------------------- load, save, subsample

def _bank_from_file(path: Path, dataset: str | None) -> pd.DataFrame:
    """One passage file, its layout found from its fields."""
    recs = read_records(path)
    dataset = dataset or dataset_from_name(path.name)
    if isinstance(recs, dict) or not recs:
        raise DataError(f"{path}: not a passage file (expected a non-empty list of objects). " + LAYOUT_HELP)
    first = recs[0] if isinstance(recs[0], dict) else {}
    if {"item_id", "author", "factuality", "text"} <= set(first):
        for i, rec in enumerate(recs):
            for f in [c for c in BANK_COLUMNS if c != "false_by"]:
                record_field(rec, f, path, rec.get("item_id", i) if isinstance(rec, dict) else i)
        df = pd.DataFrame(recs)
        if "false_by" not in df:
            df["false_by"] = ""
        return df
    df = release_passages(recs, path, dataset)
    if df is None:
        raise DataError(f"{path}: unknown passage layout (first item has fields {sorted(first)}). " + LAYOUT_HELP)
    return df


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
    return write_records(path, bank)


def subsample_bank(bank: pd.DataFrame, n_items: int | None = None, datasets=None,
                   seed: int = 0) -> pd.DataFrame:
    """Bank rows of up to `n_items` seeded items per dataset (all items when n_items is falsy)."""
    if isinstance(datasets, str):  # papermill -p passes lists as strings
        datasets = [d.strip(" '\"") for d in datasets.strip("[]").split(",") if d.strip(" '\"")]
    if datasets:
        unknown = sorted(set(datasets) - set(bank["dataset"].unique()))
        if unknown:
            raise ValueError(f"datasets {unknown} are not in the bank; it holds "
                             f"{sorted(bank['dataset'].unique())}.")
        bank = bank[bank["dataset"].isin(list(datasets))]
    if not n_items:
        return bank.reset_index(drop=True)
    keep = []
    for _, ids in bank.drop_duplicates("item_id").groupby("dataset", sort=True)["item_id"]:
        ids = ids.tolist()
        order = np.random.default_rng(seed).permutation(len(ids))
        keep += [ids[i] for i in order[:n_items]]
    return bank[bank["item_id"].isin(keep)].reset_index(drop=True)


def load_run_bank(bank_path: str, out, n_items: int | None = None, datasets=None, seed: int = 0) -> pd.DataFrame:
    """The passage bank at bank_path (empty: the one notebook 02 wrote in this run), subsampled."""
    bank = subsample_bank(load_bank(bank_path or out.path("passage_bank.jsonl")), n_items, datasets, seed)
    print(f"{bank['item_id'].nunique()} items, {len(bank)} passages, authors: {sorted(bank['author'].unique())}")
    return bank


def side_by_side(bank: pd.DataFrame, item_id: str, factuality: str = "true",
                 style: str = "normal") -> pd.DataFrame:
    """One item's passages, one row per author (like the paper's Table 10)."""
    sub = bank[(bank["item_id"] == item_id) & (bank["factuality"] == factuality)
               & (bank["style"] == style)]
    return sub[["author", "false_by", "text"]].assign(words=sub["text"].str.split().str.len())


# ---------------------------------------------------------------- build

@dataclass
class BankConfig:
    """Generation settings of the bank; retries sample at `retry_temperature` with a new index.
    `chat=False` sends raw text even to chat models (base LMs always get raw text)."""

    k: int = 3
    max_tokens: int = 200
    long_max_tokens: int = 450
    false_max_tokens: int = 24
    temperature: float = 0.0
    retry_temperature: float = 0.7
    styles: tuple = ("long", "qa")
    style_items: int = 2
    chat: bool = True
    # Beyond the paper: where the author's false answer is unusable after every retry, use the
    # item's `false_answer_ours` (our demo items carry one) with false_by="ours", counted in the report.
    own_false_answers: bool = True


@dataclass
class Bank:
    """A built passage bank and its verification report."""

    passages: pd.DataFrame
    report: pd.DataFrame
    substitution_failures: list = field(default_factory=list)


def generate_verified(model, prompts: dict, parse_for, cfg: BankConfig, max_tokens: int,
                      desc: str) -> tuple[dict, dict]:
    """One verified output per key (lib.ask_until_parsed.ask_until_parsed, up to cfg.k more tries).

    `parse_for(key, text)` returns the usable value or None. Returns {key: value} for the keys that
    passed and {key: attempts used} for all keys (cfg.k + 2 marks dropped after all retries)."""
    keys = list(prompts)
    results = ask_until_parsed(model, [prompts[k] for k in keys],
                               lambda j, text: parse_for(keys[j], text or "") or None,
                               k_retries=cfg.k, max_tokens=max_tokens, temperature=cfg.temperature,
                               retry_temperature=cfg.retry_temperature, desc=desc,
                               chat=None if cfg.chat else False)
    done = {k: r["value"] for k, r in zip(keys, results) if r["value"] is not None}
    attempts = {k: (r["attempts"] if r["value"] is not None else cfg.k + 2) for k, r in zip(keys, results)}
    return done, attempts


def _verified_passage(answer: str):
    """Parser for generated passages: the cleaned text if it still carries the answer."""
    def parse(text: str) -> str | None:
        text = clean_generation(text)
        return text if matches(text, answer, rule=VERIFY_RULE) else None
    return parse


def _report_row(author: str, kind: str, attempts: dict, k: int) -> dict:
    """Counts of one verified generation step."""
    vals = list(attempts.values())
    return {"author": author, "kind": kind, "n": len(vals),
            "ok_first_try": sum(v == 1 for v in vals),
            "ok_after_retry": sum(1 < v <= k + 1 for v in vals),
            "dropped": sum(v > k + 1 for v in vals)}


def _row(it, false_answer, author, factuality, style, text, false_by="") -> dict:
    """One bank row for item `it`."""
    return bank_row(it["id"], it["source"], it["question"], it["answer"], false_answer, author,
                    factuality, style, text, false_by)


def own_false_answers(by_id: dict, falses: dict) -> dict:
    """{item id: our written false answer} for the items whose model false answer is missing."""
    return {i: str(it.get("false_answer_ours") or "") for i, it in by_id.items()
            if i not in falses and str(it.get("false_answer_ours") or "").strip()}


def human_rows(items: pd.DataFrame) -> list[dict]:
    """True human passages of the items, as bank rows."""
    return [_row(it, "", "human", "true", "normal", it["human_passage"]) for _, it in items.iterrows()]


def build_bank(items: pd.DataFrame, models: dict, cfg: BankConfig | None = None) -> Bank:
    """Build the bank: human passages plus, per author in `models` ({name: model}), rewrites,
    false answers, false passages (human and own, by substitution), and gen-by-QA / long passages
    for the first `cfg.style_items` items of each dataset."""
    cfg = cfg or BankConfig()
    by_id = {it["id"]: it for _, it in items.iterrows()}
    rows, report, sub_fail = human_rows(items), [], []
    for author, model in models.items():
        check = {i: _verified_passage(by_id[i]["answer"]) for i in by_id}
        rewrites, att = generate_verified(
            model, {i: P.rewrite_prompt(by_id[i]["human_passage"]) for i in by_id},
            lambda i, text: check[i](text), cfg, cfg.max_tokens, f"{author}: rewrite")
        report.append(_report_row(author, "rewrite", att, cfg.k))
        falses, att = generate_verified(
            model, {i: P.false_answer_prompt(by_id[i]["question"], by_id[i]["answer"]) for i in by_id},
            lambda i, text: parse_false_answer(text, by_id[i]["answer"]), cfg, cfg.false_max_tokens,
            f"{author}: false answer")
        report.append(_report_row(author, "false answer", att, cfg.k))
        ours = own_false_answers(by_id, falses) if cfg.own_false_answers else {}
        if ours:
            report.append({"author": author, "kind": "false answer (ours, fallback)", "n": len(ours),
                           "ok_first_try": len(ours), "ok_after_retry": 0, "dropped": 0})
        for i, it in by_id.items():
            if i in rewrites:
                rows.append(_row(it, "", author, "true", "normal", rewrites[i]))
            false_answer, false_by = (falses[i], author) if i in falses else (ours.get(i), "ours")
            if not false_answer:
                continue
            for who, text in (("human", it["human_passage"]), (author, rewrites.get(i))):
                if text is None:
                    continue
                fp = false_passage(text, it["answer"], false_answer)
                if fp is None:
                    sub_fail.append({"item_id": i, "author": who, "false_by": false_by})
                else:
                    rows.append(_row(it, false_answer, who, "false", "normal", fp, false_by))
        subset = items.groupby("source", sort=False).head(cfg.style_items)["id"].tolist()
        for style in cfg.styles:
            make = P.long_prompt if style == "long" else None
            prompts = {i: (make(by_id[i]["human_passage"]) if make else
                           P.gen_by_qa_prompt(by_id[i]["question"], by_id[i]["answer"])) for i in subset}
            texts, att = generate_verified(
                model, prompts, lambda i, text: check[i](text), cfg,
                cfg.long_max_tokens if style == "long" else cfg.max_tokens, f"{author}: {style}")
            report.append(_report_row(author, style, att, cfg.k))
            rows += [_row(by_id[i], "", author, "true", style, texts[i]) for i in texts]
    rep = pd.DataFrame(report, columns=["author", "kind", "n", "ok_first_try", "ok_after_retry",
                                        "dropped"])
    fails = pd.DataFrame(sub_fail, columns=["item_id", "author", "false_by"])
    if len(fails):
        extra = fails.groupby("false_by").size()
        for author, count in extra.items():
            rep.loc[len(rep)] = [author, "false passage (answer kept)", count, 0, 0, count]
    return Bank(pd.DataFrame(rows, columns=BANK_COLUMNS), rep, sub_fail)
