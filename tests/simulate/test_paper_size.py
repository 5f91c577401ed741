"""`validate --size paper`: the run's notebooks get the item counts of configs/paper.yaml (and the
utility study's design for one judged model) and nothing else of it (retries and token limits stay the
run's), and 01 draws with replacement."""
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
