"""Every committed notebook follows the conventions: the project's kernel (`rag-bias-lab`) in its
metadata, no outputs, imports first, one `parameters` cell that papermill can read, `RunOutputs(run_name, "<its name>")`, `out.finish()` last, and a
markdown cell marking what goes beyond the paper (all but the quickstart). Each file is already in
the form `make strip` writes (nbformat's serialisation, the kernel's `language_info`, title first)."""
import ast
import json
import subprocess
import sys

import nbformat
import papermill as pm
import pytest

from lib.paths import NOTEBOOKS
from lib.nbstrip import language_info, strip, stripped_text
from lib.run_config import numbered_notebooks
from lib.runner import KERNEL, KERNEL_DISPLAY

NOTEBOOK_FILES = sorted(NOTEBOOKS.glob("*.ipynb"))


def test_there_are_notebooks():
    assert [p.stem for p in numbered_notebooks()][:1] == ["00_quickstart"]


@pytest.mark.parametrize("path", NOTEBOOK_FILES, ids=lambda p: p.name)
def test_notebook_conventions(path):
    nb = nbformat.read(path, as_version=4)
    spec = nb.metadata["kernelspec"]
    assert (spec["name"], spec["display_name"]) == (KERNEL, KERNEL_DISPLAY), f"run `make strip` on {path.name}"
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(not c.outputs and c.execution_count is None for c in code), f"run `make strip` on {path.name}"
    assert all(isinstance(s, (ast.Import, ast.ImportFrom)) for s in ast.parse(code[0].source).body)
    tagged = [c for c in code if "parameters" in c.metadata.get("tags", [])]
    assert len(tagged) == 1 and tagged[0] is code[1], "the second code cell, and only it, is tagged 'parameters'"
    assigned = {t.id for s in ast.parse(code[1].source).body if isinstance(s, ast.Assign) for t in s.targets}
    assert 'run_name = "scratch"' in code[1].source
    # papermill silently skips a line it cannot parse (e.g. an '=' inside a trailing comment)
    assert set(pm.inspect_notebook(str(path))) == assigned
    assert f'RunOutputs(run_name, "{path.stem}")' in "\n".join(c.source for c in code)
    assert code[-1].source.strip() == "out.finish()"
    if path.stem != "00_quickstart":
        md = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown").lower()
        assert "beyond the paper" in md


def test_strip_sets_the_project_kernel_and_removes_outputs(tmp_path):
    """A notebook saved from another Jupyter (kernel python3, with outputs) comes out of `strip`
    on the project's kernel and clean; a second strip changes nothing."""
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1 + 1", execution_count=3, outputs=[
        nbformat.v4.new_output("execute_result", {"text/plain": "2"}, execution_count=3)])])
    nb.metadata["kernelspec"] = {"display_name": "Python 3", "language": "python", "name": "python3"}
    path = tmp_path / "x.ipynb"
    nbformat.write(nb, path)
    assert strip(str(path)) is True
    back = nbformat.read(path, as_version=4)
    assert back.metadata["kernelspec"]["name"] == KERNEL
    assert back.metadata["kernelspec"]["display_name"] == KERNEL_DISPLAY
    assert back.cells[0].outputs == [] and back.cells[0].execution_count is None
    assert strip(str(path)) is False


@pytest.mark.parametrize("path", NOTEBOOK_FILES, ids=lambda p: p.name)
def test_notebook_is_in_its_committed_form(path):
    """Re-serialising the file changes no byte: what JupyterLab saves is what is committed."""
    text = path.read_text(encoding="utf-8")
    assert stripped_text(text) == text, f"run `make strip` on {path.name}"
    nb = json.loads(text)
    assert nb["cells"][0]["cell_type"] == "markdown" and "".join(nb["cells"][0]["source"]).startswith("# ")
    assert nb["metadata"]["language_info"] == language_info()


def _messy_notebook_text() -> str:
    """A notebook as papermill or another editor leaves it: outputs, counts, run metadata, the title
    third, keys in another order, no language_info, no final newline."""
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("import math", execution_count=1),
        nbformat.v4.new_code_cell('run_name = "scratch"', metadata={"tags": ["parameters"], "papermill": {"x": 1}}),
        nbformat.v4.new_markdown_cell("# 99 A title\nWhat this shows."),
        nbformat.v4.new_code_cell("1 + 1", execution_count=3, outputs=[
            nbformat.v4.new_output("execute_result", {"text/plain": "2"}, execution_count=3)])])
    nb.metadata["kernelspec"] = {"display_name": "Python 3", "language": "python", "name": "python3"}
    nb.metadata["papermill"] = {"duration": 1.0}
    return json.dumps(nb, indent=2, sort_keys=False)


MESSY = _messy_notebook_text()  # once: new cells get random ids


def test_strip_writes_the_committed_form_once(tmp_path):
    path = tmp_path / "x.ipynb"
    path.write_text(MESSY)
    assert strip(str(path)) is True
    text = path.read_text()
    back = nbformat.reads(text, as_version=4)
    assert [c.cell_type for c in back.cells] == ["markdown", "code", "code", "code"]
    assert back.cells[0].source.startswith("# 99 A title")
    assert back.cells[2].metadata == {"tags": ["parameters"]}, "tags stay, run metadata goes"
    assert "papermill" not in back.metadata and back.metadata["language_info"]["pygments_lexer"] == "ipython3"
    assert set(back.metadata["language_info"]) == {"name", "version", "mimetype", "file_extension",
                                                  "pygments_lexer", "codemirror_mode", "nbconvert_exporter"}
    assert back.metadata["language_info"]["version"] == sys.version.split()[0]
    assert text == nbformat.writes(back) + "\n"
    assert strip(str(path)) is False and path.read_text() == text, "a second strip changes nothing"


def test_check_and_filter_modes(tmp_path):
    path = tmp_path / "x.ipynb"
    path.write_text(MESSY)
    cmd = [sys.executable, "-m", "lib.nbstrip"]
    check = subprocess.run(cmd + ["--check", str(path)], capture_output=True, text=True)
    assert check.returncode == 1 and "make strip" in check.stderr and path.read_text() == MESSY
    filtered = subprocess.run(cmd + ["--filter"], input=MESSY, capture_output=True, text=True, check=True)
    assert filtered.stdout == stripped_text(MESSY)
    path.write_text(filtered.stdout)
    assert subprocess.run(cmd + ["--check", str(path)]).returncode == 0
