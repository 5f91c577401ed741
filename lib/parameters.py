"""What each notebook parameter is, declared once in the notebook's parameters cell.

The parameters cell stays plain papermill assignments. A parameter that is a model spec, a list of
them, reward-model specs, a path or a size says so in a trailing comment that starts with a bracket:

    evaluators = ["local:smollm2"]  # [models:evaluator] every evaluator rates every passage
    reward_models = ["implicit:local:smollm2"]  # [reward_models:judge]
    bank_path = ""  # [path] empty means this run's passage bank
    n_items = 2  # [size] items per dataset
    runs = []  # [runs] runs to compare (notebook 17)

Papermill's own inspection returns that comment as the parameter's `help`, so the declaration is
read from the notebook itself; the runner validates values from it and never guesses from names.
The run-level `model` (the model under study) reaches every declaration whose role is in
`STUDIED_ROLES` unless a more specific value is given at the same or a higher precedence level.
"""
from __future__ import annotations

import ast
import difflib
import re
from dataclasses import dataclass
from pathlib import Path

from .models.specs import SpecError, parse_spec, reward_spec_models, with_model

KINDS = {
    "model": "one model spec",
    "models": "a list of model specs",
    "reward_models": "a list of reward-model specs",
    "path": "a file or folder (empty: the default)",
    "paths": "a mapping of names to files",
    "size": "a whole number >= 0",
    "runs": "a list of run names, run folders or globs",
}
# Roles the run-level `model` reaches: the model under study. Not reached: `perplexity` (a base LM that
# measures text, gpt2 in the paper) and `writer` (notebook 09's counterfactual passages, data building).
STUDIED_ROLES = ("chat", "author", "probe", "evaluator", "judge", "policy")
MODEL_KINDS = ("model", "models", "reward_models")
RUN_MODEL = "model"  # the run-level parameter; no notebook declares it
LEVELS = ("notebook", "parameters", "per_notebook", "command line")  # lowest to highest precedence
_DECLARATION = re.compile(r"^\[(?P<kind>\w+)(?::(?P<role>\w+))?\]\s*(?P<help>.*)$")


class ParameterError(ValueError):
    """A parameter value or declaration that cannot be used, with the fix in the message."""


@dataclass(frozen=True)
class Parameter:
    """One parameter of a notebook: its default (source text), declared kind and role, and help."""

    notebook: str
    name: str
    default: str
    kind: str | None = None
    role: str | None = None
    help: str = ""

    @property
    def value(self):
        """The default as a Python value when it is a literal, else its source text."""
        try:
            return ast.literal_eval(self.default)
        except (ValueError, SyntaxError, TypeError):
            return self.default


def read_declarations(nb: Path) -> dict[str, Parameter]:
    """Parameters of a notebook's `parameters` cell with their declarations (name -> Parameter)."""
    import papermill as pm

    found = pm.inspect_notebook(str(nb))
    if not found:
        raise ParameterError(f"{nb.name} has no cell tagged 'parameters'; tag one in JupyterLab (cell tags).")
    out = {}
    for name, info in found.items():
        m = _DECLARATION.match(info.get("help") or "")
        kind, role, text = (m["kind"], m["role"], m["help"]) if m else (None, None, info.get("help") or "")
        if kind is not None and kind not in KINDS:
            raise ParameterError(f"{nb.name}: {name} declares kind [{kind}]; use one of {sorted(KINDS)}.")
        if (kind in MODEL_KINDS) != bool(role):
            raise ParameterError(f"{nb.name}: {name}: model kinds need a role ([{kind or 'model'}:evaluator]), "
                                 "other kinds take none.")
        out[name] = Parameter(nb.stem, name, info.get("default"), kind, role, text.strip())
    return out


def checked(p: Parameter, value):
    """The value a declared parameter gets, normalized (one spec where a list is declared becomes a
    list) and checked against its kind; a ParameterError names notebook, parameter and fix."""
    where = f"{p.notebook}: {p.name}"
    if p.kind == "models" or p.kind == "reward_models":
        value = [value] if isinstance(value, str) else value
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            raise ParameterError(f"{where} must be {KINDS[p.kind]}, e.g. [\"local:smollm2\"]; got {value!r}.")
    elif p.kind in ("model", "path") and not isinstance(value, str):
        raise ParameterError(f"{where} must be {KINDS[p.kind]} (a string); got {value!r}.")
    elif p.kind == "paths" and not (isinstance(value, dict) and all(isinstance(v, str) for v in value.values())):
        raise ParameterError(f"{where} must be {KINDS['paths']}, e.g. {{nq: data/nq.json}}; got {value!r}.")
    elif p.kind == "runs":
        value = [value] if isinstance(value, str) else value
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            raise ParameterError(f"{where} must be {KINDS['runs']}, e.g. [\"sweep__*\"]; got {value!r}.")
    elif p.kind == "size" and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
        raise ParameterError(f"{where} must be {KINDS['size']}; got {value!r}.")
    return value


def specs_in(p: Parameter, value) -> list[str]:
    """Every model spec a declared value names (those inside reward-model specs included)."""
    try:
        if p.kind == "model":
            return [value] if value else []
        if p.kind == "models":
            return list(value)
        if p.kind == "reward_models":
            return [s for rm in value for s in reward_spec_models(rm)]
    except SpecError as e:
        raise ParameterError(f"{p.notebook}: {p.name}: {e}") from None
    return []


def apply_run_model(p: Parameter, value, source: str, model: str, model_source: str):
    """(value, source) after the run-level model: it replaces a studied role's spec unless that
    value was given at a higher precedence level, or at the same level (the specific one wins)."""
    if p.role not in STUDIED_ROLES or LEVELS.index(source) >= LEVELS.index(model_source):
        return value, source
    label = f"{RUN_MODEL} ({model_source})"
    if p.kind == "model":
        return model, label
    if p.kind == "models":
        return [model], label
    try:
        new = [with_model(rm, model) for rm in value]
    except SpecError as e:
        raise ParameterError(f"{p.notebook}: {p.name} with {RUN_MODEL}={model!r}: {e}") from None
    return list(dict.fromkeys(new)), label  # two specs that became one are asked once


def check_run_model(model) -> str:
    """The run-level model spec, parsed once so a typo fails before any notebook runs."""
    if not isinstance(model, str) or not model:
        raise ParameterError(f"{RUN_MODEL} must be one model spec such as local:smollm2; got {model!r}.")
    try:
        parse_spec(model)
    except SpecError as e:
        raise ParameterError(f"{RUN_MODEL}: {e}") from None
    return model


def spelling_hint(unknown, known) -> str:
    """For names no notebook declares, the closest declared name of each (difflib): "did you mean
    'a' -> 'b'? " or "" when none is close."""
    close = {u: difflib.get_close_matches(u, sorted(known), n=1, cutoff=0.6) for u in sorted(unknown)}
    guesses = [f"{u!r} -> {m[0]!r}" for u, m in close.items() if m]
    return f"did you mean {', '.join(guesses)}? " if guesses else ""


def markdown_table(declared: dict[str, dict[str, Parameter]]) -> str:
    """docs/parameters.md's table of declared parameters: one row per name, the notebooks that declare it."""
    rows: dict[str, list[Parameter]] = {}
    for params in declared.values():
        for p in params.values():
            if p.kind:
                rows.setdefault(p.name, []).append(p)
    lines = ["| parameter | kind | role | notebooks | default |", "| --- | --- | --- | --- | --- |",
             f"| `{RUN_MODEL}` | model (run level) | {', '.join(STUDIED_ROLES)} | every notebook | unset |"]
    for name in sorted(rows):
        ps = rows[name]
        kinds = ", ".join(dict.fromkeys(p.kind for p in ps))
        by_role = {}
        for p in ps:
            if p.role:
                by_role.setdefault(p.role, []).append(p.notebook[:2])
        roles = ", ".join(r + ("" if len(by_role) == 1 else f" ({', '.join(n)})") for r, n in by_role.items())
        roles += " (not reached by `model`)" if by_role and not set(by_role) & set(STUDIED_ROLES) else ""
        nbs = ", ".join(p.notebook[:2] for p in ps)
        defaults = list(dict.fromkeys(p.default for p in ps))
        default = f"`{defaults[0]}`" if len(defaults) == 1 else "varies"
        lines.append(f"| `{name}` | {kinds} | {roles} | {nbs} | {default.replace('|', '&#124;')} |")
    return "\n".join(lines)


def unused(nb: Path, declared: dict[str, Parameter]) -> list[str]:
    """Declared parameters that no code cell after the parameters cell mentions (dead parameters)."""
    import nbformat

    cells = [c for c in nbformat.read(str(nb), as_version=4).cells if c.cell_type == "code"
             and "parameters" not in c.metadata.get("tags", [])]
    body = "\n".join(c.source for c in cells)
    return [n for n in declared if n != "run_name" and not re.search(rf"\b{re.escape(n)}\b", body)]
