"""Run the numbered notebooks headlessly with papermill, from a YAML config; sweeps over a grid.

    python -m lib.runner run configs/demo.yaml [--run NAME] [--only 00,03] [-p key=value ...]
    python -m lib.runner sweep configs/demo.yaml --grid 'evaluators=[[local:smollm2],[hf:gpt2]]'

Which value a notebook gets, lowest to highest: its own default < the config's `parameters` <
the config's `per_notebook` entry < the command line (`-p`, then a sweep's grid). manifest.json
records every notebook's effective parameters and where each one came from.
"""
from __future__ import annotations

import argparse
import ast
import itertools
import json
import os
import platform
import re
import subprocess
import sys
import time
from importlib import metadata
from pathlib import Path

import yaml

from . import findings
from .config import NOTEBOOKS, ROOT, cache_dir, figure_dir, run_dir
from .specs import SpecError, parse_spec, require_api_key

CONFIG_KEYS = {"run", "notebooks", "parameters", "per_notebook", "sweep", "kernel", "timeout"}
SPEC_LIST_KEYS = {"models", "evaluators", "authors"}
RM_SPEC_KEYS = {"reward_models"}
KERNEL = "rag-bias-lab"  # the project's Jupyter kernel: this environment's interpreter (make install registers it)
KERNEL_DISPLAY = "Python (rag-bias-lab)"
NOTEBOOK_RE = re.compile(r"^\d\d_.+\.ipynb$")


class ConfigError(ValueError):
    """A runner config that cannot run, with the fix in the message."""


def numbered_notebooks(folder: Path = NOTEBOOKS) -> list[Path]:
    """All numbered notebooks (NN_name.ipynb) in order."""
    return sorted(p for p in folder.glob("*.ipynb") if NOTEBOOK_RE.match(p.name))


def declared_parameters(nb: Path) -> dict:
    """Parameters declared in a notebook's `parameters` cell (name -> default as text)."""
    import papermill as pm

    params = pm.inspect_notebook(str(nb))
    if not params:
        raise ConfigError(f"{nb.name} has no cell tagged 'parameters'; tag one in JupyterLab (cell tags).")
    return {k: v.get("default") for k, v in params.items()}


def load_config(path: str | Path, overrides: dict | None = None) -> dict:
    """Read a YAML config; command-line `overrides` are kept apart and beat `parameters` and
    `per_notebook` alike (see the module docstring)."""
    path = Path(path)
    if not path.exists():
        raise ConfigError(f"Config {path} does not exist; see configs/demo.yaml for the layout.")
    cfg = yaml.safe_load(path.read_text()) or {}
    unknown = set(cfg) - CONFIG_KEYS
    if unknown:
        raise ConfigError(f"{path}: unknown top-level key(s) {sorted(unknown)}; allowed: {sorted(CONFIG_KEYS)}.")
    cfg.setdefault("parameters", {})
    cfg.setdefault("per_notebook", {})
    cfg["_overrides"] = dict(overrides or {})
    cfg["_path"] = str(path)
    return cfg


def select_notebooks(cfg: dict, only: list[str] | None = None) -> list[Path]:
    """The notebooks a config (or --only) selects, by number or stem prefix."""
    all_nbs = numbered_notebooks()
    wanted = only or cfg.get("notebooks") or "all"
    if wanted == "all":
        return all_nbs
    chosen = []
    for w in wanted:
        w = str(w)
        match = [p for p in all_nbs if p.stem == w or p.stem.startswith(w.zfill(2) + "_") or p.stem.startswith(w)]
        if not match:
            raise ConfigError(f"No notebook matches {w!r}; available: {[p.stem for p in all_nbs]}.")
        chosen.extend(m for m in match if m not in chosen)
    return sorted(chosen)


def _spec_values(key: str, value) -> list[str]:
    if key.endswith("_model") or key == "model":
        return [value] if isinstance(value, str) and value else []
    if key in SPEC_LIST_KEYS or key.endswith("_models") and key not in RM_SPEC_KEYS:
        if isinstance(value, str):  # one spec where a list is expected
            return [value] if value else []
        return [v for v in (value or []) if isinstance(v, str)]
    return []


def _rm_model_specs(key: str, value) -> list[str]:
    """The model specs inside reward-model specs ('judge:<spec>', 'implicit:<spec>;ref:<spec>');
    a bad reward-model spec is a ConfigError here, before any notebook runs."""
    if key not in RM_SPEC_KEYS:
        return []
    from .rewardbench.rm_specs import RMSpecError, parse_rm_spec

    out = []
    for v in ([value] if isinstance(value, str) else value or []):
        try:
            rm = parse_rm_spec(v)
        except (RMSpecError, SpecError) as e:
            raise ConfigError(f"{key}: {e}") from None
        if rm.kind != "rm":
            out.append(rm.target)
        if rm.options.get("ref"):
            out.append(rm.options["ref"])
    return out


def model_specs(params: dict) -> set[str]:
    """Every model spec named in the parameters, those inside reward-model specs included."""
    return {s for k, v in params.items() for s in _spec_values(k, v) + _rm_model_specs(k, v)}


def check_models(params: dict) -> list[str]:
    """Parse every model spec named in the parameters (reward-model specs included); fail early on
    bad specs, missing keys or unreachable servers."""
    return check_specs(model_specs(params))


def check_specs(specs) -> list[str]:
    """Check model spec strings (parse, API key, server reachable); sorted list back."""
    specs = sorted(specs)
    for s in specs:
        try:
            parsed = parse_spec(s)
            require_api_key(parsed)
        except SpecError as e:
            raise ConfigError(str(e)) from None
        if parsed.backend == "openai" and parsed.base_url:
            from .backends.openai_api import BackendError, OpenAIBackend

            try:
                OpenAIBackend(parsed).check()
            except BackendError as e:
                raise ConfigError(str(e)) from None
    return specs


def plan(cfg: dict, notebooks: list[Path]) -> list[tuple[Path, dict]]:
    """Per selected notebook, the parameters it declares and gets (notebook default < `parameters` <
    `per_notebook` < command line). A key that no notebook declares is an error (a typo), even when
    --only selects a few notebooks."""
    return [(nb, {k: v for k, (v, _) in eff.items() if _ != "notebook"})
            for nb, eff in effective_parameters(cfg, notebooks)]


def effective_parameters(cfg: dict, notebooks: list[Path]) -> list[tuple[Path, dict]]:
    """Per selected notebook, {name: (value, source)} for every parameter it declares; source is
    'notebook' (its default), 'parameters', 'per_notebook' or 'command line'."""
    declared = {nb.stem: declared_parameters(nb) for nb in numbered_notebooks()}
    every = set().union(*[set(d) for d in declared.values()]) if declared else set()
    overrides = cfg.get("_overrides") or {}
    for what, keys in (("parameter(s)", cfg["parameters"]), ("command-line parameter(s)", overrides)):
        unknown = set(keys) - every - {"run_name"}
        if unknown:
            raise ConfigError(f"{cfg['_path']}: {what} {sorted(unknown)} are declared by no notebook; "
                              f"check the spelling (declared: {sorted(every)}).")
    for stem, extra in (cfg["per_notebook"] or {}).items():
        if stem not in declared:
            raise ConfigError(f"{cfg['_path']}: per_notebook names {stem!r}, which is not a notebook "
                              f"(notebooks: {sorted(declared)}).")
        bad = set(extra) - set(declared[stem])
        if bad:
            raise ConfigError(f"{cfg['_path']}: {stem} declares no parameter(s) {sorted(bad)}; it declares "
                              f"{sorted(declared[stem])}.")
    steps = []
    for nb in notebooks:
        own = declared[nb.stem]
        eff = {k: (_literal(v), "notebook") for k, v in own.items() if k != "run_name"}
        layers = (("parameters", cfg["parameters"]), ("per_notebook", cfg["per_notebook"].get(nb.stem) or {}),
                  ("command line", overrides))
        for source, values in layers:
            eff.update({k: (v, source) for k, v in values.items() if k in own and k != "run_name"})
        steps.append((nb, eff))
    return steps


def _literal(text):
    """A notebook default as a value when it is a plain literal, else its source text."""
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError):
        return text


def project_kernel() -> str:
    """The project's kernel name, registered for this interpreter if it is not yet (idempotent)."""
    from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel

    try:
        spec = KernelSpecManager().get_kernel_spec(KERNEL)
        if Path(spec.argv[0]).absolute() == Path(sys.executable).absolute():
            return KERNEL
    except NoSuchKernel:
        pass
    from ipykernel.kernelspec import install

    install(kernel_name=KERNEL, display_name=KERNEL_DISPLAY, prefix=sys.prefix)
    return KERNEL


def display_path(p: Path) -> str:
    """A path relative to the repository when inside it (the manifest's usual form), else absolute."""
    p = Path(p).resolve()
    return str(p.relative_to(ROOT)) if p.is_relative_to(ROOT) else str(p)


def _git_commit() -> str:
    try:
        sha = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                               capture_output=True, text=True).stdout.strip()
        return (sha or "unknown") + ("+dirty" if dirty else "")
    except OSError:
        return "unknown"


def _versions() -> dict:
    names = []
    for line in (ROOT / "requirements.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        if line and not line.startswith("-"):
            names.append(re.split(r"[=<>!~ ]", line)[0])
    out = {}
    for n in names:
        try:
            out[n] = metadata.version(n)
        except metadata.PackageNotFoundError:
            out[n] = None
    return out


def run(cfg: dict, run_name: str | None = None, only: list[str] | None = None, kernel: str | None = None) -> dict:
    """Execute the selected notebooks in order into data/runs/<run>/ and write manifest.json."""
    import papermill as pm

    name = run_name or cfg.get("run") or "scratch"
    notebooks = select_notebooks(cfg, only)
    effective = effective_parameters(cfg, notebooks)  # validates everything before any notebook starts
    steps = [(nb, {k: v for k, (v, src) in eff.items() if src != "notebook"}) for nb, eff in effective]
    specs = check_specs({s for _, eff in effective for s in model_specs({k: v for k, (v, _) in eff.items()})})
    kernel_name = kernel or cfg.get("kernel") or project_kernel()
    out_dir = run_dir(name)
    (out_dir / "notebooks").mkdir(parents=True, exist_ok=True)
    figure_dir(name).mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("RAGBIAS_CACHE", str(cache_dir()))
    manifest = {"run": name, "config_file": cfg["_path"],
                "config": {k: v for k, v in cfg.items() if not k.startswith("_")},
                "command_line_parameters": cfg.get("_overrides") or {}, "kernel": kernel_name,
                "git_commit": _git_commit(), "python": sys.version.split()[0], "platform": platform.platform(),
                "packages": _versions(), "model_specs": specs, "notebooks": [], "status": "running"}
    started = time.time()
    for nb, params in steps:
        print(f"[run {name}] {nb.stem} with {json.dumps(params)}", flush=True)
        t0 = time.time()
        out_nb = out_dir / "notebooks" / nb.name
        eff = dict(effective)[nb]
        entry = {"notebook": nb.name, "parameters": {k: v for k, (v, _) in eff.items()},
                 "parameter_sources": {k: src for k, (_, src) in eff.items()},
                 "output": display_path(out_nb)}
        manifest["notebooks"].append(entry)
        try:
            pm.execute_notebook(str(nb), str(out_nb), parameters={**params, "run_name": name},
                                kernel_name=kernel_name, cwd=str(NOTEBOOKS),
                                progress_bar=False, execution_timeout=cfg.get("timeout"))
            entry["status"] = "ok"
        except Exception as e:  # papermill wraps the cell error; the output notebook has the traceback
            entry["status"] = "failed"
            entry["error"] = f"{e.__class__.__name__}: {str(e)[:2000]}"
            manifest["status"] = "failed"
        entry["seconds"] = round(time.time() - t0, 2)
        print(f"[run {name}] {nb.stem}: {entry['status']} in {entry['seconds']} s", flush=True)
        if entry["status"] != "ok":
            break
    if manifest["status"] == "running":
        manifest["status"] = "ok"
    manifest["seconds"] = round(time.time() - started, 2)
    _finish_manifest(manifest, name)
    if manifest["status"] != "ok":
        failed = manifest["notebooks"][-1]
        raise RuntimeError(f"{failed['notebook']} failed; see {failed['output']} for the traceback "
                           f"(finished model calls are cached: re-running resumes). {failed['error'][:500]}")
    return manifest


def _finish_manifest(manifest: dict, name: str) -> None:
    out_dir, fig_dir = run_dir(name), figure_dir(name)
    totals = {"hits": 0, "misses": 0, "tokens_in": 0, "tokens_out": 0}
    ran = {Path(e["notebook"]).stem for e in manifest["notebooks"]}
    for f in sorted((out_dir / "cache_stats").glob("*.json")):
        if f.stem in ran:
            for k, v in json.loads(f.read_text()).items():
                totals[k] = totals.get(k, 0) + v
    manifest["cache"] = totals
    if (out_dir / "findings").is_dir():  # notebooks that state headline quantities wrote rows there
        for path in findings.summarize(out_dir, name):
            print(f"[run {name}] findings: {display_path(path)}")
    files = []
    for base in (out_dir, fig_dir):
        for p in sorted(base.rglob("*")):
            if p.is_file() and p.name != "manifest.json":
                files.append({"path": display_path(p), "bytes": p.stat().st_size})
    manifest["files"] = files
    (out_dir / "manifest.json").write_text(json.dumps(manifest, indent=1, default=str))
    print(f"[run {name}] {manifest['status']} in {manifest['seconds']} s; cache hits {totals['hits']}, "
          f"misses {totals['misses']}; manifest: {display_path(out_dir / 'manifest.json')}")


def grid_runs(cfg: dict, grid: dict) -> list[tuple[str, dict]]:
    """(run name, parameter overrides) for every combination of a parameter grid."""
    if not grid:
        raise ConfigError("A sweep needs a grid: a `sweep:` section in the config or --grid key=[v1, v2].")
    keys = sorted(grid)
    for k in keys:
        if not isinstance(grid[k], list) or not grid[k]:
            raise ConfigError(f"Sweep values for {k!r} must be a non-empty list; got {grid[k]!r}.")
    base = cfg.get("run") or "sweep"
    runs = []
    for combo in itertools.product(*(grid[k] for k in keys)):
        label = "__".join(f"{k}={_slug(v)}" for k, v in zip(keys, combo))
        runs.append((f"{base}__{label}", dict(zip(keys, combo))))
    return runs


def sweep_config(cfg: dict, combo: dict) -> dict:
    """The config of one sweep run: the grid values join the command-line overrides and win."""
    return {**cfg, "_overrides": {**(cfg.get("_overrides") or {}), **combo}}


def _slug(v) -> str:
    text = "+".join(map(str, v)) if isinstance(v, list) else str(v)
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-")[:60]


def _parse_pairs(pairs: list[str], what: str) -> dict:
    out = {}
    for p in pairs or []:
        if "=" not in p:
            raise ConfigError(f"{what} {p!r} must look like key=value (value in YAML, e.g. n_items=4 or x=[a,b]).")
        k, v = p.split("=", 1)
        out[k.strip()] = yaml.safe_load(v)
    return out


def main(argv=None) -> int:
    """Command-line entry point (see the module docstring)."""
    ap = argparse.ArgumentParser(prog="python -m lib.runner", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    for cmd in ("run", "sweep"):
        s = sub.add_parser(cmd)
        s.add_argument("config")
        s.add_argument("--run", help="run name (default: the config's `run`)")
        s.add_argument("--only", help="comma-separated notebook numbers or stems, e.g. 00,03")
        s.add_argument("-p", "--param", action="append", help="override a parameter: key=value (YAML value)")
        s.add_argument("--kernel", help="Jupyter kernel name (default rag-bias-lab: this interpreter, registered if missing)")
        if cmd == "sweep":
            s.add_argument("--grid", action="append", help="key=[v1, v2] (YAML list); repeat for more keys")
    args = ap.parse_args(argv)
    try:
        cfg = load_config(args.config, _parse_pairs(args.param, "-p"))
        only = args.only.split(",") if args.only else None
        if args.cmd == "run":
            run(cfg, args.run, only, args.kernel)
            return 0
        grid = {**(cfg.get("sweep") or {}), **_parse_pairs(args.grid, "--grid")}
        runs = grid_runs(cfg, grid)
        if args.run:
            runs = [(args.run + name[name.index("__"):], p) for name, p in runs]
        configs = [(name, overrides, sweep_config(cfg, overrides)) for name, overrides in runs]
        for name, overrides, c in configs:  # validate every combination before running the first
            eff = effective_parameters(c, select_notebooks(c, only))
            check_specs({s for _, e in eff for s in model_specs({k: v for k, (v, _) in e.items()})})
        summary = []
        for name, overrides, c in configs:
            m = run(c, name, only, args.kernel)
            summary.append({"run": name, **{k: _slug(v) for k, v in overrides.items()}, "status": m["status"],
                            "seconds": m["seconds"], "misses": m["cache"]["misses"]})
        print(json.dumps(summary, indent=1))
        return 0
    except (ConfigError, SpecError, RuntimeError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
