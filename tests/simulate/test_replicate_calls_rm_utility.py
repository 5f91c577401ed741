"""Notebooks 10-15 and their replications (lib/simulate/replicate_steps.py) call one study function
each, the one `STUDY_FUNCTIONS` declares: the code cells of the notebook and its `nbNN` both call it,
so the known-truth replications check the notebook's own pipeline, not a copy of it."""
import ast
import importlib
import json

import pytest

from lib.paths import NOTEBOOKS, ROOT
from lib.simulate.replicate_steps import STUDY_FUNCTIONS

NOTEBOOKS_HERE = ("10", "11", "12", "13", "14", "15")
STEPS = ROOT / "lib" / "simulate" / "replicate_steps.py"


def calls_function(tree: ast.AST, dotted: str) -> bool:
    """Whether the tree calls `dotted` (package.module.function) by a name its imports bind to it:
    `module.function(...)` after `from package import module`, `function(...)` after `from
    package.module import function`, or `package.module.function(...)` after `import package.module`."""
    module, _, name = dotted.rpartition(".")
    package, _, last = module.rpartition(".")
    froms = [(n.module, a.name, a.asname or a.name) for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
             for a in n.names]
    as_module = {bound for mod, what, bound in froms if mod == package and what == last}
    as_function = {bound for mod, what, bound in froms if mod == module and what == name}
    whole = any(isinstance(n, ast.Import) and any(a.name == module and a.asname is None for a in n.names)
                for n in ast.walk(tree))
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        if isinstance(f, ast.Name) and f.id in as_function:
            return True
        if isinstance(f, ast.Attribute) and f.attr == name:
            owner = ast.unparse(f.value)
            if owner in as_module or (whole and owner == module):
                return True
    return False


def notebook_tree(number: str) -> ast.Module:
    """A numbered notebook's code cells parsed as one module."""
    (path,) = NOTEBOOKS.glob(f"{number}_*.ipynb")
    cells = json.loads(path.read_text())["cells"]
    return ast.parse("\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code"))


def step_tree(number: str) -> ast.FunctionDef:
    """The replication's `nbNN` function."""
    (fn,) = [n for n in ast.parse(STEPS.read_text()).body if isinstance(n, ast.FunctionDef) and n.name == f"nb{number}"]
    return fn


def test_every_notebook_here_declares_a_study_function_that_exists():
    assert set(NOTEBOOKS_HERE) <= set(STUDY_FUNCTIONS)
    for number in NOTEBOOKS_HERE:
        module, _, name = STUDY_FUNCTIONS[number].rpartition(".")
        assert callable(getattr(importlib.import_module(module), name, None)), STUDY_FUNCTIONS[number]


@pytest.mark.parametrize("number", NOTEBOOKS_HERE)
def test_the_notebook_and_its_replication_call_the_declared_function(number):
    dotted = STUDY_FUNCTIONS[number]
    assert calls_function(notebook_tree(number), dotted), f"notebook {number} does not call {dotted}"
    assert calls_function(step_tree(number), dotted), f"replicate_steps.nb{number} does not call {dotted}"


def test_the_check_catches_a_call_that_is_not_the_declared_one():
    fn = "lib.utility.study.relevance_vs_utility"
    good = ast.parse("from lib.utility import study\nr = study.relevance_vs_utility(1)")
    direct = ast.parse("from lib.utility.study import relevance_vs_utility\nr = relevance_vs_utility(1)")
    assert calls_function(good, fn) and calls_function(direct, fn)
    assert not calls_function(ast.parse("from lib.utility import study\nr = study.utility_factors(1)"), fn)
    assert not calls_function(ast.parse("r = study.relevance_vs_utility(1)"), fn)  # not imported
    assert not calls_function(ast.parse("from lib.rewardbench import study\nr = study.relevance_vs_utility(1)"), fn)
    assert not calls_function(ast.parse("from lib.utility import study\nf = study.relevance_vs_utility"), fn)
