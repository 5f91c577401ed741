"""The docs checks read a page as a reader sees it: an HTML comment (a slot an editor fills later) is
left out, and everything outside comments is still read."""
from tests.docs import doc_commands as dc


def test_shown_leaves_out_comments_only(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("see [a](a.md)\n<!-- later:\n![card](img/missing.png)\n-->\nand [b](b.md#x)\n", encoding="utf-8")
    text = dc.shown(page)
    assert dc.LINK.findall(text) == ["a.md", "b.md#x"]
    assert "missing.png" in page.read_text(encoding="utf-8"), "the planted link is in the file itself"
