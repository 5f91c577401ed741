"""LICENSE, CITATION.cff and README's BibTeX agree with the project and with the paper texts."""
import re
import tomllib

import pytest
import yaml

from lib.paths import ROOT
from tests.papers import paper_path

PAPERS = {  # BibTeX key -> the paper text it cites
    "chen2025selfpreference": "self-preference-v2-fact-centric.txt",
    "zhang2024utility": "utility-judgments.txt",
    "jin2024ragrewardbench": "rag-rewardbench.txt",
}


def _bibtex() -> dict[str, dict[str, str]]:
    """README's BibTeX entries: key -> {field: value}, braces that protect capitals removed."""
    block = re.search(r"^```bibtex\n(.*?)^```", (ROOT / "README.md").read_text(), re.S | re.M).group(1)
    entries = {}
    for key, body in re.findall(r"@\w+\{(\w+),\n(.*?)\n\}", block, re.S):
        entries[key] = {f: v.replace("{", "").replace("}", "")
                        for f, v in re.findall(r"^\s*(\w+)\s*=\s*\{(.*)\},?$", body, re.M)}
    return entries


def _squash(text: str) -> str:
    return " ".join(text.split())


def test_license_is_the_one_pyproject_names():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["license"]["text"] == "Apache-2.0"
    text = (ROOT / "LICENSE").read_text()
    assert "Apache License" in text and "Version 2.0, January 2004" in text
    assert "END OF TERMS AND CONDITIONS" in text and len(text.splitlines()) > 170, "the full text, not a stub"


def test_citation_cff_names_this_project():
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert cff["cff-version"] == "1.2.0" and cff["message"] and cff["authors"]
    assert cff["version"] == project["version"] and cff["license"] == project["license"]["text"]
    assert cff["title"].startswith(project["name"])
    assert {r["title"] for r in cff["references"]} == {e["title"] for e in _bibtex().values()}


@pytest.mark.parametrize("key", sorted(PAPERS))
def test_bibtex_title_is_the_papers(key):
    """Each title is printed in the paper text it cites (the check fails on a one-word change)."""
    entry = _bibtex()[key]
    text = _squash(paper_path(PAPERS[key]).read_text(encoding="utf-8")[:3000])
    assert _squash(entry["title"]) in text, f"{key}: title not as printed"


@pytest.mark.parametrize("key", ["chen2025selfpreference", "jin2024ragrewardbench"])
def test_bibtex_authors_are_those_printed(key):
    """Where the paper text prints its authors, the entry lists exactly those, in that order."""
    head = _squash(paper_path(PAPERS[key]).read_text(encoding="utf-8")[:1000])
    names = [" ".join(reversed(a.split(", "))) for a in _bibtex()[key]["author"].split(" and ")]
    printed = [re.sub(r"[\d*,]+$", "", n) for n in re.findall(r"[A-Z][\w-]+ [A-Z][\w-]+\S*", head)]
    assert [n for n in printed if n in names] == names, (names, printed)
