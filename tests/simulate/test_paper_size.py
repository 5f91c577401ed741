"""`validate --size paper`: the run's notebooks get the item counts of configs/paper.yaml and nothing
else of it (retries and token limits stay the run's), and 01 draws with replacement."""
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
