"""The plan's request counts against what the studies' own code asks: notebooks 02, 04, 05 and 06's
library calls (as their notebooks make them) with a scripted model in place of local:smollm2, counted
by the model layer (cache misses: every request of these notebooks is new), beside the plan of the same
parameters. The scripted model verifies every rewrite and false answer, as the plan assumes."""
import pandas as pd
import pytest

import lib.models
from lib import run_config, runner
from lib.models import cache
from lib.paths import CONFIGS
from lib.planning import plan as planning
from lib.self_preference import bank as passage_bank
from lib.self_preference import knowledge, likelihood, pointwise
from lib.sources import items_for_run

SOURCES = ["nq", "marco", "triviaqa"]
PARAMS = {"02_passage_bank": {"n_items": 2, "k": 0, "styles": ["qa"], "style_items": 1, "max_tokens": 48},
          "04_knowledge_probe": {"n_items": 2, "n_samples": 3, "max_tokens": 8},
          "05_pointwise_reranking": {"n_items": 2, "k_retries": 0, "settings": ["normal", "rag"]},
          "06_generation_phase": {"n_items": 1, "k_retries": 0}}


def _reply(text, req):
    return "Zanzibar" if req.max_tokens == 24 else text  # a false answer; else the prompt, answer and all


def _asked(fn) -> int:
    before = cache.cache_stats()["misses"]
    fn()
    return cache.cache_stats()["misses"] - before


@pytest.fixture
def planned(monkeypatch):
    from lib.planning import designs

    # the scripted author verifies every rewrite: plan its bank as complete, not at SmolLM2's kept share
    monkeypatch.setattr(designs, "EMBEDDED_KEPT", 1.0)
    cfg = runner.load_config(CONFIGS / "smoke.yaml")
    cfg["per_notebook"] = {**cfg["per_notebook"], **PARAMS}
    plan = planning.build(cfg, only=["02", "04", "05", "06"])
    return {r.notebook: r.requests for r in plan.rows if r.model == "local:smollm2"}


def test_the_plan_counts_what_the_studies_ask(planned, scripted_model, monkeypatch):
    model = scripted_model(reply=_reply, spec="local:smollm2")
    monkeypatch.setattr(lib.models, "get_model", lambda spec, **_: model)
    p02 = PARAMS["02_passage_bank"]
    items = items_for_run("", SOURCES, p02["n_items"], 0)
    cfg = passage_bank.BankConfig(k=0, styles=("qa",), style_items=1, max_tokens=48)
    built = {}
    asked = {"02_passage_bank": _asked(lambda: built.update(bank=passage_bank.build_bank(items, {"smollm2": model}, cfg)))}
    bank = built["bank"].passages
    assert (bank["author"] == "smollm2").sum() == 2 * len(items) + len(SOURCES)  # every rewrite and false passage, as planned
    p04 = PARAMS["04_knowledge_probe"]
    asked["04_knowledge_probe"] = _asked(lambda: knowledge.probe(
        model, items_for_run("", SOURCES, p04["n_items"], 0), "smollm2", p04["n_samples"], 1.0, p04["max_tokens"]))
    normal = passage_bank.subsample_bank(bank, 2, None, 0)

    def rate():
        ratings = pointwise.rate_evaluators(normal[normal["style"] == "normal"], ["local:smollm2"],
                                            settings=["normal", "rag"], k_retries=0, max_tokens=10)
        likelihood.rate_evaluators_likelihood(ratings, ["local:smollm2"])
    asked["05_pointwise_reranking"] = _asked(rate)
    one = passage_bank.subsample_bank(bank, 1, None, 0)
    asked["06_generation_phase"] = _asked(lambda: likelihood.generation_phase_pairs(
        one, ["local:smollm2"], k_retries=0, max_tokens=32))
    table = pd.DataFrame({"planned": planned, "asked": asked})
    assert (table["asked"] > 0).all(), table
    assert (table["planned"] == table["asked"]).all(), table.to_string()


def test_the_plan_counts_18s_content_free_inputs(scripted_model):
    """18 asks content-free inputs of 05's evaluators (per setting 05 rated) and 13's log-probability
    judges; the plan of the demo config counts what lib.mitigation asks (it had no 18 row before)."""
    from lib.mitigation.content_free import ask_content_free

    cfg = runner.load_config(CONFIGS / "demo.yaml")
    plan = planning.build(cfg, only=["05", "13", "18"])
    planned = sum(r.requests for r in plan.rows if r.notebook == "18_mitigation")
    model = scripted_model(spec="local:smollm2")
    # the demo's 13 has one log-probability judge (judge:local:smollm2;logprob) and 05 one setting (rag)
    asked = _asked(lambda: ask_content_free(["local:smollm2"], ["judge:local:smollm2;logprob"], ["rag"],
                                            get_model=lambda spec: model))
    assert asked == 6  # 3 content-free strings x (05's one setting + 13's one log-probability judge)
    assert planned == asked


def test_a_server_s_option_scores_are_planned_as_the_echoes_it_receives():
    """05's likelihood rating of one row on a server (`;base`) is one echoed completion per score and
    one for the prefix alone, each with the whole prompt: the plan sends, prices and times that many
    (the ledger books one result), counted here by the fake server."""
    import pandas as pd

    from lib.models import get_model
    from lib.planning import designs
    from tests.fake_openai import FakeOpenAI

    with FakeOpenAI() as srv:
        spec = f"openai:fake-model@{srv.url};base"
        cfg = runner.load_config(CONFIGS / "smoke.yaml", {"evaluators": [spec]})
        cfg["per_notebook"]["05_pointwise_reranking"] = {**cfg["per_notebook"]["05_pointwise_reranking"],
                                                          "likelihood_scoring": True}
        plan = planning.build(cfg, only=["05"])  # before any call: nothing of this server is cached yet
        model = get_model(spec)
        model.option_logprobs([("1, 2, 3", "\n", ["4"])])  # the echo probe and one scored item, before counting
        before = srv.calls
        likelihood.rate_likelihood(model, pd.DataFrame([{"setting": "rag", "question": "Who?", "text": "Ada wrote it."}]))
        per_row = srv.calls - before
    calls = [c for c in designs.calls_of("05_pointwise_reranking", _view(cfg)) if c.model == spec]
    options = [c for c in calls if c.kind == designs.OPTIONS]
    assert options and per_row == options[0].echoes == 6
    row = next(r for r in plan.rows if r.model == spec)
    # nothing cached, no re-asks (k_retries 0): each rating sent once, each likelihood rating 6 times
    assert row.sent == sum(c.n * (c.echoes if c.kind == designs.OPTIONS else 1) for c in calls) > row.requests


def _view(cfg):
    from lib.planning.designs import RunView

    every = run_config.numbered_notebooks()
    params = {nb.stem: {k: v for k, (v, _) in eff.items()} for nb, eff in runner.effective_parameters(cfg, every)}
    return RunView(params, ["05_pointwise_reranking"])


def test_10_to_12_candidate_passages_are_planned_at_the_corpus_length():
    """09 draws its candidate sets from the demo corpus (truths and negatives), whose passages are
    shorter than the human passages (the known-truth run's candidate sets: 424 characters, against
    656): the plan takes the mean passage of the corpus pooled over 09's datasets, which every
    question's set is retrieved from (it used the human mean, then weighed the datasets by questions)."""
    from lib.planning import designs, sizes
    from lib.utility.benchmark import pooled_corpus
    from lib.utility.build import items_as_dicts
    from lib.utility.items import utility_items

    cfg = runner.load_config(CONFIGS / "known_truth_run.yaml")
    view = _view(cfg)
    p = view.p("09_utility_benchmarks")
    planned = designs._utility_chars(view)["passage"]
    corpus = pooled_corpus(items_as_dicts(utility_items(p["datasets"], p["n_items"], p["seed"])[1]))
    assert planned == pytest.approx(sum(map(len, corpus)) / len(corpus), rel=0.01)
    assert planned < 0.8 * sizes.demo_text_chars()["passage"]


def test_an_embedded_author_s_bank_is_planned_at_its_kept_share():
    """03 scores every true passage of the bank: the human ones and the rewrites that passed 02's
    check, planned for the embedded SmolLM2 at its measured share (demo run: 42 + 33 = 75 booked)."""
    from lib.planning import designs

    rows = {r.notebook: r for r in planning.build(runner.load_config(CONFIGS / "demo.yaml"), only=["03", "05"]).rows}
    items = 3 * 14  # the demo's 02: 14 items of each source
    assert rows["03_perplexity"].requests == round(items * (1 + designs.EMBEDDED_KEPT)) == 75
    # 05 rates each bank row twice (a reply and a likelihood): human true and false, own true and false
    assert rows["05_pointwise_reranking"].requests == 2 * round(items * (2 + 2 * designs.EMBEDDED_KEPT)) == 2 * 150


def test_08_plans_the_style_items_its_random_draw_holds_on_average():
    """02 writes style passages for the first `style_items` items of each dataset; 08 draws n_items
    at random (subsample_bank), so the demo's 1 of 14 per dataset holds 1/14 of them on average (the
    demo run's 08 had none to ask; the plan had 12)."""
    rows = {r.notebook: r for r in planning.build(runner.load_config(CONFIGS / "demo.yaml"), only=["08"]).rows}
    expected = 2 * 1 * (3 * 1 * 1 / 14) * 2  # styles x authors x style items drawn x both orders
    assert rows["08_writing_style"].requests == round(expected) == 1


def test_15_s_knockout_prompt_is_planned_at_one_rag_prompt_and_two_answers():
    """The papers'-size simulator run: 15's prompt tokens planned 95% over what the simulator counted,
    because each knockout prompt was planned with the question and passages twice. Planned characters
    against a real knockout prompt (Table 6 around a demo item's Table 5 prompt and two answers of the
    planned length)."""
    from lib.planning import designs
    from lib.rewardbench.best_of_n import bon_prompt
    from lib.rewardbench.judge import judge_messages
    from lib.sources import load_demo

    cfg = runner.load_config(CONFIGS / "known_truth_run.yaml")
    view = _view(cfg)
    knockout = [c for c in designs.calls_of("15_best_of_n", view) if c.label.endswith("knockout")]
    assert knockout
    answer = "x" * (4 * designs._out("bon sample", 48))
    real = []
    for item in load_demo("nq", 10, 0).to_dict("records"):
        msgs = judge_messages(bon_prompt(item)["prompt"], answer, answer)
        real.append(sum(len(m["content"]) for m in msgs))
    mean = sum(real) / len(real)
    for c in knockout:
        assert c.chars_in == pytest.approx(mean, rel=0.05), (c.chars_in, mean)


def test_13_s_judge_prompt_is_planned_at_the_pair_s_user_prompt_and_both_responses():
    """The papers'-size simulator run: 13's prompt tokens planned 31% over what the simulator counted.
    A judge fills Table 6 with the pair's user prompt, not its system turn (524 characters of the demo
    pairs' 2,706 were planned twice over), and shows the rejected response beside the longer chosen
    one. Planned characters against the real judge prompts of every demo pair; a scorer's against
    system turn, prompt and one response."""
    from lib.planning import designs
    from lib.rewardbench import study
    from lib.rewardbench.judge import judge_messages

    view = _view(runner.load_config(CONFIGS / "known_truth_run.yaml"))
    pairs = study.study_pairs("", 0, 0).to_dict("records")
    judged = [sum(len(m["content"]) for m in judge_messages(r["prompt"], r[a], r[b]))
              for r in pairs for a, b in (("chosen", "rejected"), ("rejected", "chosen"))]
    scored = [len(r["system"] or "") + len(r["prompt"]) + len(r[k]) for r in pairs for k in ("chosen", "rejected")]
    calls = designs._reward_calls(view, "13_rewardbench", len(pairs),
                                  ["judge:openai:sim@http://x/v1", "implicit:local:smollm2"])
    judge = next(c for c in calls if c.label.endswith("verdicts"))
    implicit = next(c for c in calls if c.label.endswith("log-likelihoods"))
    assert judge.chars_in == pytest.approx(sum(judged) / len(judged), rel=0.02)
    assert implicit.chars_in == pytest.approx(sum(scored) / len(scored), rel=0.02)


@pytest.mark.parametrize("sizes", [{}, {"dataset_sizes": {"marco": 120}, "with_replacement": True}])
def test_09_s_counterfactual_evidence_is_planned_at_the_claims_its_draw_makes(sizes, monkeypatch):
    """The demo and simulator runs: 09's evidence requests planned 25-34% over what it asked, their prompts
    22-46% long, because every MS MARCO question was planned at n_counterfactual claims of 120
    characters: a short answer is stated as "The answer to '<question>' is <answer>." and one with no
    capitalised or numeric span outside the question (a demo answer such as "hydrogen") gets no claim.
    Planned requests and characters against the prompts lib.utility sends for 09's own draw (copies
    past the file at the papers' sizes) of the demo MS MARCO file, recorded where 09 asks its writer."""
    from lib.planning import designs
    from lib.utility.build import items_as_dicts
    from lib.utility import counterfactual as cf
    from lib.utility.items import utility_items

    cfg = runner.load_config(CONFIGS / "known_truth_run.yaml")
    cfg["per_notebook"]["09_utility_benchmarks"] = {**cfg["per_notebook"]["09_utility_benchmarks"], **sizes}
    view = _view(cfg)
    p = view.p("09_utility_benchmarks")
    planned = next(c for c in designs.calls_of("09_utility_benchmarks", view) if c.label == "counterfactual evidence")
    sent = []

    def ask(model, prompts, *args, **kwargs):  # 09's writer, as lib.utility.calls.ask is called: every prompt asked
        sent.extend(len(x) for x in prompts)
        return ["Evidence." for _ in prompts]
    monkeypatch.setattr(cf, "ask", ask)
    items, pool, _ = utility_items(["marco"], p["n_items"], p["seed"], sizes=p["dataset_sizes"],
                                   replace=p["with_replacement"])
    cf.counterfactuals(None, items_as_dicts(items), p["n_counterfactual"], p["seed"], corpus_items=items_as_dicts(pool))
    assert sent and planned.n == len(sent) < len(items) * p["n_counterfactual"]
    assert planned.chars_in == pytest.approx(sum(sent) / len(sent), abs=1)


def test_09_s_embeddings_are_planned_as_the_texts_it_embeds(monkeypatch):
    """The simulator run: 09's requests planned 13% under what it booked once its evidence was counted
    right: it embeds the pooled corpus and the questions for retrieval, and the questions again for
    the recall table (lib.utility.retrieval.recall_at_k, from the cache: the ledger books them too).
    Planned embeddings against the texts 09's two calls hand the embedding model."""
    import numpy as np

    import lib.models
    from lib.planning import designs
    from lib.utility import retrieval
    from lib.utility.build import build_benchmarks, items_as_dicts
    from lib.utility.benchmark import pooled_corpus
    from lib.utility.items import utility_items

    embedded = []

    class Embedder:  # stands in for the offline MiniLM: counts each text it is handed
        def embed(self, texts, desc=None):
            embedded.extend(texts)
            return [np.random.default_rng(abs(hash(t)) % 2**32).normal(size=8) for t in texts]
    monkeypatch.setattr(lib.models, "embedding_model", lambda *a, **k: Embedder())
    monkeypatch.setattr(retrieval, "_BUILT", {})
    view = _view(runner.load_config(CONFIGS / "known_truth_run.yaml"))
    p = view.p("09_utility_benchmarks")
    planned = next(c for c in designs.calls_of("09_utility_benchmarks", view) if c.label == "dense retrieval")
    items, pool, _ = utility_items(p["datasets"], p["n_items"], p["seed"])
    items, pool = items_as_dicts(items), items_as_dicts(pool)
    build_benchmarks(None, items, pool, "dense", p["n_candidates"], 0, p["seed"])  # no counterfactuals: no writer
    retrieval.recall_at_k(sorted({"dense", "bm25"}), items, pooled_corpus(pool), [1, 5])
    assert len(embedded) > len(pooled_corpus(pool)) + len(items)
    assert planned.n == pytest.approx(len(embedded), rel=0.01)


def _candidate_sets(cfg, stem, kind="gtu"):
    """A notebook's GTI or GTU candidate sets built from the demo data as 09 builds them (BM25 in place
    of the dense retriever: the texts are the same corpus's; no counterfactual evidence, which needs a
    writer), selected as the notebook selects them."""
    from lib.utility.benchmark import select
    from lib.utility.build import build_benchmarks
    from lib.utility.items import utility_items

    view = _view(cfg)
    p9, p = view.p("09_utility_benchmarks"), view.p(stem)
    items, pool, _ = utility_items(p9["datasets"], p9["n_items"], p9["seed"])
    gti, gtu = build_benchmarks(None, items, pool, "bm25", p9["n_candidates"], 0, p9["seed"], max_words=p9["max_words"])[:2]
    return view, select(gtu if kind == "gtu" else gti, p["datasets"] or None, p["n_items"])


@pytest.mark.parametrize("config,params", [("known_truth_run.yaml", {}), ("demo.yaml", {"n_items": 0})])
def test_12_s_answer_prompts_are_planned_at_each_condition_s_evidence(config, params):
    """The demo run: 12's prompt tokens planned 30% over what it booked, because every answer was
    planned with three passages: the real conditions hand over none, all n candidates, the ground
    truth, and what a judgment selected. Planned characters per condition against the real answer
    prompts (lib.prompts.utility.qa_prompt over lib.utility.answering's evidence) of 12's candidate
    sets built from the demo data; a judgment's at its expected selection (the utility paper's
    Tables 1-3: recall x ground truth / precision of 10 candidates), built from that many passages."""
    from lib.paper_check.published import UTILITY_TABLE2, UTILITY_TABLE3
    from lib.planning import designs
    from lib.prompts.utility import qa_prompt
    from lib.utility.answering import evidence_by_condition, evidence_from_judgment
    from lib.utility.judging import Judgment

    stem = "12_utility_for_answering"
    cfg = runner.load_config(CONFIGS / config)
    cfg["per_notebook"][stem] = {**cfg["per_notebook"].get(stem, {}), **params}
    view, rows = _candidate_sets(cfg, stem)
    n = view.p("09_utility_benchmarks")["n_candidates"]
    gt = {"NQ": 1.0, "HotpotQA": 2.4, "MSMARCO-QA": 1.1}

    def share(cells):  # passages selected of the paper's 10, as a share
        return sum(r * gt[ds] / p / 10 for ds, (p, r, _) in cells) / len(cells)
    sets = share([(ds, c) for (_, ds, f), c in UTILITY_TABLE3.items() if f == "Listwise-set"])
    pointwise = share([(ds, c) for (_, ds, f), c in UTILITY_TABLE3.items() if f == "Pointwise"])
    relevance = share([(ds, c) for (ds, j), c in UTILITY_TABLE2.items() if j == "Relevance"])
    assert 0.15 < sets < relevance < pointwise < 0.5  # the paper: 1.9, 2.2 and 4.7 of 10

    def mean(xs):
        return sum(xs) / len(xs)

    def judged(row, m):  # a judgment that selected m passages: its prompt over every m in a row (each passage alike)
        k = len(row.passage)
        js = [Judgment(row.id, "listwise-set", "utility", order=[], selected=sorted((i + d) % k for d in range(m)))
              for i in range(k)]
        return mean([len(qa_prompt(row.question, evidence_from_judgment(row, j), row.factoid)) for j in js])

    real, size = {}, {}  # (group label, condition) -> mean real prompt characters, and the group's questions
    for factoid, label in ((True, "answers (factoid)"), (False, "answers")):
        group = [r for r in rows if r.factoid == factoid]
        if not group:
            continue
        for cond in ("none", "dense", "ground-truth"):
            real[label, cond] = mean([len(qa_prompt(r.question, evidence_by_condition(r, cond), factoid)) for r in group])
        q = view.p(stem)  # the notebook's conditions (k_curve: every k up to the largest)
        for cond in [*(f"relevance {f}" for f in q["relevance_forms"]), *(f"utility {f}" for f in q["utility_forms"]),
                     *(f"{k}-sampling" for k in range(1, max(q["k_values"]) + 1))]:
            judgment, _, form = cond.partition(" ")
            m = n * ((relevance if judgment == "relevance" else sets) if form != "pointwise" else pointwise)
            lo, hi = int(m), int(m) + 1
            real[label, cond] = mean([(hi - m) * judged(r, lo) + (m - lo) * judged(r, hi) for r in group])
        size.update({(label, cond): len(group) for (g, cond) in real if g == label})
    answers = [c for c in designs.calls_of(stem, view) if c.label.startswith("answers")]
    # every answer prompt, whatever the plan calls its groups: the old plan's three passages each fail here
    assert sum(c.n * c.chars_in for c in answers) == pytest.approx(sum(real[k] * size[k] for k in real), rel=0.1)
    planned = {tuple(c.label.split(": ", 1)): c for c in answers}
    assert set(planned) == set(real) and len(real) >= 8
    for key, chars in real.items():  # none and ground truth fixed by the data; the rest by the corpus's mean passage
        assert planned[key].chars_in == pytest.approx(chars, rel=0.05 if key[1] in ("none", "ground-truth") else 0.1), key


def test_11_s_requirement_pairs_are_planned_on_its_dataset_s_questions(scripted_model, tmp_path):
    """The simulator run: 11's requests planned 6% over what it booked, because the requirement
    factor's pairwise judgments were planned on n_pairwise_items questions of every dataset: they
    run on the requirement dataset's only. Planned against what lib.utility.factors asks of a
    scripted judge for 11's GTI sets built from the demo data (one requirement beside none)."""
    from lib.planning import designs
    from lib.utility.factors import FactorSweep

    stem = "11_utility_factors"
    cfg = runner.load_config(CONFIGS / "known_truth_run.yaml")
    cfg["per_notebook"][stem] = {**cfg["per_notebook"][stem], "requirements": ["cot"], "requirement_forms": ["pairwise"]}
    view, rows = _candidate_sets(cfg, stem, "gti")
    p = view.p(stem)
    planned = sum(c.n for c in designs.calls_of(stem, view) if c.label.startswith("requirement"))
    model = scripted_model(reply=lambda text, req: "My choice: Passage-0")
    run = FactorSweep(["local:smollm2"], rows, tmp_path / "replies.jsonl", n_pairwise_items=p["n_pairwise_items"],
                      get_model=lambda spec: model)
    asked = _asked(lambda: run.requirements(p["requirements"], p["requirement_forms"], p["requirement_dataset"]))
    n = view.p("09_utility_benchmarks")["n_candidates"]
    assert len({r.source for r in rows}) > 1 and asked == 2 * p["n_pairwise_items"] * n * (n - 1) // 2
    assert planned == asked


def test_10_and_11_s_judgment_prompts_are_planned_as_judgment_messages_lays_them_out():
    """The demo run: 11's prompt tokens planned 12% under what it booked, because a judgment prompt
    was planned as the templates once: the authors' scripts repeat the instruction in the system and
    the user turn (pointwise, pairwise, listwise-set), each passage carries its label, a requirement
    level has its own sentence. Planned characters of every 10 and 11 group against the real prompts
    (lib.prompts.utility.judgment_messages) of their GTI sets built from the demo data, within 5%."""
    from lib.planning import designs
    from lib.prompts.utility import judgment_messages
    from lib.utility.judging import jobs_for

    cfg = runner.load_config(CONFIGS / "demo.yaml")
    cfg["per_notebook"]["11_utility_factors"] = {**cfg["per_notebook"]["11_utility_factors"], "n_items": 0}
    checked = 0
    for stem in ("10_relevance_vs_utility", "11_utility_factors"):
        view, rows = _candidate_sets(cfg, stem, "gti")
        for c in designs.calls_of(stem, view):
            words = c.label.split()
            form = words[-1]
            judgment = "relevance" if words[0] == "relevance" else "utility"
            order = words[1] if words[0] == "order" else "question-first"
            requirement = words[1] if words[0] == "requirement" else "none"
            real = [sum(len(m["content"]) for m in judgment_messages(r.question, [r.passage[i] for i in shown], judgment,
                                                                   form, order, requirement))
                    for r in rows for shown in jobs_for(form, list(range(len(r.passage))))]
            assert c.chars_in == pytest.approx(sum(real) / len(real), rel=0.05), (stem, c.label)
            checked += 1
    assert checked >= 10


def test_18_on_a_server_plans_what_its_notebook_asks():
    """On a server, 18 reads a `;base` evaluator's content-free ratings by likelihood (echoed
    completions) and a chat log-probability judge's verdicts by one token's top-k, as
    lib.mitigation.content_free does; neither part is left out (before, both were)."""
    from lib.planning import designs

    base, chat = "openai:sim@http://127.0.0.1:9/v1;base", "openai:sim@http://127.0.0.1:9/v1"
    cfg = runner.load_config(CONFIGS / "smoke.yaml", {"evaluators": [base], "settings": ["normal", "rag"],
                                                      "reward_models": [f"judge:{chat};logprob"]})
    plan = planning.build(cfg, only=["05", "13", "18"])
    assert not [p for p in plan.left_out if p["notebook"] == "18_mitigation"]
    rows = {r.model: r for r in plan.rows if r.notebook == "18_mitigation"}
    assert rows[base].requests == 2 * 3 and rows[base].kinds == [designs.OPTIONS]  # 3 strings x 2 settings
    assert rows[base].sent == 2 * 3 * (5 + 1)  # an echo per score and one for the prefix
    assert rows[chat].requests == 3 and rows[chat].kinds == [designs.TOPK]


def test_a_log_probability_judge_is_planned_as_it_is_read_in_13_15_and_18():
    """13, 15 and 18 plan a `;base` server judge as option likelihoods (two echoed options and the
    prefix, as lib.rewardbench.judge asks first) and a chat server judge as one token's top-k; before,
    13 and 15 counted every server judge as top-k while 18 counted the `;base` one as likelihoods."""
    from lib.planning import designs

    base, chat = "openai:sim@http://127.0.0.1:9/v1;base", "openai:simchat@http://127.0.0.1:9/v1"
    judges = [f"judge:{base};logprob", f"judge:{chat};logprob"]
    cfg = runner.load_config(CONFIGS / "smoke.yaml", {"reward_models": judges})
    plan = planning.build(cfg, only=["13", "15", "18"])
    for nb in ("13_rewardbench", "15_best_of_n", "18_mitigation"):
        rows = {r.model: r for r in plan.rows if r.notebook == nb}
        assert rows[base].kinds == [designs.OPTIONS], nb
        fresh = {m: r.requests - r.cached for m, r in rows.items()}  # 15 repeats 13's pairs from the cache
        assert fresh[base] > 0 and rows[base].sent == 3 * fresh[base], nb  # an echo per option, one for the prefix
        assert rows[chat].kinds == [designs.TOPK] and rows[chat].sent == fresh[chat], nb
