import pytest

from lib.models import get_model
from lib.models.specs import SpecError, parse_spec, short_name


def test_parse_backends():
    assert parse_spec("openai:gpt-4o-mini").key == "openai:gpt-4o-mini"
    s = parse_spec("openai:llama3@http://127.0.0.1:8000/v1/")
    assert (s.backend, s.model, s.base_url) == ("openai", "llama3", "http://127.0.0.1:8000/v1")
    assert parse_spec("hf:gpt2").backend == "hf"
    assert parse_spec("local:smollm2").model == "smollm2"


def test_short_names():
    assert short_name("local:smollm2") == "smollm2"
    assert short_name("openai:gpt-4o-mini") == "gpt-4o-mini"
    assert short_name("hf:meta-llama/Llama-2-70b-chat-hf") == "Llama-2-70b-chat-hf"


@pytest.mark.parametrize("bad", ["gpt-4o", "azure:gpt-4", "local:llama", "openai:", "openai:m@localhost:8000"])
def test_bad_specs_explain_the_fix(bad):
    with pytest.raises(SpecError) as e:
        parse_spec(bad)
    assert "local:" in str(e.value) or "http" in str(e.value)


def test_missing_api_key_is_one_clear_error(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("RAGBIAS_API_KEY", raising=False)
    with pytest.raises(SpecError, match="OPENAI_API_KEY is not set"):
        get_model("openai:gpt-4o-mini")


def test_openai_key_is_never_sent_to_other_servers(monkeypatch):
    from lib.models.specs import api_key_for

    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai")
    monkeypatch.delenv("RAGBIAS_API_KEY", raising=False)
    monkeypatch.setenv("GEMINI_API_KEY", "g-key")
    assert api_key_for(parse_spec("openai:gpt-4o-mini")) == "sk-openai"
    assert api_key_for(parse_spec("openai:llama3@http://127.0.0.1:8000/v1")) is None
    gem = "openai:gemini-2.0-flash@https://generativelanguage.googleapis.com/v1beta/openai"
    assert api_key_for(parse_spec(gem)) == "g-key"
    monkeypatch.setenv("RAGBIAS_API_KEY", "local-key")
    assert api_key_for(parse_spec("openai:llama3@http://127.0.0.1:8000/v1")) == "local-key"
