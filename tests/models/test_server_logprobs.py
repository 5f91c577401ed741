"""Checks of what OpenAI-compatible servers send: the echo probe and the top-k option reading."""
import math

from lib.models.backends.server_logprobs import (PROBE_TEXT, echo_problem, options_from_top, split_common_prefix,
                                          top_after_prefix)


def _echo(shift: bool = False, near: float = -0.05, far: float = -9.0, with_top: bool = True) -> dict:
    """A completions `logprobs` block for the probe text split at ', ' (one token per number and
    separator), aligned or shifted by one position as llama-cpp-python's echo is."""
    tokens, offsets, pos = [], [], 0
    for piece in PROBE_TEXT.replace(", ", "\0, ").split("\0"):
        tokens.append(piece)
        offsets.append(pos)
        pos += len(piece)
    n = len(tokens)
    # aligned: position i is the distribution that predicts token i; shifted: the one that predicts i+1
    top = [{tokens[min(i + 1, n - 1)] if shift else tokens[i]: near} for i in range(n)]
    values = [None] + [far if shift else near] * (n - 1)
    return {"tokens": tokens, "token_logprobs": values, "text_offset": offsets,
            "top_logprobs": top if with_top else None}


def test_aligned_echo_passes():
    assert echo_problem(PROBE_TEXT, _echo()) is None


def test_shifted_echo_is_named_as_shifted():
    problem = echo_problem(PROBE_TEXT, _echo(shift=True))
    assert problem and "shifted by one position" in problem


def test_shift_without_top_entries_is_caught_by_plausibility():
    problem = echo_problem(PROBE_TEXT, _echo(shift=True, with_top=False))
    assert problem and "implausible" in problem and "n = " in problem


def test_missing_and_positive_echoes_are_refused():
    assert "no prompt log-probabilities" in echo_problem(PROBE_TEXT, None)
    assert "no prompt log-probabilities" in echo_problem(PROBE_TEXT, {"tokens": ["1"], "token_logprobs": [None],
                                                                      "text_offset": [0]})
    assert "positive" in echo_problem(PROBE_TEXT, _echo(near=0.7))


def test_options_outside_the_top_k_are_unavailable_not_zero():
    got = options_from_top({"1": -0.2, "3": -1.9}, ["1", "2", "3"], k=2)
    assert got.logprobs[0] == -0.2 and got.logprobs[2] == -1.9 and math.isnan(got.logprobs[1])
    assert got.available == [True, False, True] and "1 of 3 options" in got.reason
    back = got.from_json(got.to_json(), cached=True)  # NaN survives the JSON cache as NaN
    assert math.isnan(back.logprobs[1]) and back.cached and back.method == got.method


def test_common_prefix_moves_into_the_prefix():
    assert split_common_prefix("", ["Choose 1", "Choose 2"]) == ("Choose", [" 1", " 2"])
    assert split_common_prefix("###", ["1", "2"]) == ("###", ["1", "2"])
    assert split_common_prefix("", ["ab", "abc"]) == ("a", ["b", "bc"])  # never an empty option


def test_top_after_prefix_reads_the_position_after_the_prefix():
    entries = [{"token": "##", "top_logprobs": [{"token": "##", "logprob": -0.1}]},
               {"token": "#", "top_logprobs": [{"token": "#", "logprob": -0.1}]},
               {"token": "4", "top_logprobs": [{"token": "4", "logprob": -0.3}, {"token": "3", "logprob": -1.5}]}]
    assert top_after_prefix(entries, "###") == ({"4": -0.3, "3": -1.5}, "")
    assert top_after_prefix(entries, "")[0] == {"##": -0.1}
    top, reason = top_after_prefix(entries, "***")
    assert top is None and "does not begin with '***'" in reason


def test_a_422_validation_body_names_the_field_we_sent():
    from lib.models.backends.openai_api import _validation_param

    body = {"detail": [{"type": "int_parsing", "loc": ["body", "top_logprobs"], "msg": "Input should be an integer"}]}
    assert _validation_param(body, {"model": "m", "top_logprobs": "many"}) == "top_logprobs"
    assert _validation_param(body, {"model": "m"}) is None  # a field we did not send is not blamed
    assert _validation_param({"error": {"message": "x"}}, {"top_logprobs": 1}) is None
