"""The self-preference cells that the authors' release determines, computed from its files and
set beside the published ones (lib.paper_check): v1 Table 1 (knowledge levels, 12 cells) and
v1 Table 2 (query length, passage length per author, PPL per author and its dagger).

Choices where the paper is silent, said here and in notebook 16: lengths are whitespace words of the
both-true files' true passages; the dagger is a paired t-test (items by position) of human vs each
model's perplexity at p < 0.05 (the paper says "t-test"); knowledge levels come from the main runs
(the `_1000_openai` file is a second GPT run and is left out of Table 1).
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from lib import paper_check
from lib.config import ROOT
from lib.records import DataError

from .bank import load_bank
from .knowledge import level_shares, load_knowledge
from .passage_stats import bank_length_stats, ppl_tests
from .release import load_perplexities

PAPER = "self-preference-v1"
TABLE2_ROWS = {"nq": "NQ+AIGC", "marco": "MARCO+AIGC"}
TABLE1_ROWS = {"nq": "NQ", "marco": "MARCO"}
AUTHOR_LABELS = {"human": "Human", "gpt": "GPT", "llama": "LLaMA"}


def release_folder(release_dir) -> Path:
    """The release folder: as given when it exists (absolute or relative to the working folder),
    else relative to the repository (notebooks run inside notebooks/)."""
    path = Path(release_dir).expanduser()
    if path.is_dir() or path.is_absolute():
        return path
    return ROOT / path


def _files(folder: Path, pattern: str) -> list[Path]:
    return sorted(folder.glob(pattern))


def length_cells(folder: Path) -> tuple[dict, pd.DataFrame]:
    """v1 Table 2 length cells from the '*-both-true.json' files."""
    files = _files(folder, "*both-true*.json")
    if not files:
        return {}, pd.DataFrame()
    bank = pd.concat([load_bank(p) for p in files], ignore_index=True)
    stats = bank_length_stats(bank)
    cells = {}
    for r in stats.itertuples(index=False):
        row = TABLE2_ROWS.get(r.dataset)
        label = AUTHOR_LABELS.get(r.author)
        if row is None or label is None:
            continue
        if r.author == "human":
            cells[(PAPER, "Table 2", row, "Avg. Query Length")] = r.query_len_mean
            cells[(PAPER, "Table 2", row, "Avg. Query Length (Std)")] = r.query_len_sd
        cells[(PAPER, "Table 2", row, f"{label} Avg. Doc Length")] = r.passage_len_mean
        cells[(PAPER, "Table 2", row, f"{label} Avg. Doc Length (Std)")] = r.passage_len_sd
    return cells, stats


def perplexity_cells(folder: Path, fix_swapped: bool = True) -> tuple[dict, pd.DataFrame, pd.DataFrame]:
    """v1 Table 2 PPL cells (mean per author, dagger per model) from the '*_perplexity.json' files."""
    if not _files(folder, "*perplexity*.json"):
        return {}, pd.DataFrame(), pd.DataFrame()
    ppl = load_perplexities(folder, fix_swapped)
    ppl["item_id"] = ppl["position"].astype(str)
    means = ppl.groupby(["dataset", "author"], sort=False)["ppl"].mean().reset_index()
    tests = ppl_tests(ppl, paired=True)
    cells = {}
    for r in means.itertuples(index=False):
        if r.dataset in TABLE2_ROWS and r.author in AUTHOR_LABELS:
            cells[(PAPER, "Table 2", TABLE2_ROWS[r.dataset], f"{AUTHOR_LABELS[r.author]} PPL")] = r.ppl
    for r in tests.to_dict("records"):
        if r["dataset"] in TABLE2_ROWS and r["author"] in ("gpt", "llama"):
            p = r.get("p", r.get("p-val"))
            cells[(PAPER, "Table 2", TABLE2_ROWS[r["dataset"]], f"{AUTHOR_LABELS[r['author']]} PPL †")] = float(p < 0.05)
    return cells, means, tests


def knowledge_cells(folder: Path) -> tuple[dict, pd.DataFrame]:
    """v1 Table 1 cells (percent of items per level) from the main-run knowledge files."""
    if not _files(folder, "*knowledge*.json"):
        return {}, pd.DataFrame()
    know = load_knowledge(folder)
    shares = level_shares(know[know["run"] == "main"])
    cells = {}
    for r in shares.to_dict("records"):
        if r["dataset"] in TABLE1_ROWS and r["model"] in ("gpt", "llama"):
            row = f"{TABLE1_ROWS[r['dataset']]} / {AUTHOR_LABELS[r['model']]}"
            for level, col in (("none", "No"), ("partial", "Partial"), ("full", "Full")):
                cells[(PAPER, "Table 1", row, col)] = r[f"{level} (%)"]
    return cells, shares


def check_release(release_dir, fix_swapped: bool = True) -> pd.DataFrame:
    """paper_check rows (paper, table, row, column, paper_value, ours, tolerance, match) for every
    v1 Table 1 and Table 2 cell, computed from the release folder."""
    folder = release_folder(release_dir)
    if not folder.is_dir():
        raise DataError(f"release_dir {folder} is not a folder; point it at the folder of the "
                        "authors' released JSON files.")
    cells = {}
    cells.update(length_cells(folder)[0])
    cells.update(perplexity_cells(folder, fix_swapped)[0])
    cells.update(knowledge_cells(folder)[0])
    return paper_check.compare(cells, paper_check.published_cells(PAPER, ("Table 1", "Table 2")))
