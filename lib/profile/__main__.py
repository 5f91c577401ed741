"""python -m lib.profile --model <spec> [--config configs/profile.yaml] [--run NAME] [--render-only]

Runs the profile's notebooks (configs/profile.yaml) through lib.runner with the run-level `model` set
to <spec>, writes data/runs/profile__<slug>/profile.csv (the battery's rows and the papers' reference
rows) and renders profile.html from notebooks/profile_report.ipynb without its code.
"""
from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

from lib import runner
from lib.parameters import RUN_MODEL
from lib.paths import CONFIGS, NOTEBOOKS, display_path, run_dir

from . import card

REPORT = NOTEBOOKS / "profile_report.ipynb"


def model_slug(spec: str) -> str:
    """A filesystem-safe form of a model spec: 'local:smollm2' -> 'local-smollm2'."""
    text = re.sub(r"[^A-Za-z0-9_.-]+", "-", spec).strip("-.")
    if not text:
        raise ValueError(f"Model spec {spec!r} has no letters or digits to name a run folder by.")
    return text[:80]


def run_name(spec: str) -> str:
    """The profile run's name: profile__<slug>."""
    return f"profile__{model_slug(spec)}"


def render(name: str, model: str, kernel: str | None = None) -> Path:
    """profile.csv from the run's findings, then the report notebook executed (papermill) and
    exported without its code (nbconvert --no-input) to profile.html; returns the HTML path."""
    import nbformat
    import papermill as pm
    from nbconvert import HTMLExporter

    out_dir = run_dir(name)
    card.write(out_dir, model)
    executed = out_dir / "notebooks" / REPORT.name
    executed.parent.mkdir(parents=True, exist_ok=True)
    pm.execute_notebook(str(REPORT), str(executed), parameters={"run_name": name, "model": model},
                        kernel_name=kernel or runner.project_kernel(), cwd=str(NOTEBOOKS), progress_bar=False,
                        kernel_manager_class=runner.IPCKernelManager)
    exporter = HTMLExporter(exclude_input=True, exclude_input_prompt=True, exclude_output_prompt=True)
    nb = nbformat.read(executed, as_version=4)
    nb.cells[-1].outputs = []  # out.finish()'s cache counts: kept in the executed notebook, not on the page
    body, _ = exporter.from_notebook_node(nb)
    # the card's `judgments` cells, the addresses of the run's inspect.html sections, become links
    body = re.sub(r">(inspect\.html#m-[\w-]+)<", r'><a href="\1">judgments</a><', body)
    html = out_dir / "profile.html"
    html.write_text(body.replace("<title>Notebook</title>", f"<title>Bias profile of {model}</title>"), encoding="utf-8")
    return html


def main(argv=None) -> int:
    """Command-line entry point (see the module docstring)."""
    ap = argparse.ArgumentParser(prog="python -m lib.profile", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", required=True, help="the model spec to profile, e.g. local:smollm2 or openai:gpt-4o-mini")
    ap.add_argument("--config", default=str(CONFIGS / "profile.yaml"))
    ap.add_argument("--run", help="run name (default: profile__<model slug>)")
    ap.add_argument("--kernel", help="Jupyter kernel name (default: the project's)")
    ap.add_argument("--render-only", action="store_true", help="skip the notebooks; render the card from the run's findings")
    args = ap.parse_args(argv)
    name = args.run or run_name(args.model)
    started = time.time()
    try:
        if not args.render_only:
            cfg = runner.load_config(args.config, {RUN_MODEL: args.model})
            runner.run(cfg, name, kernel=args.kernel)
        html = render(name, args.model, args.kernel)
    except runner.NotebookFailed as e:
        print("Finished model calls are cached: a re-run resumes where this one stopped.", file=sys.stderr)
        print(e, file=sys.stderr)
        return 1
    except (runner.ConfigError, FileNotFoundError, ValueError, RuntimeError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"[profile {name}] {display_path(html)} and profile.csv in {time.time() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
