"""`make validate`: start the simulator, run the studies' notebooks against it, stop it, and compare
every findings row that has a planted truth with that truth (data/runs/<run>/validation.csv).

The check passes when (1) every row the run's notebooks must write is there (`expected_rows`: a
missing or renamed row fails by name), (2) every truth lies in its measure's range (`truth_ranges`),
(3) at least 90% of the rows with a defined truth cover it with their 95% interval, and every notebook
with at least 10 such rows covers at least 85% of its own, (4) every planted effect of at least 0.10
on a rate or 0.3 on a rating is detected with the truth's sign (Holm-adjusted p where the row is in a
Holm family, its own p where it is tested alone, else an interval that excludes the null); below the
papers' sizes only where the run has at least 80% power for it (`powered`: a smaller run cannot be
asked to see every planted effect; the summary names the rows it did not require and those it could
not judge), and (5) each notebook's share of parsed replies covers 1 minus the planted format failure
rate (Wilson interval over replies: the failures are drawn independently per reply; Bonferroni over
the notebooks checked)."""
from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pandas as pd

from scipy import stats

from lib import paths
from lib.report.findings import SMOKE_N as SMOKE_UNITS  # below this many units a row is never tested
from lib.stats import wilson_ci

from .core.scratch import own_cache
from .core.truth import NULL_TOLERANCE, Design, on_truths_side
from .core.truth_file import Truth, load_truth
from .expected_rows import expected_rows, missing_rows
from .replicate_steps import UTILITY_DATASETS
from .rewardbench.validate import compare_by_model, lifted, model_truths, paired_rows
from .self_preference.knowledge_rows import knowledge_rows
from .mitigation.truth import mitigation_truths
from .self_preference.likelihood_truth import likelihood_truths
from .self_preference.style_length import design_pairs
from .server import SimServer
from .truth import measure_truths
from .truth_ranges import is_rate, out_of_range
from .utility.design import utility_design
from .utility.truth import utility_parsed

COLUMNS = ["measure_id", "notebook", "truth", "null", "estimate", "ci_low", "ci_high", "n_items", "covered",
           "p", "p_adjusted", "detected"]
RUN_CONFIG = paths.CONFIGS / "known_truth_run.yaml"
COVERAGE_GOAL = 0.90
RATE_EFFECT, RATING_EFFECT = 0.10, 0.30
ALPHA = 0.05
POWER_GOAL = 0.80
NOTEBOOK_GOAL, NOTEBOOK_MIN_ROWS = 0.85, 10  # a notebook with at least this many rows must cover this share
SE_CAP = 3.0  # a rate's standard error for the power excuse: at most this many binomial ones at its n


def must_detect(measure_id: str, truth: float, null: float) -> bool:
    """Whether a planted effect is large enough that the check requires it detected."""
    if math.isnan(null) or math.isnan(truth):
        return False
    limit = RATING_EFFECT if measure_id.startswith("human_minus_self") else RATE_EFFECT
    return abs(truth - null) >= limit - 1e-12


def powered(row: dict, family_size: int) -> bool:
    """Whether the run had at least 80% power to detect the planted effect of this row: a normal test
    at Holm's strictest level (alpha / family size), the effect the planted truth's distance from the
    null, its standard error read from the row's 95% interval."""
    if any(pd.isna(row[c]) for c in ("truth", "null", "ci_low", "ci_high")) or row["ci_high"] <= row["ci_low"]:
        return True  # nothing to read a standard error from: required, as before
    se = (row["ci_high"] - row["ci_low"]) / (2 * stats.norm.ppf(0.975))
    if is_rate(row.get("measure_id", "")) and not pd.isna(row.get("n_items")) and row["n_items"] > 0:
        # a degenerate interval (e.g. [0, 1] from a broken reading) may not excuse its own miss
        t = min(max(row["truth"], 0.01), 0.99)
        se = min(se, SE_CAP * math.sqrt(t * (1 - t) / row["n_items"]))
    z = stats.norm.ppf(1 - ALPHA / (2 * max(family_size, 1)))
    return stats.norm.cdf(abs(row["truth"] - row["null"]) / se - z) >= POWER_GOAL


def detected(row: dict) -> float:
    """1.0 / 0.0 when the row can be judged detected (with the truth's sign; a planted null's row on
    either side: a false detection), NaN when it cannot: by Holm's adjusted p where the row is in a
    Holm family, by its own p where it is tested alone (a row outside every family), else by whether
    its interval excludes the null."""
    if pd.isna(row["null"]):
        return math.nan
    side = on_truths_side(row["estimate"], row["truth"], row["null"])
    for col in ("p_adjusted", "p"):
        if not pd.isna(row.get(col, math.nan)):
            return float(row[col] < ALPHA and side)
    if pd.isna(row["ci_low"]) or pd.isna(row["ci_high"]):
        return math.nan
    return float(not (row["ci_low"] <= row["null"] <= row["ci_high"]) and side)


def compare(findings: pd.DataFrame, truths: dict) -> pd.DataFrame:
    """One validation row per findings row whose measure has a truth."""
    rows = []
    for r in findings.to_dict("records"):
        if r["measure_id"] not in truths:
            continue
        notebook, truth, null = truths[r["measure_id"]]
        row = {"measure_id": r["measure_id"], "notebook": r["notebook"], "truth": truth, "null": null,
               "estimate": r["estimate"], "ci_low": r["ci_low"], "ci_high": r["ci_high"],
               "n_items": r["n_items"], "p": r.get("p", math.nan), "p_adjusted": r["p_adjusted"],
               "family": r.get("family", "")}
        ok = not (pd.isna(r["ci_low"]) or pd.isna(r["ci_high"]))
        row["covered"] = float(r["ci_low"] - 1e-9 <= truth <= r["ci_high"] + 1e-9) if ok else math.nan
        row["detected"] = detected(row)
        rows.append(row)
    return pd.DataFrame(rows, columns=COLUMNS + ["family"])


def parsed_shares(run_dir: Path, truth: Truth) -> pd.DataFrame:
    """Share of replies in the paper's format per notebook, from the notebooks' own raw outputs,
    against 1 - the planted failure rate (first replies only: the run asks no re-asks)."""
    from lib.rewardbench.judge import parse_choice
    from lib.self_preference.pointwise import parse_score

    found = {}
    f = run_dir / "pointwise_ratings.jsonl"
    if f.exists():
        d = pd.read_json(f, lines=True)
        found["05_pointwise_reranking"] = [parse_score(r[0]).value is not None for r in d["responses"] if r]
    f = run_dir / "generation_pairs.jsonl"
    if f.exists():
        d = pd.read_json(f, lines=True)
        asked = d[d["status"] != "missing"] if "status" in d else d
        asked = asked[asked["status"].isin(["ok", "unparsed", "wrong_format"])] if "status" in asked else asked
        found["06_generation_phase"] = [("Answer retrieved from" in (r[0] or "")) for r in asked["responses"] if r]
    f = run_dir / "rewardbench_raw.jsonl"
    if f.exists():
        d = pd.read_json(f, lines=True)
        found["13_rewardbench"] = [parse_choice(r[0]) is not None for col in ("replies_cr", "replies_rc")
                                   if col in d for r in d[col] if isinstance(r, list) and r]
    found.update(utility_parsed(run_dir))
    rows = []
    for nb, ok in found.items():
        n, k = len(ok), int(sum(ok))
        # one interval per notebook, all required to cover: Bonferroni over them, so a right pipeline
        # fails this condition by chance in at most 5% of draws however many notebooks are checked
        lo, hi = wilson_ci(k, n, ALPHA / len(found))
        goal = 1 - truth.format_failure
        rows.append({"measure_id": f"parsed_share.{nb}", "notebook": nb, "truth": goal, "null": math.nan,
                     "estimate": k / n if n else math.nan, "ci_low": lo, "ci_high": hi, "n_items": n,
                     "covered": float(lo <= goal <= hi) if n else math.nan, "p_adjusted": math.nan,
                     "detected": math.nan})
    return pd.DataFrame(rows, columns=COLUMNS)


def notebook_coverage(table: pd.DataFrame) -> pd.DataFrame:
    """Per notebook: rows with a defined coverage, how many cover, the share, whether it is judged on
    its own (at least NOTEBOOK_MIN_ROWS rows) and whether it passes NOTEBOOK_GOAL."""
    rows = table[~table["measure_id"].str.startswith("parsed_share.") & table["covered"].notna()]
    g = rows.groupby("notebook", sort=True)["covered"]
    out = pd.DataFrame({"rows": g.size(), "covered": g.sum().astype(int)})
    out["coverage"] = out["covered"] / out["rows"]
    out["judged"] = out["rows"] >= NOTEBOOK_MIN_ROWS
    out["passed"] = ~out["judged"] | (out["coverage"] >= NOTEBOOK_GOAL - 1e-12)
    return out.reset_index()


def _names(rows: pd.DataFrame, limit: int = 8) -> str:
    names = [f"{m} ({o})" if isinstance(o, str) and o else str(m)
             for m, o in zip(rows["measure_id"], rows.get("model", pd.Series([""] * len(rows), index=rows.index)))]
    return ", ".join(names[:limit]) + (", ..." if len(names) > limit else "")


def _unjudged_reasons(rows: pd.DataFrame) -> str:
    """Why rows that should be judged for detection were not, grouped by reason."""
    smoke = rows["n_items"] < SMOKE_UNITS
    parts = [(f"{int(smoke.sum())} below {SMOKE_UNITS} units (smoke size, no test)", rows[smoke]),
             (f"{int((~smoke).sum())} with no test and no interval", rows[~smoke])]
    return "; ".join(f"{what}: {_names(r, 3)}" for what, r in parts if len(r))


def verdict(table: pd.DataFrame, papers_size: bool = False) -> tuple[bool, str]:
    """(passed, summary line) of the five conditions of the check (module docstring); at the papers'
    sizes every planted effect of the declared size must be detected, below them only those the run
    has the power for."""
    if "missing" not in table:
        table = table.assign(missing=math.nan)
    gone = table[table["missing"] == 1]
    table = table[table["missing"] != 1]
    measures = table[~table["measure_id"].str.startswith("parsed_share.")]
    outside = measures[[out_of_range(m, t) for m, t in zip(measures["measure_id"], measures["truth"])]]
    defined = measures[measures["covered"].notna()]
    coverage = defined["covered"].mean() if len(defined) else math.nan
    per_nb = notebook_coverage(table)
    low_nb = per_nb[~per_nb["passed"]]
    # a boolean Series, not a list: an empty list would select no columns (a run whose notebooks write no row with a truth)
    need = measures[pd.Series([must_detect(m, t, n) for m, t, n in zip(measures["measure_id"], measures["truth"],
                                                                        measures["null"])], index=measures.index, dtype=bool)]
    unjudged = need[need["detected"].isna()]
    judged = need[need["detected"].notna()]
    if not papers_size:
        tested = measures[measures["p_adjusted"].notna()]
        # Holm's family size of each row: the rows adjusted with it (its study's), all tested rows when
        # unnamed; a row tested alone (no adjusted p) is its own family
        sizes = tested["family"].value_counts().to_dict() if "family" in tested else {}
        keep = pd.Series([powered(r, sizes.get(r.get("family"), len(tested)) if not pd.isna(r["p_adjusted"]) else 1)
                          for r in judged.to_dict("records")], index=judged.index, dtype=bool)
        excused, judged = judged[~keep], judged[keep]
    else:
        excused = judged.iloc[0:0]
    missed = judged[judged["detected"] < 1]
    nulls = measures[(measures["truth"] - measures["null"]).abs() < NULL_TOLERANCE]
    false_hits = nulls[nulls["detected"] == 1]
    shares = table[table["measure_id"].str.startswith("parsed_share.")]
    bad_shares = shares[shares["covered"] != 1]
    passed = (len(defined) > 0 and coverage >= COVERAGE_GOAL and low_nb.empty and missed.empty and bad_shares.empty
              and gone.empty and outside.empty)
    uncovered = defined[defined["covered"] < 1]
    line = (f"known truth: {'PASS' if passed else 'FAIL'}: "
            + (f"missing: {_names(gone)}; " if len(gone) else "")
            + (f"truth outside its range: {_names(outside)}; " if len(outside) else "")
            + f"coverage {int(defined['covered'].sum())}/{len(defined)} rows ({coverage:.0%}, goal {COVERAGE_GOAL:.0%})"
            + (f" (not covered: {_names(uncovered)})" if len(uncovered) else "")
            + (f"; notebooks below {NOTEBOOK_GOAL:.0%} of {NOTEBOOK_MIN_ROWS}+ rows: "
               + ", ".join(f"{r.notebook} {r.covered}/{r.rows}" for r in low_nb.itertuples()) if len(low_nb) else "")
            + "; planted effects detected "
            f"{len(judged) - len(missed)}/{len(judged)}"
            + (f" (missed: {_names(missed)})" if len(missed) else "")
            + (f" ({len(excused)} more not required: under 80% power at this size, "
               f"{int((excused['detected'] == 1).sum())} of them detected)" if len(excused) else "")
            + (f" ({len(unjudged)} not judged: {_unjudged_reasons(unjudged)})" if len(unjudged) else "")
            + (f"; false detections at planted nulls {len(false_hits)}/{int(nulls['detected'].notna().sum())}"
               if nulls["detected"].notna().any() else "")
            + f"; parsed share matches 1 - failure rate in {len(shares) - len(bad_shares)}/{len(shares)} notebooks")
    return passed, line


def design_of(cfg: dict, run_dir: Path | None = None) -> Design:
    """The part of the run's design the truth depends on, from the runner config (and notebook 09's
    candidate sets, the utility study's design, and 08's style pairs' lengths, when the run has them)."""
    per = cfg.get("per_notebook", {})
    return Design(datasets=tuple(per.get("01_dataset", {}).get("datasets", ("nq", "marco", "triviaqa"))),
                  settings=tuple(per.get("05_pointwise_reranking", {}).get("settings", ("normal", "rag"))),
                  combos=tuple(per.get("06_generation_phase", {}).get("combos", ("TT", "TF", "FT", "FF"))),
                  temperature=float(per.get("18_mitigation", {}).get("temperature", Design.temperature)),
                  utility=utility_design(run_dir, cfg) if run_dir else None,  # 10-12 (utility/design.py)
                  style_pairs=design_pairs(cfg, run_dir) if run_dir else ())  # 08 (self_preference/style_length.py)


PAPER_CONFIG = paths.CONFIGS / "paper.yaml"
# item counts (09's per dataset) and samples per item (04, 15): retries and token limits stay the run's
PAPER_COUNTS = ("n_items", "n_per_category", "style_items", "dataset_sizes", "n_samples")
UTILITY_NB = "09_utility_benchmarks"
DRAWN = ("01_dataset", UTILITY_NB)  # draw past the demo data with replacement
# the utility paper's design for one judged model, beside its counts: pairwise on 200 NQ questions (67 per
# dataset), Figure 6's three requirements, Table 4's k values (no curve over every k): docs/known_truth.md
PAPER_DESIGN = ("n_pairwise_items", "requirements", "k_values", "k_curve")
PARALLEL = 2  # notebooks at once where their reads allow (lib.runner.run_parallel): one per core here


def paper_sizes(notebooks, paper=PAPER_CONFIG) -> dict:
    """{notebook: item counts} of configs/paper.yaml for the run's notebooks; 01 and 09 draw with
    replacement (the demo data holds about 45 items per dataset; copies are separate questions to the
    simulator)."""
    import yaml

    per = (yaml.safe_load(Path(paper).read_text()) or {}).get("per_notebook") or {}
    out = {nb: {k: v for k, v in (per.get(nb) or {}).items() if k in PAPER_COUNTS + PAPER_DESIGN}
           for nb in notebooks}
    for nb in DRAWN:
        if nb in out:
            out[nb]["with_replacement"] = True
    return out


def parse_sizes(text: str) -> dict:
    """{dataset: questions} of 'nq=1000,hotpotqa=300,marco=300' (09's datasets, positive counts)."""
    out = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, _, count = part.partition("=")
        if name not in UTILITY_DATASETS or not count.isdigit() or int(count) < 1:
            raise ValueError(f"{part!r}: give dataset=count with a dataset of {', '.join(UTILITY_DATASETS)} "
                             "and a positive count")
        out[name] = int(count)
    return out


def run_config(config, url: str, size: int | str | None = None, concurrency: int | None = None,
               parallel: int = PARALLEL, utility_sizes: dict | None = None) -> dict:
    """The runner config of a validate run: every model role (13-15's judges too) on the simulator at
    `url`, the sizes (items per dataset, or "paper" for the papers' counts; `utility_sizes` replaces
    09's per-dataset counts there), the in-flight limit and how many notebooks run at once."""
    from lib import runner

    overrides = {}
    if size and size != "paper":
        overrides.update(n_items=int(size), n_per_category=int(size))
    if concurrency:
        overrides["concurrency"] = concurrency
    overrides["model"] = overrides["ppl_model"] = f"openai:sim@{url}"  # 03 reads its echo too
    overrides["chat_model"] = overrides["model"]  # 09's writer too (a role `model` does not reach)
    cfg = runner.load_config(config, overrides)
    cfg["_overrides"].update(lifted(cfg, url))  # 13-15's judges at this address too (rewardbench/validate.py)
    cfg["parallel"] = parallel
    if size == "paper":
        for nb, counts in paper_sizes(list(cfg["per_notebook"])).items():
            cfg["per_notebook"][nb].update(counts)
        if utility_sizes and UTILITY_NB in cfg["per_notebook"]:
            sizes = cfg["per_notebook"][UTILITY_NB].setdefault("dataset_sizes", {})
            sizes.update(utility_sizes)
    elif utility_sizes:
        raise ValueError("utility sizes replace Table 1's question counts: give them with --size paper")
    return cfg


def validate(truth_path, size: int | str | None = None, run_name: str = "known_truth", config=RUN_CONFIG,
             only: list[str] | None = None, concurrency: int | None = None,
             parallel: int = PARALLEL, utility_sizes: dict | None = None,
             count_tokens: bool = False) -> tuple[bool, str, pd.DataFrame]:
    """Run the notebooks against a fresh simulator and write validation.csv; (passed, summary, table).
    `size` is items per dataset, or "paper" for the papers' counts (`paper_sizes`); `count_tokens`:
    the simulator counts the prompt tokens it receives (simulator_stats.json)."""
    from lib import runner

    truth = load_truth(truth_path)
    run_dir = paths.runs_root() / run_name
    shutil.rmtree(run_dir, ignore_errors=True)  # a fresh run: no findings or own texts of an earlier one
    run_dir.mkdir(parents=True)
    cache = run_dir / "results_cache"  # replies depend on the truth file: never share a cache with other runs
    try:
        with own_cache(cache), SimServer(truth, run_dir, count_tokens=count_tokens) as sim:
            cfg = run_config(config, sim.url, size, concurrency, parallel, utility_sizes)
            runner.run(cfg, run_name, only)
            stats = sim.stats()
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    (run_dir / "simulator_stats.json").write_text(json.dumps(stats, indent=1))
    return check_run(run_dir, truth_path, cfg, only, papers_size=size == "paper")


def check_run(run_dir: Path, truth_path, cfg: dict, only: list[str] | None = None,
              papers_size: bool = False) -> tuple[bool, str, pd.DataFrame]:
    """Compare a finished validate run's findings with the truth file it was served under, write
    validation.csv and the summary; (passed, summary, table). `only` as the run was given it."""
    from lib import runner
    from lib.report.findings import collect

    truth = load_truth(truth_path)
    findings = collect(run_dir)
    design = design_of(cfg, run_dir)
    truths_of = model_truths(truth, cfg, run_dir,  # per served model (rewardbench/validate.py)
                             lambda t, d: {**measure_truths(t, d), **likelihood_truths(t, d), **mitigation_truths(t, d)},
                             design)
    ran = {p.stem for p in runner.select_notebooks(cfg, only)}
    params = {**(cfg.get("parameters") or {}), **(cfg.get("_overrides") or {})}
    expected = expected_rows(truths_of, ran, params)
    table = pd.concat([compare_by_model(findings, truths_of, compare),
                       missing_rows(findings, expected, truths_of, COLUMNS),
                       paired_rows([run_dir], truths_of, COLUMNS), parsed_shares(run_dir, truth),
                       knowledge_rows(run_dir, truth, cfg)], ignore_index=True)
    passed, line = verdict(table, papers_size=papers_size)
    table.to_csv(run_dir / "validation.csv", index=False)
    (run_dir / "validation_summary.txt").write_text(line + "\n")
    with open(run_dir / "README.md", "a", encoding="utf-8") as f:
        f.write(f"\n## Known truth ({Path(truth_path).name})\n\n{line}\n\n"
                + table.to_markdown(index=False, floatfmt=".3f") + "\n")
    return passed, line, table


def recheck(truth_path, size: int | str | None = None, run_name: str = "known_truth", config=RUN_CONFIG,
            only: list[str] | None = None) -> tuple[bool, str, pd.DataFrame]:
    """check_run on a finished validate run (the same truth file, size and --only it ran with),
    without running a notebook: for a change to the truths or the check itself."""
    from .rewardbench.validate import PLACEHOLDER

    cfg = run_config(config, PLACEHOLDER, size)
    return check_run(paths.runs_root() / run_name, truth_path, cfg, only, papers_size=size == "paper")
