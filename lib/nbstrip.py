"""Notebooks in their committed form, the form JupyterLab itself saves: no outputs or execution counts,
the project's kernel and the `language_info` that kernel reports, the title cell first, written with
nbformat's own serialisation. A notebook opened and saved in JupyterLab without edits then stays
byte for byte the same, so autosave does not dirty the repository.

    python -m lib.nbstrip notebooks/*.ipynb      # rewrite in place (`make strip`)
    python -m lib.nbstrip --check notebooks/*.ipynb   # exit 1 if any file would change
    python -m lib.nbstrip --filter < a.ipynb     # stdin to stdout (a git clean filter)
"""
from __future__ import annotations

import argparse
import sys

import nbformat

from .runner import KERNEL, KERNEL_DISPLAY

KERNELSPEC = {"display_name": KERNEL_DISPLAY, "language": "python", "name": KERNEL}
# run metadata that papermill and JupyterLab add to cells or to the notebook; none of it is source
CELL_RUN_KEYS = ("execution", "papermill")
NOTEBOOK_RUN_KEYS = ("papermill", "widgets")


def language_info() -> dict:
    """`language_info` exactly as the project kernel (ipykernel on this interpreter) reports it in its
    kernel_info reply, which is what JupyterLab writes into a notebook it saves."""
    from ipykernel.ipkernel import IPythonKernel

    return dict(IPythonKernel.language_info)


def _title_index(cells) -> int | None:
    """Index of the notebook's title: the first markdown cell that opens with a level-1 heading."""
    for i, cell in enumerate(cells):
        if cell.cell_type == "markdown" and cell.source.lstrip().startswith("# "):
            return i
    return None


def clean(nb) -> None:
    """Bring a notebook node to its committed form in place (outputs, run metadata, kernel, title)."""
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
        for key in CELL_RUN_KEYS:
            cell.get("metadata", {}).pop(key, None)
    for key in NOTEBOOK_RUN_KEYS:
        nb.metadata.pop(key, None)
    nb.metadata["kernelspec"] = nbformat.from_dict(KERNELSPEC)
    nb.metadata["language_info"] = nbformat.from_dict(language_info())
    title = _title_index(nb.cells)
    if title:  # the first screen in JupyterLab is the notebook's title, not its imports
        nb.cells.insert(0, nb.cells.pop(title))


def serialise(nb) -> str:
    """The text nbformat.write (and so JupyterLab's contents manager) puts in the file."""
    text = nbformat.writes(nb, version=nbformat.NO_CONVERT)
    return text if text.endswith("\n") else text + "\n"


def stripped_text(text: str) -> str:
    """The committed form of a notebook given as text."""
    nb = nbformat.reads(text, as_version=4)
    clean(nb)
    return serialise(nb)


def strip(path: str) -> bool:
    """Rewrite a notebook file in its committed form; True if the file changed."""
    with open(path, encoding="utf-8") as f:
        before = f.read()
    after = stripped_text(before)
    if after != before:
        with open(path, "w", encoding="utf-8") as f:
            f.write(after)
    return after != before


def main(argv=None) -> int:
    """Command line: rewrite, check, or filter stdin to stdout."""
    ap = argparse.ArgumentParser(prog="python -m lib.nbstrip", description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="*", help="notebooks to rewrite in place (or to check)")
    ap.add_argument("--check", action="store_true", help="change nothing; exit 1 if a file would change")
    ap.add_argument("--filter", action="store_true", help="read a notebook on stdin, write it to stdout")
    args = ap.parse_args(argv)
    if args.filter:
        sys.stdout.write(stripped_text(sys.stdin.read()))
        return 0
    dirty = []
    for path in args.paths:
        if args.check:
            with open(path, encoding="utf-8") as f:
                text = f.read()
            if stripped_text(text) != text:
                dirty.append(path)
        elif strip(path):
            print(f"stripped {path}")
    for path in dirty:
        print(f"{path}: not in its committed form; run `make strip`", file=sys.stderr)
    return 1 if dirty else 0


if __name__ == "__main__":
    sys.exit(main())
