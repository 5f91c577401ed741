"""The simulator's own prompt-token count (lib/simulate/token_count.py): what it books per request
reaches the client's ledger as the reply's usage and sums to its statistics; each ChatML marker is
one token; without `count_tokens` the statistics carry no token count."""
import pytest

from lib.models import get_model
from lib.models.ledger import LEDGER
from lib.models.types import Request
from lib.simulate.core.truth_file import Truth
from lib.simulate.server import SimServer
from lib.simulate.token_count import PromptTokens, chatml

pytestmark = pytest.mark.model  # reads the embedded SmolLM2's tokenizer (converted on first use)


@pytest.fixture(scope="module")
def counter():
    return PromptTokens()


def test_a_chat_request_counts_its_text_and_the_chatml_markers(counter):
    # "<|im_start|>", "user", "\n", "Hello", "<|im_end|>", "\n", then "<|im_start|>", "ass", "istant", "\n"
    assert counter.count({"messages": [{"role": "user", "content": "Hello"}]}) == 10
    one = counter.count({"messages": [{"role": "user", "content": "The capital of Australia is Canberra."}]})
    two = counter.count({"messages": [{"role": "system", "content": "The capital of Australia is Canberra."},
                                      {"role": "user", "content": "The capital of Australia is Canberra."}]})
    assert two - one == one - 4  # a second message: its text and its own 6 markers, not a second reply start
    assert counter.count({"prompt": "Hello"}) == 1  # a raw completion prompt: no markers
    assert chatml([{"role": "user", "content": "x"}]).endswith("<|im_start|>assistant\n")


def test_the_count_reaches_the_ledger_and_the_statistics(tmp_runs, tmp_path):
    run_dir = tmp_path / "sim"
    run_dir.mkdir()
    prompts = ["Rate this passage from 1 to 5.", "Which passage answers the question better? " * 20]
    with SimServer(Truth(format_failure=0.0), run_dir, count_tokens=True) as sim:
        model = get_model(f"openai:sim@{sim.url}")
        LEDGER.clear()
        replies = model.generate([Request(messages=[{"role": "user", "content": p}], max_tokens=8) for p in prompts])
        stats = sim.stats()
    expected = [PromptTokens().count({"messages": [{"role": "user", "content": p}]}) for p in prompts]
    assert [r.tokens_in for r in replies] == expected
    assert stats["prompt_tokens"] == sum(expected) == sum(stats["prompt_tokens_per_task"].values())
    assert int(LEDGER.table()["tokens_in"].sum()) == sum(expected)
    assert "tokenizer" in stats["prompt_tokens_rule"]


def test_without_count_tokens_the_statistics_say_nothing_of_tokens(tmp_path):
    with SimServer(Truth(format_failure=0.0), tmp_path) as sim:
        sim.answer({"messages": [{"role": "user", "content": "Hello there"}], "max_tokens": 4})
        stats = sim.stats()
    assert stats["requests"] == 1 and "prompt_tokens" not in stats
