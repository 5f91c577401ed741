"""A real OpenAI-compatible server for the integration tests: llama-cpp-python's server on 127.0.0.1
(a free port) with the embedded GGUF files, SmolLM2 for chat and gemma-3 for raw completions.
Every test here is marked `server` (`make test-fast` skips them, `make test` runs them)."""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from lib.models import gguf_models as embedded

START_TIMEOUT = 120  # seconds until the server must answer (loading takes a few seconds on 2 cores)
MISSING = ("llama-cpp-python with its server extra is not installed: `make test` installs it from "
           "requirements-test.txt (pip install -r requirements-test.txt).")


def pytest_collection_modifyitems(config, items):
    """Mark every test in this folder `server`."""
    here = Path(__file__).parent
    for item in items:
        if here in Path(item.fspath).parents:
            item.add_marker(pytest.mark.server)


def free_port() -> int:
    """A port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LlamaServer:
    """`python -m llama_cpp.server` on one GGUF file, bound to 127.0.0.1 only; `requests()` counts the
    completion requests this process answered (from its access log), for "no call was repeated"."""

    def __init__(self, gguf: Path, alias: str, log_dir: Path, n_ctx: int, logits_all: bool = True,
                 port: int | None = None):
        self.gguf, self.alias, self.log_dir = gguf, alias, log_dir
        self.n_ctx, self.logits_all = n_ctx, logits_all
        self.port = port or free_port()
        self.proc = None
        self.starts = 0

    @property
    def url(self) -> str:
        """The OpenAI base URL."""
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def spec(self) -> str:
        """The model spec users would write for this server."""
        return f"openai:{self.alias}@{self.url}"

    def command(self) -> list[str]:
        """The server's command line (docs/servers.md shows the same)."""
        # serve.py is `python -m llama_cpp.server` with the extra CPU buffers off (their AMX kernels crash here)
        return [sys.executable, str(Path(__file__).with_name("serve.py")), "--model", str(self.gguf), "--model_alias", self.alias,
                "--host", "127.0.0.1", "--port", str(self.port), "--n_ctx", str(self.n_ctx),
                "--n_threads", "1", "--n_threads_batch", "1", "--logits_all", str(self.logits_all).lower()]

    @property
    def log(self) -> Path:
        return self.log_dir / f"{self.alias}-{self.starts}.log"

    def start(self) -> "LlamaServer":
        """Start the process and wait until /v1/models answers (or fail with the log's tail)."""
        self.starts += 1
        env = {**os.environ, "NO_PROXY": "127.0.0.1", "no_proxy": "127.0.0.1"}
        with open(self.log, "wb") as out:
            self.proc = subprocess.Popen(self.command(), stdout=out, stderr=subprocess.STDOUT, env=env)
        end = time.time() + START_TIMEOUT
        while time.time() < end:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the llama.cpp server exited ({self.proc.returncode}):\n{self.tail()}")
            try:
                with urllib.request.urlopen(f"{self.url}/models", timeout=2) as r:
                    if r.status == 200:
                        return self
            except OSError:
                time.sleep(0.3)
        self.stop()
        raise RuntimeError(f"the llama.cpp server did not answer within {START_TIMEOUT} s:\n{self.tail()}")

    def stop(self, kill: bool = False) -> None:
        """Stop the process (SIGKILL with kill=True, as a crash would)."""
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.kill() if kill else self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def requests(self) -> int:
        """Completion requests answered by the current process (uvicorn's access log lines)."""
        return sum('"POST /v1/' in line for line in self.log.read_text(errors="replace").splitlines())

    def tail(self, n: int = 30) -> str:
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-n:])


@pytest.fixture(scope="session")
def llama_cpp_installed():
    """Fails (does not skip) when the server is missing: `make test` must run these tests."""
    try:
        import llama_cpp.server  # noqa: F401
    except ImportError as e:
        pytest.fail(f"{MISSING} ({e})")


def _server(tmp_path_factory, name: str, alias: str, n_ctx: int):
    os.environ.setdefault("RAGBIAS_MODELS", str(Path(__file__).resolve().parents[2] / ".cache" / "models"))
    return LlamaServer(embedded.gguf_path(name), alias, tmp_path_factory.mktemp(f"server-{alias}"), n_ctx)


@pytest.fixture(scope="session")
def chat_server(llama_cpp_installed, tmp_path_factory):
    """SmolLM2-135M-Instruct (chat template from its GGUF), all logits kept so echo can score prompts."""
    server = _server(tmp_path_factory, "smollm2", "smollm2", n_ctx=4096).start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def base_server(llama_cpp_installed, tmp_path_factory):
    """gemma-3-270m (base LM, raw completions)."""
    server = _server(tmp_path_factory, "gemma3", "gemma3", n_ctx=1024).start()
    yield server
    server.stop()


@pytest.fixture
def own_chat_server(llama_cpp_installed, tmp_path):
    """A SmolLM2 server of this test alone (the test may kill and restart it)."""
    server = LlamaServer(embedded.gguf_path("smollm2"), "smollm2", tmp_path, n_ctx=2048)
    yield server
    server.stop()
