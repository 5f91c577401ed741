"""The simulator's utility study (notebooks 09-12): every prompt variant the notebooks send is
recognised, replies are read by the study's own parsers (and the off-format one by none), the
log-probabilities carry the planted choice, the replies follow the planted model, and the truth of
the set F1 comes out the same by Monte Carlo and by exact enumeration."""
import dataclasses
import json
import math
import zlib
from itertools import product

import numpy as np
import pytest

from lib.models import get_model
from lib.models.types import Request
from lib.prompts import self_preference as SP
from lib.prompts import utility as U
from lib.simulate.core import planted as M
from lib.simulate.core import utility_model as UM
from lib.simulate.utility import truth as UT
from lib.simulate.replies import Replier
from lib.simulate.core.roles import Roles
from lib.simulate.server import SimServer
from lib.simulate.tasks import recognise
from lib.simulate.core.truth_file import Truth, TruthError, load_truth
from lib.utility import parsing
from lib.utility.judgment_metrics import set_prf

PASSAGES = ["Alpha was built in 1887, 2 km away.", "Beta: [3] holds\nthe record.", "Gamma", "Delta", "Epsilon",
            "Zeta", "Eta", "Theta", "Iota", "Kappa", "Lambda"]
QUESTION = "Who won 2 cups in 1990?"


def _passages(form):
    return PASSAGES[:1] if form == "pointwise" else PASSAGES[:2] if form == "pairwise" else PASSAGES


@pytest.mark.parametrize("judgment,form", list(product(U.JUDGMENTS, U.FORMS)))
def test_every_judgment_variant_is_recognised_with_its_fields(judgment, form):
    for order, requirement in product(("question-first", "passages-first"), U.S4_REQUIREMENTS):
        msgs = U.judgment_messages(QUESTION, _passages(form), judgment, form, order, requirement)
        for asked in (recognise(msgs), recognise(None, U.as_text(msgs))):  # chat, and a base LM's one text
            assert asked.kind == "utility_judgment", (order, requirement)
            f = asked.fields
            assert (f["judgment"], f["form"], f["question"], f["passages"]) == (judgment, form, QUESTION, _passages(form))


def test_answer_evidence_and_other_studies_prompts():
    for factoid, ev in product((True, False), ([], PASSAGES[:3])):
        task = recognise([{"role": "user", "content": U.qa_prompt(QUESTION, ev, factoid)}])
        assert task.kind == "utility_answer" and task.fields == {"question": QUESTION, "passages": ev, "factoid": factoid}
    task = recognise([{"role": "user", "content": U.counterfactual_evidence_prompt("Paris is in Peru.")}])
    assert task.kind == "utility_evidence" and task.fields["claim"] == "Paris is in Peru."
    # the self-preference study's prompts stay theirs
    assert recognise([{"role": "user", "content": SP.pointwise_baseline_prompt("text")}]).kind == "rate"
    assert recognise([{"role": "user", "content": "What is 2 + 2?"}]).kind == "unknown"


def _write_gti(run_dir, n_questions, composition, source="nq"):
    """A GTI file in notebook 09's layout, every question with the given passage kinds, and the items
    it comes from in the run's items.jsonl (where the simulator reads what each passage is): the
    ground truths are an item's supporting passages, a counterfactual one of them with the answer
    replaced."""
    rows, items = [], []
    n_gt = max(1, composition.count("ground_truth"))
    for q in range(n_questions):
        answer = f"Answer{q}"
        truths = [f"Gold passage {k} of question {q} names {answer} twice: {answer}." for k in range(n_gt)]
        passages, made = [], {"ground_truth": 0, "counterfactual": 0}
        for k, t in enumerate(composition):
            if t in made:
                gold = truths[made[t] % n_gt]
                passages.append(gold if t == "ground_truth" else gold.replace(answer, f"Other{made[t]}"))
                made[t] += 1
            else:
                passages.append(f"Passage {k} of question {q}, a {t}.")
        question = f"Question number {q}?"
        rows.append({"id": f"{source}-{q}", "question": question, "source": source, "answer": answer,
                     "aliases": [], "passages_types": list(composition), "passage": passages,
                     "ground_truth_label": [int(t == "ground_truth") for t in composition],
                     "ground_truth_passages": truths})
        items.append({"id": f"{source}-{q}", "source": source, "question": question, "answer": answer,
                      "aliases": [], "human_passage": truths[0], "supporting_passages": truths, "negatives": []})
    (run_dir / "utility_gti.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    (run_dir / "items.jsonl").write_text("\n".join(json.dumps(r) for r in items) + "\n")
    return rows


COMPOSITION = ("ground_truth", "counterfactual", "highly_relevant", "weakly_relevant", "counterfactual", "ground_truth")


def test_replies_parse_follow_the_planted_model_and_off_format_never_parses(tmp_path):
    """Through the study's parsers, over many questions: per-role selection rates match the planted
    model's (question effect and shuffle included), and the format failures are unreadable in every form."""
    rows = _write_gti(tmp_path, 600, COMPOSITION)
    truth = Truth(format_failure=0.1)
    replier = Replier(truth, Roles(tmp_path, truth))
    sel, ok = {r: [] for r in UM.ROLES}, {f: [] for f in U.FORMS}
    p_first = []
    for row in rows:
        order = np.random.default_rng(zlib.crc32(row["id"].encode())).permutation(len(COMPOSITION))
        shown = [row["passage"][i] for i in order]
        roles = [UM.ROLES[0] if row["passages_types"][i] == "ground_truth" else
                 "counterfactual" if row["passages_types"][i] == "counterfactual" else "distractor" for i in order]
        for form in U.FORMS:
            ps = shown[:1] if form == "pointwise" else shown[:2] if form == "pairwise" else shown
            task = recognise(U.judgment_messages(row["question"], ps, "utility", form))
            text, entries = replier.reply(task, (row["id"], form), 3)
            value = UT.reply_readable(form, text, len(ps))
            ok[form].append(value)
            if form == "listwise-set" and value:
                picked = parsing.parse_set(text, len(ps)).value
                for i, r in enumerate(roles):
                    sel[r].append(i in picked)
            if form == "pairwise" and value:
                p_first.append(parsing.parse_pair(text).value == 0)
    for form, got in ok.items():  # 10% planted failures, every one unreadable, every other one read
        assert abs(1 - np.mean(got) - 0.1) < 0.04, form
    u = truth.utility
    for role, got in sel.items():  # the planted marginal: average over shown places and question effect
        expected = np.mean([float(np.mean([M.sigmoid(u.select_utility[role] + off + truth.question_sd * z)
                                           for z in np.random.default_rng(0).standard_normal(4000)]))
                            for off in UM.shown_offsets(u, len(COMPOSITION))])
        assert abs(np.mean(got) - expected) < 0.05, (role, np.mean(got), expected)
    assert np.mean(p_first) > 0.5  # passage 0 is shown first: the planted position effect favours it


def test_pointwise_and_pairwise_log_probabilities_carry_the_planted_choice(tmp_path):
    truth = Truth(format_failure=0.0, icc=0.0)
    with SimServer(truth, tmp_path) as sim:
        model = get_model(f"openai:sim@{sim.url}")
        [row] = _write_gti(tmp_path, 1, COMPOSITION)
        q, ps = row["question"], row["passage"]
        out = model.generate([Request(messages=U.judgment_messages(q, ps[:1], "utility", "pointwise"),
                                      max_tokens=48, temperature=0.0, logprobs=2)])[0]
        assert parsing.parse_yes_no(out.text).value is not None
        p_yes = math.exp(out.top_logprobs[-1][" yes"])
        assert p_yes == pytest.approx(float(M.sigmoid(truth.utility.select_utility["ground_truth"])))
        out = model.generate([Request(messages=U.judgment_messages(q, ps[:2], "relevance", "pairwise"),
                                      max_tokens=24, temperature=0.0, logprobs=2)])[0]
        rel = truth.utility.select_relevance  # ground truth shown first, counterfactual second (last)
        want = float(M.sigmoid(rel["ground_truth"] - rel["counterfactual"] - truth.utility.position))
        assert math.exp(out.top_logprobs[-1]["0"]) == pytest.approx(want)
        assert parsing.parse_pair(out.text).value == int(out.text[-1])


def test_set_f1_truth_two_ways():
    """Monte Carlo of the planted model against exact enumeration (every order, every subset,
    quadrature over the question effect) on a small candidate set, position effect included."""
    truth = Truth(icc=0.2, utility=UM.Utility(position=-0.8))
    comps = [("counterfactual", "distractor", "ground_truth", "ground_truth"),
             ("distractor", "distractor", "distractor", "ground_truth")]
    for judgment in ("utility", "relevance"):
        for comp in comps:
            mc = UT.monte_carlo_pr(truth.utility, judgment, comp, truth.question_sd)
            ex = UT.exact_pr(truth.utility, judgment, comp, truth.question_sd)
            assert mc == pytest.approx(ex, abs=0.004), (judgment, comp)
        f1_mc = UT.set_f1(truth, judgment, comps * 3 + comps[:1])
        f1_ex = UT.set_f1(truth, judgment, comps * 3 + comps[:1], pr=UT.exact_pr)
        assert f1_mc == pytest.approx(f1_ex, abs=0.3)
    # the planted defect of the tests below would move the truth a lot: it is far from a reversed reading
    assert UT.set_f1(truth, "utility", comps) > 50


def test_truth_rows_from_the_design_and_a_bad_utility_section(tmp_path):
    from lib.simulate.utility.roles import UtilityRoles

    _write_gti(tmp_path, 3, COMPOSITION, "nq")
    design = UT.design_from_gti(tmp_path / "utility_gti.jsonl", UtilityRoles(Roles(tmp_path, Truth())).role, n_items=2)
    assert design.sets[0][1] == tuple(sorted(("ground_truth",) * 2 + ("counterfactual",) * 2 + ("distractor",) * 2))
    assert [s for s, _ in design.sets] == ["nq", "nq"]
    rows = UT.utility_truths(load_truth("configs/known_truth.yaml"), design)
    assert set(rows) == {"set_f1.nq.relevance", "set_f1.nq.utility"} | {
        f"unreadable_share.{j}.{f}" for j in ("relevance", "utility") for f in ("listwise_set", "listwise_rank")}
    assert rows["unreadable_share.utility.listwise_set"][1] == pytest.approx(5.0)
    null = UT.utility_truths(load_truth("configs/known_truth_null.yaml"), design)
    assert null["set_f1.nq.utility"][1] == pytest.approx(null["set_f1.nq.relevance"][1], abs=0.3)
    assert rows["set_f1.nq.utility"][1] > rows["set_f1.nq.relevance"][1] + 10  # relevance takes counterfactuals
    bad = tmp_path / "t.yaml"
    bad.write_text("utility: {select_utility: {ground_truth: 1.0, counterfactual: 0.0}}\n")
    with pytest.raises(TruthError, match="select_utility"):
        load_truth(bad)
    assert dataclasses.replace(Truth(), utility=UM.Utility()).utility.answer_good > 0


@pytest.mark.parametrize("failures,covered", [(10, 1.0), (40, 0.0)])
def test_parsed_share_of_10_counts_distinct_prompts_and_misses_a_wrong_rate(tmp_path, failures, covered):
    """200 distinct listwise replies at a planted 5% failure rate: 10 unreadable is consistent, 40 is
    not; a repeated prompt (same id, form, order and condition) counts once."""
    from lib.simulate.utility.replies import OFF_FORMAT
    from lib.simulate.validate import parsed_shares

    recs = [{"id": f"q{i}", "form": "listwise-set", "judgment": "utility", "order": list(range(3)),
             "replies": [OFF_FORMAT if i < failures else "My selection: [Passage-1]"], "factor": "judgment",
             "level": "utility"} for i in range(200)]
    recs += recs[:failures]  # the cache answers a repeated prompt with the same reply
    (tmp_path / "utility_rq1_replies.jsonl").write_text("\n".join(json.dumps(r) for r in recs) + "\n")
    row = parsed_shares(tmp_path, Truth(format_failure=0.05)).iloc[0]
    assert row["n_items"] == 200 and row["estimate"] == pytest.approx(1 - failures / 200)
    assert row["covered"] == covered


def test_role_look_ups_do_not_queue_on_the_shared_lock_once_refreshed(tmp_path):
    """Every passage of every utility request asks for its role: after the request's one refresh the
    look-ups (check=False) read no file and take no lock (64 request threads queued on it before)."""
    import threading

    from lib.simulate.utility.roles import UtilityRoles

    [row] = _write_gti(tmp_path, 1, ("ground_truth", "counterfactual", "hr_noise"))
    roles = UtilityRoles(Roles(tmp_path, Truth()))
    roles.refresh()
    got = []
    with roles.roles._lock:  # held by "another request" (an RLock: the look-up runs in its own thread)
        t = threading.Thread(target=lambda: got.append([roles.role(row["question"], p, check=False)
                                                        for p in row["passage"]]))
        t.start()
        t.join(timeout=5)
    assert got == [["ground_truth", "counterfactual", "distractor"]]
