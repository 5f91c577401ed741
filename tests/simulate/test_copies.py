"""Items drawn with replacement through the simulator: each copy of a demo question is its own
question to it (own bank passages, own texts it wrote, its own question effect)."""
from lib.models import get_model
from lib.self_preference import bank as B
from lib.simulate.core import planted as M
from lib.simulate.server import SimServer
from lib.simulate.core.truth_file import Truth
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


def test_the_utility_studys_copies_are_separate_questions_to_the_simulator(tmp_runs):
    """09 at the papers' counts: each copy of a demo question (own id, tagged question, the passages
    untouched) has its own candidate sets, roles and question effect in the simulator's look-ups, and
    GTU retrieval still finds a copy's ground truth as it does the original's."""
    from lib.simulate.utility.replies import UtilityReplier
    from lib.utility.build import build_benchmarks
    from lib.utility.benchmark import save_benchmark
    from lib.utility.items import utility_items

    run_dir = tmp_runs / "utility_copies"
    run_dir.mkdir(parents=True)
    items, corpus, _ = utility_items(["nq"], 0, 0, sizes={"nq": 90}, replace=True)
    truth = Truth(format_failure=0.0)
    with SimServer(truth, run_dir) as sim:
        gti, gtu, _ = build_benchmarks(get_model(f"openai:sim@{sim.url}"), items, corpus, "bm25", 5, 2, 0)
        save_benchmark(gti, run_dir / "utility_gti.jsonl")
        save_benchmark(gtu, run_dir / "utility_gtu.jsonl")
        replier = UtilityReplier(truth, sim.roles)
        replier.roles.refresh()
        by_id = {c.id: c for c in gti}
        copies = [i for i in by_id if "~u" in i]
        assert copies and all(replier.roles.items(by_id[c].question) for c in copies)  # each copy is its item's
        for cid in copies:
            c = by_id[cid]
            roles = [replier.roles.role(c.question, p) for p in c.passage]
            assert roles.count("ground_truth") == sum(c.ground_truth_label) >= 1
            assert all(r == ("counterfactual" if t == "counterfactual" else r) for r, t in zip(roles, c.passages_types))
        base = copies[0].split("~")[0]
        effects = {replier.q_effect(by_id[i].question) for i in by_id if i.split("~")[0] == base}
        assert len(effects) >= 2  # keyed by the copy's own (tagged) question: drawn anew per copy
    found = {c.id: any(c.ground_truth_label) for c in gtu}
    originals = [found[i] for i in found if "~" not in i]
    copied = [found[i] for i in found if "~" in i]
    assert sum(copied) / len(copied) >= sum(originals) / len(originals) - 0.15  # retrieval finds copies' ground truth
