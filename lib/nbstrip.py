"""Strip outputs and execution counts from notebooks (committed notebooks carry none) and name the
project's kernel in their metadata, so JupyterLab opens them on this environment's interpreter."""
from __future__ import annotations

import sys

import nbformat

from .runner import KERNEL, KERNEL_DISPLAY

KERNELSPEC = {"display_name": KERNEL_DISPLAY, "language": "python", "name": KERNEL}


def strip(path: str) -> bool:
    """Remove outputs and execution counts in place and set the project's kernelspec; True if the
    file changed."""
    nb = nbformat.read(path, as_version=4)
    changed = False
    for cell in nb.cells:
        if cell.cell_type == "code" and (cell.get("outputs") or cell.get("execution_count") is not None):
            cell.outputs, cell.execution_count = [], None
            changed = True
        for key in ("execution", "papermill"):
            if key in cell.get("metadata", {}):
                del cell.metadata[key]
                changed = True
    if dict(nb.metadata.get("kernelspec", {})) != KERNELSPEC:
        nb.metadata["kernelspec"] = nbformat.from_dict(KERNELSPEC)
        changed = True
    if changed:
        nbformat.write(nb, path)
    return changed


if __name__ == "__main__":
    for p in sys.argv[1:]:
        if strip(p):
            print(f"stripped {p}")
