"""JupyterLab on the project's environment: a real server on 127.0.0.1 with a token lists the
numbered notebooks and the project's kernel, starts that kernel and runs `import lib` in it, and
saves every committed notebook without changing a byte."""
import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import uuid

import httpx
import pytest

from lib import nbstrip, run_config, runner
from lib.paths import NOTEBOOKS, ROOT

DEADLINE = 90  # seconds for the whole test; the server is always stopped


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _execute(ws, code: str, timeout: float) -> tuple[str, str]:
    """Run code over the kernel's websocket (Jupyter's JSON protocol): (reply status, stdout)."""
    msg_id = uuid.uuid4().hex
    ws.send(json.dumps({"header": {"msg_id": msg_id, "msg_type": "execute_request", "username": "test",
                                   "session": uuid.uuid4().hex, "version": "5.3"},
                        "parent_header": {}, "metadata": {}, "channel": "shell", "buffers": [],
                        "content": {"code": code, "silent": False, "store_history": False,
                                    "user_expressions": {}, "allow_stdin": False}}))
    out, status, idle, end = [], None, False, time.time() + timeout
    # the reply (shell) can come before the printed output (iopub): wait for both, and for idle
    while time.time() < end and (status is None or not idle):
        ws.settimeout(max(end - time.time(), 0.1))
        msg = json.loads(ws.recv())
        if msg.get("parent_header", {}).get("msg_id") != msg_id:
            continue
        kind = msg["header"]["msg_type"]
        if kind == "stream":
            out.append(msg["content"]["text"])
        elif kind == "error":
            out.append("\n".join(msg["content"]["traceback"]))
        elif kind == "execute_reply":
            status = msg["content"]["status"]
        elif kind == "status" and msg["content"]["execution_state"] == "idle":
            idle = True
    return status, "".join(out)


@contextlib.contextmanager
def jupyterlab(root, tmp_path):
    """A real JupyterLab on 127.0.0.1 at a free port with a token, serving `root`; yields (http client,
    port, token) once it answers, and always stops the server."""
    kernel = runner.project_kernel()
    port, token = _free_port(), uuid.uuid4().hex
    env = {**os.environ, "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"), "PYTHONPATH": str(ROOT)}
    cmd = [sys.executable, "-m", "jupyterlab", "--no-browser", "--ServerApp.ip=127.0.0.1",
           f"--ServerApp.port={port}", "--ServerApp.port_retries=0", f"--IdentityProvider.token={token}",
           f"--ServerApp.root_dir={root}", f"--MultiKernelManager.default_kernel_name={kernel}"]
    if os.geteuid() == 0:  # containers and CI often run as root
        cmd.append("--allow-root")
    server = subprocess.Popen(cmd, env=env, cwd=tmp_path, stdout=subprocess.DEVNULL,
                              stderr=open(tmp_path / "server.log", "w"))
    start = time.time()
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", headers={"Authorization": f"token {token}"},
                          timeout=10) as http:
            while True:
                assert server.poll() is None, (tmp_path / "server.log").read_text()[-2000:]
                assert time.time() - start < DEADLINE / 2, "JupyterLab did not answer within 45 s"
                try:
                    if http.get("/api/status").status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                time.sleep(0.5)
            yield http, port, token
    finally:
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


@pytest.mark.notebooks  # starts a real JupyterLab server and kernel
def test_jupyterlab_lists_notebooks_and_runs_the_project_kernel(tmp_path):
    websocket = pytest.importorskip("websocket")  # websocket-client, installed with jupyter_server
    kernel = runner.project_kernel()
    start = time.time()
    with jupyterlab(ROOT, tmp_path) as (http, port, token):
        base = f"http://127.0.0.1:{port}"
        assert httpx.get(f"{base}/api/status").status_code == 403, "the API must need the token"
        assert http.get("/lab").status_code == 200, "JupyterLab's page is served"
        names = {c["name"] for c in http.get("/api/contents/notebooks").json()["content"]}
        assert {p.name for p in run_config.numbered_notebooks()} <= names
        specs = http.get("/api/kernelspecs").json()
        assert kernel in specs["kernelspecs"] and specs["default"] == kernel
        assert specs["kernelspecs"][kernel]["spec"]["display_name"] == "Python (rag-bias-lab)"
        kid = http.post("/api/kernels", json={"name": kernel}).json()["id"]
        ws = websocket.create_connection(f"ws://127.0.0.1:{port}/api/kernels/{kid}/channels?token={token}",
                                         timeout=30)
        try:
            status, out = _execute(ws, "import lib, sys; print(lib.__file__); print(sys.executable)",
                                   timeout=DEADLINE - (time.time() - start))
            info = _kernel_info(ws, timeout=DEADLINE - (time.time() - start))
        finally:
            ws.close()
        assert status == "ok", out
        lib_file, executable = out.split()[:2]
        assert lib_file == str(ROOT / "lib" / "__init__.py") and executable == sys.executable
        # what JupyterLab writes into a notebook it saves is this kernel's language_info: ours is the same
        assert info["language_info"] == nbstrip.language_info()
        assert http.delete(f"/api/kernels/{kid}").status_code == 204


@pytest.mark.notebooks  # starts a real JupyterLab server
def test_jupyterlab_saves_every_notebook_unchanged(tmp_path):
    """Open each committed notebook and save it without edits through JupyterLab's contents API (GET
    the model, PUT it back, as the editor's save does): every file keeps its bytes, so a save
    (or autosave) in `make lab` leaves `git status` clean. Copies are used, so a failure never
    rewrites the repository's notebooks."""
    root = tmp_path / "lab"
    shutil.copytree(NOTEBOOKS, root / "notebooks")
    with jupyterlab(root, tmp_path) as (http, _, _):
        for path in sorted(NOTEBOOKS.glob("*.ipynb")):
            url = f"/api/contents/notebooks/{path.name}"
            model = http.get(url, params={"content": 1}).json()
            assert model["type"] == "notebook" and model["format"] == "json"
            saved = http.put(url, json={"type": "notebook", "format": "json", "content": model["content"]})
            assert saved.status_code == 200, saved.text
            after = (root / "notebooks" / path.name).read_bytes()
            assert after == path.read_bytes(), f"JupyterLab rewrote {path.name}: run `make strip`"


def _kernel_info(ws, timeout: float) -> dict:
    """The kernel's kernel_info reply content (language_info is what JupyterLab stores in a notebook)."""
    msg_id = uuid.uuid4().hex
    ws.send(json.dumps({"header": {"msg_id": msg_id, "msg_type": "kernel_info_request", "username": "test",
                                   "session": uuid.uuid4().hex, "version": "5.3"},
                        "parent_header": {}, "metadata": {}, "channel": "shell", "buffers": [], "content": {}}))
    end = time.time() + timeout
    while time.time() < end:
        ws.settimeout(max(end - time.time(), 0.1))
        msg = json.loads(ws.recv())
        if msg.get("parent_header", {}).get("msg_id") == msg_id and msg["header"]["msg_type"] == "kernel_info_reply":
            return msg["content"]
    raise AssertionError("no kernel_info reply")
