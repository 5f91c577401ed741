"""The notebooks' own study functions, in-process, for the replications (replicate.py): one function
per notebook, each calling the study function its notebook's code cells call (`STUDY_FUNCTIONS`) with
the run config of `make validate`
(configs/known_truth_run.yaml: re-asks off; 05-07's likelihood readings are left off here, a chat spec,
while `make validate` checks them with its `;base` spec) and writing what the
truth readers read (findings rows through `lib.report.findings.record`, 04's knowledge.jsonl, 07's
Table 5, 09's candidate sets). Tables and figures the checks do not read are not made."""
from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

DATASETS = ("nq", "marco", "triviaqa")
SETTINGS = ("rag",)  # 05: the RAG prompt only (the normal prompt has the same truth; half the requests)
STYLES = ("long", "qa")
UTILITY_DATASETS = ("nq", "hotpotqa", "marco")  # 09's datasets (Table 1)
KNOWLEDGE_SAMPLES, BON_SAMPLES = 5, 4
# 11 and 12's parameters here (the notebooks' names): only what their findings rows read is asked.
# 11's rows come from Table 3's set forms and Figure 5's first and last place (its pairwise and
# listwise-rank Table 3 forms, Figure 4's orders and Figure 6's requirements make no row); 12 keeps the
# listwise-set conditions its two gains compare, one ranking and one k (its pointwise and pairwise
# utility judgments cost 10 and 45 requests a question, the k curve 10 answers).
FACTORS = {"forms": ["pointwise", "listwise-set"], "positions": [1, 10],
           "position_forms": ["listwise-set", "listwise-rank"]}
ANSWERING = {"datasets": ["nq", "marco"], "relevance_forms": ["listwise-set"],
             "utility_forms": ["listwise-set", "listwise-rank"], "k_values": [5], "k_curve": False}
# Each notebook's study function (module.function): its code cells and its `nbNN` below both call it, so
# that a replication checks the notebook's own pipeline (tests/simulate/test_replicate_calls.py).
# 09 has none (its candidate sets are built once for all seeds, `build_utility_sets`); 17 is compare's.
STUDY_FUNCTIONS = {
    # self-preference notebooks
    "02": "lib.self_preference.study.passage_bank_study",
    "03": "lib.self_preference.study.perplexity_study",
    "04": "lib.self_preference.study.knowledge_probe_study",
    "05": "lib.self_preference.study.pointwise_study",
    "06": "lib.self_preference.study.generation_study",
    "07": "lib.self_preference.study.knowledge_stratified_study",
    "08": "lib.self_preference.study.writing_style_study",
    # utility and reward-model notebooks
    "10": "lib.utility.study.relevance_vs_utility",
    "11": "lib.utility.study.utility_factors",
    "12": "lib.utility.study.utility_for_answering",
    "13": "lib.rewardbench.study.reward_model_accuracy",
    "14": "lib.rewardbench.study.rm_difficulty",
    "15": "lib.rewardbench.study.best_of_n_selection",
}


@dataclass
class SeedRun:
    """One replication's run: its folder (under a temporary RAGBIAS_RUNS), the simulator's address,
    the seed (which samples the questions and pairs) and the size (questions per dataset)."""

    run_name: str
    run_dir: Path
    url: str
    seed: int
    size: int
    utility_size: int = 0  # 10's questions per dataset (0: `size`)
    memo: dict = field(default_factory=dict)  # what one notebook hands the next (items, bank, pairs)

    @property
    def spec(self) -> str:
        """The simulated model in every role (the truth file's own sections)."""
        return f"openai:sim@{self.url}"

    @property
    def reward_models(self) -> list[str]:
        """13-15's judges as the run config names them: both served models and the top-k judge."""
        return [f"judge:openai:sim@{self.url};retries:0;max_tokens:16",
                f"judge:openai:sim_b@{self.url};retries:0;max_tokens:16",
                f"judge:openai:sim@{self.url};logprob"]


def _items(run: SeedRun) -> pd.DataFrame:
    """01 / 02 / 04's items: a seeded sample of the demo data (a new sample per seed)."""
    from lib.sources import items_for_run

    if "items" not in run.memo:
        run.memo["items"] = items_for_run("", list(DATASETS), run.size, run.seed)
    return run.memo["items"]


def _bank(run: SeedRun) -> pd.DataFrame:
    """The bank notebook 02 wrote in this run (02 must have run)."""
    from lib.self_preference.bank import load_bank

    if "bank" not in run.memo:
        run.memo["bank"] = load_bank(run.run_dir / "passage_bank.jsonl")
    return run.memo["bank"]


def _record(run: SeedRun, notebook: str, rows: list[dict]) -> None:
    from lib.report import findings

    findings.record(run.run_name, notebook, rows)


def nb02(run: SeedRun, styles: tuple = ()) -> None:
    """02: the passage bank (styled passages only when 08 runs: they cost the longest replies)."""
    from lib.self_preference import bank as B
    from lib.self_preference.study import passage_bank_study

    built = passage_bank_study(_items(run), [run.spec], k=1, styles=tuple(styles), style_items=run.size,
                               max_tokens=400)
    B.save_bank(built.passages, run.run_dir / "passage_bank.jsonl")
    run.memo.pop("bank", None)


def nb03(run: SeedRun) -> None:
    """03: perplexity of the human and the simulator's true passages from the simulator's echo."""
    from lib.self_preference.study import perplexity_study

    _record(run, "03_perplexity", perplexity_study(_bank(run), [run.spec], run.spec, paired=True).rows)


def nb04(run: SeedRun) -> None:
    """04: the knowledge probe (5 samples per question), saved where 07 and knowledge_rows read it."""
    from lib.self_preference import knowledge
    from lib.self_preference.study import knowledge_probe_study

    result = knowledge_probe_study(_items(run), [run.spec], n_samples=KNOWLEDGE_SAMPLES, temperature=1.0,
                                   max_tokens=24, rule="authors", use_aliases=False)
    knowledge.save_knowledge(result.knowledge, run.run_dir / "knowledge.jsonl")


def _pointwise(run: SeedRun, settings: tuple = SETTINGS):
    """05's study on the bank's normal passages under each prompt setting (likelihood readings off)."""
    from lib.self_preference.study import pointwise_study

    return pointwise_study(_bank(run), [run.spec], {}, settings=settings, k_retries=0, max_tokens=10,
                           temperature=0.0, retry_temperature=0.7, logprobs=5, expected_from="top_logprobs",
                           likelihood_scoring=False)


def ratings(run: SeedRun, settings: tuple = SETTINGS) -> pd.DataFrame:
    """05's pointwise ratings of the bank's normal passages under each prompt setting."""
    return _pointwise(run, settings).ratings


def nb05(run: SeedRun) -> None:
    """05: pointwise ratings (RAG prompt) and the human-minus-self rows."""
    _record(run, "05_pointwise_reranking", _pointwise(run).rows)


# 06 and 07's settings for the generation-phase pairs (likelihood choices off)
PAIR_SETTINGS = {"k_retries": 0, "max_tokens": 32, "temperature": 0.0, "retry_temperature": 0.7,
                 "fallback_number": False, "passage_rule": "authors"}


def _generation(run: SeedRun):
    """06's study, asked once per run: 07 reads the same pairs (the same prompts: one call here)."""
    from lib.self_preference.study import generation_study

    if "generation" not in run.memo:
        run.memo["generation"] = generation_study(_bank(run), [run.spec], {}, False, **PAIR_SETTINGS)
    return run.memo["generation"]


def generation_pairs(run: SeedRun) -> pd.DataFrame:
    """06 and 07's generation-phase pairs (07 asks the same prompts: one call here)."""
    return _generation(run).scored


def nb06(run: SeedRun) -> None:
    """06: the generation-phase preferences (paper's parsed reply)."""
    _record(run, "06_generation_phase", _generation(run).rows)


def nb07(run: SeedRun) -> None:
    """07: v1 Table 5 (factual preference per knowledge level), where knowledge_rows reads it."""
    from lib.self_preference.knowledge import load_knowledge
    from lib.self_preference.study import knowledge_stratified_study

    from .self_preference.knowledge_rows import TABLE5

    table5 = knowledge_stratified_study(_bank(run), load_knowledge(run.run_dir / "knowledge.jsonl"), [run.spec], {},
                                        False, **PAIR_SETTINGS, scored=generation_pairs(run)).table5
    (run.run_dir / TABLE5).parent.mkdir(parents=True, exist_ok=True)
    table5.to_csv(run.run_dir / TABLE5, index=False)


def nb08(run: SeedRun) -> None:
    """08: style preferences (the notebook's study: its table and findings rows)."""
    from lib.self_preference.study import writing_style_study

    result = writing_style_study(_bank(run), [run.spec], {}, k_retries=0, max_tokens=32, temperature=0.0,
                                 retry_temperature=0.7, passage_rule="authors")
    if not len(result.scored):
        return
    _record(run, "08_writing_style", result.rows)


UTILITY_FILES = ("utility_gti.jsonl", "utility_gtu.jsonl")


def build_utility_sets(url: str, folder: Path, size: int, retriever: str = "dense") -> None:
    """09's candidate sets (GTI, GTU) into `folder`, built once for all seeds: the dense retrieval runs
    on the CPU and does not depend on the seed; its writer (MS MARCO's counterfactual evidence) is the
    simulator at `url`, which restates the claim whatever the truth file."""
    from lib.utility.benchmark import save_benchmark
    from lib.utility.calls import Ledger
    from lib.utility.items import benchmark_sets, utility_items

    items, corpus_items, _ = utility_items(list(UTILITY_DATASETS), size, 0, {}, "", None)
    gti, gtu, _ = benchmark_sets(f"openai:sim@{url}", items, corpus_items, Ledger(), retriever=retriever,
                                 n_candidates=10, n_counterfactual=3, seed=0, max_words=0)
    folder.mkdir(parents=True, exist_ok=True)
    save_benchmark(gti, folder / UTILITY_FILES[0])
    save_benchmark(gtu, folder / UTILITY_FILES[1])


def nb09(run: SeedRun, built: Path) -> None:
    """09: the candidate sets built once (`build_utility_sets`), copied into this run."""
    for name in UTILITY_FILES:
        shutil.copy(built / name, run.run_dir / name)


def nb10(run: SeedRun) -> None:
    """10: relevance vs utility judgments, listwise set and rank, and Table 2's findings rows."""
    from lib.utility import study

    result = study.relevance_vs_utility(run.spec, run.run_dir / UTILITY_FILES[0], n_items=run.utility_size or run.size,
                                        failures="exclude", k_retries=0, seed=run.seed, n_boot=1000,
                                        replies_path=run.run_dir / "utility_rq1_replies.jsonl")
    _record(run, "10_relevance_vs_utility", result.rows)


def nb11(run: SeedRun) -> None:
    """11: Table 3's set forms and Figure 5's ground truth at the first and the last place, and the
    factor findings rows (the orders and requirements, which make no row, not asked)."""
    from lib.utility import study

    result = study.utility_factors([run.spec], run.run_dir / UTILITY_FILES[0],
                                   run.run_dir / "utility_rq2_replies.jsonl", **FACTORS,
                                   n_items=run.utility_size or run.size, failures="exclude", k_retries=0,
                                   seed=run.seed, n_boot=1000)
    _record(run, "11_utility_factors", result.rows)


def nb12(run: SeedRun) -> None:
    """12: answers from every evidence condition of `ANSWERING` (Table 4) and its findings rows."""
    from lib.utility import study

    result = study.utility_for_answering([run.spec], run.run_dir / UTILITY_FILES[1], **ANSWERING,
                                         n_items=run.utility_size or run.size, k_retries=0, seed=run.seed,
                                         n_boot=1000, replies_path=run.run_dir / "utility_rq3_replies.jsonl")
    _record(run, "12_utility_for_answering", result.rows)


def _rm_bank(run: SeedRun) -> pd.DataFrame | None:
    """13-15's passage bank: the one notebook 02 wrote in this run, if any (the RM pairs are rebuilt with it)."""
    from lib.self_preference.bank import load_bank

    if "rm_bank" not in run.memo:
        bank_file = run.run_dir / "passage_bank.jsonl"
        run.memo["rm_bank"] = load_bank(bank_file) if bank_file.exists() else None
    return run.memo["rm_bank"]


def nb13(run: SeedRun) -> None:
    """13: both judges and the top-k judge on the RM pairs (the demo pairs, a seeded sample per category);
    judge accuracy rows."""
    from lib.rewardbench import replies, study

    result = study.reward_model_accuracy(run.reward_models, "", run.size, run.seed, bank=_rm_bank(run),
                                         replies_path=run.run_dir / replies.RAW_FILE)
    _record(run, "13_rewardbench", result.rows)


def nb14(run: SeedRun) -> None:
    """14: the preference for the longer response (cached replies after 13)."""
    from lib.rewardbench import study

    result = study.rm_difficulty(run.reward_models, "", run.size, run.seed, bank=_rm_bank(run))
    _record(run, "14_rm_difficulty", result.rows)


def nb15(run: SeedRun) -> None:
    """15: best-of-N answers of the simulator, picked by each judge's knockout."""
    from lib.rewardbench import study

    result = study.best_of_n_selection(run.reward_models, run.spec, DATASETS, run.size, BON_SAMPLES, temperature=0.7,
                                       max_tokens=48, seed=run.seed, recall_rule="squad")
    _record(run, "15_best_of_n", result.rows)
