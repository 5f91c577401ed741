"""The simulator decides what a text is from its own sources (the demo data, the pair data file, what
it wrote), not from the labels the pipeline wrote: a bank or pair table with a wrong label is caught,
not followed."""
from __future__ import annotations

import json

from lib import paths
from lib.simulate.core.labels import false_answers, stated_answer
from lib.simulate.core.roles import RM_PAIRS, Roles
from lib.simulate.core.truth_file import Truth


def _item(item_id: str) -> dict:
    for path in sorted((paths.DATA / "demo").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line) if line.strip() else {}
            if row.get("id") == item_id:
                return row
    raise KeyError(item_id)


def test_a_bank_label_is_decided_from_the_text_not_the_column(tmp_path):
    it = _item("nq-001")
    fa = false_answers(it)[0]
    swapped = it["human_passage"].replace(it["answer"], fa)
    rows = [  # both labels wrong: the true text labelled false, the swapped one labelled true
        {"item_id": it["id"], "factuality": "false", "answer": it["answer"], "false_answer": fa, "text": it["human_passage"]},
        {"item_id": it["id"], "factuality": "true", "answer": it["answer"], "false_answer": "", "text": swapped},
    ]
    (tmp_path / "passage_bank.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    roles = Roles(tmp_path, Truth())
    human, false = roles.passage(it["human_passage"]), roles.passage(swapped)
    assert (human.true, human.answer) == (True, it["answer"])
    assert (false.true, false.answer) == (False, fa)
    assert stated_answer(it, "A text that names neither answer.") == (True, it["answer"])


def test_the_chosen_rm_response_comes_from_the_pair_data_file():
    rows = [json.loads(line) for line in RM_PAIRS.read_text(encoding="utf-8").splitlines() if line.strip()]
    roles = Roles(None, Truth())
    for row in rows[:5]:
        category = row["subset"].split("-", 1)[0]
        assert roles.rm_pair(row["chosen"], row["reject"])[::2] == (category, True)
        assert roles.rm_pair(row["reject"], row["chosen"])[::2] == (category, False)
        assert roles.rm_pair(row["reject"], "another reply") is None  # no chosen response: no planted preference


def test_a_utility_passage_role_comes_from_the_data_not_09s_labels(tmp_path):
    """09's candidate sets written with ground truth and counterfactual swapped (its labels and kinds,
    as the `utility_roles_swap` mutant does): the simulator and the truth's design still know every
    passage's role from the data (gold passages, the answer replaced in them, its own evidence)."""
    from lib.models import get_model
    from lib.simulate.server import SimServer
    from lib.simulate.utility.roles import UtilityRoles
    from lib.simulate.utility.truth import design_from_gti
    from lib.utility.benchmark import save_benchmark
    from lib.utility.build import build_benchmarks
    from lib.utility.items import utility_items

    items, corpus, _ = utility_items(["nq", "hotpotqa", "marco"], 8, 0)
    kind = {"ground_truth": "ground_truth", "counterfactual": "counterfactual"}
    swap = {"ground_truth": "counterfactual", "counterfactual": "ground_truth"}
    with SimServer(Truth(format_failure=0.0), tmp_path) as sim:  # writes MS MARCO's counterfactual evidence
        gti, _, _ = build_benchmarks(get_model(f"openai:sim@{sim.url}"), items, corpus, "bm25", 8, 2, 0)
    right = [(c.question, p, kind.get(k, "distractor")) for c in gti for p, k in zip(c.passage, c.passages_types)]
    assert {r for *_, r in right} == {"ground_truth", "counterfactual", "distractor"}
    assert {c.source for c in gti if "counterfactual" in c.passages_types} == {"nq", "hotpotqa", "marco"}
    for c in gti:  # the swap, written where 09 writes
        c.passages_types = [swap.get(k, k) for k in c.passages_types]
        c.ground_truth_label = [int(k == "ground_truth") for k in c.passages_types]
    save_benchmark(gti, tmp_path / "utility_gti.jsonl")
    roles = UtilityRoles(Roles(tmp_path, Truth()))
    assert [roles.role(q, p) for q, p, _ in right] == [r for *_, r in right]
    design = design_from_gti(tmp_path / "utility_gti.jsonl", roles.role)
    by_question = {}
    for q, _, r in right:
        by_question.setdefault(q, []).append(r)
    assert [comp for _, comp in design.sets] == [tuple(sorted(by_question[c.question])) for c in gti]
    # a passage of another item, and this item's gold passage with its answer left in, are no counterfactual
    c = gti[0]
    assert roles.role(c.question, gti[1].passage[0]) == "distractor"
    assert roles.role(c.question, c.ground_truth_passages[0] + " Also added.") == "distractor"
