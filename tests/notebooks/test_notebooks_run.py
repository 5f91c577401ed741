"""Every numbered notebook runs headlessly, in order, in one run with tiny parameters
(configs/smoke.yaml), under a temporary runs folder; then a few values of each notebook's tables
are checked (TABLE_CHECKS: one function per notebook, reading its CSVs)."""
import json
import warnings

import pandas as pd
import pytest

from lib import pipeline, run_config, runner
from lib.paths import ROOT, figure_dir
from lib.rewardbench.accuracy_tables import NEVER_PARSED
from tests.compare.test_compare import two_runs  # noqa: F401  (two synthetic runs with findings)
from tests.latex_check import compile_errors, content_problems, engine, fit_problems, in_ci



def _csv(run, notebook: str, name: str) -> pd.DataFrame:
    return pd.read_csv(run / notebook / f"{name}.csv")


def _jsonl(run, name: str) -> pd.DataFrame:
    return pd.read_json(run / name, lines=True)


def _pairs_add_up(table: pd.DataFrame) -> None:
    """Every pair asked is missing, same-answer, unusable or valid; for each rate of the table
    (order: used passage 1 (k) or passage 2 (n - k); self; fact; style) k of n within the valid pairs."""
    assert (table["n_pairs"] == table[["n_missing", "n_same_answer", "n_unparsed", "n_valid"]].sum(axis=1)).all()
    assert (table["n_number_fallback"] <= table["n_valid"]).all()
    prefs = [c.removesuffix("_k") for c in table.columns if c.endswith("_k")]
    assert prefs, "a pair table without a rate"
    for pref in prefs:
        assert (table[f"{pref}_k"].between(0, table[f"{pref}_n"])).all()
        assert (table[f"{pref}_n"] <= table["n_valid"]).all()


def check_00(run, params):
    """Quickstart: one answer per question; the cache demo's second call is a hit, its first a miss
    (this run's cache is new), and the miss took longer; shuffled text is less fluent."""
    answers = _csv(run, "00_quickstart", "quickstart_answers")
    assert len(answers) == len(params["questions"]) and not answers["cached"].any()
    assert answers["tokens_out"].between(1, params["max_tokens"]).all()
    demo = _csv(run, "00_quickstart", "quickstart_cache")
    assert demo["cached"].tolist() == [False, True] and demo["seconds"].iloc[0] > demo["seconds"].iloc[1]
    ppl = _csv(run, "00_quickstart", "quickstart_perplexity").set_index("text")["perplexity"]
    assert 1 < ppl["fluent"] < ppl["shuffled"]


def check_01(run, params):
    """Dataset: n_items kept per source; the item list and the length table count the same items."""
    kept = _csv(run, "01_dataset", "items_kept_dropped").set_index("source")["kept"]
    assert set(kept.index) == {"nq", "marco", "triviaqa"} and kept.eq(params["n_items"]).all()
    items = _csv(run, "01_dataset", "items")
    assert len(items) == kept.sum() and items["id"].is_unique
    assert items.groupby("source").size().to_dict() == kept.to_dict()
    lengths = _csv(run, "01_dataset", "length_stats").set_index("source")["n"]
    assert lengths.to_dict() == kept.to_dict()


def check_02(run, params):
    """Passage bank: every verified item is ok first, ok after a retry, or dropped; the counts table
    adds up to the bank file; one true human passage per item."""
    ver = _csv(run, "02_passage_bank", "verification")
    assert (ver[["ok_first_try", "ok_after_retry", "dropped"]].sum(axis=1) == ver["n"]).all()
    assert (ver.loc[ver["kind"] == "rewrite", "n"] == params["n_items"] * 3).all()  # three datasets
    bank = _jsonl(run, "passage_bank.jsonl")
    counts = _csv(run, "02_passage_bank", "bank_counts")
    assert counts["passages"].sum() == len(bank)
    true = counts["factuality"].astype(str).str.lower() == "true"  # read_csv turns the word into a bool
    human = counts[(counts["author"] == "human") & true & (counts["style"] == "normal")]
    assert human.set_index("dataset")["passages"].eq(params["n_items"]).all() and len(human) == 3


def check_03(run, params):
    """Perplexity: n per (dataset, author) is the bank's count of true, normal-style passages."""
    stats = _csv(run, "03_perplexity", "ppl_by_author")
    bank = _jsonl(run, "passage_bank.jsonl")
    scored = bank[(bank["factuality"] == "true") & (bank["style"] == "normal")]
    want = scored.groupby(["dataset", "author"]).size().to_dict()
    assert stats.set_index(["dataset", "author"])["n"].to_dict() == want
    assert (stats["ppl_mean"] > 1).all()


def check_04(run, params):
    """Knowledge: n_samples replies per item, correct ones within them; level shares sum to 100 %."""
    know = _jsonl(run, "knowledge.jsonl")
    assert know["responses"].str.len().eq(params["n_samples"]).all()
    assert know["n_correct"].between(0, params["n_samples"]).all()
    levels = _csv(run, "04_knowledge_probe", "knowledge_levels")
    assert levels[["none (%)", "partial (%)", "full (%)"]].sum(axis=1).round(6).between(99.8, 100.2).all()
    assert levels.set_index("dataset")["n"].to_dict() == know.groupby("dataset").size().to_dict()


def check_05(run, params):
    """Pointwise: in every cell parsed + unparsed = asked, the score histogram counts every rating
    once, and the cells hold every rating of the file (2 settings x the bank's normal passages)."""
    cells = _csv(run, "05_pointwise_reranking", "05_pointwise_cells")
    assert (cells["n_parsed"] + (cells["parse_fail_rate"] * cells["n"]).round() == cells["n"]).all()
    keys = ["dataset", "evaluator", "setting", "factuality", "author", "false_by"]
    dist = _csv(run, "05_pointwise_reranking", "05_score_distribution")
    counted = dist.assign(total=dist[["1", "2", "3", "4", "5", "other", "unparsed"]].sum(axis=1))
    both = cells.merge(counted[keys + ["total", "unparsed"]], on=keys, how="outer", validate="one_to_one")
    assert (both["total"] == both["n"]).all() and (both["unparsed"] == both["n"] - both["n_parsed"]).all()
    ratings = _jsonl(run, "pointwise_ratings.jsonl")
    assert cells["n"].sum() == len(ratings) and set(ratings["setting"]) == {"normal", "rag"}
    bank = _jsonl(run, "passage_bank.jsonl")
    asked = bank[(bank["style"] == "normal") & bank["dataset"].isin(params["datasets"])]
    assert len(ratings) == 2 * len(asked[asked["item_id"].isin(ratings["item_id"])])


def check_06(run, params):
    """Generation phase: per cell, used passage 1 + used passage 2 + unusable = pairs asked; the
    cells cover every pair of the file once; one pair row per order of each combo asked."""
    pairs = _jsonl(run, "generation_pairs.jsonl")
    assert set(pairs["combo"]) <= set(params["combos"]) and set(pairs["order"]) == {"a_first", "b_first"}
    for name in ("06_preferences", "06_self_by_combo", "06_v1_table9_front", "06_v1_table10_self_vs_order"):
        _pairs_add_up(_csv(run, "06_generation_phase", name))
    pref = _csv(run, "06_generation_phase", "06_preferences")
    assert pref["n_pairs"].sum() == len(pairs)
    assert (pref["order_n"] == pref["n_valid"]).all() and (pref["self_n"] == pref["n_valid"]).all()
    by_combo = _csv(run, "06_generation_phase", "06_self_by_combo")
    assert by_combo.groupby("combo")["n_pairs"].sum().to_dict() == pairs.groupby("combo").size().to_dict()


def check_07(run, params):
    """Knowledge-stratified: items split over the three levels; factual counts within the
    asymmetric pairs; the extreme cases add up like every pair table."""
    t5 = _csv(run, "07_knowledge_stratified", "07_v1_table5_knowledge")
    levels = t5[t5["level"].isin(["none", "partial", "full"])]
    know = _jsonl(run, "knowledge.jsonl")
    for (dataset, _), g in levels.groupby(["dataset", "evaluator"]):
        assert g["n_items"].sum() <= (know["dataset"] == dataset).sum() and g["n_items"].sum() >= 1
    assert (t5["fact_k"] <= t5["fact_n"]).all() and (t5["fact_n"] <= t5["n_asym_pairs"]).all()
    _pairs_add_up(_csv(run, "07_knowledge_stratified", "07_extreme_cases"))


def check_08(run, params):
    """Writing style: every style pair table adds up (pairs asked = unusable + valid + ...)."""
    style = _csv(run, "08_writing_style", "08_style_preferences")
    assert len(style) and set(style["kind"]) <= {"gen_by_qa", "long"}
    _pairs_add_up(style)


def _replies_per_question(form: str, n_passages: int) -> int:
    """How many replies one question costs in a judging form (section 2.3.2)."""
    return {"pointwise": n_passages, "pairwise": n_passages * (n_passages - 1) // 2}.get(form, 1)


def _judging_adds_up(per_q: pd.DataFrame, fails: pd.DataFrame, by: list[str], n_passages: dict) -> None:
    """Per question, ok + repaired + failed replies = replies asked for its form; per group of the
    failure table the same over its questions, and failed questions within them."""
    asked = [_replies_per_question(f, n_passages[i]) for f, i in zip(per_q["form"], per_q["id"])]
    assert (per_q[["n_ok", "n_repaired", "n_failed"]].sum(axis=1) == asked).all()
    assert (per_q["failed"] == per_q["headline"].isna()).all()
    got = fails.set_index(by)
    for key, g in per_q.assign(asked=asked).groupby(by):
        row = got.loc[key]
        assert row["questions"] == len(g) and row["failed questions"] == g["failed"].sum()
        assert row[["replies ok", "replies repaired", "replies failed"]].sum() == g["asked"].sum()


def check_09(run, params):
    """Utility benchmarks: n_items questions per dataset, n_candidates passages each (the GTI
    composition adds up to them), at most n_counterfactual counterfactuals, recall rising with k."""
    prov = _csv(run, "09_utility_benchmarks", "utility_item_provenance").set_index("dataset")["questions"]
    assert set(prov.index) == set(params["datasets"]) and prov.eq(params["n_items"]).all()
    gti = _jsonl(run, "utility_gti.jsonl")
    assert len(gti) == params["n_items"] * len(params["datasets"])
    assert gti["passage"].str.len().eq(params["n_candidates"]).all()
    assert (gti["passage"].str.len() == gti["ground_truth_label"].str.len()).all()
    assert gti["ground_truth_label"].map(sum).ge(1).all()
    t1 = _csv(run, "09_utility_benchmarks", "utility_table1_gti_composition").set_index("source")
    kinds = t1[["weakly_relevant", "ground_truth", "counterfactual", "highly_relevant"]].sum(axis=1)
    assert kinds.round(6).eq(params["n_candidates"]).all() and t1["#queries"].eq(params["n_items"]).all()
    assert (t1["counterfactual"] <= params["n_counterfactual"]).all()
    gtu = _jsonl(run, "utility_gtu.jsonl")
    assert gtu["passage"].str.len().le(params["n_candidates"]).all() and len(gtu) == len(gti)
    recall = _csv(run, "09_utility_benchmarks", "utility_retrieval_recall")
    assert recall["recall"].between(0, 1).all() and recall["n"].eq(params["n_items"]).all()
    for _, g in recall.groupby(["retriever", "source"]):
        assert g.sort_values("k")["recall"].is_monotonic_increasing


def check_10(run, params):
    """Relevance vs utility: every question judged in the four (judgment, form) conditions once;
    replies add up per question and per failure-table group; one request per question each."""
    gti = _jsonl(run, "utility_gti.jsonl")
    n_passages = dict(zip(gti["id"], gti["passage"].str.len()))
    per_q = _csv(run, "10_relevance_vs_utility", "utility_rq1_per_question")
    assert len(per_q) == 4 * len(gti) and not per_q.duplicated(["id", "judgment", "form"]).any()
    fails = _csv(run, "10_relevance_vs_utility", "utility_rq1_failures")
    _judging_adds_up(per_q, fails, ["source", "judgment", "form"], n_passages)
    assert len(_jsonl(run, "utility_rq1_replies.jsonl")) == len(per_q)
    cost = _csv(run, "10_relevance_vs_utility", "utility_rq1_cost")
    assert len(cost) == 4 and cost["requests"].eq(len(gti)).all() and cost["requests / question"].eq(1.0).all()
    t2 = _csv(run, "10_relevance_vs_utility", "utility_table2_relevance_vs_utility")
    assert (t2["failed set"] <= t2["n set"]).all() and t2["n set"].sum() == len(gti) * 2


def _benchmark_rows(run, name: str, params) -> pd.DataFrame:
    """The questions a utility notebook judges: its datasets, the first n_items of each."""
    rows = _jsonl(run, name)
    rows = rows[rows["source"].isin(params["datasets"])] if params.get("datasets") else rows
    return rows.groupby("source", sort=False).head(params["n_items"]) if params.get("n_items") else rows


def check_11(run, params):
    """Utility factors: each factor judged every question once per level and form; replies add up
    per (factor, form); one request per question and listwise method (nothing asked twice)."""
    rows = _benchmark_rows(run, "utility_gti.jsonl", params)
    n, n_passages = len(rows), int(rows["passage"].str.len().max())
    n_req = int((rows["source"] == params.get("requirement_dataset", "nq")).sum()) or n
    asks = {"form": n, "order": n * len([o for o in params["orders"] if o != "question-first"]),
            "position": n * len(params["positions"]), "requirement": n_req * (1 + len(params["requirements"]))}
    fails = _csv(run, "11_utility_factors", "utility_rq2_failures")
    for _, r in fails.iterrows():
        asked = asks[r["factor"]] if r["form"] != "pairwise" else r["questions"]
        assert r["questions"] == asked, (r["factor"], r["form"], r["questions"], asked)
        per_q = _replies_per_question(r["form"], n_passages)
        assert r[["replies ok", "replies repaired", "replies failed"]].sum() == r["questions"] * per_q
        assert r["failed questions"] <= r["questions"]
    cost = _csv(run, "11_utility_factors", "utility_rq2_cost")
    listwise = cost[cost["method"].str.contains("listwise")]
    assert len(listwise) and listwise["requests / question"].eq(1.0).all(), listwise[["method", "requests / question"]]
    fig5 = _csv(run, "11_utility_factors", "utility_fig5_failures")
    assert len(fig5) == len(params["positions"]) * len(params["position_forms"]) and fig5["questions"].eq(n).all()
    sets = _csv(run, "11_utility_factors", "utility_table3_sets")
    assert sets.groupby("source")["n"].max().to_dict() == rows.groupby("source").size().to_dict()


def check_12(run, params):
    """Answering: one answer per (question, condition); no evidence without a judgment; requests
    per question = 1 for plain answers, 2 with a judgment, k + 1 for k-sampling."""
    rows = _benchmark_rows(run, "utility_gtu.jsonl", params)
    answers = _csv(run, "12_utility_for_answering", "utility_rq3_answers")
    conditions = {"none", "dense", "ground-truth"} | {f"relevance {f}" for f in params["relevance_forms"]} | \
        {f"utility {f}" for f in params["utility_forms"]} | {f"{k}-sampling" for k in params["k_values"]}
    assert set(answers["condition"]) == conditions and not answers.duplicated(["id", "condition"]).any()
    assert answers.groupby("condition")["id"].nunique().eq(len(rows)).all()
    assert answers.loc[answers["condition"] == "none", "n_evidence"].eq(0).all()
    assert answers.loc[answers["condition"] == "ground-truth", "n_evidence"].ge(1).all()
    failed = answers["judgment failed"].fillna(False).astype(bool)
    assert answers.loc[failed, "n_evidence"].eq(0).all()
    assert answers["F1"].between(0, 1).all() and (answers.loc[answers["EM"] == 1, "F1"] == 1).all()
    t4 = _csv(run, "12_utility_for_answering", "utility_table4_answering").set_index("condition")
    assert t4["n"].eq(len(rows)).all()
    want = {c: 1.0 if c in ("none", "dense", "ground-truth") else
            float(c.split("-")[0]) + 1 if c.endswith("-sampling") else 2.0 for c in conditions}
    assert t4["requests / question"].tolist() == [want[c] for c in t4.index]
    k_runs = _jsonl(run, "utility_k_runs.jsonl")  # 18's order averaging reads them
    assert k_runs.groupby("model").size().eq(len(rows)).all()
    assert k_runs["orders"].map(len).eq(max(params["k_values"])).all()
    assert all(set(v) <= set(o[0]) for v, o in zip(k_runs["voted"], k_runs["orders"]))  # stored indices shown


def check_16(run, params):
    """Paper check: the printed 'N of M cells match' line is the file's; the differences table
    lists exactly the cells that do not match; the file equals a fresh check of the same release."""
    from lib import paper_check
    from lib.paper_check import consistency
    from lib.self_preference import paper_check as sp_check

    check = pd.read_csv(run / "paper_check.csv")
    assert list(check.columns) == paper_check.COLUMNS
    nb = json.loads((run / "notebooks" / "16_paper_check.ipynb").read_text())
    printed = "".join("".join(o.get("text", "")) for c in nb["cells"] for o in c.get("outputs", []))
    assert paper_check.summary_line(check) in printed
    differ = _csv(run, "16_paper_check", "paper_check_differences")
    assert len(differ) == int((~check["match"].astype(bool)).sum())
    release = sp_check.release_folder(ROOT / params["release_dir"])
    with warnings.catch_warnings():  # the swapped-perplexity notice, already shown by the notebook
        warnings.simplefilter("ignore", UserWarning)
        fresh = pd.concat([sp_check.check_release(release, params.get("fix_swapped", True)),
                           consistency.utility_f1_rows()], ignore_index=True)
    assert len(fresh) == len(check) and int(fresh["match"].sum()) == int(check["match"].sum())


def check_13(run, params):
    """Reward-model accuracies: one raw record per (rm, pair); counts add up; rates in [0, 1]."""
    stats = _csv(run, "13_rewardbench", "rewardbench_table4")
    n_pairs = int(stats.loc[stats["subset"] == "total", "n"].sum())
    assert n_pairs == params["n_per_category"] * 3  # the demo pairs have three categories
    rms = params["reward_models"]
    raw = [json.loads(line) for line in (run / "rewardbench_raw.jsonl").read_text().splitlines()]
    assert len(raw) == len(rms) * n_pairs and {r["spec"] for r in raw} == set(rms)
    long = _csv(run, "13_rewardbench", "rewardbench_accuracy_long")
    overall = long[long["level"] == "overall"]
    assert len(overall) == len(rms) and overall["n"].eq(n_pairs).all()
    shown = long["no_interval"].fillna("") != NEVER_PARSED  # a judge that parsed nothing has no accuracy
    assert long.loc[shown, "accuracy"].between(0, 1).all() and long.loc[~shown, "accuracy"].isna().all()
    judges = _csv(run, "13_rewardbench", "rewardbench_judges")
    assert judges["pairs"].eq(n_pairs).all()
    assert judges["unparsed_verdicts"].between(0, 2 * n_pairs).all()
    assert (judges["unparsed_rate"] * 2 * n_pairs).round(6).eq(judges["unparsed_verdicts"]).all()


def check_14(run, params):
    """Length bias: bins cover every pair once per reward model."""
    n_pairs = params["n_per_category"] * 3
    by_length = _csv(run, "14_rm_difficulty", "rm_accuracy_by_length_diff")
    assert by_length.groupby("rm")["n"].sum().eq(n_pairs).all()
    bias = _csv(run, "14_rm_difficulty", "rm_length_bias")
    assert bias["pairs_unequal_length"].between(0, n_pairs).all()


def check_15(run, params):
    """Best-of-N: one row per reward model; random <= oracle, pick <= oracle; the basis is named."""
    bon = _csv(run, "15_best_of_n", "best_of_n")
    assert len(bon) == len(params["reward_models"])
    assert bon["items"].eq(params["n_items"] * len(params["datasets"])).all()
    assert (bon["recall_random"] <= bon["recall_oracle"] + 1e-9).all()
    assert (bon["recall_pick"] <= bon["recall_oracle"] + 1e-9).all()
    assert bon["accuracy_on"].str.startswith("overall").all()  # the demo pairs have no reason subset


def check_17(run, params):
    """Compare: one row per measure any compared run has; each model's estimate, interval and n are
    that run's findings row, and a model without the measure has an empty cell."""
    from lib.compare import join
    from lib.report.labels import label

    wide = pd.read_csv(run / "comparison.csv")
    keys = list(join.KEYS)
    got = wide.set_index(keys)
    folders = join.resolve_runs(params["runs"])
    assert len(folders) >= 2, "17 compares at least two runs here"
    union = set()
    for folder in folders:
        model = join.run_model(json.loads((folder / "manifest.json").read_text()))
        rows = pd.read_csv(folder / "findings.csv").set_index(keys)
        union |= set(rows.index)
        for col in ("estimate", "ci_low", "ci_high", "n"):
            mine = got[f"{col} [{label(model)}]"]
            assert mine.reindex(rows.index).tolist() == pytest.approx(rows[col].tolist()), (folder.name, col)
            assert mine.drop(index=list(rows.index)).isna().all(), f"{folder.name}: a value for a measure it lacks"
    assert set(got.index) == union and got.index.is_unique


# notebook stem -> check(run folder, its parameters)
TABLE_CHECKS = {"00_quickstart": check_00, "01_dataset": check_01, "02_passage_bank": check_02,
                "03_perplexity": check_03, "04_knowledge_probe": check_04, "05_pointwise_reranking": check_05,
                "06_generation_phase": check_06, "07_knowledge_stratified": check_07, "08_writing_style": check_08,
                "09_utility_benchmarks": check_09, "10_relevance_vs_utility": check_10,
                "11_utility_factors": check_11, "12_utility_for_answering": check_12,
                "13_rewardbench": check_13, "14_rm_difficulty": check_14, "15_best_of_n": check_15,
                "16_paper_check": check_16, "17_compare_models": check_17}


def _study_checks() -> dict:
    """The checks a study declares beside its own tests (tests/<study>/notebook_checks.py, `TABLE_CHECKS`),
    so a new notebook adds its check in its own folder, not in this list."""
    import importlib

    found = {}
    for path in sorted((ROOT / "tests").glob("*/notebook_checks.py")):
        found.update(importlib.import_module(f"tests.{path.parent.name}.notebook_checks").TABLE_CHECKS)
    return found


TABLE_CHECKS.update(_study_checks())


def test_every_numbered_notebook_has_a_table_check():
    """A notebook added without an entry here would run with no table check: that fails."""
    missing = [p.stem for p in run_config.numbered_notebooks() if p.stem not in TABLE_CHECKS]
    assert missing == [], f"add a check_NN to TABLE_CHECKS for {missing}"


@pytest.mark.notebooks
def test_whole_job_runs_with_tiny_parameters(tmp_runs):
    name = "pytest_smoke"
    cfg = runner.load_config(ROOT / "configs" / "smoke.yaml")
    man = runner.run(cfg, name)
    assert man["status"] == "ok"
    ran = [e["notebook"] for e in man["notebooks"]]
    # every numbered notebook but 17, which `all` runs only when given runs to compare (declared on request in lib.pipeline)
    assert ran == [p.name for p in run_config.numbered_notebooks() if not pipeline.step(p.stem).on_request]
    run = tmp_runs / name
    finished = sorted(f.stem for f in (run / "cache_stats").glob("*.json"))
    assert finished == [p.stem for p in run_config.numbered_notebooks() if not pipeline.step(p.stem).on_request], \
        "every notebook must end with out.finish()"
    tables = [f for f in man["files"] if f["path"].endswith(".csv")]
    figures = [f for f in man["files"] if f["path"].endswith(".png")]
    assert tables and figures and all(f["bytes"] > 0 for f in tables + figures)
    assert json.loads((run / "manifest.json").read_text())["cache"] == man["cache"]
    assert not (ROOT / "data" / "runs" / name).exists(), "tests write runs under a temporary folder"
    for entry in man["notebooks"]:
        TABLE_CHECKS[entry["notebook"].removesuffix(".ipynb")](run, entry["parameters"])
    _latex_tables_compile(figure_dir(name), tmp_runs.parent / "latex")
    # every findings row has an interval or says why not (n = 0 says it itself)
    rows = pd.read_csv(run / "findings.csv")
    silent = rows[rows["ci_low"].isna() & rows["no_interval"].isna() & (rows["n"] > 0)]
    assert silent.empty, silent[["notebook", "measure_id", "n"]].to_string()
    # a row's `measure` is what a reader reads (its measure_id keeps the slugs): no "per_word", "ground_truth"
    slugged = rows[rows["measure"].str.contains(r"[a-z]_[a-z]")]
    assert slugged.empty, slugged[["notebook", "measure"]].to_string()
    outputs_agree_with_findings(run, rows)


def outputs_agree_with_findings(run, rows: pd.DataFrame) -> None:
    """Every table of the run shows an interval only where the findings' rule would (none below 10
    units or of zero width: lib.stats.shown_interval); every findings row's interval is the rule's;
    the run README reads as English, parse failures never among its findings."""
    from lib.report.intervals import shown_against_rule
    from lib.report.run_readme import wording_problems
    from lib.stats import shown_interval

    tables = sorted(p for p in run.glob("[0-9][0-9]_*/*.csv"))
    assert tables
    shown = {p.relative_to(run).as_posix(): shown_against_rule(pd.read_csv(p)) for p in tables}
    assert {k: v for k, v in shown.items() if v} == {}
    with_ci = rows[rows["ci_low"].notna()]
    assert all(shown_interval(n, a, b)[0] == a for n, a, b in zip(with_ci["n_items"], with_ci["ci_low"], with_ci["ci_high"]))
    assert wording_problems((run / "README.md").read_text()) == []


@pytest.mark.notebooks
def test_compare_notebook_tables(two_runs, tmp_path):  # noqa: F811  (fixture)
    """17, which `notebooks: all` leaves out without runs, on two synthetic runs, through its table check."""
    cfg = tmp_path / "c.yaml"
    cfg.write_text(json.dumps({"run": "cmp", "notebooks": ["17"],
                               "per_notebook": {"17_compare_models": {"runs": ["sw__*"]}}}))
    man = runner.run(runner.load_config(cfg), "cmp")
    assert man["status"] == "ok"
    (entry,) = man["notebooks"]
    TABLE_CHECKS["17_compare_models"](two_runs / "cmp", entry["parameters"])


def _latex_tables_compile(folder, workdir) -> None:
    """Every LaTeX table the run wrote compiles with pdflatex and has no raw number or NaN cell
    (last, so a machine without LaTeX still gets every other check; in CI a missing engine fails)."""
    tex = {p.name: p.read_text() for p in sorted(folder.glob("*.tex"))}
    assert tex, "the smoke run wrote no LaTeX table"
    assert [p for name, text in tex.items() for p in content_problems(name, text)] == []
    if engine() is None:
        assert not in_ci(), "CI is set but pdflatex is missing: .ci/run installs texlive-latex-recommended"
        warnings.warn("LaTeX tables of the smoke run not compiled: no pdflatex (see README, Tests)")
        return
    assert compile_errors(tex, workdir) == {}
    assert fit_problems(tex, workdir) == []  # a `table` fits a column, a `table*` the page
    from lib.report.captions import caption_for
    assert [n for n in tex if caption_for(n.removesuffix(".tex")) is None] == [], "a table without a declared caption"
