"""A run's outputs as one compressed archive (bytes), so a task on another node can hand them to the driver,
and unpacking them where a local run would have written them (data/runs/<run>/, figures/<run>/)."""
from __future__ import annotations

import io
import json
import tarfile
from pathlib import Path

from ..paths import display_path, figure_dir, run_dir

PARTS = ("runs", "figures")  # archive folders: the run folder and the figure folder


def pack(run_folder: Path, figure_folder: Path) -> bytes:
    """The two folders (either may be missing) as a gzipped tar."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for part, folder in zip(PARTS, (run_folder, figure_folder)):
            if Path(folder).is_dir():
                tar.add(str(folder), arcname=part)
    return buf.getvalue()


def unpack(data: bytes, run_name: str, worker_paths: dict[str, str], config_file: str,
           executor: dict | None = None) -> list[Path]:
    """Extract into this machine's run and figure folders of `run_name`; the manifest's paths, written on
    the worker ({'runs': its run folder, 'figures': its figure folder}), are rewritten to the local ones, and
    `executor` (where it ran) is recorded in it. The files written, back."""
    targets = {"runs": run_dir(run_name), "figures": figure_dir(run_name)}
    written = []
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        for member in tar.getmembers():
            part, _, rest = member.name.partition("/")
            if part not in targets or not member.isfile():
                continue
            dest = targets[part] / rest
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(tar.extractfile(member).read())
            written.append(dest)
    manifest = targets["runs"] / "manifest.json"
    if manifest.exists():
        manifest.write_text(relocated_manifest(manifest.read_text(), worker_paths, targets, config_file,
                                                  executor or {}))
    return written


def relocated_manifest(text: str, worker_paths: dict[str, str], targets: dict[str, Path], config_file: str,
                       executor: dict) -> str:
    """The manifest with the worker's folders replaced by the local ones (in every path it lists) and the
    driver's config file named; where it ran goes in `executor`."""
    for part, folder in worker_paths.items():  # in the manifest's own path form
        text = text.replace(str(folder), display_path(targets[part]))
    manifest = json.loads(text)
    manifest["config_file"] = config_file
    manifest["executor"] = executor
    return json.dumps(manifest, indent=1, default=str)
