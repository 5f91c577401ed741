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
DOCUMENT = "\\documentclass{article}\n\\usepackage{booktabs}\n\\begin{document}\n%s\n\\end{document}\n"
# what a table a paper can take never shows: a float with 7+ decimals, a NaN, an unescaped underscore
RAW_NUMBER = re.compile(r"\d\.\d{7,}")
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


def content_problems(name: str, text: str) -> list[str]:
    """What a paper's table should not contain, found in the LaTeX source."""
    problems = []
    if RAW_NUMBER.search(text):
        problems.append(f"{name}: a number with 7+ decimals ({RAW_NUMBER.search(text).group()})")
    if NAN_CELL.search(text):
        problems.append(f"{name}: a NaN cell")
    if "\\toprule" not in text or "\\caption{" not in text:
        problems.append(f"{name}: no booktabs rule or no caption")
    return problems
