"""The self-preference authors' released files: passage layouts, knowledge files, perplexity files,
and the release's known quirks (shared/papers/authors-code-notes.md), each handled and said.

- Author names: the release calls GPT-3.5 `gpt`, `chatgpt` or `openai` in different files; every
  reader maps them to `gpt` (and LLaMA-2-70B-chat to `llama`), so files join.
- `nq_knowledge_scale_of_5_1000_openai.json` is a second GPT run over 1,000 NQ items: its rows get
  `run = "1000"` (the main runs `run = "main"`) so that tables can keep the two apart; it was scored
  case-sensitively (rule `authors_cased`) and holds retries (`cut_replies` keeps a run's last five).
- Knowledge replies are cut per item in consecutive fives where a file holds five per item
  (`cut_replies`), never grouped by equal ground truth (neighbouring items can share one).
- `nq_perplexity.json` and `marco_perplexity.json` hold each other's data: `load_perplexity`
  compares a file's per-author means with v1 Table 2's rows and relabels it, with a warning.
- `marco-writing-style.json` has records whose `llama_qa` equals `llama_long`:
  `style_duplicates` finds them, `drop_style_duplicates` removes and counts them.
"""
from __future__ import annotations

import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from lib.paper_check.published import SP1_PPL_ROWS
from lib.records import DataError, as_list, field, read_records

from .columns import BANK_COLUMNS, bank_row

RELEASE_BOTH_TRUE = ["index", "question", "answer", "human_true", "gpt_true", "llama_true",
                     "gpt_false_ans", "llama_false_ans", "gpt_false", "llama_false",
                     "human_false_gpt", "human_false_llama"]
RELEASE_WRITING_STYLE = ["index", "question", "answer", "gpt_false_ans", "llama_false_ans", "human",
                         "gpt_normal", "llama_normal", "gpt_long", "llama_long", "gpt_qa", "llama_qa"]
RELEASE_READING = ["question", "true_answer", "false_answer", "human_true", "human_false",
                   "ai_true", "ai_false"]
RELEASE_MODELS = ("gpt", "llama")
# Names the release gives the same two models in different files -> the passage files' names.
RELEASE_AUTHORS = {"gpt": "gpt", "chatgpt": "gpt", "openai": "gpt", "gpt-3.5-turbo": "gpt",
                   "llama": "llama", "llama2": "llama", "human": "human"}
LAYOUT_HELP = ("Known passage layouts: our bank (JSONL with " + ", ".join(BANK_COLUMNS[:-1]) +
               "); the release's '*-both-true.json' (" + ", ".join(RELEASE_BOTH_TRUE) +
               "); '*-writing-style.json' (" + ", ".join(RELEASE_WRITING_STYLE) +
               "); 'reading_comprehension_data_<model>_1000.json' (" + ", ".join(RELEASE_READING) + ").")


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


def release_author(name: str) -> str:
    """The passage files' author name for a model name used anywhere in the release."""
    return RELEASE_AUTHORS.get(str(name).strip().lower(), str(name))


# ---------------------------------------------------------------- passage files

def _check_fields(recs: list, fields: list[str], path) -> None:
    """Every record has every field, else a DataError naming file, item and field."""
    for i, rec in enumerate(recs):
        for f in fields:
            field(rec, f, path, rec.get("index", i) if isinstance(rec, dict) else i)


def _both_true(recs, dataset) -> list[dict]:
    """Rows of a '*-both-true.json' file: true and false passages by human, gpt, llama."""
    rows = []
    for r in recs:
        iid, q, a = f"{dataset}-{r['index']}", r["question"], r["answer"]
        for author in ("human", *RELEASE_MODELS):
            rows.append(bank_row(iid, dataset, q, a, "", author, "true", "normal", r[f"{author}_true"]))
        for m in RELEASE_MODELS:
            fa = r[f"{m}_false_ans"]
            rows.append(bank_row(iid, dataset, q, a, fa, m, "false", "normal", r[f"{m}_false"], m))
            rows.append(bank_row(iid, dataset, q, a, fa, "human", "false", "normal",
                                 r[f"human_false_{m}"], m))
    return rows


def _writing_style(recs, dataset) -> list[dict]:
    """Rows of a '*-writing-style.json' file: true passages in normal, long and QA style."""
    rows = []
    for r in recs:
        iid, q, a = f"{dataset}-{r['index']}", r["question"], r["answer"]
        rows.append(bank_row(iid, dataset, q, a, "", "human", "true", "normal", r["human"]))
        for m in RELEASE_MODELS:
            for style in ("normal", "long", "qa"):
                rows.append(bank_row(iid, dataset, q, a, "", m, "true", style, r[f"{m}_{style}"]))
    return rows


def _reading(recs, dataset, model) -> list[dict]:
    """Rows of 'reading_comprehension_data_<model>_1000.json': human and <model> passages."""
    rows = []
    for i, r in enumerate(recs):
        iid, q, a, fa = f"{dataset}-{i}", r["question"], r["true_answer"], r["false_answer"]
        for author, key in (("human", "human"), (model, "ai")):
            rows.append(bank_row(iid, dataset, q, a, "", author, "true", "normal", r[f"{key}_true"]))
            rows.append(bank_row(iid, dataset, q, a, fa, author, "false", "normal",
                                 r[f"{key}_false"], model))
    return rows


def release_passages(recs: list, path: Path, dataset: str) -> pd.DataFrame | None:
    """A release passage file as bank rows, its layout found from its fields; None if not one."""
    first = recs[0] if recs and isinstance(recs[0], dict) else {}
    if "human_true" in first and "gpt_true" in first:
        _check_fields(recs, RELEASE_BOTH_TRUE, path)
        return pd.DataFrame(_both_true(recs, dataset), columns=BANK_COLUMNS)
    if "gpt_normal" in first:
        _check_fields(recs, RELEASE_WRITING_STYLE, path)
        return pd.DataFrame(_writing_style(recs, dataset), columns=BANK_COLUMNS)
    if "ai_true" in first:
        _check_fields(recs, RELEASE_READING, path)
        m = re.search(r"reading_comprehension_data_(.+?)_\d+\.json$", path.name)
        model = release_author(m.group(1)) if m else "ai"
        return pd.DataFrame(_reading(recs, dataset, model), columns=BANK_COLUMNS)
    return None


def style_duplicates(bank: pd.DataFrame) -> pd.DataFrame:
    """(item_id, author) whose QA-style passage is the same text as its long passage (a release
    quirk: some `llama_qa` equal `llama_long` in marco-writing-style.json)."""
    styled = bank[bank["style"].isin(["qa", "long"])]
    wide = styled.pivot_table(index=["item_id", "author"], columns="style", values="text", aggfunc="first")
    if not {"qa", "long"} <= set(wide.columns):
        return pd.DataFrame(columns=["item_id", "author"])
    same = wide[(wide["qa"] == wide["long"]) & wide["qa"].notna()]
    return same.reset_index()[["item_id", "author"]]


def drop_style_duplicates(bank: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The bank without the QA and long passages of `style_duplicates`, and those pairs."""
    dup = style_duplicates(bank)
    if dup.empty:
        return bank, dup
    keys = set(zip(dup["item_id"], dup["author"]))
    bad = [(i, a) in keys and s in ("qa", "long") for i, a, s in zip(bank["item_id"], bank["author"], bank["style"])]
    return bank[~np.array(bad)].reset_index(drop=True), dup


# ---------------------------------------------------------------- knowledge files

def knowledge_file_model(name: str) -> tuple[str, str]:
    """(author name, run) from a release knowledge file name: '..._openai.json' -> ('gpt', 'main'),
    '..._1000_openai.json' -> ('gpt', '1000'), a second GPT run over 1,000 items."""
    m = re.search(r"knowledge_scale_of_5_?(.*?)\.jsonl?$", Path(str(name)).name)
    tag = m.group(1) if m and m.group(1) else "unknown"
    run = "main"
    parts = tag.split("_")
    if len(parts) > 1 and parts[0].isdigit():
        run, tag = parts[0], "_".join(parts[1:])
    return release_author(tag), run


# The release's knowledge files were scored by the authors' match (lower-cased) except this one,
# scored case-sensitively (its recorded answer sets keep capitals; authors-code-notes.md).
KNOWLEDGE_FILE_RULES = {"nq_knowledge_scale_of_5_1000_openai.json": "authors_cased"}
REPLIES_PER_ITEM = 5


def knowledge_file_rule(name: str, default: str = "authors") -> str:
    """The matching rule (lib.textmatch) the authors scored a release knowledge file with."""
    return KNOWLEDGE_FILE_RULES.get(Path(str(name)).name, default)


def _reply_records(ai_answers: list, path) -> list[tuple]:
    """(ground truth, reply) per recorded reply; an older layout (one list of replies per item)
    gives (None, [replies]) per item."""
    out = []
    for j, rec in enumerate(ai_answers or []):
        if isinstance(rec, list):
            out.append((None, [str(x) for x in rec]))
        else:
            out.append((field(rec, "ground_truth", f"{path} ai_answers", j),
                        str(field(rec, "AI_answer", f"{path} ai_answers", j))))
    return out


def cut_replies(ai_answers: list, n_items: int, path="ai_answers", per_item: int = REPLIES_PER_ITEM
                ) -> tuple[list[dict], str]:
    """The recorded replies per item, and how they were cut: 'fives' when the file holds exactly
    `per_item` replies per item (consecutive blocks, in item order: grouping by ground truth would
    merge two neighbouring items with one answer string), else 'runs' (consecutive replies with one
    ground truth form an item; a run longer than `per_item` holds retries and keeps its LAST
    `per_item` replies, as the authors' later tries replaced the earlier ones)."""
    recs = _reply_records(ai_answers, path)
    if recs and recs[0][0] is None and isinstance(recs[0][1], list):
        return [{"ground_truth": None, "replies": r} for _, r in recs], "lists"
    if len(recs) == per_item * n_items:
        groups = [{"ground_truth": recs[k][0], "replies": [r for _, r in recs[k:k + per_item]]}
                  for k in range(0, len(recs), per_item)]
        mixed = [i for i, k in enumerate(range(0, len(recs), per_item))
                 if len({str(t) for t, _ in recs[k:k + per_item]}) > 1]
        if mixed:
            warnings.warn(f"{path}: {len(mixed)} blocks of {per_item} replies mix ground truths "
                          f"(items {mixed[:5]}); each block is still taken as one item.", stacklevel=3)
        return groups, "fives"
    groups: list[dict] = []
    for truth, reply in recs:
        if groups and groups[-1]["ground_truth"] == truth:
            groups[-1]["replies"].append(reply)
        else:
            groups.append({"ground_truth": truth, "replies": [reply]})
    for g in groups:
        g["n_recorded"] = len(g["replies"])
        g["replies"] = g["replies"][-per_item:]
    return groups, "runs"


def read_release_knowledge(path: Path) -> pd.DataFrame:
    """A release '*_knowledge_scale_of_5_*.json': one row per item (item_id, dataset, model, run,
    n_correct, ground_truth, responses, n_replies, n_recorded, cut, scored_by); item ids by
    position, as in the passage files. `scored_by` is the rule the authors scored the file with."""
    recs = read_records(path)
    levels = as_list(field(recs, "knowledge_level", path, "top level"))
    model, run = knowledge_file_model(path.name)
    dataset = dataset_from_name(path.name)
    counts = [int(sum(1 for x in levels if int(x) == k)) for k in range(6)]
    dist = recs.get("distribution")
    if dist is not None and [int(x) for x in dist] != counts:
        warnings.warn(f"{path}: 'distribution' {list(dist)} disagrees with the counts of "
                      f"'knowledge_level' {counts}; using 'knowledge_level'.", stacklevel=3)
    groups, cut = cut_replies(recs.get("ai_answers"), len(levels), path)
    if groups and len(groups) != len(levels):
        warnings.warn(f"{path}: {len(groups)} items in 'ai_answers' (cut into {cut}) but "
                      f"{len(levels)} knowledge levels; replies are matched to items in order.", stacklevel=3)
    rows = []
    for i, lvl in enumerate(levels):
        if not isinstance(lvl, (int, float)) or not 0 <= lvl <= 5:
            raise DataError(f"{path}, item {i}: 'knowledge_level' must be 0..5, got {lvl!r}.")
        g = groups[i] if i < len(groups) else {"ground_truth": None, "replies": []}
        rows.append({"item_id": f"{dataset}-{i}", "dataset": dataset, "model": model, "run": run,
                     "n_correct": int(lvl), "ground_truth": g["ground_truth"],
                     "responses": g["replies"], "n_replies": len(g["replies"]),
                     "n_recorded": g.get("n_recorded", len(g["replies"])), "cut": cut if groups else "",
                     "scored_by": knowledge_file_rule(path.name)})
    return pd.DataFrame(rows)


# ---------------------------------------------------------------- perplexity files

def _closest_row(means: dict) -> tuple[str, dict]:
    """The v1 Table 2 dataset whose PPL row is nearest the given per-author means, and all distances."""
    dist = {}
    for ds, row in SP1_PPL_ROWS.items():
        common = [a for a in row if a in means]
        dist[ds] = float(np.mean([abs(means[a] - row[a]) for a in common])) if common else np.inf
    return min(dist, key=dist.get), dist


def load_perplexity(path, fix_swapped: bool = True) -> pd.DataFrame:
    """A release '*_perplexity.json' ({author: [ppl, ...]}) as long rows: dataset, author,
    position, ppl. When the file's per-author means are nearer the other dataset's row of v1 Table 2
    than its own (the release's nq / marco files are swapped), the rows are relabelled with a
    warning that says why; `fix_swapped=False` keeps the file name's dataset (and still warns)."""
    path = Path(path)
    data = read_records(path)
    if not isinstance(data, dict) or not data:
        raise DataError(f"{path}: expected an object of author -> list of perplexities.")
    named = dataset_from_name(path.name)
    rows = []
    for author, values in data.items():
        if not isinstance(values, list):
            raise DataError(f"{path}, author {author!r}: expected a list of numbers.")
        for i, v in enumerate(values):
            if not isinstance(v, (int, float)) or not np.isfinite(v):
                raise DataError(f"{path}, author {author!r}, item {i}: perplexity {v!r} is not a number.")
            rows.append({"dataset": named, "author": release_author(author), "position": i, "ppl": float(v)})
    df = pd.DataFrame(rows)
    if named in SP1_PPL_ROWS:
        means = df.groupby("author")["ppl"].mean().to_dict()
        nearest, dist = _closest_row(means)
        if nearest != named and dist[nearest] < dist[named]:
            shown = ", ".join(f"{a} {m:.1f}" for a, m in means.items())
            paper = ", ".join(f"{a} {v}" for a, v in SP1_PPL_ROWS[nearest].items())
            if fix_swapped:
                df["dataset"] = nearest
            warnings.warn(
                f"{path.name}: its per-author mean perplexities ({shown}) are v1 Table 2's "
                f"{nearest.upper()} row ({paper}), not its {named.upper()} row: the release's "
                f"perplexity files hold each other's data. "
                + (f"Relabelled as {nearest}; pass fix_swapped=False to keep the file name's label."
                   if fix_swapped else f"Kept as {named} (fix_swapped=False)."), stacklevel=2)
    return df


def load_perplexities(path, fix_swapped: bool = True) -> pd.DataFrame:
    """`load_perplexity` of one file, or of every '*_perplexity.json' in a folder."""
    path = Path(path)
    files = sorted(path.glob("*perplexity*.json")) if path.is_dir() else [path]
    if not files:
        raise DataError(f"{path}: folder holds no '*_perplexity.json' file.")
    return pd.concat([load_perplexity(p, fix_swapped) for p in files], ignore_index=True)
