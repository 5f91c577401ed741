"""No arrow runs upward between the reporting layers: lib/report (tables, figures, findings, the run
README) imports none of the packages built on it (compare, inspect, profile, the runner), and lib/cluster,
which the runner drives, never imports the runner back. Imports inside functions count too."""
import ast
from pathlib import Path

import pytest

LIB = Path(__file__).resolve().parents[2] / "lib"
ABOVE = {"report": ("lib.compare", "lib.inspect", "lib.profile", "lib.runner", "lib.cluster"),
         "cluster": ("lib.runner",)}


def imported(path: Path, root: Path = LIB) -> list[str]:
    """Every module a file imports (relative imports made absolute), at any depth of its code."""
    package = ".".join(path.relative_to(root.parent).with_suffix("").parts[:-1])
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level else ""
            module = ".".join(p for p in (base, node.module or "") if p)
            found += [module] + ([f"{module}.{a.name}" for a in node.names] if not node.module else [])
    return found


def upward(layer: str, root: Path = LIB) -> list[str]:
    """'lib/<layer>/<file> imports <module>' for every import of a package built on the layer."""
    return [f"{path.relative_to(root.parent)} imports {m}" for path in sorted((root / layer).rglob("*.py"))
            for m in imported(path, root) if any(m == a or m.startswith(a + ".") for a in ABOVE[layer])]


@pytest.mark.parametrize("layer", sorted(ABOVE))
def test_no_layer_imports_one_built_on_it(layer):
    assert upward(layer) == []


def test_the_check_sees_an_upward_import_inside_a_function(tmp_path):
    """A planted module of lib/report that imports the inspector in a function body (run_readme did)."""
    fake = tmp_path / "lib"
    (fake / "report").mkdir(parents=True)
    (fake / "report" / "planted.py").write_text("def f():\n    from lib.inspect import link\n    from ..compare import x\n")
    (fake / "report" / "fine.py").write_text("from lib.stats import shown_interval\nfrom . import labels\n")
    assert upward("report", fake) == ["lib/report/planted.py imports lib.inspect",
                                      "lib/report/planted.py imports lib.compare"]
