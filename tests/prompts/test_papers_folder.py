"""The verbatim-prompt tests find the paper texts beside the repository; a missing folder skips them on
a developer's machine and fails them under CI."""
import pytest

from lib.paths import ROOT
from tests import papers


def test_default_folder_is_shared_papers_beside_the_repository(monkeypatch):
    monkeypatch.delenv("RAGBIAS_PAPERS", raising=False)
    assert papers.papers_dir() == ROOT.parent / "shared" / "papers"


@pytest.mark.parametrize("ci, outcome", [("", pytest.skip.Exception), ("false", pytest.skip.Exception),
                                         ("true", pytest.fail.Exception), ("1", pytest.fail.Exception)])
def test_missing_paper_skips_locally_and_fails_under_ci(monkeypatch, tmp_path, ci, outcome):
    monkeypatch.setenv("RAGBIAS_PAPERS", str(tmp_path))
    monkeypatch.setenv("CI", ci)
    # catch both outcomes, so a skip where a failure is due fails this test instead of skipping it
    with pytest.raises((pytest.skip.Exception, pytest.fail.Exception), match="rag-rewardbench.txt not found") as e:
        papers.paper_path("rag-rewardbench.txt")
    assert e.type is outcome
    (tmp_path / "rag-rewardbench.txt").write_text("x")
    assert papers.paper_path("rag-rewardbench.txt") == tmp_path / "rag-rewardbench.txt"
