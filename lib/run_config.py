"""A runner config read and resolved: the YAML file checked, the notebooks it selects in run order, and
each notebook's effective parameters with where each value came from (notebook default < `parameters`
< `per_notebook` < command line; the run-level `model` reaches every studied role). `lib.runner` runs
what this resolves; `lib.planning` prices it."""
from __future__ import annotations

import re
from pathlib import Path

import yaml

from . import pipeline
from .parameters import (MODEL_KINDS, RUN_MODEL, Parameter, ParameterError, apply_run_model, check_run_model,
                         checked, markdown_table, read_declarations, specs_in, spelling_hint)
from .paths import NOTEBOOKS

BUDGET = "budget_usd"  # run parameter: dollars the run's priced requests may cost (lib.models.budget)
RETRY = "retry_share"  # run parameter: the plan's share of unparsed replies per try (lib.planning.plan)
CONFIG_KEYS = {"run", "notebooks", "parameters", "per_notebook", "sweep", "kernel", "timeout", "parallel"}
NOTEBOOK_RE = re.compile(r"^\d\d_.+\.ipynb$")


class ConfigError(ValueError):
    """A runner config that cannot run, with the fix in the message."""


def numbered_notebooks(folder: Path = NOTEBOOKS) -> list[Path]:
    """All numbered notebooks (NN_name.ipynb) in order."""
    return sorted(p for p in folder.glob("*.ipynb") if NOTEBOOK_RE.match(p.name))


def declared_parameters(nb: Path) -> dict[str, Parameter]:
    """Parameters of a notebook's `parameters` cell with their declarations (lib.parameters)."""
    try:
        return read_declarations(nb)
    except ParameterError as e:
        raise ConfigError(str(e)) from None


def load_config(path: str | Path, overrides: dict | None = None) -> dict:
    """Read a YAML config; command-line `overrides` are kept apart and beat `parameters` and
    `per_notebook` alike (see the module docstring)."""
    path = Path(path)
    if not path.exists():
        raise ConfigError(f"Config {path} does not exist; see configs/demo.yaml for the layout.")
    try:
        cfg = yaml.safe_load(path.read_text()) or {}
    except yaml.YAMLError as e:
        raise ConfigError(yaml_error_line(path, e)) from None
    if not isinstance(cfg, dict):
        raise ConfigError(f"{path}: a config is a YAML mapping (run:, parameters:, ...); see configs/demo.yaml.")
    unknown = set(cfg) - CONFIG_KEYS
    if unknown:
        raise ConfigError(f"{path}: unknown top-level key(s) {sorted(unknown)}; allowed: {sorted(CONFIG_KEYS)}.")
    cfg.setdefault("parameters", {})
    cfg.setdefault("per_notebook", {})
    cfg["_overrides"] = dict(overrides or {})
    cfg["_path"] = str(path)
    return cfg


def yaml_error_line(path: Path, err: yaml.YAMLError) -> str:
    """One line for a config that is not valid YAML: file, line and column (1-based), and the problem."""
    mark = getattr(err, "problem_mark", None) or getattr(err, "context_mark", None)
    where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark else str(path)
    problem = " ".join(str(getattr(err, "problem", None) or err).split())
    return f"{where}: not valid YAML ({problem})"


def select_notebooks(cfg: dict, only: list[str] | None = None) -> list[Path]:
    """The notebooks a config (or --only) selects, by number or stem prefix."""
    all_nbs = numbered_notebooks()
    wanted = only or cfg.get("notebooks") or "all"
    if wanted == "all":  # a notebook declared on request (lib.pipeline) runs only when its parameter is given
        return _ordered([p for p in all_nbs if not pipeline.step(p.stem).on_request
                         or _given(cfg, p.stem, pipeline.step(p.stem).on_request)])
    chosen = []
    for w in wanted:
        w = str(w)
        match = [p for p in all_nbs if p.stem == w or p.stem.startswith(w.zfill(2) + "_") or p.stem.startswith(w)]
        if not match:
            raise ConfigError(f"No notebook matches {w!r}; available: {[p.stem for p in all_nbs]}.")
        chosen.extend(m for m in match if m not in chosen)
    return _ordered(chosen)


def _ordered(notebooks: list[Path]) -> list[Path]:
    """Notebooks in run order: a notebook after those that write what it reads (lib.pipeline)."""
    by_stem = {p.stem: p for p in notebooks}
    return [by_stem[s] for s in pipeline.order(list(by_stem))]


def _given(cfg: dict, stem: str, name: str) -> bool:
    """True when the config (parameters, per_notebook) or the command line gives `name` a value."""
    layers = (cfg.get("parameters") or {}, (cfg.get("per_notebook") or {}).get(stem) or {}, cfg.get("_overrides") or {})
    return any(layer.get(name) not in (None, "", []) for layer in layers)


# parameters of a whole run that no notebook declares: the runner reads them (name -> what it does)
RUN_LEVEL = {
    RUN_MODEL: "the model under study: its spec replaces every studied role's model (docs/parameters.md)",
    "concurrency": "requests in flight per server model of the run, e.g. 64 for vLLM "
                   "(default: by server; a spec's own ;concurrency:N wins)",
    "run_name": "the run's name, set by the runner from --run or the config's `run`",
    BUDGET: "dollars the run's priced requests may cost: a plan above it is refused, a run stops at it "
            "(docs/servers.md)",
    RETRY: "the share of replies the plan assumes unparsed per try, each asked again (default 0.1 for a "
           "server model, 0.63 measured for an embedded one); only the plan reads it",
}


def run_level_table() -> str:
    """The markdown table of the run-level parameters (`RUN_LEVEL`), set under `parameters:` or with -p."""
    rows = ["| run-level parameter | what it does |", "| --- | --- |"]
    rows += [f"| `{name}` | {what} |" for name, what in RUN_LEVEL.items()]
    return "\n".join(rows)


def parameter_table() -> str:
    """The markdown table of every notebook's declared parameters (docs/parameters.md's, generated)."""
    return markdown_table({nb.stem: declared_parameters(nb) for nb in numbered_notebooks()})


def model_specs(steps) -> set[str]:
    """Every model spec the planned notebooks name, from their declarations (those inside reward-model
    specs included); `steps` as effective_parameters returns them."""
    out = set()
    for nb, eff in steps:
        declared = declared_parameters(nb)
        for name, (value, _) in eff.items():
            try:
                out.update(specs_in(declared[name], value))
            except ParameterError as e:
                raise ConfigError(str(e)) from None
    return out


def model_roles(nb: Path, eff: dict) -> dict:
    """{parameter: {role, spec, source}} for a notebook's declared model parameters (the manifest's)."""
    declared = declared_parameters(nb)
    return {k: {"role": declared[k].role, "spec": v, "source": src} for k, (v, src) in eff.items()
            if declared[k].kind in MODEL_KINDS}


def plan(cfg: dict, notebooks: list[Path]) -> list[tuple[Path, dict]]:
    """Per selected notebook, the parameters it declares and gets (notebook default < `parameters` <
    `per_notebook` < command line). A key that no notebook declares is an error (a typo), even when
    --only selects a few notebooks."""
    return [(nb, {k: v for k, (v, _) in eff.items() if _ != "notebook"})
            for nb, eff in effective_parameters(cfg, notebooks)]


def effective_parameters(cfg: dict, notebooks: list[Path]) -> list[tuple[Path, dict]]:
    """Per selected notebook, {name: (value, source)} for every parameter it declares; source is
    'notebook' (its default), 'parameters', 'per_notebook', 'command line', or 'model (<level>)'
    where the run-level model reached a declared model role. Values are checked against their
    declared kinds before any notebook starts."""
    declared = {nb.stem: declared_parameters(nb) for nb in numbered_notebooks()}
    every = set().union(*[set(d) for d in declared.values()]) if declared else set()
    runner_keys = set(RUN_LEVEL)
    overrides = cfg.get("_overrides") or {}
    for what, keys in (("parameter(s)", cfg["parameters"]), ("command-line parameter(s)", overrides)):
        unknown = set(keys) - every - runner_keys
        if unknown:
            raise ConfigError(f"{cfg['_path']}: {what} {sorted(unknown)} are declared by no notebook; "
                              f"{spelling_hint(unknown, every | runner_keys) or 'check the spelling '}(`python -m lib.runner params` "
                              "lists every declared parameter).")
    for stem, extra in (cfg["per_notebook"] or {}).items():
        if stem not in declared:
            raise ConfigError(f"{cfg['_path']}: per_notebook names {stem!r}, which is not a notebook "
                              f"(notebooks: {sorted(declared)}).")
        bad = set(extra) - set(declared[stem]) - {RUN_MODEL}
        if bad:
            raise ConfigError(f"{cfg['_path']}: {stem} declares no parameter(s) {sorted(bad)}; "
                              f"{spelling_hint(bad, set(declared[stem]))}it declares {sorted(declared[stem])}.")
    steps = []
    for nb in notebooks:
        own = declared[nb.stem]
        eff = {k: (p.value, "notebook") for k, p in own.items() if k != "run_name"}
        layers = (("parameters", cfg["parameters"]), ("per_notebook", cfg["per_notebook"].get(nb.stem) or {}),
                  ("command line", overrides))
        model = None
        for source, values in layers:
            eff.update({k: (v, source) for k, v in values.items() if k in own and k != "run_name"})
            if values.get(RUN_MODEL) not in (None, ""):
                model = (values[RUN_MODEL], source)
        try:  # checked first, so the run-level model works on normalized values (a list where declared)
            eff = {k: (checked(own[k], v), src) for k, (v, src) in eff.items()}
            if model:
                check_run_model(model[0])
                eff = {k: apply_run_model(own[k], v, src, *model) for k, (v, src) in eff.items()}
        except ParameterError as e:
            raise ConfigError(f"{cfg['_path']}: {e}") from None
        steps.append((nb, eff))
    return steps
