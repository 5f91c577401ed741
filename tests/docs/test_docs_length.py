"""The user's guide stays short enough to read: README, the benchmarks and known-truth pages have a line budget, and
README keeps the facts a new user looks for first (the test command, what CI installs)."""
import pytest

from lib.paths import ROOT

# file -> most lines it may have (history goes to git, details to docs/ pages)
LINE_BUDGET = {"README.md": 250, "docs/benchmarks.md": 300, "docs/known_truth.md": 300}


def line_count(path, root=ROOT) -> int:
    """Lines of a text file under `root` (a last line without a newline counts too)."""
    return len((root / path).read_text(encoding="utf-8").splitlines())


@pytest.mark.parametrize("name, budget", sorted(LINE_BUDGET.items()))
def test_page_fits_its_line_budget(name, budget):
    n = line_count(name)
    assert n <= budget, f"{name} has {n} lines, over its budget of {budget}: move details to a docs/ page"


def test_line_count_counts_every_line(tmp_path):
    """The count the budget uses sees a planted long file as long (so the budget test can fail)."""
    (tmp_path / "long.md").write_text("line\n" * 251 + "last line without a newline", encoding="utf-8")
    assert line_count("long.md", tmp_path) == 252 > LINE_BUDGET["README.md"]


def test_readme_names_the_test_command_and_what_ci_installs():
    """CI (.ci/run) calls `make test`; README says so and names the Debian packages .ci/run installs."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "make test" in ci.splitlines()[-1], "the last line of .ci/run is the test command"
    assert "The test command is `make test`" in readme
    for package in ("texlive-latex-base", "texlive-latex-recommended"):
        assert package in ci and package in readme, package
    assert "pairwise self-preference" in readme.lower(), "the task's common name is findable in README"

