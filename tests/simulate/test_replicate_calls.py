"""Each notebook with a declared study function (replicate_steps.STUDY_FUNCTIONS) and its replication
step `nbNN` both call that function, so the known-truth replications run the notebook's own pipeline,
not a copy of it (read from the source with `ast`: nothing is run)."""
import ast
import importlib
import json

import pytest

from lib.paths import NOTEBOOKS, ROOT
from lib.simulate import replicate_steps as S
from lib.simulate.replicate import NOTEBOOKS as REPLICATED

STEPS_FILE = ROOT / "lib" / "simulate" / "replicate_steps.py"
# replications without a study function (none may be added):
NOT_YET = {"09", "17"}  # 09 copies candidate sets built once; 17 is compare's paired difference


def _imports(tree: ast.AST, package: str) -> dict:
    """Local name -> dotted name of everything `tree` imports (relative imports against `package`)."""
    names = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                names[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[:len(parts) - node.level + 1] + ([base] if base else []))
            for a in node.names:
                names[a.asname or a.name] = f"{base}.{a.name}"
    return names


def _dotted(func: ast.AST, names: dict) -> str | None:
    """The dotted name a call's function resolves to (`steps.f` -> lib.self_preference.study.f)."""
    attrs = []
    while isinstance(func, ast.Attribute):
        attrs.insert(0, func.attr)
        func = func.value
    if not isinstance(func, ast.Name):
        return None
    return ".".join([names.get(func.id, func.id), *attrs])


def called(tree: ast.AST, package: str, helpers: dict | None = None, names: dict | None = None,
           seen: set | None = None) -> set[str]:
    """Dotted names of the functions `tree` calls, and those its module's `helpers` (name -> def) call
    in turn (`names`: the module's own imports, which the helpers see too)."""
    helpers, seen = helpers or {}, seen if seen is not None else set()
    names = {**(names or {}), **_imports(tree, package)}
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and (name := _dotted(node.func, names)):
            out.add(name)
            if name in helpers and name not in seen:
                seen.add(name)
                out |= called(helpers[name], package, helpers, names, seen)
    return out


def notebook_calls(path) -> set[str]:
    """Dotted names of the functions a notebook's code cells call."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    code = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    return called(ast.parse(code), "")


def step_calls(number: str, source: str | None = None) -> set[str]:
    """Dotted names of the functions replicate_steps.nb<number> calls, directly or through the
    module's helper functions."""
    tree = ast.parse(source if source is not None else STEPS_FILE.read_text(encoding="utf-8"))
    helpers = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    module_names = {}
    for n in tree.body:
        if isinstance(n, (ast.Import, ast.ImportFrom)):
            module_names.update(_imports(n, "lib.simulate"))
    return called(helpers[f"nb{number}"], "lib.simulate", helpers, module_names)


def _notebook(number: str):
    (path,) = NOTEBOOKS.glob(f"{number}_*.ipynb")
    return path


@pytest.mark.parametrize("number", sorted(S.STUDY_FUNCTIONS))
def test_the_notebook_and_its_replication_call_the_same_study_function(number):
    study = S.STUDY_FUNCTIONS[number]
    module, name = study.rsplit(".", 1)
    assert callable(getattr(importlib.import_module(module), name, None)), f"{study} does not exist"
    path = _notebook(number)
    assert study in notebook_calls(path), f"{path.name} does not call {study}"
    assert study in step_calls(number), f"replicate_steps.nb{number} does not call {study}"


def test_every_replication_has_a_study_function_or_is_listed_as_not_yet():
    assert set(S.STUDY_FUNCTIONS) <= set(REPLICATED)
    assert set(REPLICATED) - set(S.STUDY_FUNCTIONS) <= NOT_YET


def test_the_check_resolves_imports_and_helpers_and_misses_a_copy():
    nb_like = "from lib.self_preference import study as st\nst.pointwise_study(bank)\n"
    assert "lib.self_preference.study.pointwise_study" in called(ast.parse(nb_like), "")
    steps_src = ("def _helper(run):\n    from lib.self_preference.study import pointwise_study\n"
                 "    return pointwise_study(run)\n\n"
                 "def nb05(run):\n    return _helper(run).rows\n\n"
                 "def nb06(run):\n    from lib.self_preference import likelihood\n"
                 "    return likelihood.generation_phase_pairs(run)\n")
    assert "lib.self_preference.study.pointwise_study" in step_calls("05", steps_src)
    assert not any(c.endswith("_study") for c in step_calls("06", steps_src))  # a re-typed copy is caught
