"""The main job at smoke size with the run-level model pointed at the llama.cpp server: every notebook
00-16 ends ok; the parts this server cannot serve (likelihoods over chat messages) are named before
any work, in the manifest and in the run README, and each notebook leaves them out and goes on."""
import json

from lib import runner
from lib.paths import ROOT


def test_main_job_on_the_server_finishes_every_notebook(chat_server, tmp_runs, capsys):
    code = runner.main(["run", str(ROOT / "configs" / "smoke.yaml"), "--run", "server_main",
                        "-p", f"model={chat_server.spec}"])
    out = capsys.readouterr().out
    man = json.loads((tmp_runs / "server_main" / "manifest.json").read_text())
    statuses = {e["notebook"][:2]: e["status"] for e in man["notebooks"]}
    print(f"\nmain job on the server: {man['seconds']} s, {chat_server.requests()} requests; {statuses}")
    assert code == 0 and man["status"] == "ok", [e.get("error") for e in man["notebooks"]]
    assert list(statuses) == [f"{i:02d}" for i in range(17)] + ["18"] and set(statuses.values()) == {"ok"}  # 17 compares runs
    parts = {(p["notebook"], p["part"]) for p in man["left_out"]}
    assert ("15_best_of_n", "implicit reward models (likelihoods)") in parts
    assert ("05_pointwise_reranking", "likelihood ratings") in parts
    assert out.index("left out for") < out.index("00_quickstart: ok")  # said before any work
    readme = (tmp_runs / "server_main" / "README.md").read_text()
    assert "## Left out for a capability" in readme and "15_best_of_n: implicit reward models" in readme
