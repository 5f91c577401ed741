"""The runner end to end with every chat model pointed at the llama.cpp server: smoke sizes, then a
warm re-run that makes no server call."""
import json

from lib import runner
from lib.paths import ROOT

# 01 and 02 come first because 05 and 06 read the passage bank that 02 writes (the server is the author)
NOTEBOOKS = "00,01,02,04,05,06,13"


def test_smoke_notebooks_on_the_server_then_a_warm_rerun(chat_server, tmp_runs):
    spec = chat_server.spec
    args = ["run", str(ROOT / "configs" / "smoke.yaml"), "--run", "server", "--only", NOTEBOOKS,
            "-p", f"chat_model={spec}", "-p", f"models=[{spec}]", "-p", f"evaluators=[{spec}]",
            "-p", f"authors=[{spec}]",
            "-p", f'reward_models=["judge:{spec};retries:0;max_tokens:8", "judge:{spec};logprob"]']
    before = chat_server.requests()
    assert runner.main(args) == 0
    cold = json.loads((tmp_runs / "server" / "manifest.json").read_text())
    asked = chat_server.requests() - before
    print(f"\ncold run: {cold['seconds']} s, {asked} server requests, cache {cold['cache']}")
    assert cold["status"] == "ok" and spec in cold["model_specs"]
    assert [e["status"] for e in cold["notebooks"]] == ["ok"] * len(NOTEBOOKS.split(","))
    assert asked > 0 and cold["cache"]["misses"] > 0
    assert runner.main(args) == 0
    warm = json.loads((tmp_runs / "server" / "manifest.json").read_text())
    print(f"warm run: {warm['seconds']} s, cache {warm['cache']}")
    assert warm["cache"]["misses"] == 0 and chat_server.requests() - before == asked, "warm re-run: 0 calls"
