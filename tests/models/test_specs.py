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


@pytest.mark.parametrize("bad, says", [
    ("gpt-4o", "Unknown model spec 'gpt-4o'. Model specs look like 'openai:gpt-4o-mini'"),
    ("azure:gpt-4", "Unknown model spec 'azure:gpt-4'. Model specs look like 'openai:gpt-4o-mini'"),
    ("local:llama", "Unknown embedded model 'llama' in 'local:llama'; choose one of: local:smollm2"),
    ("openai:", "Model spec 'openai:' names no model. Model specs look like 'openai:gpt-4o-mini'"),
    ("openai:m@localhost:8000", "the server after '@' must start with http:// or https://"),
])
def test_bad_specs_explain_the_fix(bad, says):
    """Each bad spec gets its own message: the spec it read and the form that fixes it."""
    with pytest.raises(SpecError) as e:
        parse_spec(bad)
    assert says in str(e.value)


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


REWARD_SPECS = ["judge:local:smollm2", "judge:local:smollm2;retries:0;max_tokens:8", "judge:local:smollm2;logprob",
                "implicit:local:smollm2;mean", "implicit:local:smollm2-ref:local:gemma3",
                "judge:openai:m@http://127.0.0.1:9/v1;logprob", "rm:Org/reward-model;max_length:512"]


@pytest.mark.parametrize("spec", REWARD_SPECS)
def test_reward_specs_format_back_to_the_same_spec(spec):
    from lib.models.specs import format_reward_spec, parse_reward_spec

    parsed = parse_reward_spec(spec)
    text = format_reward_spec(parsed)
    again = parse_reward_spec(text)
    assert (again.kind, again.target, again.options, again.name) == (parsed.kind, parsed.target, parsed.options,
                                                                     parsed.name)
    assert "=" not in text  # papermill cannot read a parameter line with a second '='


def test_model_specs_inside_reward_specs_and_rewriting_them():
    from lib.models.specs import parse_reward_spec, reward_spec_models, with_model

    assert reward_spec_models("implicit:local:smollm2;mean;ref:local:gemma3") == ["local:smollm2", "local:gemma3"]
    assert reward_spec_models("judge:openai:m@http://127.0.0.1:9/v1;logprob") == ["openai:m@http://127.0.0.1:9/v1"]
    assert reward_spec_models("rm:Org/reward-model") == []
    swapped = with_model("implicit:local:smollm2;mean;ref:local:gemma3", "hf:org/other")
    assert reward_spec_models(swapped) == ["hf:org/other", "local:gemma3"]
    assert parse_reward_spec(swapped).options == {"norm": "mean", "ref": "local:gemma3"}
    assert with_model("judge:local:smollm2;retries:0", "local:gemma3") == "judge:local:gemma3;retries:0"
    assert with_model("rm:Org/reward-model", "local:gemma3") == "rm:Org/reward-model"
    with pytest.raises(SpecError, match="Unknown model spec"):
        with_model("judge:local:smollm2", "smollm2")


@pytest.mark.parametrize("bad, says", [("critic:local:smollm2", "kind 'critic'"), ("judge:local:smollm2;mean", "Unknown option .mean."),
                                       ("implicit:local:smollm2;norm=max", "norm must be"),
                                       ("judge:local:smollm2;retries=x", "whole number"),
                                       ("judge:local:llama", "Unknown embedded model")])
def test_bad_reward_specs_name_the_part_to_fix(bad, says):
    from lib.models.specs import parse_reward_spec

    with pytest.raises(SpecError, match=says):
        parse_reward_spec(bad)


# ---- one grammar: model options inside reward specs, canonical round trips, suggestions ----------
from lib.models.specs import ModelSpec, RewardSpec, table_markdown, with_model  # noqa: E402

ROUND_TRIP = ["local:smollm2", "local:smollm2;int8", "hf:org/name;quant:int8", "openai:gpt-4o-mini",
              "openai:llama3:8b@http://127.0.0.1:8000/v1;concurrency=64",
              "judge:local:smollm2;int8;retries:0;max_tokens:8", "judge:local:smollm2;max_tokens=8;int8;logprob",
              "implicit:local:smollm2;int8;mean;ref:local:gemma3", "implicit:local:smollm2;int8-ref:local:gemma3",
              "judge:openai:m@http://127.0.0.1:9/v1;concurrency:4;retries:2", "rm:Org/reward-model;max_length=512"]


@pytest.mark.parametrize("text", ROUND_TRIP)
def test_every_spec_parses_to_an_object_whose_str_reads_back_the_same(text):
    parsed = parse_spec(text, want=None)
    canonical = str(parsed)
    again = parse_spec(canonical, want=None)
    assert again == parsed and str(again) == canonical
    assert (getattr(again, "options", None), getattr(again, "concurrency", None)) == \
           (getattr(parsed, "options", None), getattr(parsed, "concurrency", None))
    assert "=" not in canonical  # papermill cannot read a parameter line with a second '='


def test_model_options_compose_inside_reward_specs():
    judge = parse_spec("judge:local:smollm2;int8;retries:0;max_tokens:8", want=RewardSpec)
    assert judge.model == ModelSpec("local", "smollm2", quant="int8")
    assert judge.options == {"retries": "0", "max_tokens": "8"} and judge.target == "local:smollm2;int8"
    assert str(judge) == "judge:local:smollm2;int8;retries:0;max_tokens:8"
    plain = parse_spec("judge:local:smollm2;retries:0;max_tokens:8", want=RewardSpec)
    assert judge.name != plain.name and judge.model.key != plain.model.key  # a different model and cache
    served = parse_spec("judge:openai:m@http://127.0.0.1:9/v1;concurrency:4", want=RewardSpec)
    assert served.model.concurrency == 4 and served.options == {}
    assert served.model.key == "openai:m@http://127.0.0.1:9/v1"  # how it is served is not what it says
    assert with_model("judge:local:smollm2;retries:0", "local:smollm2;int8") == "judge:local:smollm2;int8;retries:0"
    assert with_model("judge:local:smollm2;int8", "local:smollm2;int8") == "judge:local:smollm2;int8"


@pytest.mark.parametrize("bad, says", [
    ("local:smollm2;int9", "Did you mean 'int8'"),
    ("judge:local:smollm2;retires:0", "Did you mean 'retries'"),
    ("judge:local:smollm2;max_token:8", "Did you mean 'max_tokens'"),
    ("lokal:smollm2", "Did you mean 'local'"),
    ("local:smollm2;concurrency:4", "Unknown option 'concurrency:4' for local"),  # the embedded models run in-process
    ("openai:m@http://127.0.0.1:9/v1;concurrency:0", "at least 1"),
    ("implicit:local:smollm2;ref:lokal:gemma3", "Did you mean 'local'"),
    ("hf:x;quant:int4", "quant must be one of"),
])
def test_bad_options_name_the_closest_accepted_one(bad, says):
    with pytest.raises(SpecError, match=says):
        parse_spec(bad, want=None)


def test_a_spec_of_the_wrong_sort_is_refused_with_the_right_help():
    with pytest.raises(SpecError, match="is not a model spec"):
        parse_spec("judge:local:smollm2")
    with pytest.raises(SpecError, match="is not a reward-model spec"):
        parse_spec("local:smollm2", want=RewardSpec)


def test_the_options_table_lists_every_option_once_and_the_docs_show_it():
    from lib.paths import ROOT

    table = table_markdown()
    assert table in (ROOT / "docs" / "models.md").read_text(encoding="utf-8")
    for name in ("quant", "concurrency", "retries", "max_tokens", "decide", "norm", "ref", "format", "max_length"):
        assert table.count(f"| `{name}` |") == 1


def test_dataset_and_retriever_strings_parse_to_objects_that_read_back():
    from lib.models.specs import DatasetSpec, parse_dataset_spec, parse_retriever_spec

    for text in ("hf:nq_open", "hf:mandarjoshi/trivia_qa:rc:validation", "hf:ms_marco:v2.1:test", "hf:x::train"):
        parsed = parse_dataset_spec(text)
        assert parse_dataset_spec(str(parsed)) == parsed
    assert parse_dataset_spec("hf:ms_marco:v2.1") == DatasetSpec("ms_marco", "v2.1", "validation")
    assert parse_dataset_spec("data/nq.jsonl") is None
    with pytest.raises(SpecError, match="names no dataset"):
        parse_dataset_spec("hf:")
    assert parse_retriever_spec("dense:all-MiniLM-L6-v2").model == "all-MiniLM-L6-v2"
    assert str(parse_retriever_spec("bm25")) == "bm25" and parse_retriever_spec("dense").model is None
    with pytest.raises(SpecError, match="Unknown retriever 'bm26'"):
        parse_retriever_spec("bm26")


# ---- a server's base LM (`;base`, option `lm`) -------------------------------------------------------
BASE = "openai:m@http://127.0.0.1:9/v1"


@pytest.mark.parametrize("text", [f"{BASE};base", f"{BASE};lm:base", f"{BASE};lm=base", f"{BASE};concurrency:4;base"])
def test_base_option_parses_to_one_canonical_spec_whose_key_carries_it(text):
    parsed = parse_spec(text)
    assert parsed.is_base and parsed.lm == "base"
    assert parsed.key == f"{BASE};base"  # what the cache keys on: a base LM's requests are other requests
    assert str(parsed).startswith(f"{BASE};base") and parse_spec(str(parsed)) == parsed


def test_chat_is_the_default_and_the_same_spec_as_no_option():
    plain, chat = parse_spec(BASE), parse_spec(f"{BASE};lm:chat")
    assert chat == plain and str(chat) == BASE and not chat.is_base
    assert parse_spec(f"{BASE};base") != plain


def test_base_option_keys_the_cache_apart():
    from lib.models.cache_keys import make_key

    payload = {"prompt": "Q: 2 + 2 =", "max_tokens": 1}
    keys = {make_key("generate", parse_spec(s).key, payload)
            for s in (BASE, f"{BASE};base", f"{BASE};lm:chat", f"{BASE};base;concurrency:8")}
    assert len(keys) == 2  # chat and base differ; `lm:chat` and the serving option change nothing


def test_base_option_inside_a_reward_spec_goes_to_its_model_and_its_name():
    judge = parse_spec(f"judge:{BASE};base;logprob", want=RewardSpec)
    assert judge.model.is_base and judge.options == {"decide": "logprob"}
    assert str(judge) == f"judge:{BASE};base;logprob" and judge.name == "judge-logprob:m;base"
    assert parse_spec(f"judge:{BASE};logprob", want=RewardSpec).name != judge.name


@pytest.mark.parametrize("bad", ["local:gemma3;base", "hf:org/model;lm:base", "judge:local:smollm2;base"])
def test_base_option_on_a_backend_that_cannot_use_it_says_whose_option_it_is(bad):
    with pytest.raises(SpecError, match="it is an option of openai specs.*by its tokenizer"):
        parse_spec(bad, want=None)


def test_base_option_value_is_checked():
    with pytest.raises(SpecError, match=r"lm must be one of \('chat', 'base'\)"):
        parse_spec(f"{BASE};lm:instruct")


def test_a_base_server_declares_no_chat_so_requests_are_raw_text():
    from lib.models.backends import declared_for

    base, chat = get_model(f"{BASE};base"), get_model(BASE)
    assert not base.is_chat and chat.is_chat  # answered from the declaration: no server is reached
    assert "chat" not in declared_for(parse_spec(f"{BASE};base"))[0]
    assert base.request("Q?").prompt == "Q?" and chat.request("Q?").messages == [{"role": "user", "content": "Q?"}]
