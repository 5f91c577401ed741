"""Every numbered notebook runs headlessly, in order, in one run with tiny parameters
(configs/smoke.yaml), under a temporary runs folder; then a few values of each notebook's tables
are checked (TABLE_CHECKS: one function per notebook, reading its CSVs)."""
import json

import pandas as pd
import pytest

from lib import runner
from lib.config import ROOT

pytestmark = pytest.mark.notebooks


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
    """Quickstart: the second call is served from the cache; shuffled text is less fluent."""
    answers = _csv(run, "00_quickstart", "quickstart_answers")
    assert len(answers) == 4 and answers["cached"].all()
    assert answers["tokens_out"].between(1, params["max_tokens"]).all()
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
    assert long["accuracy"].between(0, 1).all()
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


# Hook: notebooks 00-12 get their checks here (notebook stem -> check(run folder, its parameters)).
TABLE_CHECKS = {"13_rewardbench": check_13, "14_rm_difficulty": check_14, "15_best_of_n": check_15}


def test_whole_job_runs_with_tiny_parameters(tmp_runs):
    name = "pytest_smoke"
    cfg = runner.load_config(ROOT / "configs" / "smoke.yaml")
    man = runner.run(cfg, name)
    assert man["status"] == "ok"
    ran = [e["notebook"] for e in man["notebooks"]]
    assert ran == [p.name for p in runner.numbered_notebooks()]
    run = tmp_runs / name
    finished = sorted(f.stem for f in (run / "cache_stats").glob("*.json"))
    assert finished == [p.stem for p in runner.numbered_notebooks()], "every notebook must end with out.finish()"
    tables = [f for f in man["files"] if f["path"].endswith(".csv")]
    figures = [f for f in man["files"] if f["path"].endswith(".png")]
    assert tables and figures and all(f["bytes"] > 0 for f in tables + figures)
    assert json.loads((run / "manifest.json").read_text())["cache"] == man["cache"]
    assert not (ROOT / "data" / "runs" / name).exists(), "tests write runs under a temporary folder"
    for entry in man["notebooks"]:
        stem = entry["notebook"].removesuffix(".ipynb")
        if stem in TABLE_CHECKS:
            TABLE_CHECKS[stem](run, entry["parameters"])
