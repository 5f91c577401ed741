"""Echoed prompt log-probabilities of the simulated model, read by the pipeline's own code (the echo
probe, `perplexity`, `option_logprobs` over raw-text prompts), against the planted parameters; and
the knowledge probe's planted accuracy."""
import math

import numpy as np
import pytest

from lib.models import get_model
from lib.models.backends.server_logprobs import PROBE_TEXT, echo_problem
from lib.models.perplexity import perplexity
from lib.prompts import self_preference as SP
from lib.self_preference import likelihood as L
from lib.self_preference.knowledge import probe
from lib.simulate.core import planted as M
from lib.simulate.echo import tokenize
from lib.simulate.core.likelihood_params import Knowledge, Perplexity
from lib.simulate.server import SimServer
from lib.simulate.core.truth_file import Pairwise, Pointwise, Truth
from lib.sources import items_for_run

from .test_server import _bank, run_dir  # noqa: F401  (run_dir: the simulator's run folder fixture)

# no question or text effects: each planted value is then one number the test can state
FLAT = Truth(icc=0.0, format_failure=0.0, perplexity=Perplexity(own_logprob=-2.0, other_logprob=-2.5, text_sd=0.0),
             pointwise=Pointwise(base=2.0, own_shift=1.5, true_shift=0.5, question_sd=0.0, passage_sd=0.0),
             pairwise=Pairwise(position=0.3, self=0.8, factual=1.5))


def _echo(sim, prompt, logprobs=1):
    body = {"model": "sim", "prompt": prompt, "echo": True, "max_tokens": 1, "logprobs": logprobs}
    return sim.answer(body, "/v1/completions")["choices"][0]


def test_echo_reply_passes_the_pipelines_probe_and_is_aligned(run_dir):
    with SimServer(FLAT, run_dir) as sim:
        choice = _echo(sim, PROBE_TEXT)
        assert echo_problem(PROBE_TEXT, choice["logprobs"]) is None
        lp = choice["logprobs"]
        # one generated token after the prompt, never counted; tokens join back to the prompt
        assert "".join(lp["tokens"][:-1]) == PROBE_TEXT and lp["text_offset"][-1] == len(PROBE_TEXT)
        assert lp["token_logprobs"][0] is None
        bare = sim.answer({"model": "sim", "prompt": PROBE_TEXT, "echo": True, "max_tokens": 0, "logprobs": 3},
                          "/v1/completions")["choices"][0]
        assert bare["text"] == PROBE_TEXT and bare["logprobs"]["tokens"] == lp["tokens"][:-1]  # max_tokens 0: prompt only
        model = get_model(f"openai:sim@{sim.url}")
        assert model.echo_problem() is None  # the probe as the pipeline runs and caches it
        # a planted defect: the values shifted by one position (each token scored with the next one's
        # top list) is what the probe must refuse
        shifted = dict(lp, top_logprobs=[None] + lp["top_logprobs"][2:] + [None])
        assert "shifted" in echo_problem(PROBE_TEXT, shifted)


def test_perplexity_of_own_and_human_passages_is_the_planted_one(run_dir):
    with SimServer(FLAT, run_dir) as sim:
        passages, _ = _bank(sim, run_dir, n=2)
        true = passages[(passages["factuality"] == "true")]
        ppl = perplexity(true["text"].tolist(), model=f"openai:sim@{sim.url}")
    want = {"sim": math.exp(2.0), "human": math.exp(2.5)}  # exp(-per-token log-probability)
    assert ppl == pytest.approx([want[a] for a in true["author"]], rel=1e-9)
    assert set(true["author"]) == {"sim", "human"}


def test_option_scoring_over_raw_text_reads_the_planted_distributions(run_dir):
    with SimServer(FLAT, run_dir) as sim:
        passages, model = _bank(sim, run_dir, n=1)
        rows = {(r["author"], r["factuality"]): r for r in passages.to_dict("records")}
        own, human_false = rows[("sim", "true")], rows[("human", "false")]
        # 05: the five scores after "###", as the pipeline builds a raw-text item (a base LM's layout)
        item = L._item(model, SP.pointwise_baseline_prompt(own["text"]), L.SCORE_PREFIX, list("12345"), chat=False)
        got = model.option_logprobs([item])[0]
        want = np.log(M.rating_probs(M.rating_mu(FLAT, True, True), FLAT.pointwise.spread))
        assert got == pytest.approx(list(want), abs=1e-9)
        # 06: the two passages' answers after "Answer:", own true passage first
        prompt = SP.generation_phase_prompt(own["question"], own["text"], human_false["text"])
        options = [" " + own["answer"], " " + human_false["false_answer"]]
        got = model.option_logprobs([L._item(model, prompt, L.ANSWER_PREFIX, options, chat=False)])[0]
        q1 = float(M.sigmoid(M.pair_logit(FLAT, (True, False), (True, False))))
        assert got == pytest.approx([math.log(q1), math.log(1 - q1)], abs=1e-9)
        # a chat prompt is not scored by echo (the server's chat template is unknown): said, not guessed
        from lib.models import LikelihoodUnavailable
        with pytest.raises(LikelihoodUnavailable, match="raw-text"):
            model.option_logprobs([L._item(model, prompt, L.ANSWER_PREFIX, options, chat=True)])


def test_tokens_start_on_continuation_boundaries():
    for text in ("a passage.\n###3", "Q?\nAnswer: Uruguay", "1, 2, 3 "):
        toks = tokenize(text)
        assert "".join(t for _, t in toks) == text
        assert all(text[o:].startswith(t) for o, t in toks)
    assert [t for _, t in tokenize("x.\n###3")][-1] == "3"  # the score is its own token


def test_knowledge_probe_is_right_at_the_planted_rate(run_dir):
    truth = Truth(knowledge=Knowledge(accuracy={"nq": 0.3, "triviaqa": 0.9}, question_sd=0.0))
    items = items_for_run("", ["nq", "triviaqa"], 20, 0)
    with SimServer(truth, run_dir) as sim:
        know = probe(get_model(f"openai:sim@{sim.url}"), items, "sim", n_samples=5)
    acc = know.groupby("dataset")["n_correct"].sum() / (5 * know.groupby("dataset").size())
    # 100 replies each: binomial sd about 0.046 and 0.030; 3 sd bands
    assert abs(acc["nq"] - 0.3) < 0.14 and abs(acc["triviaqa"] - 0.9) < 0.09
    wrong = [r for rs, cs in zip(know["responses"], know["correct"]) for r, c in zip(rs, cs) if not c]
    assert wrong and all(r for r in wrong)  # a wrong reply is a wrong answer, not an empty one


def test_knowledge_samples_are_seeded_apart(run_dir):
    truth = Truth(knowledge=Knowledge(accuracy={"nq": 0.5}, question_sd=0.0))
    items = items_for_run("", ["nq"], 10, 0)
    with SimServer(truth, run_dir) as sim:
        model = get_model(f"openai:sim@{sim.url}")
        text = SP.knowledge_probe_prompt(items["question"].iloc[0])
        reqs = [model.request(text, max_tokens=8, temperature=1.0, sample=s) for s in range(40)]
        replies = {o.text for o in model.generate(reqs)}
    assert len(replies) == 2  # the right answer and one wrong one, across samples


def test_probe_passes_under_the_planted_defect_too(run_dir):
    # inverted self-recognition swaps the bank's own and human passages, never an unknown text's role
    with SimServer(Truth(self_recognition="inverted"), run_dir) as sim:
        assert echo_problem(PROBE_TEXT, _echo(sim, PROBE_TEXT)["logprobs"]) is None


def test_the_runner_keeps_03_for_a_server_that_echoes(run_dir):
    from lib.pipeline import left_out

    with SimServer(FLAT, run_dir) as sim:
        assert left_out("03_perplexity", {"ppl_model": f"openai:sim@{sim.url}"}) == []
