"""What the documentation shows a reader: shell commands, Python snippets, links and cross-references,
read out of README.md, CONTRIBUTING.md and docs/*.md so a test can run or resolve each one."""
from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from lib.paths import ROOT

FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)
SPAN = re.compile(r"`([^`\n]+)`")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
# an inline code span that is a command a reader would type (not a name such as `RAGBIAS_CACHE`)
COMMAND_START = re.compile(r"^(?:[A-Z_]+=\S*\s+)*(?:make|python3?|\.venv/bin/python|pip|conda|git|sudo|pytest|bash)\s")
ENV_ASSIGN = re.compile(r"^[A-Z_][A-Z0-9_]*=")
# an HTML comment: kept in the file for editors, never shown to a reader
COMMENT = re.compile(r"<!--.*?-->", re.S)


@dataclass(frozen=True)
class Command:
    """One shell command as shown: the file it is in and its words (shell syntax resolved)."""
    doc: str
    text: str

    @property
    def words(self) -> list[str]:
        """The command's words without leading VAR=value assignments."""
        words = shlex.split(self.text)
        while words and ENV_ASSIGN.match(words[0]):
            words.pop(0)
        return words


def doc_files() -> list[Path]:
    """Every page a reader is pointed to: README, CONTRIBUTING and docs/*.md."""
    return [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md"))]


def shown(path: Path) -> str:
    """The text of a page as a reader sees it: HTML comments left out."""
    return COMMENT.sub("", path.read_text(encoding="utf-8"))


def _name(path: Path) -> str:
    return str(path.relative_to(ROOT))


def _split_shell(line: str) -> list[str]:
    """A shell line cut at `;`, `&&` and `||` outside quotes, trailing comments dropped."""
    lex = shlex.shlex(line, posix=True, punctuation_chars=";&|")
    lex.whitespace_split, lex.commenters = True, "#"
    parts, current = [], []
    for token in lex:
        if token in (";", "&&", "||"):
            parts.append(current)
            current = []
        else:
            current.append(token)
    parts.append(current)
    return [shlex.join(p) for p in parts if p]


def block_commands(body: str) -> list[str]:
    """Commands of a bash block: continuation lines joined, comment lines and comments dropped, and
    `VAR=$(command)` read as the command it runs."""
    joined = re.sub(r"\\\n\s*", " ", body)
    joined = re.sub(r"^\s*[A-Z_]+=\$\((.*)\)\s*$", r"\1", joined, flags=re.M)
    out = []
    for line in joined.splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            out.extend(_split_shell(line))
    return out


def shell_commands() -> list[Command]:
    """Every shell command shown: in ```bash blocks and in inline code spans that read as commands."""
    found = []
    for path in doc_files():
        text = shown(path)
        for lang, body in FENCE.findall(text):
            if lang in ("bash", "sh", "shell", "console"):
                found += [Command(_name(path), c) for c in block_commands(body)]
        for span in SPAN.findall(FENCE.sub("", text)):
            if len(span.split()) > 1 and COMMAND_START.match(span):
                found += [Command(_name(path), c) for c in _split_shell(span)]
    return list(dict.fromkeys(found))


def python_blocks() -> list[tuple[str, str]]:
    """(file, code) of every ```python block."""
    return [(_name(p), body) for p in doc_files()
            for lang, body in FENCE.findall(shown(p)) if lang == "python"]


def inline_imports() -> list[tuple[str, str]]:
    """(file, statement) of every `from lib... import ...` / `import lib...` shown in prose."""
    out = []
    for path in doc_files():
        for span in SPAN.findall(FENCE.sub("", shown(path))):
            if re.match(r"^(from lib[\w.]* import [\w, ]+|import lib[\w.]*)$", span):
                out.append((_name(path), span))
    return out


def links() -> list[tuple[str, str]]:
    """(file, target) of every relative Markdown link (web addresses left out)."""
    return [(_name(p), t) for p in doc_files()
            for t in LINK.findall(SPAN.sub("", FENCE.sub("", shown(p))))
            if not re.match(r"^[a-z]+://|^mailto:", t)]


def slug(heading: str) -> str:
    """The anchor a Markdown heading gets (GitHub's rule: lower case, punctuation dropped, spaces to -)."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every heading anchor of a Markdown file (code blocks left out)."""
    text = FENCE.sub("", shown(path))
    return {slug(h) for h in re.findall(r"^#{1,6} (.+)$", text, re.M)}


def repo_paths() -> list[tuple[str, str]]:
    """(file, path) of every repository path shown in an inline code span, e.g. `lib/models/cache.py`:
    run outputs (data/runs, figures/<run>) and placeholders are left out."""
    tops = r"(?:lib|tests|configs|benchmarks|notebooks|docs|\.ci|data/demo)/"
    out = []
    for path in doc_files():
        for span in SPAN.findall(FENCE.sub("", shown(path))):
            for word in span.split():
                word = word.strip("()`,;:")
                if re.match(tops, word) and not re.search(r"[<>*{}]|\.\.\.", word):
                    out.append((_name(path), word.split("::")[0]))
    return list(dict.fromkeys(out))


def readme_references() -> list[tuple[str, str]]:
    """(file, section) of every plain-text pointer such as "(README, Outputs)" in the docs and configs."""
    files = [*doc_files(), *sorted((ROOT / "configs").glob("*.yaml"))]
    return [(_name(p), m) for p in files for m in re.findall(r"README, ([A-Z][\w ]*[\w])", p.read_text(encoding="utf-8"))]
