"""The self-preference cells that the authors' release determines, computed from its files and
set beside the published ones (lib.paper_check), each row with its kind: v1 Table 1 (knowledge
levels, 12 cells) and v1 Table 2 (query length, passage length per author, PPL per author and its
dagger).

- `reproduced`: Table 1 from OUR matcher's counts on the recorded replies (`knowledge.rescored_levels`);
  Table 2 lengths from the passages (`*-both-true.json`; for NQ+AIGC, when the release has no NQ
  both-true file, the `reading_comprehension_data_<model>_1000.json` files, whose questions and
  human passages are NQ's); the dagger from our paired t-test on the release's perplexities.
- `release`: the PPL means (the release's numbers as is, after relabelling the swapped files);
  Table 1 of a knowledge file that recorded no replies (its own counts).
- `explained`: NQ+AIGC model-passage lengths from the reading-comprehension files: their model
  passages are not the sample or counting the published row used (the real release gives 111.1 (31.4)
  and 94.0 (32.5) words against the printed 114.4 (22.0) and 103.9 (21.0)).

Choices where the paper is silent, said here and in notebook 16: lengths are whitespace words of the
true passages; the dagger is a paired t-test (items by position) of human vs each model's perplexity
at p < 0.05 (the paper says "t-test"); knowledge levels come from the main runs (the `_1000_openai`
file is a second GPT run and is left out of Table 1); the reading-comprehension files carry no dataset
in their names and are read as `READING_DATASET` (NQ: their human passages are DPR's 100-word chunks).
"""
from __future__ import annotations

import warnings
from pathlib import Path

import pandas as pd

from lib import paper_check
from lib.paths import ROOT
from lib.paper_check import Computed
from lib.records import DataError

from .bank import load_bank
from .knowledge import level_shares, rescored_levels
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


READING_DATASET = "nq"
READING_NOTE = ("model passages of the reading-comprehension files: not the sample or word counting "
                "the published row used (not found in the release)")


def _length_rows(stats: pd.DataFrame, model_kind: str = "reproduced", note: str = "") -> dict:
    """v1 Table 2 length cells from `bank_length_stats` rows; model-author cells get `model_kind`."""
    cells = {}
    for r in stats.itertuples(index=False):
        row, label = TABLE2_ROWS.get(r.dataset), AUTHOR_LABELS.get(r.author)
        if row is None or label is None:
            continue
        kind, why = ("reproduced", "") if r.author == "human" else (model_kind, note)
        if r.author == "human":
            cells[(PAPER, "Table 2", row, "Avg. Query Length")] = Computed(r.query_len_mean)
            cells[(PAPER, "Table 2", row, "Avg. Query Length (Std)")] = Computed(r.query_len_sd)
        cells[(PAPER, "Table 2", row, f"{label} Avg. Doc Length")] = Computed(r.passage_len_mean, kind, why)
        cells[(PAPER, "Table 2", row, f"{label} Avg. Doc Length (Std)")] = Computed(r.passage_len_sd, kind, why)
    return cells


def reading_bank(folder: Path, dataset: str = READING_DATASET) -> pd.DataFrame:
    """The 'reading_comprehension_data_<model>_1000.json' files as one bank of `dataset`; warns when
    two files disagree on the question at one position (their items are then not the same)."""
    files = _files(folder, "reading_comprehension_data_*.json")
    if not files:
        return pd.DataFrame()
    banks = [load_bank(p, dataset=dataset) for p in files]
    first = banks[0].drop_duplicates("item_id").set_index("item_id")["question"]
    for path, other in zip(files[1:], banks[1:]):
        q = other.drop_duplicates("item_id").set_index("item_id")["question"]
        common = first.index.intersection(q.index)
        differ = common[first.loc[common].to_numpy() != q.loc[common].to_numpy()]
        if len(differ):
            warnings.warn(f"{path.name}: {len(differ)} questions differ from {files[0].name} at the "
                          f"same position (first: {differ[0]}); lengths use the first file's.", stacklevel=2)
    return pd.concat(banks, ignore_index=True)


def length_cells(folder: Path) -> tuple[dict, pd.DataFrame]:
    """v1 Table 2 length cells from the '*-both-true.json' files, and NQ+AIGC from the
    reading-comprehension files when no NQ both-true file exists; and the per-author stats."""
    parts, cells = [], {}
    files = _files(folder, "*both-true*.json")
    if files:
        stats = bank_length_stats(pd.concat([load_bank(p) for p in files], ignore_index=True))
        cells.update(_length_rows(stats))
        parts.append(stats.assign(source="both-true"))
    reading = reading_bank(folder)
    if len(reading) and not any(k[2] == TABLE2_ROWS[READING_DATASET] for k in cells):
        stats = bank_length_stats(reading)
        cells.update(_length_rows(stats, "explained", READING_NOTE))
        parts.append(stats.assign(source="reading-comprehension"))
    return cells, (pd.concat(parts, ignore_index=True) if parts else pd.DataFrame())


def perplexity_cells(folder: Path, fix_swapped: bool = True) -> tuple[dict, pd.DataFrame, pd.DataFrame]:
    """v1 Table 2 PPL cells: the mean per author (kind `release`: the release's numbers, relabelled
    when swapped) and the dagger per model (kind `reproduced`: our paired t-test on them)."""
    if not _files(folder, "*perplexity*.json"):
        return {}, pd.DataFrame(), pd.DataFrame()
    ppl = load_perplexities(folder, fix_swapped)
    ppl["item_id"] = ppl["position"].astype(str)
    means = ppl.groupby(["dataset", "author"], sort=False)["ppl"].mean().reset_index()
    tests = ppl_tests(ppl, paired=True)
    note = "mean of the release's perplexities" + (" (swapped files relabelled, see notebook 03)"
                                                   if fix_swapped else "")
    cells = {}
    for r in means.itertuples(index=False):
        if r.dataset in TABLE2_ROWS and r.author in AUTHOR_LABELS:
            cells[(PAPER, "Table 2", TABLE2_ROWS[r.dataset], f"{AUTHOR_LABELS[r.author]} PPL")] = \
                Computed(r.ppl, "release", note)
    for r in tests.to_dict("records"):
        if r["dataset"] in TABLE2_ROWS and r["author"] in ("gpt", "llama"):
            p = r.get("p", r.get("p-val"))
            cells[(PAPER, "Table 2", TABLE2_ROWS[r["dataset"]], f"{AUTHOR_LABELS[r['author']]} PPL †")] = \
                Computed(float(p < 0.05), "reproduced", f"paired t-test, p = {p:.3g}, n = "
                         f"{r['n_human']} (every printed dagger is 1: the row label cannot decide it)")
    return cells, means, tests


def knowledge_cells(folder: Path) -> tuple[dict, pd.DataFrame]:
    """v1 Table 1 cells (percent of items per level) from the main-run knowledge files: from our
    matcher's counts on the recorded replies (`reproduced`), or the file's own counts where it
    recorded none (`release`)."""
    if not _files(folder, "*knowledge*.json"):
        return {}, pd.DataFrame()
    know = rescored_levels(folder)
    main = know[know["run"] == "main"]
    shares = level_shares(main)
    counted = main.groupby(["dataset", "model"])["counted_by"].agg(lambda c: "ours" if (c == "ours").all() else "release")
    cells = {}
    for r in shares.to_dict("records"):
        if r["dataset"] in TABLE1_ROWS and r["model"] in ("gpt", "llama"):
            row = f"{TABLE1_ROWS[r['dataset']]} / {AUTHOR_LABELS[r['model']]}"
            ours = counted.loc[(r["dataset"], r["model"])] == "ours"
            kind, note = (("reproduced", f"our matcher on the recorded replies, n = {r['n']} items") if ours
                          else ("release", f"the file's own counts (no recorded replies), n = {r['n']} items"))
            for level, col in (("none", "No"), ("partial", "Partial"), ("full", "Full")):
                cells[(PAPER, "Table 1", row, col)] = Computed(r[f"{level} (%)"], kind, note)
    return cells, shares.assign(counted_by=[counted.get((d, m), "") for d, m in zip(shares["dataset"], shares["model"])])


def check_release(release_dir, fix_swapped: bool = True) -> pd.DataFrame:
    """paper_check rows (`lib.paper_check.COLUMNS`, with their kind) for every v1 Table 1 and
    Table 2 cell, computed from the release folder."""
    folder = release_folder(release_dir)
    if not folder.is_dir():
        raise DataError(f"release_dir {folder} is not a folder; point it at the folder of the "
                        "authors' released JSON files.")
    cells = {}
    cells.update(length_cells(folder)[0])
    cells.update(perplexity_cells(folder, fix_swapped)[0])
    cells.update(knowledge_cells(folder)[0])
    return paper_check.compare(cells, paper_check.published_cells(PAPER, ("Table 1", "Table 2")))
