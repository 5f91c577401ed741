"""`validate --size paper`: the run's notebooks get the item counts of configs/paper.yaml (and the
utility study's design for one judged model) and nothing else of it (retries and token limits stay the
run's), 01 and 09 draw with replacement, 09 takes the utility paper's counts per dataset and 15 its
samples per question."""
import yaml

from lib import paths
from lib.simulate.__main__ import main
from lib.simulate.validate import RUN_CONFIG, paper_sizes


def test_paper_sizes_are_the_paper_configs_item_counts():
    run = list(yaml.safe_load(RUN_CONFIG.read_text())["per_notebook"])
    got = paper_sizes(run)
    paper = yaml.safe_load((paths.CONFIGS / "paper.yaml").read_text())["per_notebook"]
    assert got["01_dataset"] == {"n_items": paper["01_dataset"]["n_items"], "with_replacement": True}
    assert got["02_passage_bank"] == {"n_items": 700, "style_items": paper["02_passage_bank"]["style_items"]}
    assert got["13_rewardbench"] == {"n_per_category": paper["13_rewardbench"]["n_per_category"]}
    assert all("k_retries" not in c and "max_tokens" not in c and "evaluators" not in c for c in got.values())


def test_paper_sizes_follow_the_file(tmp_path):
    f = tmp_path / "paper.yaml"
    f.write_text("per_notebook:\n  02_passage_bank: {n_items: 12, k: 3}\n  06_generation_phase: {k_retries: 2}\n")
    assert paper_sizes(["02_passage_bank", "06_generation_phase"], f) == {
        "02_passage_bank": {"n_items": 12}, "06_generation_phase": {}}


def test_a_size_that_is_neither_a_number_nor_paper_stops_with_one_message(capsys):
    assert main(["validate", "--size", "papers"]) == 2
    assert "give a number of items or 'paper'" in capsys.readouterr().err


def test_the_utility_study_takes_the_papers_design_for_one_judged_model():
    """11: pairwise on 67 questions per dataset (the paper's 200 NQ) and Figure 6's three requirements;
    12: Table 4's k values without the curve over every k (beyond the paper)."""
    got = paper_sizes(["11_utility_factors", "12_utility_for_answering"])
    assert got["11_utility_factors"] == {"n_items": 0, "n_pairwise_items": 67,
                                         "requirements": ["cot", "reasoning", "answer"]}
    assert got["12_utility_for_answering"] == {"n_items": 0, "k_values": [5, 10], "k_curve": False}


def test_a_paper_run_config_runs_two_notebooks_at_once_and_one_when_asked():
    from lib.simulate.validate import run_config

    cfg = run_config(RUN_CONFIG, "http://127.0.0.1:1/v1", "paper")
    assert cfg["parallel"] == 2
    assert cfg["per_notebook"]["11_utility_factors"]["n_pairwise_items"] == 67
    assert run_config(RUN_CONFIG, "http://127.0.0.1:1/v1", 10, parallel=1)["parallel"] == 1


def test_09_takes_the_utility_papers_counts_per_dataset_drawn_with_replacement():
    """Table 1's #queries (NQ 1,863, HotpotQA 4,407, MS MARCO 3,121), past the demo data by copies."""
    got = paper_sizes(["09_utility_benchmarks"])["09_utility_benchmarks"]
    assert got == {"n_items": 0, "dataset_sizes": {"nq": 1863, "hotpotqa": 4407, "marco": 3121},
                   "with_replacement": True}


def test_utility_sizes_replace_table_1s_counts_at_the_papers_size_only(capsys):
    """`--utility-sizes` (make validate UTILITY_SIZES=...): 09's questions per dataset in place of Table 1's,
    the rest of the papers' counts kept; a misspelt dataset or a run below the papers' size stops."""
    import pytest

    from lib.simulate.validate import parse_sizes, run_config

    sizes = parse_sizes("nq=1000, hotpotqa=300,marco=300")
    cfg = run_config(RUN_CONFIG, "http://127.0.0.1:1/v1", "paper", utility_sizes=sizes)
    nb09 = cfg["per_notebook"]["09_utility_benchmarks"]
    assert nb09["dataset_sizes"] == {"nq": 1000, "hotpotqa": 300, "marco": 300} and nb09["with_replacement"]
    assert cfg["per_notebook"]["01_dataset"]["n_items"] == 1000  # the other papers' counts stay
    assert run_config(RUN_CONFIG, "http://127.0.0.1:1/v1", "paper", utility_sizes={"marco": 50}
                      )["per_notebook"]["09_utility_benchmarks"]["dataset_sizes"] == {
        "nq": 1863, "hotpotqa": 4407, "marco": 50}
    for bad in ("msmarco=300", "nq=0", "nq=many"):
        with pytest.raises(ValueError, match="dataset=count"):
            parse_sizes(bad)
    with pytest.raises(ValueError, match="--size paper"):
        run_config(RUN_CONFIG, "http://127.0.0.1:1/v1", 10, utility_sizes=sizes)
    assert main(["validate", "--size", "12", "--utility-sizes", "nq=10"]) == 2
    assert "with --size paper" in capsys.readouterr().err
    assert main(["validate", "--size", "paper", "--utility-sizes", "nq=ten"]) == 2
    assert "dataset=count" in capsys.readouterr().err


def test_15_takes_the_papers_samples_and_items_and_its_truth_reads_them_from_the_run(tmp_path):
    """configs/paper.yaml: 200 items, 32 samples per item; the best-of-n truth takes n from the run's
    config (rewardbench.validate.rm_design), so it is the gain of the best of 32, not of the run config's 4."""
    from lib.simulate.rewardbench.truth import best_of_n_gain, rm_truths
    from lib.simulate.rewardbench.validate import rm_design
    from lib.simulate.core.truth import JUDGE
    from lib.simulate.core.truth_file import Truth
    from lib.simulate.validate import run_config

    assert paper_sizes(["15_best_of_n"])["15_best_of_n"] == {"n_per_category": 0, "n_items": 200, "n_samples": 32}
    assert paper_sizes(["04_knowledge_probe"])["04_knowledge_probe"]["n_samples"] == 5
    cfg = run_config(RUN_CONFIG, "http://127.0.0.1:1/v1", "paper")
    assert cfg["per_notebook"]["15_best_of_n"]["n_samples"] == 32
    design = rm_design(cfg, tmp_path)
    truth = Truth()
    got = rm_truths(truth, design)[f"best_of_n_gain.{JUDGE}"][1]
    assert design.n_samples == 32 and got == best_of_n_gain(truth, 32)
    assert got > best_of_n_gain(truth, 4) + 0.005  # more samples, a larger gain: the two are told apart
