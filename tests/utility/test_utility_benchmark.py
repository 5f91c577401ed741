"""GTI / GTU construction and the candidate-file layout (ours and the authors' release)."""
import json
import random
from pathlib import Path

import pytest

from lib.records import DataError
from lib.utility import benchmark as B
from lib.utility.retrieval import get_retriever

FIX = Path(__file__).parents[1] / "fixtures" / "utility"


def items():
    return [json.loads(line) for line in (FIX / "items.jsonl").read_text().splitlines() if line]


def test_allocate_even_then_random_remainder():
    rng = random.Random(0)
    assert B.allocate(9, {"cp": 5, "hr": 5, "wr": 5}, rng) == {"cp": 3, "hr": 3, "wr": 3}
    short = B.allocate(9, {"cp": 1, "hr": 10, "wr": 10}, rng)
    assert short["cp"] == 1 and sum(short.values()) == 9 and abs(short["hr"] - short["wr"]) <= 1
    assert sum(B.allocate(9, {"cp": 1, "hr": 1, "wr": 1}, rng).values()) == 3
    odd = [B.allocate(8, {"cp": 9, "hr": 9, "wr": 9}, random.Random(s)) for s in range(20)]
    assert all(sorted(o.values()) == [2, 3, 3] for o in odd)
    assert len({tuple(o.values()) for o in odd}) > 1  # the remainder goes to random kinds


def test_contains_answer_whole_words():
    assert B.contains_answer("It was Mars, clearly.", ["mars"])
    assert not B.contains_answer("Marshall islands", ["Mars"])
    assert not B.contains_answer("anything", [""])


def test_build_gti_from_fixture():
    its = items()
    corpus = B.pooled_corpus(its)
    ret = get_retriever("bm25", corpus)
    it = its[0]
    ranked = [corpus[i] for i, _ in ret.search(it["question"], 100)]
    cps = [it["human_passage"].replace("Michelangelo", x) for x in ("Raphael", "Titian", "Giotto")]
    row = B.build_gti(it, cps, ranked, n=10, seed=1)
    assert len(row.passage) == 10 == len(row.ground_truth_label) == len(row.passages_types)
    assert sum(row.ground_truth_label) == 1
    assert row.passage[row.ground_truth_label.index(1)] == it["human_passage"]
    assert row.ground_truth_passages == [it["human_passage"]]
    assert row.passages_types.count(B.CP) == 3
    noisy = [p for p, t in zip(row.passage, row.passages_types) if t in (B.HRNP, B.WRNP)]
    assert noisy and not any(B.contains_answer(p, [it["answer"]] + it["aliases"]) for p in noisy)
    assert len(set(row.passage)) == 10
    again = B.build_gti(it, cps, ranked, n=10, seed=1)
    assert again.passage == row.passage  # seeded


def test_build_gtu_labels_human_passage():
    its = items()
    corpus = B.pooled_corpus(its)
    ret = get_retriever("bm25", corpus)
    ranked = [corpus[i] for i, _ in ret.search(its[2]["question"], 100)]
    row = B.build_gtu(its[2], ranked, n=5)
    assert row.passage == ranked[:5]
    assert row.ground_truth_label == [int(p == its[2]["human_passage"]) for p in ranked[:5]]
    assert row.ground_truth_passages == [its[2]["human_passage"]]


def test_multi_hop_items_keep_every_supporting_passage():
    its = items()
    hop = dict(its[0], id="hp-1", source="hotpotqa",
               supporting_passages=[its[0]["human_passage"], "A second supporting paragraph."])
    corpus = B.pooled_corpus(its + [hop])
    assert "A second supporting paragraph." in corpus
    ranked = [corpus[i] for i, _ in get_retriever("bm25", corpus).search(hop["question"], 100)]
    gti = B.build_gti(hop, [], ranked, n=6, seed=0)
    assert sum(gti.ground_truth_label) == 2 and len(gti.passage) == 6
    assert set(gti.ground_truth_passages) == set(hop["supporting_passages"])
    gtu = B.build_gtu(hop, ranked, n=len(ranked))
    assert sum(gtu.ground_truth_label) == 2


def test_round_trip_and_release_loader(tmp_path):
    answers = tmp_path / "answers.jsonl"
    answers.write_text(json.dumps({"question": "who wrote the novel moby dick", "answers": ["Herman Melville"]}) + "\n"
                       + json.dumps({"question": "what is the boiling point of water", "answer": "100 degrees"}) + "\n")
    rows = B.load_benchmark(FIX / "release.jsonl", source="nq", answers_path=answers)
    assert [r.ground_truth_label for r in rows] == [[1, 0, 0], [0, 1]]
    assert [r.answer for r in rows] == ["Herman Melville", "100 degrees"]
    assert rows[0].passages_types[2] == "counterfactual" and rows[1].passages_types == []
    assert rows[1].ground_truth_passages[0].startswith("At sea level")
    assert rows[0].id != rows[1].id and rows[0].source == "nq"
    path = B.save_benchmark(rows, tmp_path / "x.jsonl")
    back = B.load_benchmark(path)
    assert [r.passage for r in back] == [r.passage for r in rows] and back[0].source == "nq"


def test_release_without_answers_or_dataset_is_a_clear_error(tmp_path):
    with pytest.raises(DataError, match="release.jsonl.*answers_path"):
        B.load_benchmark(FIX / "release.jsonl", source="nq")
    with pytest.raises(DataError, match="source="):
        B.load_benchmark(FIX / "release.jsonl")


def test_loader_names_line_and_field(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"question": "q", "passage": ["a", "b"], "ground_truth_label": [1], "answer": "a"}) + "\n")
    with pytest.raises(DataError, match="item 1.*ground_truth_label"):
        B.load_benchmark(bad, source="nq")
    bad.write_text(json.dumps({"question": "q", "ground_truth_label": [1]}) + "\n")
    with pytest.raises(DataError, match="missing field 'passage'"):
        B.load_benchmark(bad, source="nq")
    with pytest.raises(DataError, match="notebook 09"):
        B.load_benchmark(tmp_path / "nope.jsonl")


def test_select_per_dataset():
    rows = [B.Candidates(id=f"{s}{i}", question="q", passage=["p"], ground_truth_label=[1], source=s)
            for s in ("nq", "marco") for i in range(3)]
    assert [r.id for r in B.select(rows, ["marco", "nq"], 2)] == ["marco0", "marco1", "nq0", "nq1"]
    assert len(B.select(rows)) == 6
    with pytest.raises(ValueError, match="holds"):
        B.select(rows, ["triviaqa"])


def test_clip_keeps_the_answer_window():
    text = " ".join(f"w{i}" for i in range(100)) + " Mars is red " + " ".join(f"v{i}" for i in range(50))
    out = B.clip(text, 20, ["Mars"])
    assert len(out.split()) == 20 and "Mars" in out
    assert B.clip(text, 20, ["Venus"]).split()[0] == "w0"
    assert B.clip("short text", 20) == "short text"
    row = B.Candidates(id="x", question="q", passage=[text, "a b"], ground_truth_label=[1, 0], answer="Mars",
                       ground_truth_passages=[text])
    cut = B.clipped(row, 20)
    assert "Mars" in cut.passage[0] and cut.passage[1] == "a b" and "Mars" in cut.ground_truth_passages[0]


def test_gather_items_prefers_the_run_items_and_keeps_the_whole_corpus():
    import pandas as pd

    from lib.utility.build import gather_items
    its = pd.DataFrame(items())
    run = its.iloc[:1]
    loaders = {"nq": lambda: its[its.source == "nq"], "marco": lambda: its[its.source == "marco"]}
    chosen, pool, prov = gather_items(["nq", "marco"], 5, 0, loaders, run_items=run)
    assert list(chosen[chosen.source == run.iloc[0]["source"]]["id"]) == [run.iloc[0]["id"]]
    assert len(pool) == len(its[its.source.isin(["nq", "marco"])])
    assert set(prov["questions from"]) <= {"run items (notebook 01)", "dataset"}
    with pytest.raises(ValueError, match="No loader"):
        gather_items(["hotpotqa"], 1, 0, loaders)


def test_drawn_with_replacement_09_leaves_01s_copies_and_keeps_each_ground_truth_in_the_corpus():
    import pandas as pd

    from lib.sources.item_sampling import draw_copies
    from lib.utility.build import gather_items
    its = pd.DataFrame(items())
    nq = its[its.source == "nq"]
    run = pd.DataFrame(draw_copies(nq.to_dict("records"), 3 * len(nq), 0))  # 01 at the papers' size
    loaders = {"nq": lambda: nq}
    chosen, pool, prov = gather_items(["nq"], 0, 0, loaders, run_items=run, sizes={"nq": 3 * len(nq)},
                                      replace=True)
    assert prov.iloc[0]["questions from"] == "dataset (notebook 01's items are copies)"
    corpus = set(pool["human_passage"])
    assert len(chosen) == 3 * len(nq) and set(chosen["human_passage"]) <= corpus
    # without the rule, 01's copies (their passages tagged) would be the questions
    assert not set(run["human_passage"]) <= corpus
    kept, _, prov = gather_items(["nq"], 0, 0, loaders, run_items=run)
    assert prov.iloc[0]["questions from"] == "run items (notebook 01)" and len(kept) == len(run)


def test_recall_at_k_counts_every_ground_truth_passage():
    from lib.utility.retrieval import recall_at_k
    its = items()
    hop = dict(its[0], id="hp-1", source="hotpotqa",
               supporting_passages=[its[0]["human_passage"], "Nothing about the question at all here."])
    corpus = B.pooled_corpus(its + [hop])
    r = recall_at_k(["bm25"], [hop], corpus, [1, len(corpus)])
    assert r.set_index("k").loc[len(corpus), "recall"] == 1.0
    assert r.set_index("k").loc[1, "recall"] <= 0.5 and (r["n"] == 1).all()
