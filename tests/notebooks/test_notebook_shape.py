"""Notebooks read like paper sections: at most 60 code lines, and a heading naming the paper's table or
figure (or saying it is beyond the paper) right before every cell that writes a table or a figure."""
import json
import re

import pytest

from lib.run_config import numbered_notebooks

MAX_CODE_LINES = 60
# Bodies trimmed by other parts of the restructuring (issue 20); they join the check as they land.
NOT_YET_SHAPED: set[str] = set()  # every notebook is shaped; a new one may be listed while it is
WRITES = re.compile(r"\bout\.(table|figure)\(")
NAMES_SOURCE = re.compile(r"Table|Figure|§|no paper table|beyond the paper", re.IGNORECASE)


def code_lines(cells) -> int:
    """Code lines of a notebook, blank and comment lines excluded."""
    return sum(1 for c in cells if c["cell_type"] == "code" for line in "".join(c["source"]).splitlines()
               if line.strip() and not line.strip().startswith("#"))


def _preamble(cells) -> set[int]:
    """Indexes of the imports and parameters cells (the first two code cells): the title before them
    heads the first cell after them."""
    return set([i for i, c in enumerate(cells) if c["cell_type"] == "code"][:2])


def unheaded(cells) -> list[int]:
    """Indexes of cells writing a table or figure without a heading that names its source just before
    (the imports and parameters cells in between do not count)."""
    bad, preamble = [], _preamble(cells)
    for i, c in enumerate(cells):
        if c["cell_type"] == "code" and WRITES.search("".join(c["source"])):
            j = i - 1
            while j in preamble:
                j -= 1
            before = cells[j] if j >= 0 and j not in preamble else None
            first = "".join(before["source"]).lstrip().split("\n")[0] if before and before["cell_type"] == "markdown" else ""
            if not (first.startswith("#") and NAMES_SOURCE.search(first)):
                bad.append(i)
    return bad


def _cases():
    for nb in numbered_notebooks():
        marks = [pytest.mark.xfail(reason="body not yet shaped", strict=False)] if nb.name[:2] in NOT_YET_SHAPED else []
        yield pytest.param(nb, marks=marks, id=nb.stem)


@pytest.mark.parametrize("nb", list(_cases()))
def test_notebook_reads_like_a_paper_section(nb):
    cells = json.loads(nb.read_text())["cells"]
    assert code_lines(cells) <= MAX_CODE_LINES, f"{nb.name}: {code_lines(cells)} code lines"
    assert unheaded(cells) == [], f"{nb.name}: cells {unheaded(cells)} write a table or figure without a heading"


def test_the_checks_catch_a_planted_notebook():
    code = {"cell_type": "code", "source": ["x = 1\n", "# a comment\n", "\n", "out.table(x, 'x')"]}
    heading = {"cell_type": "markdown", "source": ["## v1 Table 5: factual preference\n", "The paper found..."]}
    plain = {"cell_type": "markdown", "source": ["Some words."]}
    assert code_lines([code]) == 2
    assert unheaded([heading, code]) == [] and unheaded([plain, code]) == [1] and unheaded([code]) == [0]
    imports, params = {"cell_type": "code", "source": ["import x"]}, {"cell_type": "code", "source": ["n = 1"]}
    assert unheaded([heading, imports, params, code]) == [], "the title heads the first cell after the preamble"
    assert unheaded([plain, imports, params, code]) == [3] and unheaded([imports, params, code]) == [2]
    assert code_lines([code] * 31) == 62 > MAX_CODE_LINES
