"""A log-prob judge on a model without prompt log-probabilities (a llama.cpp-like server): verdicts
from one generated token's top-k instead, named as such in the findings (a secondary measure)."""
import math

from lib.models import CachedModel
from lib.models.backends.server_logprobs import TopKOptions
from lib.models.specs import parse_spec
from lib.report import measures
from lib.rewardbench import findings_rows, judge, replies, study
from lib.rewardbench.registry import get_reward_model
from tests.conftest import ScriptedBackend
from tests.rewardbench.test_rewardbench_models import _good_first, _pairs


class TopKOnly(ScriptedBackend):
    """Generation and top-k options only, as an OpenAI-compatible server whose echo probe failed."""

    def __init__(self, right: bool = True):
        super().__init__(reply=lambda text, req: "?", likelihoods=False)
        self.capabilities = frozenset({"generate", "option_topk", "chat"})  # a chat server
        self.right = right

    def option_topk(self, items, k, on_result, progress=None):
        for i, (ctx, prefix, options) in enumerate(items):
            first = _good_first(self.render(ctx)) == self.right
            # the option not chosen falls outside the top k: NaN, never zero probability
            on_result(i, TopKOptions([-0.1, math.nan] if first else [math.nan, -0.2], [first, not first], k))


def test_logprob_judge_falls_back_to_top_k_and_says_so(tmp_path, capsys):
    spec = "judge:openai:smollm2@http://127.0.0.1:9/v1;logprob"
    model = CachedModel(parse_spec("openai:smollm2@http://127.0.0.1:9/v1"), backend=TopKOnly())
    res = study.pair_results([spec], _pairs(6), tmp_path / replies.RAW_FILE, models={spec: {"model": model}})
    assert "top-k" in capsys.readouterr().out
    assert len(res) == 6 and res["correct"].eq(1.0).all() and set(res["verdict_method"]) == {judge.TOPK_METHOD}
    rows = findings_rows.judge_findings(res)
    mid = rows[0]["measure_id"]
    assert mid == "judge_overall_accuracy.top_k_log_probability_verdict" and rows[0]["estimate"] == 1.0
    assert measures.find(mid).method == "likelihood" and not measures.find(mid).primary
    # re-read from the raw file (compare's per-unit reader): the same method, the same id
    assert set(replies.reparse(tmp_path / replies.RAW_FILE)["verdict_method"]) == {judge.TOPK_METHOD}


def test_a_missing_option_ranks_below_a_present_one():
    assert judge.verdict_from_logprobs([math.nan, -3.0])["choice"] == 2
    assert judge.verdict_from_logprobs([-3.0, None])["choice"] == 1
    assert judge.verdict_from_logprobs([math.nan, math.nan])["choice"] is None
    assert judge.verdict_from_logprobs([-1.0, -1.0])["choice"] is None


def test_a_judge_right_in_neither_order_scores_zero_through_top_k(tmp_path):
    spec = "judge:openai:wrong@http://127.0.0.1:9/v1;logprob"
    model = CachedModel(parse_spec("openai:wrong@http://127.0.0.1:9/v1"), backend=TopKOnly(right=False))
    judge_model = get_reward_model(spec, model=model)
    res = study.pair_results([spec], _pairs(4), models={spec: {"model": model}})
    assert judge_model.decide == "logprob" and res["correct"].eq(0.0).all()
