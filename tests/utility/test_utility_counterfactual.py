"""Counterfactual passages by dataset: entity substitution (nq / hotpotqa / triviaqa) inside
lib/utility, and the 2.2.4 generation prompt for MS MARCO with answer-carrying passages dropped."""
import json
import random
from pathlib import Path

from lib.utility import counterfactual as C

FIX = Path(__file__).parents[1] / "fixtures" / "utility"
ITEMS = [json.loads(line) for line in (FIX / "items.jsonl").read_text().splitlines() if line]


def test_entity_types_and_corpus():
    assert C.entity_type("1989") == "date" and C.entity_type("9 November") == "date"
    assert C.entity_type("42 km") == "numeric" and C.entity_type("Lucca") == "other"
    corpus = C.entity_corpus(["Lucca", "1989", "yes", "Lucca", "Rome"])
    assert corpus == {"other": ["Lucca", "Rome"], "date": ["1989"]}


def test_substitute_every_occurrence_case_insensitive_whole_words():
    text = "Mars is red. MARS has two moons; Marshall is a name. mars!"
    assert C.substitute(text, ["Mars"], "Venus") == "Venus is red. Venus has two moons; Marshall is a name. Venus!"
    # aliases too, longest first
    assert C.substitute("Leonardo da Vinci, or da Vinci", ["da Vinci", "Leonardo da Vinci"], "Titian") == "Titian, or Titian"


def test_replacements_alternate_corpus_and_type_swap_and_skip_the_answer():
    corpus = {"other": ["Lucca", "Rome", "Pisa"], "date": ["1989", "1066"]}
    got = C.replacements("Lucca", ["lucca city"], corpus, 4, random.Random(0))
    assert [k for _, k in got] == ["corpus", "type-swap", "corpus", "type-swap"]
    assert "Lucca" not in [s for s, _ in got]


def test_substituted_passages_seeded_and_answer_free():
    item = {"id": "h1", "answer": "Lucca", "aliases": [], "human_passage": "Tosca passage",
            "supporting_passages": ["Tosca is by Puccini.", "Puccini was born in Lucca; lucca is in Tuscany."]}
    corpus = {"other": ["Lucca", "Rome", "Pisa", "Siena"]}
    a, dropped = C.substituted_passages(item, corpus, 2, seed=1)
    b, _ = C.substituted_passages(item, corpus, 2, seed=1)
    assert a == b and len(a) == 2 and dropped == 0
    assert all("lucca" not in p.lower() and p.startswith("Puccini was born in ") for p in a)
    assert C.substituted_passages({**item, "answer": "yes"}, corpus, 2) == ([], 0)   # no entity to swap


def test_marco_uses_the_generation_prompt_and_drops_answer_carriers(scripted_model):
    items = [{"id": "m1", "source": "marco", "question": "who painted the night watch",
              "answer": "Rembrandt painted it in 1642", "aliases": []},
             {"id": "n1", "source": "nq", "question": "q", "answer": "Mars", "aliases": [],
              "human_passage": "Mars is red."}]
    pool = items + [{"id": "m2", "source": "marco", "answer": "Vermeer painted it in Delft"},
                    {"id": "n2", "source": "nq", "answer": "Venus"}]
    # evidence prompts get a canned reply, the list cycled in the order asked
    canned = ["A fake report says Vermeer did it.", "Rembrandt painted it after all."]
    model = scripted_model(lambda text, request: canned[(model.backend.calls - 1) % len(canned)])
    cps, report = C.counterfactuals(model, items, 2, seed=0, corpus_items=pool)
    asked = [r.messages[0]["content"] for r in model.backend.requests]
    assert all(a.startswith("Given a claim, please write a short piece of evidence") for a in asked)
    assert len(asked) == 2                            # only the MS MARCO item was sent to the model
    assert cps[0] == ["A fake report says Vermeer did it."]
    assert report["generated_with_true_answer_dropped"] == 1
    assert cps[1] == ["Venus is red."]                # nq: substitution, no model
