"""Every command, import and link that README.md, CONTRIBUTING.md and docs/*.md show is run or resolved:
make targets exist and `make -n` expands them (the lib commands they expand to are checked in turn),
runner and profile commands are validated as a dry run (config, parameters and model specs read, no
notebook started), `python -c` snippets run, modules import, snippets' imports and attributes resolve,
and every path, link and anchor exists. Only SKIP, with its reasons, is left unrun."""
from __future__ import annotations

import contextlib
import glob
import importlib
import importlib.util
import inspect
import io
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from lib import run_config, runner
from lib.paths import ROOT
from tests.docs import doc_commands as dc

# Commands that are only resolved, never run here, and why. Keys are a command's first words.
SKIP = {
    "vllm": "needs a GPU and a model from a hub",
    "ollama": "a separate server and a model download",
    "llama-server": "a separate llama.cpp build",
    "pip install": "installs packages; `make install` and `make install-test` run these",
    "conda": "needs conda; the files it reads are checked to exist",
    "sudo apt-get": "installs Debian packages (CI's .ci/run does)",
    "git": "changes the clone or its configuration",
    "echo": "writes the clone's git attributes",
    "pytest": "the whole test suite, what `make test` runs",
    "python -m pytest": "the test suite or a folder of it, what `make test` runs",
    "ray": "starts a node of a Ray cluster; tests/cluster start their own Ray",
    "python -m llama_cpp.server": "the server of requirements-test.txt; tests/integration starts it",
    "python tests/integration/serve.py": "the same server; tests/integration starts it",
    "python -m ipykernel install": "registers a Jupyter kernel; `make install` does",
}
PYTHONS = {"python", "python3", ".venv/bin/python"}
# a word that stands for something the reader fills in: the command is resolved, not run
TEMPLATE = re.compile(r"<[^>]*>|\.\.\.|=N$|^X$")
FILE_WORD = re.compile(r"^[\w.-]+(/[\w.*-]+)*\.(txt|yml|yaml|py|toml|cfg|ipynb)$")


def _skip_reason(words: list[str]) -> str | None:
    head = " ".join("python" if w in PYTHONS else w for w in words)
    return next((why for key, why in SKIP.items() if head == key or head.startswith(key + " ")), None)


def make_targets() -> set[str]:
    """Targets the Makefile defines."""
    return set(re.findall(r"^([\w-]+):(?!=)", (ROOT / "Makefile").read_text(), re.M))


def fake_of(real, body):
    """A stand-in for `real` that is called as `real` is (its signature, read from it, so the two cannot
    drift apart) and hands `body` every argument by name, defaults filled in."""
    signature = inspect.signature(real)

    def fake(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        return body(**bound.arguments)

    fake.__signature__ = signature
    return fake


@contextlib.contextmanager
def dry_runner(monkeypatch):
    """runner.run / runner.sweep / compare replaced by their validation: the config is read, every
    parameter checked against its declaration, every model spec parsed (and a Ray sweep's --resources);
    no notebook starts, no Ray is started, compare returns empty tables."""
    import pandas as pd

    import lib.compare
    import lib.compare.run_table
    from lib.cluster.resources import parse_overrides

    seen = []

    def run(cfg, only, **_):
        seen.append(run_config.plan(cfg, runner.select_notebooks(cfg, only)))
        return {"status": "ok"}

    def sweep(cfg, grid, only, jobs, executor, resources, **_):
        assert executor == "ray" or jobs >= 1, f"--jobs {jobs}"
        parse_overrides(resources)
        for _, combo in runner.grid_runs(cfg, grid):
            seen.append(run_config.plan(runner.sweep_config(cfg, combo), runner.select_notebooks(cfg, only)))
        return 0

    def compare(runs, name, **_):
        assert runs and name, "compare needs runs and a name"
        seen.append(("compare", list(runs), name))
        return {"folders": [], "long": pd.DataFrame(columns=["entry"]), "wide": pd.DataFrame(), "paired": pd.DataFrame()}

    monkeypatch.setattr(runner, "run", fake_of(runner.run, run))
    monkeypatch.setattr(runner, "sweep", fake_of(runner.sweep, sweep))
    for module in (lib.compare, lib.compare.run_table):  # the run table calls the name it imported
        monkeypatch.setattr(module, "compare", fake_of(lib.compare.compare, compare))
    yield seen


def main_of(module: str):
    """The module's main(), or for a package run through `python -m`, its __main__'s."""
    mod = importlib.import_module(module)
    if not hasattr(mod, "main") and hasattr(mod, "__path__") and importlib.util.find_spec(f"{module}.__main__"):
        mod = importlib.import_module(f"{module}.__main__")
    assert callable(getattr(mod, "main", None)), f"{module} has no main()"
    return mod.main


def check_python(words: list[str], monkeypatch, template: bool) -> None:
    """A `python ...` command: -c runs; -m lib.* runs as a dry run or --help; scripts exist."""
    args = words[1:]
    if args[:1] == ["-c"]:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(args[1], "<doc>", "exec"), {})
        assert out.getvalue().strip(), "the snippet printed nothing"
        return
    if args[:1] != ["-m"]:
        script = ROOT / args[0]
        assert script.is_file(), f"{args[0]} does not exist"
        if not template and script.parent.name == "benchmarks":
            help_text = subprocess.run([sys.executable, str(script), "--help"], cwd=ROOT, capture_output=True,
                                       text=True, timeout=300, check=True).stdout
            assert all(a in help_text for a in args[1:] if a.startswith("--")), f"{args[0]}: unknown option"
        return
    module, rest = args[1], args[2:]
    assert importlib.util.find_spec(module) is not None, f"no module {module}"
    if template:
        return
    if module == "lib.runner":
        with dry_runner(monkeypatch) as seen:
            assert runner.main(rest) == 0
        assert seen or rest[:1] in (["params"], ["plan"])  # `plan` reads the config and calls no model
    elif module == "lib.profile":
        from lib.profile import __main__ as profile

        monkeypatch.setattr(profile, "render", lambda name, model, kernel=None: ROOT / "profile.html")
        with dry_runner(monkeypatch) as seen:
            assert profile.main(rest) == 0 and seen, "the profile's config did not validate"
    elif module == "lib.compare.run_table":
        from lib.compare.run_table import run_name

        with dry_runner(monkeypatch) as seen, contextlib.redirect_stdout(io.StringIO()):
            assert main_of(module)(rest) == 0
        assert seen == [("compare", [run_name(rest[0])], f"{run_name(rest[0])}_table")], seen
    elif module == "lib.simulate" and rest[:1] == ["validate"]:
        from lib.simulate import validate as simulate

        def validate(truth_path, size, run_name, config, only, concurrency=None, utility_sizes=None, **_):
            with dry_runner(monkeypatch) as seen:  # main reads the truth file
                runner.run(simulate.run_config(config, "http://127.0.0.1:1/v1", size, concurrency,
                                               utility_sizes=utility_sizes), run_name, only)
            assert seen, "the known-truth run's config did not validate"
            return True, "dry run", None

        monkeypatch.setattr(simulate, "validate", fake_of(simulate.validate, validate))
        with contextlib.redirect_stdout(io.StringIO()):
            assert main_of(module)(rest) == 0
    elif module == "lib.nbstrip":
        from lib import nbstrip

        files = [f for w in rest for f in sorted(glob.glob(str(ROOT / w)))]
        assert files and nbstrip.main(["--check", *files]) == 0
    elif module == "lib.rewardbench.demo_pairs":
        from lib.rewardbench import demo_pairs

        with tempfile.TemporaryDirectory() as tmp:  # rebuilt elsewhere, compared with the committed file
            out = demo_pairs.build_demo_file(path=Path(tmp) / "pairs.jsonl")
            assert out.read_bytes() == demo_pairs.DEMO_PAIRS.read_bytes(), "the demo pairs do not rebuild"
    else:
        main = main_of(module)
        with pytest.raises(SystemExit) as e, contextlib.redirect_stdout(io.StringIO()) as help_out:
            main(["--help"])
        assert e.value.code == 0 and all(w in help_out.getvalue() for w in rest[:1]), f"{module}: {rest[:1]}"


def check_command(cmd: dc.Command, monkeypatch) -> None:
    """Run or resolve one documented shell command."""
    words = cmd.words
    template = any(TEMPLATE.search(w) for w in cmd.text.split())
    for word in words:  # files a command reads must exist, run or not
        if FILE_WORD.match(word) and not word.startswith(".git") and not TEMPLATE.search(word) and "*" not in word:
            assert (ROOT / word).exists() or word in ("model.gguf", "my_profile.yaml", "my_effects.yaml"), f"{word} does not exist"
    if _skip_reason(words):
        return
    if words[0] == "make":
        target = words[1]
        assert target in make_targets(), f"make {target}: no such target"
        if template:
            return
        expanded = subprocess.run(["make", "-n", *words[1:]], cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert expanded.returncode == 0, expanded.stderr
        for assignment in words[2:]:  # each variable given reaches the command make runs
            value = assignment.split("=", 1)[1]
            assert value.replace("'", "").strip("\"") in expanded.stdout.replace("'", ""), f"{assignment} does not reach the command"
        for line in expanded.stdout.splitlines():
            if re.search(r"-m lib\.|benchmarks/", line):
                check_command(dc.Command(f"{cmd.doc} (make {target})", line.strip()), monkeypatch)
        return
    assert words[0] in PYTHONS, f"unknown command {words[0]!r}: run it here or add it to SKIP with a reason"
    check_python(words, monkeypatch, template)


COMMANDS = dc.shell_commands()


def test_the_docs_show_commands():
    assert len(COMMANDS) > 40 and any(c.text.startswith("make reproduce") for c in COMMANDS)


@pytest.mark.parametrize("cmd", COMMANDS, ids=[f"{c.doc}: {c.text[:60]}" for c in COMMANDS])
def test_documented_command_runs_or_resolves(cmd, monkeypatch, tmp_path):
    monkeypatch.chdir(ROOT)
    check_command(cmd, monkeypatch)


@pytest.mark.parametrize("doc, code", dc.python_blocks(), ids=lambda x: x if len(x) < 40 else "")
def test_python_snippet_imports_and_attributes_resolve(doc, code):
    """Every name a snippet imports exists, and every method it calls on a model, a request or a
    response exists there (the snippets call a real model, so they are resolved, not run)."""
    from lib.models import CachedModel, Request
    from lib.models.types import Response

    for module, names in re.findall(r"^from ([\w.]+) import ([\w, ]+)$", code, re.M):
        mod = importlib.import_module(module)
        for name in (n.strip() for n in names.split(",")):
            assert hasattr(mod, name), f"{doc}: {module} has no {name}"
    for method in re.findall(r"\bmodel\.(\w+)\(|embedding_model\(\)\.(\w+)\(", code):
        name = method[0] or method[1]
        assert callable(getattr(CachedModel, name, None)), f"{doc}: a model has no method {name}"
    fields = set(Request.__dataclass_fields__)
    for call in re.findall(r"Request\(([^()]*(?:\([^()]*\)[^()]*)*)\)", code):
        for key in re.findall(r"(\w+)=", call):
            assert key in fields, f"{doc}: Request has no field {key}"
    for attr in re.findall(r"outs\[0\]\.(\w+)|\)\.(text)\b", code):
        name = attr[0] or attr[1]
        assert name in Response.__dataclass_fields__, f"{doc}: a response has no {name}"


@pytest.mark.parametrize("doc, statement", dc.inline_imports())
def test_inline_import_resolves(doc, statement):
    exec(statement, {})


@pytest.mark.parametrize("doc, target", dc.links())
def test_link_and_anchor_exist(doc, target):
    path, _, anchor = target.partition("#")
    file = (ROOT / doc).parent / path if path else ROOT / doc
    assert file.exists(), f"{doc}: link to missing {path}"
    if anchor:
        assert file.suffix == ".md" and anchor in dc.anchors(file), f"{doc}: no heading #{anchor} in {path or doc}"


# paths shown as examples of a form, not as files of the repository
EXAMPLE_PATHS = {"configs/x.yaml:3:5": "the form of a YAML error message",
                 "notebooks/NN_name.ipynb": "the naming pattern of notebooks",
                 # the worked example's notebook: tests/shared/test_contributing_example.py runs its
                 # code from CONTRIBUTING's text; a contributor creates the file, the repository has none
                 "notebooks/18_toy.ipynb": "the toy notebook of CONTRIBUTING's worked example"}


@pytest.mark.parametrize("doc, path", [p for p in dc.repo_paths() if p[1] not in EXAMPLE_PATHS])
def test_repository_path_exists(doc, path):
    assert (ROOT / path).exists(), f"{doc} names {path}, which does not exist"


@pytest.mark.parametrize("doc, section", dc.readme_references())
def test_readme_section_reference_exists(doc, section):
    headings = re.findall(r"^## (.+)$", (ROOT / "README.md").read_text(), re.M)
    assert any(h.startswith(section) for h in headings), f"{doc}: README has no section {section!r}"


def test_no_absolute_path_of_a_machine():
    """Docs name paths relative to the repository (or as placeholders), never a developer's folders."""
    for path in [*dc.doc_files(), *sorted((ROOT / "configs").glob("*.yaml"))]:
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"(?<![\w.])/(?:work|home|root|Users)/\w", text), f"{path.name}: absolute path"
