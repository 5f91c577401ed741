"""Target-token scoring (no positions x vocabulary tensor) against the old full log-softmax, real gemma3."""
import pytest

from benchmarks.reference import full_vocab_span_logprobs
from lib.models.backends.transformers_lm import HEAD_CHUNK, load, span_logprobs
from lib.models.specs import parse_spec

pytestmark = pytest.mark.model
TEXTS = ["The river floods every spring, and the farmers plant rice in the silt it leaves behind.",
         "Canberra was chosen as a compromise between Sydney and Melbourne.",
         "Honey never spoils: sealed jars found in ancient tombs were still edible when opened, "
         "because its low water content and acidity keep microbes from growing. " * 5]


def test_span_logprobs_equal_the_full_log_softmax_on_gemma3():
    model, tok = load(parse_spec("local:gemma3"))
    seqs = [tok(t)["input_ids"] for t in TEXTS]
    assert len(seqs[2]) > HEAD_CHUNK  # one text spans more than one head chunk
    starts = [1, 5, 40]
    new = span_logprobs(model, seqs, starts, tok.pad_token_id)
    old = full_vocab_span_logprobs(model, seqs, starts, tok.pad_token_id)
    assert new == pytest.approx(old, abs=1e-4 * max(len(s) for s in seqs), rel=1e-5)
    assert all(v < 0 for v in new)
    # a different span gives a different sum: the test would notice ignored starts
    assert span_logprobs(model, seqs[:1], [3], tok.pad_token_id)[0] != pytest.approx(new[0], abs=1e-3)
    with pytest.raises(ValueError, match="Span start"):
        span_logprobs(model, seqs[:1], [0], tok.pad_token_id)
