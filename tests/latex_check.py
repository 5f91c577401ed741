"""Compile LaTeX table fragments with a real engine (pdflatex, booktabs), for the table tests and
the notebook smoke test. Without an engine the check is skipped outside CI and fails in CI."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

INSTALL = ("apt-get install -y --no-install-recommends texlive-latex-base texlive-latex-recommended "
           "(Debian / Ubuntu; booktabs is in texlive-latex-recommended)")
# a two-column paper, as the tables are meant for (tables fit its column, table* its page): LaTeX's own
# 10 pt two-column article, whose column and page widths lib.report.latex_table writes for
DOCUMENT = "\\documentclass[twocolumn]{article}\n\\usepackage{booktabs}\n\\begin{document}\n%s\n\\end{document}\n"
COLUMN_PT, PAGE_PT = 229.5, 469.0  # that document's \columnwidth and \textwidth
TABULAR = re.compile(r"\\begin\{tabular\}\{.*?\n\\end\{tabular\}", re.S)
# what a table a paper can take never shows: a float with 7+ decimals, a NaN, an unescaped underscore
RAW_NUMBER = re.compile(r"\d\.\d{7,}")
HELPER_HEADER = re.compile(r"\bfmt\b")
SPLIT_INTERVAL = re.compile(r"CI low|CI high|\blo\b &|\bhi\b \\\\|ci\\_low")
LONG_PERCENT = re.compile(r"\b100\.000\b")
NAN_CELL = re.compile(r"(^|&)\s*(nan|NaN|<NA>|None)\s*(\\\\|&)", re.M)


def engine() -> str | None:
    """Path of pdflatex, or None."""
    return shutil.which("pdflatex")


def in_ci() -> bool:
    """True under CI (the CI variable set), where a missing engine is a failure, not a skip."""
    return bool(os.environ.get("CI"))


def require_engine() -> str:
    """pdflatex, or fail (in CI, where .ci/run installs it) or skip with the install command."""
    found = engine()
    if found:
        return found
    if in_ci():
        pytest.fail(f"CI is set but pdflatex is missing: .ci/run should have installed it ({INSTALL})")
    pytest.skip(f"no LaTeX engine (pdflatex) on this machine; to run this check: {INSTALL}")


def _pdflatex(body: str, workdir: Path, name: str) -> str | None:
    """Compile one document; None when it compiles, else the log's error lines."""
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / f"{name}.tex").write_text(DOCUMENT % body)
    run = subprocess.run([engine(), "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape", f"{name}.tex"],
                         cwd=workdir, capture_output=True, text=True, timeout=120)
    if run.returncode == 0 and (workdir / f"{name}.pdf").exists():
        return None
    errors = [line for line in run.stdout.splitlines() if line.startswith("!") or line.startswith("l.")]
    return "\n".join(errors[:6]) or run.stdout[-800:]


def compile_errors(fragments: dict[str, str], workdir: Path) -> dict[str, str]:
    """{name: error} for the fragments that do not compile: all in one document first (one engine
    start), and one by one only when that fails, to name the culprits."""
    together = "\n\\clearpage\n".join(fragments.values())
    if _pdflatex(together, workdir, "all_tables") is None:
        return {}
    errors = {}
    for i, (name, text) in enumerate(fragments.items()):
        err = _pdflatex(text, workdir, f"table_{i}")
        if err:
            errors[name] = err
    return errors or {"(all together)": "fails only when combined"}


def measured_widths(fragments: dict[str, str], workdir: Path) -> dict[str, float]:
    """{name: width in pt of its widest tabular}, each tabular typeset in a box at the table's own
    font size by pdflatex and its width read from the log."""
    body = []
    for i, (name, text) in enumerate(fragments.items()):
        size = re.search(r"^\\(small|footnotesize|scriptsize|normalsize)$", text, re.M)
        for tab in TABULAR.findall(text):
            body.append("{\\%s\\setbox0\\hbox{%s}\\typeout{WIDTH %d \\the\\wd0}}"
                        % (size.group(1) if size else "normalsize", tab, i))
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "widths.tex").write_text(DOCUMENT % ("\n".join(body) + "\nx"))
    run = subprocess.run([engine(), "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape", "widths.tex"],
                         cwd=workdir, capture_output=True, text=True, timeout=120)
    names = list(fragments)
    widths: dict[str, float] = {}
    for i, pt in re.findall(r"WIDTH (\d+) ([\d.]+)pt", run.stdout):
        widths[names[int(i)]] = max(widths.get(names[int(i)], 0.0), float(pt))
    return widths


TOO_TALL = re.compile(r"Float too large for page by ([\d.]+)pt on input line (\d+)")
OVERFULL = re.compile(r"Overfull \\hbox \(([\d.]+)pt too wide\) in \w+ at lines? (\d+)")
OVERFULL_PT = 1.0  # what a reader cannot see: TeX reports a line a hair too wide as overfull too


def page_problems(fragments: dict[str, str], workdir: Path) -> list[str]:
    """Tables taller than a page (pdflatex's 'Float too large for page') or wider than the column or
    page they are set in ('Overfull \\hbox' over OVERFULL_PT), typeset all in one two-column document
    and named by the input line pdflatex reports."""
    workdir.mkdir(parents=True, exist_ok=True)
    names, lines, body = [], [], []
    line = DOCUMENT.split("%s")[0].count("\n") + 1
    for name, text in fragments.items():
        names.append(name)
        lines.append(line)
        body.append(text + "\n\\clearpage")
        line += (text + "\n\\clearpage").count("\n") + 1
    (workdir / "heights.tex").write_text(DOCUMENT % "\n".join(body))
    run = subprocess.run([engine(), "-interaction=nonstopmode", "-no-shell-escape", "heights.tex"],
                         cwd=workdir, capture_output=True, text=True, timeout=300)
    log = (workdir / "heights.log").read_text(errors="replace") if (workdir / "heights.log").exists() else run.stdout

    def owner(at: str) -> str:
        return names[max((i for i, start in enumerate(lines) if start <= int(at)), default=0)]

    problems = [f"{owner(at)}: taller than a page by {float(over):.0f} pt"
                for over, at in TOO_TALL.findall(re.sub(r"\n(?=\S)", " ", log.replace("\n\n", "\n\n")))]
    problems += [f"{owner(at)}: overfull by {float(over):.1f} pt" for over, at in OVERFULL.findall(log)
                 if float(over) > OVERFULL_PT]
    return problems


def tall_problems(fragments: dict[str, str], workdir: Path) -> list[str]:
    """Tables taller than a page: pdflatex's 'Float too large for page' for any float (`page_problems`)."""
    return [p for p in page_problems(fragments, workdir) if "taller than a page" in p]


def fit_problems(fragments: dict[str, str], workdir: Path) -> list[str]:
    """Tables wider than what they declare (a `table` wider than a column, a `table*` than the page),
    taller than a page, or with a line overfull where it is set."""
    widths = measured_widths(fragments, workdir)
    problems = [f"{name}: not measured (it stops pdflatex, or has no tabular)" for name in fragments if name not in widths]
    for name, width in widths.items():
        wide = "\\begin{table*}" in fragments[name]
        limit = PAGE_PT if wide else COLUMN_PT
        if width > limit:
            problems.append(f"{name}: {width:.0f} pt wide, over the {'page' if wide else 'column'}'s {limit:.0f} pt")
    return problems + page_problems(fragments, workdir)


def content_problems(name: str, text: str) -> list[str]:
    """What a paper's table should not contain, found in the LaTeX source."""
    problems = []
    if RAW_NUMBER.search(text):
        problems.append(f"{name}: a number with 7+ decimals ({RAW_NUMBER.search(text).group()})")
    if NAN_CELL.search(text):
        problems.append(f"{name}: a NaN cell")
    if "\\toprule" not in text or "\\caption{" not in text:
        problems.append(f"{name}: no booktabs rule or no caption")
    if HELPER_HEADER.search(text):
        problems.append(f"{name}: a helper column ({HELPER_HEADER.search(text).group()})")
    if SPLIT_INTERVAL.search(text):
        problems.append(f"{name}: an interval split over two columns ({SPLIT_INTERVAL.search(text).group()})")
    if LONG_PERCENT.search(text):
        problems.append(f"{name}: a percentage with 3 decimals ({LONG_PERCENT.search(text).group()})")
    if "\\begin{tabular}" in text and "\\midrule\n\\bottomrule" in text:
        problems.append(f"{name}: an empty tabular")
    return problems
