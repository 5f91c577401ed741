"""Replications of the known-truth check: the studies' own code for notebooks 02-15 and
compare's paired difference of the two served judges (replicate_steps.py), called in-process against
a fresh simulator per seed, without papermill, so that many seeds fit in minutes. Each seed draws new
questions (and RM pairs) and new replies; the rows are compared with the truths exactly as `make
validate` compares them (validate.py, rm_validate.py, knowledge_rows.py)."""
from __future__ import annotations

import tempfile
import time
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

import pandas as pd

from . import replicate_steps as S
from .self_preference.knowledge_rows import knowledge_rows
from .self_preference.likelihood_truth import likelihood_truths
from .self_preference.style_length import design_pairs
from .replicate_summary import family, summarize  # noqa: F401  (the benchmark's summary, re-exported)
from .core.scratch import own_cache
from .core.truth import Design
from .core.truth_file import Truth
from .rewardbench.validate import compare_by_model, model_truths, paired_rows
from .server import SimServer
from .truth import measure_truths
from .utility.design import utility_design
from .validate import COLUMNS, compare

DATASETS, SETTINGS = S.DATASETS, S.SETTINGS  # as before the steps moved (benchmarks/bench_power_check.py)

# the notebooks a replication can run, in run order, and what each needs to have run before it
NOTEBOOKS = ("02", "03", "04", "05", "06", "07", "08", "09", "10", "11", "12", "13", "14", "15", "17")
NEEDS = {"03": ("02",), "05": ("02",), "06": ("02",), "07": ("02", "04"), "08": ("02",), "10": ("09",),
         "11": ("09",), "12": ("09",), "17": ("13",)}
# groups a benchmark run can ask for by name (--families)
GROUPS = {"self_preference": ("02", "05", "06"), "perplexity": ("02", "03"), "knowledge": ("02", "04", "07"),
          "style": ("02", "08"), "utility": ("09", "10", "11", "12"), "rm": ("13", "14", "15", "17")}


def notebooks_for(notebooks=(), groups=()) -> tuple:
    """The notebooks to run, in run order, with what they need ('all' or nothing given: every one)."""
    wanted = set(notebooks)
    for g in groups:
        if g == "all":
            wanted |= set(NOTEBOOKS)
        elif g not in GROUPS:
            raise ValueError(f"unknown family group {g!r}; known: {', '.join([*GROUPS, 'all'])}")
        else:
            wanted |= set(GROUPS[g])
    unknown = wanted - set(NOTEBOOKS)
    if unknown:
        raise ValueError(f"notebook(s) {sorted(unknown)} have no replication; known: {', '.join(NOTEBOOKS)}")
    wanted = wanted or set(NOTEBOOKS)
    while True:
        more = {n for w in wanted for n in NEEDS.get(w, ())} - wanted
        if not more:
            return tuple(n for n in NOTEBOOKS if n in wanted)
        wanted |= more


@contextmanager
def utility_sets(truth: Truth, size: int, retriever: str = "dense"):
    """09's candidate sets for `size` questions per dataset, built once (a folder, removed after)."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        with own_cache(root / "cache", root / "runs"), SimServer(truth, root / "runs") as sim:
            S.build_utility_sets(sim.url, root / "sets", size, retriever)
        yield root / "sets"


def run_config(run: S.SeedRun) -> dict:
    """The part of a runner config the truth readers take (rewardbench.validate.rm_design, self_preference.knowledge_rows
    and style_length.design_pairs)."""
    return {"parameters": {}, "_overrides": {},
            "per_notebook": {"01_dataset": {"datasets": list(S.DATASETS)},
                             "04_knowledge_probe": {"n_samples": S.KNOWLEDGE_SAMPLES},
                             "10_relevance_vs_utility": {"n_items": run.utility_size or run.size},
                             "11_utility_factors": {"n_items": run.utility_size or run.size, **S.FACTORS},
                             "12_utility_for_answering": {"n_items": run.utility_size or run.size, **S.ANSWERING},
                             "08_writing_style": {"n_items": 0},  # 08 reads the whole bank 02 wrote
                             "13_rewardbench": {"pairs_path": "", "n_per_category": run.size, "seed": run.seed},
                             "15_best_of_n": {"n_samples": S.BON_SAMPLES}}}


def run_notebooks(run: S.SeedRun, notebooks: tuple, utility_built: Path | None = None,
                  seconds: dict | None = None) -> None:
    """Each notebook's own calls, in run order (wall seconds per notebook added to `seconds`)."""
    for nb in notebooks:
        started = time.perf_counter()
        if nb == "02":
            S.nb02(run, S.STYLES if "08" in notebooks else ())
        elif nb == "09":
            S.nb09(run, utility_built)
        elif nb != "17":  # compare reads the run's findings afterwards (truth_table)
            getattr(S, f"nb{nb}")(run)
        if seconds is not None:
            seconds[nb] = seconds.get(nb, 0.0) + time.perf_counter() - started


def utility_part(run: S.SeedRun, cfg: dict, notebooks: tuple):
    """10-12's design as `validate` reads it (utility/design.py), without the parts of notebooks not run
    (their truths are Monte Carlos: not worth computing for nothing); None without 09's sets."""
    if "09" not in notebooks:
        return None
    d = utility_design(run.run_dir, cfg)
    return replace(d, sets=d.sets if "10" in notebooks else (), factor_sets=d.factor_sets if "11" in notebooks else (),
                   answers=d.answers if "12" in notebooks else ())


def truth_table(truth: Truth, run: S.SeedRun, notebooks: tuple) -> pd.DataFrame:
    """Every validation row of the run, as `validate` makes them: findings (Holm as the run applies
    it) against each served model's truth, compare's paired differences, 04 / 07's rows."""
    from lib.report.findings import collect

    findings = collect(run.run_dir)
    findings.to_csv(run.run_dir / "findings.csv", index=False)  # what compare reads
    cfg = run_config(run)
    design = Design(datasets=S.DATASETS, settings=S.SETTINGS, utility=utility_part(run, cfg, notebooks),
                    style_pairs=design_pairs(cfg, run.run_dir) if "08" in notebooks else ())
    truths_of = model_truths(truth, cfg, run.run_dir,
                             lambda t, d: {**measure_truths(t, d), **likelihood_truths(t, d)}, design)
    parts = [compare_by_model(findings, truths_of, compare) if len(findings) else None,
             paired_rows([run.run_dir], truths_of, COLUMNS) if "17" in notebooks else None,
             knowledge_rows(run.run_dir, truth, cfg).assign(model="sim")]  # 04 and 07 ask the file's own model
    parts = [p for p in parts if p is not None and len(p)]
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=[*COLUMNS, "model"])


def replication_truth(truth: Truth, seed: int) -> Truth:
    """The truth file with its seed moved by the replication's seed (new replies and question effects)."""
    return replace(truth, seed=truth.seed + 1000 * (seed + 1))


def one_replication(truth: Truth, n_items: int, seed: int, notebooks: tuple = GROUPS["self_preference"],
                    utility_built: Path | None = None, seconds: dict | None = None,
                    utility_size: int = 0) -> pd.DataFrame:
    """Validation rows of one seed: n_items questions per dataset (RM pairs per category; 10's
    questions: `utility_size` when given), the truth file's seed moved by `seed`, a fresh simulator,
    an empty cache (replies change with the seed)."""
    notebooks = notebooks_for(notebooks)
    if "09" in notebooks and utility_built is None:
        raise ValueError("notebook 10's replication needs 09's candidate sets: pass utility_built (utility_sets)")
    truth = replication_truth(truth, seed)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        run_dir = root / "runs" / f"replication_{seed}"
        run_dir.mkdir(parents=True)
        with own_cache(root / "cache", root / "runs"):
            with SimServer(truth, run_dir) as sim:
                run = S.SeedRun(run_dir.name, run_dir, sim.url, seed, n_items, utility_size)
                run_notebooks(run, notebooks, utility_built, seconds)
            table = truth_table(truth, run, notebooks)
    return table.assign(seed=seed)
