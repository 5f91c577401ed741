"""docs/findings.md quotes the demo run as its findings.csv has it: every number of the section "The demo
run's numbers" is read from the page and looked up in a findings file (tests/docs/demo_findings.csv, the
demo run collected by this checkout, or the file RAGBIAS_DEMO_FINDINGS names). A table row is checked
cell by cell against the findings row its `measure_id` names, at the precision the page prints; a
number in the section's prose must be a value of one of those rows, a notebook's number, or the
project's smoke size."""
import math
import os
import re
from pathlib import Path

import pandas as pd
import pytest

from lib.report.findings import SMOKE_N

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "findings.md"
HEADING = "## The demo run's numbers"
NUMBER = re.compile(r"(?<![\w.\-])-?\d+(?:\.\d+)?")
VALUES = ("n_items", "n_attempted", "estimate", "ci_low", "ci_high", "p", "p_adjusted")


def demo_findings() -> pd.DataFrame:
    """The findings file the page is checked against."""
    path = os.environ.get("RAGBIAS_DEMO_FINDINGS") or Path(__file__).with_name("demo_findings.csv")
    return pd.read_csv(path, keep_default_na=False, na_values=[""])


def section(text: str) -> str:
    """The page's demo section: from its heading to the next heading of the same level."""
    start = text.index(HEADING) + len(HEADING)
    end = text.find("\n## ", start)
    return text[start:] if end < 0 else text[start:end]


def numbers(text: str) -> list[str]:
    """Every number a reader sees, code spans (ids, file names) left out."""
    return NUMBER.findall(re.sub(r"`[^`]*`", " ", text))


def agrees(shown: str, value) -> bool:
    """Whether a printed number is the value at the printed precision."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return False
    decimals = len(shown.split(".")[1]) if "." in shown else 0
    return abs(float(shown) - float(value)) <= 0.5 * 10 ** -decimals + 1e-9


def table_problems(line: str, frame: pd.DataFrame) -> tuple[list[str], pd.Series | None]:
    """What in one table row disagrees with the findings row its measure_id names."""
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    mid = cells[0].strip("`")
    rows = frame[frame["measure_id"] == mid]
    if len(rows) != 1:
        return [f"{mid}: {len(rows)} findings rows, not one"], None
    r = rows.iloc[0]
    problems = []
    n = numbers(cells[1])
    if n != [str(int(r["n_items"]))] or not cells[1].endswith(str(r["unit"]) + ("" if r["n_items"] == 1 else "s")):
        problems.append(f"{mid}: n {cells[1]!r}, findings {int(r['n_items'])} {r['unit']}")
    shown = numbers(cells[2])
    wanted = [r["estimate"]] + ([] if pd.isna(r["ci_low"]) else [r["ci_low"], r["ci_high"]])
    if len(shown) != len(wanted) or not all(agrees(s, v) for s, v in zip(shown, wanted)):
        problems.append(f"{mid}: estimate {cells[2]!r}, findings {wanted}")
    for cell, col in ((cells[3], "p"), (cells[4], "p_adjusted")):
        if (cell == "") != pd.isna(r[col]) or (cell and not agrees(cell, r[col])):
            problems.append(f"{mid}: {col} {cell!r}, findings {r[col]}")
    family = "" if pd.isna(r["family"]) else str(r["family"])
    if cells[5] != family:
        problems.append(f"{mid}: family {cells[5]!r}, findings {family!r}")
    return problems, r


def demo_number_problems(text: str, frame: pd.DataFrame) -> list[str]:
    """Every quoted demo number that the findings file does not have, one line each."""
    problems, named = [], []
    body = section(text)
    lines = body.splitlines()
    table = [ln for ln in lines if ln.startswith("| `")]
    if not table:
        return ["the demo section has no table of findings rows"]
    for line in table:
        found, row = table_problems(line, frame)
        problems += found
        if row is not None:
            named.append(row)
    notebooks = {str(nb).split("_")[0] for nb in frame["notebook"]}
    prose = "\n".join(ln for ln in lines if not ln.startswith("|"))
    for shown in numbers(prose):
        if shown in notebooks or shown == str(SMOKE_N):
            continue
        if not any(agrees(shown.rstrip("%"), r[c]) for r in named for c in VALUES):
            problems.append(f"prose number {shown} is no value of the rows the table names")
    return problems


def test_the_demo_numbers_of_findings_md_are_the_demo_runs():
    assert demo_number_problems(PAGE.read_text(encoding="utf-8"), demo_findings()) == []


@pytest.mark.parametrize("old, new", [("| 0.074 | 0.294 |", "| 0.074 | 0.074 |"),  # a raw p as Holm p
                                      ("0.040 [-0.004, 0.084] | 0.074", "0.040 [-0.004, 0.090] | 0.074"),
                                      ("| 33 items | 1.583", "| 30 items | 1.583"),
                                      ("adjusted p 0.005 and", "adjusted p 0.05 and"),
                                      ("| 0.166 | self-preference |", "| 0.166 |  |")])
def test_the_check_fails_on_a_planted_wrong_number(old, new):
    text = PAGE.read_text(encoding="utf-8")
    assert old in text, old
    assert demo_number_problems(text.replace(old, new, 1), demo_findings())


def test_the_check_reads_a_run_that_disagrees(tmp_path, monkeypatch):
    """A findings file whose Holm p differs (another run) fails the page."""
    frame = demo_findings()
    frame.loc[frame["measure_id"] == "ppl_human_minus_model.all.paired_t", "p_adjusted"] = 0.5
    frame.to_csv(tmp_path / "findings.csv", index=False)
    monkeypatch.setenv("RAGBIAS_DEMO_FINDINGS", str(tmp_path / "findings.csv"))
    assert demo_number_problems(PAGE.read_text(encoding="utf-8"), demo_findings())
