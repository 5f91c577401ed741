"""Items drawn with replacement through the simulator: each copy of a demo question is its own
question to it (own bank passages, own texts it wrote, its own question effect)."""
from lib.models import get_model
from lib.self_preference import bank as B
from lib.simulate import planted as M
from lib.simulate.server import SimServer
from lib.simulate.truth_file import Truth
from lib.sources import prepare_items, save_items


def test_copies_are_separate_questions_to_the_simulator(tmp_runs):
    run_dir = tmp_runs / "copies"
    run_dir.mkdir(parents=True)
    items, _ = prepare_items(["nq"], 60, 0, replace=True)  # the demo file holds fewer: copies are certain
    save_items(items, run_dir / "items.jsonl")
    truth = Truth(format_failure=0.0)
    with SimServer(truth, run_dir) as sim:
        built = B.build_bank(items, {"sim": get_model(f"openai:sim@{sim.url}")}, B.BankConfig(k=0, styles=()))
        B.save_bank(built.passages, run_dir / "passage_bank.jsonl")
        sim.roles.refresh()
        own_items = set(sim.roles.own.values())
        roles = {p.item_id for p in sim.roles.bank.values()}
    copies = [i for i in items["id"] if "~" in i]
    assert copies and set(copies) <= own_items and set(copies) <= roles  # a rewrite of each copy, recorded as its own
    assert len(sim.roles.own) == len(own_items)  # no two copies share a rewrite text
    base = copies[0].split("~")[0]
    effects = {M.question_effect(truth, i, 1.0) for i in (base, *[c for c in copies if c.startswith(base + "~")])}
    assert len(effects) >= 2  # keyed by the copy's own id: drawn anew per copy
