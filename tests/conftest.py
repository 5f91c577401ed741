"""Shared fixtures: every test gets its own empty results cache and its own runs / figures folders
(never the repository's data/runs: a session guard fails the run if anything new appears there);
converted model weights are shared. `scripted_model` plugs the one scripted backend of the suite
into the real model layer (`CachedModel`): request building, chat templates and the cache are real."""
import os
from pathlib import Path

import jinja2
import pytest

from lib import paths
from lib.models import cache
from lib.models import CachedModel
from lib.models.types import LogLik, Response
from lib.models.specs import parse_spec

# ChatML, the layout of SmolLM2's own template: what a scripted chat model "sees"
CHATML = ("{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
          "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")

# One torch thread per process in tests: notebook kernels and model tests may run side by side, and two
# threads per process on 2 shared cores collapse (measured 8x slower); kernels inherit this variable.
os.environ.setdefault("RAGBIAS_THREADS", "1")


def _listing(*folders: Path) -> set[str]:
    return {str(p) for folder in folders if folder.exists() for p in folder.rglob("*")}


@pytest.fixture(scope="session", autouse=True)
def repository_runs_untouched():
    """Fails the session (an error at teardown) if any test wrote under the repository's data/runs
    or figures folders instead of its temporary ones."""
    folders = (paths.RUNS, paths.FIGURES)
    before = _listing(*folders)
    yield
    new = sorted(_listing(*folders) - before)
    assert not new, f"tests wrote into the repository's runs / figures folders: {new[:5]}"


@pytest.fixture(autouse=True)
def fresh_cache(tmp_path, monkeypatch):
    """An empty results cache and zeroed counters per test (the converted models stay shared)."""
    cache.close_all()
    monkeypatch.setenv("RAGBIAS_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("RAGBIAS_MODELS", os.environ.get("RAGBIAS_MODELS", str(paths.ROOT / ".cache" / "models")))
    cache.reset_stats()
    yield tmp_path / "cache"
    cache.close_all()


@pytest.fixture(autouse=True)
def tmp_runs(tmp_path, monkeypatch):
    """Runs and figures of this test under its temporary folder (papermill kernels inherit the env)."""
    monkeypatch.setenv("RAGBIAS_RUNS", str(tmp_path / "runs"))
    monkeypatch.setenv("RAGBIAS_FIGURES", str(tmp_path / "figures"))
    return tmp_path / "runs"


class _Tokenizer:
    """The one tokenizer attribute the model layer reads (`chat_template`)."""

    def __init__(self, chat_template):
        self.chat_template = chat_template


class ScriptedBackend:
    """A backend that answers from a script instead of weights. Requests arrive exactly as the
    model layer builds them (after the cache lookup), chat messages are rendered with a chat
    template as the transformers backend does (base LMs get none and refuse messages), and
    every result goes back through the cache.

    `reply(text, request)` -> str (or a Response), where `text` is what the model reads (the
    rendered template) and `request.sample` the repeat index; `top_logprobs` (one {token: logprob}
    dict per token) is returned when a request asks for log-probabilities; `loglik(context_text,
    continuation)` -> float or (logprob, n_tokens). It declares its capabilities as every backend
    does: `likelihoods=False` makes a generate-only server (it declares no `loglikelihood`).
    `requests` / `texts` record what reached the backend, `calls` counts it.
    """

    def __init__(self, reply=None, loglik=None, chat: bool = True, top_logprobs=None, likelihoods: bool = True):
        self.reply, self.loglik_fn, self.top_logprobs = reply, loglik, top_logprobs
        self.capabilities = frozenset(({"generate", "loglikelihood"} if likelihoods else {"generate"}) | ({"chat"} if chat else set()))
        self.tokenizer = _Tokenizer(CHATML if chat else None)
        self.requests, self.texts, self.loglik_pairs = [], [], []
        self.calls = 0
        self.checked = False
        self.gives_logprobs = True

    def check(self) -> None:
        """Nothing to load; records that the model layer asked."""
        self.checked = True

    def render(self, messages=None, prompt=None, add_generation_prompt=True) -> str:
        """The text a model would read: the chat template over messages, or the raw prompt."""
        if messages is None:
            return prompt
        if not self.tokenizer.chat_template:
            raise ValueError("this scripted model is a base LM without a chat template: send raw text")
        return jinja2.Template(self.tokenizer.chat_template).render(
            messages=list(messages), add_generation_prompt=add_generation_prompt)

    def generate(self, requests, on_result, progress=None) -> None:
        """Answer each request from the script, in order."""
        for i, req in enumerate(requests):
            text = self.render(req.messages, req.prompt)
            self.requests.append(req)
            self.texts.append(text)
            self.calls += 1
            out = self.reply(text, req) if self.reply else ""
            if not isinstance(out, Response):
                out = str(out)
                for s in req.stop or []:
                    out = out.split(s)[0]
                lp = self.top_logprobs if (req.logprobs and self.top_logprobs) else None
                out = Response(text=out, top_logprobs=lp, tokens_in=len(text.split()), tokens_out=len(out.split()),
                               finish_reason="stop")
            on_result(i, out)
            if progress is not None:
                progress.update(1)

    def loglikelihood(self, pairs, on_result, progress=None) -> None:
        """log P(continuation | context) from the script (default: -1 per word)."""
        for i, (ctx, cont) in enumerate(pairs):
            text = self.render(ctx if isinstance(ctx, list) else None, ctx if isinstance(ctx, str) else None)
            self.loglik_pairs.append((text, cont))
            self.calls += 1
            value = self.loglik_fn(text, cont) if self.loglik_fn else -float(len(cont.split()))
            lp, n = value if isinstance(value, tuple) else (value, max(len(cont.split()), 1))
            on_result(i, LogLik(float(lp), int(n)))
            if progress is not None:
                progress.update(1)


@pytest.fixture
def scripted_model():
    """Factory: scripted_model(reply=..., loglik=..., spec="local:smollm2", top_logprobs=...,
    likelihoods=True) -> a real CachedModel over a ScriptedBackend (spec "local:gemma3" is a base
    LM: no chat template). Models of one test share its cache by spec: give two scripts two specs."""
    def make(reply=None, loglik=None, spec: str = "local:smollm2", top_logprobs=None, likelihoods: bool = True):
        parsed = parse_spec(spec)
        chat = not (parsed.backend == "local" and parsed.model == "gemma3")
        backend = ScriptedBackend(reply, loglik, chat=chat, top_logprobs=top_logprobs, likelihoods=likelihoods)
        return CachedModel(parsed, backend=backend)
    return make
