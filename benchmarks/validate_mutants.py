"""`make validate-mutants`: plant each pipeline defect of benchmarks/mutants.yaml in a scratch copy of
the repository, run the smallest known-truth check that should catch it, and print a caught / not
caught table (docs/known_truth.md, "Mutants").

Each mutant is one exact text edit of one tracked file. The edit must find its old text exactly once,
or the benchmark stops (so the list cannot rot silently when the code moves). A control run (no edit)
of every notebook set is made first: a mutant counts as caught only when its check fails where the
unmutated check of the same notebooks passes.

    .venv/bin/python benchmarks/validate_mutants.py [--only own_other_swap,one_sided_test] [--size 20]
        [--list] [--keep] [--out data/runs/validate_mutants]
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # lib: validate's own rule for which planted effects must be detected
MUTANTS = ROOT / "benchmarks" / "mutants.yaml"
SIZE = 20  # items per dataset / RM pairs per category: the smallest size whose planted effects are powered


@dataclass
class Mutant:
    """One planted pipeline defect: an exact edit of one file and the check that should catch it."""

    id: str
    edits: list  # [{file, old, new}]: exact text edits, each old text found exactly once
    notebooks: list
    rows: list  # measure ids (prefixes) that should miss or go missing
    why: str
    truth: dict = field(default_factory=dict)  # overrides of the default truth file's keys (nested)
    size: int | None = None
    test: str = ""  # a pytest node run in the copy instead of validate (a defect one run sees only by chance)

    @property
    def files(self) -> list[str]:
        """The files the mutant edits."""
        return list(dict.fromkeys(e["file"] for e in self.edits))


class MutantError(RuntimeError):
    """A mutant that cannot be applied (its file is gone or its old text is not found exactly once)."""


def load_mutants(path: Path = MUTANTS) -> list[Mutant]:
    """The declared mutants, each checked for its fields."""
    rows = yaml.safe_load(Path(path).read_text(encoding="utf-8"))["mutants"]
    out = []
    for r in rows:
        r = dict(r)
        if "file" in r:  # one edit written inline
            r["edits"] = [{k: r.pop(k) for k in ("file", "old", "new")}]
        missing = {"id", "edits", "notebooks", "rows", "why"} - set(r)
        bad = [e for e in r.get("edits", []) if set(e) != {"file", "old", "new"}]
        if missing or bad:
            raise MutantError(f"mutant {r.get('id', '?')}: missing {sorted(missing)} or an edit without file/old/new")
        out.append(Mutant(**r))
    ids = [m.id for m in out]
    if len(set(ids)) != len(ids):
        raise MutantError("mutant ids must be unique")
    return out


def apply(mutant: Mutant, tree: Path) -> None:
    """Apply the mutant's edits to the copy at `tree`; MutantError unless each old text occurs exactly once."""
    for e in mutant.edits:
        target = tree / e["file"]
        if not target.exists():
            raise MutantError(f"{mutant.id}: {e['file']} does not exist")
        text = target.read_text(encoding="utf-8")
        count = text.count(e["old"])
        if count != 1:
            raise MutantError(f"{mutant.id}: the old text occurs {count} times in {e['file']} (expected once): "
                              "the code moved; update benchmarks/mutants.yaml")
        target.write_text(text.replace(e["old"], e["new"]), encoding="utf-8")


def tracked_copy(dest: Path, root: Path = ROOT) -> Path:
    """A copy of the repository's tracked files as they are in the working tree (uncommitted edits
    included), without runs, caches or the environment."""
    files = subprocess.run(["git", "ls-files", "-z"], cwd=root, capture_output=True, check=True).stdout
    for rel in filter(None, files.decode().split("\0")):
        src = root / rel
        if src.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)
    return dest


def merged(base: dict, over: dict) -> dict:
    """`base` with `over`'s keys replaced, nested dictionaries merged key by key."""
    out = dict(base)
    for k, v in over.items():
        out[k] = merged(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def truth_file(tree: Path, overrides: dict, scratch: Path) -> Path:
    """The default truth file of the copy, with the mutant's overrides when it has any."""
    default = tree / "configs" / "known_truth.yaml"
    if not overrides:
        return default
    data = merged(yaml.safe_load(default.read_text(encoding="utf-8")), overrides)
    path = scratch / "truth.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def _env(tree: Path, scratch: Path) -> dict:
    """The environment of a check in the copy: its code first on the path, its own runs, figures and
    results cache (the converted models are shared)."""
    env = dict(os.environ, PYTHONPATH=str(tree), RAGBIAS_RUNS=str(scratch / "runs"),
               RAGBIAS_FIGURES=str(scratch / "figures"), RAGBIAS_CACHE=str(scratch / "cache"), TQDM_DISABLE="1")
    env.setdefault("RAGBIAS_MODELS", str(ROOT / ".cache" / "models"))
    return env


def run_check(tree: Path, notebooks: list, size: int, truth: Path, scratch: Path, python: str) -> dict:
    """One `python -m lib.simulate validate` in the copy; (exit code, summary line, validation table, seconds)."""
    env = _env(tree, scratch)
    cmd = [python, "-m", "lib.simulate", "validate", "--truth", str(truth), "--size", str(size),
           "--run", "mutant", "--only", ",".join(notebooks)]
    t0 = time.monotonic()
    proc = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True)
    seconds = time.monotonic() - t0
    summary = next((ln for ln in reversed(proc.stdout.splitlines()) if ln.startswith("known truth:")), "")
    table = scratch / "runs" / "mutant" / "validation.csv"
    import pandas as pd

    rows = pd.read_csv(table) if table.exists() else None
    error = "" if summary else (proc.stderr.strip().splitlines() or ["no output"])[-1][:200]
    return {"exit": proc.returncode, "summary": summary, "rows": rows, "seconds": seconds, "error": error,
            "log": proc.stdout[-4000:] + proc.stderr[-4000:]}


def run_test(tree: Path, node: str, scratch: Path, python: str) -> dict:
    """One pytest node in the copy (its own runs and cache folders); the same keys as `run_check`."""
    env = _env(tree, scratch)
    cmd = [python, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", node]
    t0 = time.monotonic()
    proc = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True)
    seconds = time.monotonic() - t0
    last = (proc.stdout.strip().splitlines() or ["no output"])[-1]
    failed = next((ln for ln in proc.stdout.splitlines() if ln.startswith("E ")), "")
    return {"exit": proc.returncode, "summary": f"known truth: {'PASS' if proc.returncode == 0 else 'FAIL'}: {last}",
            "rows": None, "seconds": seconds, "error": "", "log": proc.stdout[-6000:] + proc.stderr[-2000:],
            "failed": failed[2:].strip()[:160]}


def missed_rows(result: dict, prefixes: list) -> list[str]:
    """The mutant's rows that missed: not covered, not detected where validate requires it (a planted
    effect of at least its size, `must_detect`), or absent."""
    import pandas as pd

    from lib.simulate.validate import must_detect

    rows = result["rows"]
    out = []
    for prefix in prefixes:
        if rows is None:
            out.append(f"{prefix} (no table)")
            continue
        mine = rows[rows["measure_id"].astype(str).str.startswith(prefix)]
        if mine.empty:
            out.append(f"{prefix} (missing)")
            continue
        gone = mine["missing"].fillna(0).astype(bool) if "missing" in mine else pd.Series(False, index=mine.index)
        out += [f"{m} (missing)" for m in mine.loc[gone, "measure_id"]]  # validate lists the rows it expected
        mine = mine[~gone]
        # a planted effect too small to be required (e.g. 0.009) is not a miss when undetected
        need = pd.Series([must_detect(str(m), float(t), float(n)) for m, t, n in
                          zip(mine["measure_id"], mine["truth"], mine["null"])], index=mine.index, dtype=bool)
        bad = mine[(mine["covered"] == 0) | (mine["detected"] == 0) & need]
        out += [f"{m} (not covered)" if c == 0 else f"{m} (not detected)"
                for m, c in zip(bad["measure_id"], bad["covered"])]
    return out


def how(result: dict, missed: list) -> str:
    """What the check said, in a table cell."""
    if "failed" in result:
        return f"test {'fails' if result['exit'] else 'passes'}" + (f": {result['failed']}" if result["failed"] else "")
    if result["error"]:
        return f"no verdict: {result['error']}"
    verdict = result["summary"].split(":")[1].strip() if ":" in result["summary"] else "?"
    return f"{verdict}; " + ("; ".join(missed) if missed else "its rows still hold")


def main(argv=None) -> int:
    """Run the control checks and every mutant; print the table (exit 1 when a mutant is not caught)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", help="comma-separated mutant ids")
    ap.add_argument("--size", type=int, default=SIZE, help="items per dataset for every check (a mutant may set its own)")
    ap.add_argument("--list", action="store_true", help="print the mutants and check their edits apply, run nothing")
    ap.add_argument("--jobs", type=int, default=1, help="checks run at once (each validate runs 2 notebooks at once)")
    ap.add_argument("--no-controls", action="store_true",
                    help="skip the control runs (when an earlier invocation ran them on the same code)")
    ap.add_argument("--keep", action="store_true", help="keep the scratch copies (their paths are printed)")
    ap.add_argument("--out", default=str(ROOT / "data" / "runs" / "validate_mutants"),
                    help="folder for the table (mutants.md) and each check's log")
    args = ap.parse_args(argv)
    mutants = load_mutants()
    if args.only:
        wanted = set(args.only.split(","))
        unknown = wanted - {m.id for m in mutants}
        if unknown:
            print(f"unknown mutant ids: {sorted(unknown)}", file=sys.stderr)
            return 2
        mutants = [m for m in mutants if m.id in wanted]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    base = Path(tempfile.mkdtemp(prefix="mutants_"))
    pristine = tracked_copy(base / "tree")
    for m in mutants:  # every edit must apply before anything runs
        probe = base / "probe"
        for f in m.files:
            if (pristine / f).exists():
                (probe / f).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(pristine / f, probe / f)
        apply(m, probe)
        shutil.rmtree(probe)
    shutil.rmtree(base / "probe", ignore_errors=True)
    if args.list:
        for m in mutants:
            check = f"pytest {m.test}" if m.test else f"validate --only {','.join(m.notebooks)}"
            print(f"{m.id}: {', '.join(m.files)} -> {check} ({m.why})")
        return 0
    python = sys.executable

    def check(m: Mutant, tree: Path, scratch: Path) -> dict:
        size = m.size or args.size
        return (run_test(tree, m.test, scratch, python) if m.test else
                run_check(tree, m.notebooks, size, truth_file(tree, m.truth, scratch), scratch, python))

    def control(key, m: Mutant) -> dict:
        if args.no_controls:
            return {"exit": 0, "rows": None, "skipped": True}
        scratch = base / f"control_{abs(hash(key))}"
        scratch.mkdir()
        res = check(m, pristine, scratch)
        (out / f"control_{m.id}.log").write_text(res["log"])
        if res["rows"] is not None:
            res["rows"].to_csv(out / f"control_{m.id}.validation.csv", index=False)
        print(f"control {m.test or ','.join(m.notebooks)} (size {m.size or args.size}): exit {res['exit']}, "
              f"{res['seconds']:.0f} s: {res['summary'] or res['error']}", flush=True)
        return res

    def mutant(m: Mutant) -> dict:
        scratch = base / m.id
        tree = tracked_copy(scratch / "tree")
        apply(m, tree)
        res = check(m, tree, scratch)
        (out / f"{m.id}.log").write_text(res["log"])
        if res["rows"] is not None:
            res["rows"].to_csv(out / f"{m.id}.validation.csv", index=False)
        print(f"{m.id}: exit {res['exit']}, {res['seconds']:.0f} s: {res['summary'] or res['error']}", flush=True)
        if not args.keep:
            shutil.rmtree(scratch, ignore_errors=True)
        return res

    def key_of(m: Mutant) -> tuple:
        return (m.test, tuple(m.notebooks), m.size or args.size, yaml.safe_dump(m.truth, sort_keys=True))

    lines = []
    header = "| mutant | notebooks run | caught? | how | seconds |\n| --- | --- | --- | --- | --- |"
    try:
        with ThreadPoolExecutor(max_workers=max(args.jobs, 1)) as pool:
            firsts = {}
            for m in mutants:  # one control per distinct check, before the mutants that share it
                firsts.setdefault(key_of(m), m)
            controls = {k: pool.submit(control, k, m) for k, m in firsts.items()}
            results = {m.id: pool.submit(mutant, m) for m in mutants}
            for m in mutants:
                res, ctl = results[m.id].result(), controls[key_of(m)].result()
                missed = [] if m.test else missed_rows(res, m.rows)
                control_missed = [] if m.test or ctl.get("skipped") else missed_rows(ctl, m.rows)
                caught = (res["exit"] != 0 or bool(missed)) and ctl["exit"] == 0 and not control_missed
                verdict = "yes" if caught else ("control fails" if ctl["exit"] != 0 or control_missed else "**no**")
                ran = f"test `{m.test.split('::')[-1]}`" if m.test else ",".join(m.notebooks)
                lines.append((caught, f"| `{m.id}`: {m.why} | {ran} | {verdict} | {how(res, missed)} | "
                                      f"{res['seconds']:.0f} |"))
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)
        else:
            print(f"scratch copies kept in {base}")
    table = header + "\n" + "\n".join(line for _, line in lines)
    (out / "mutants.md").write_text(table + "\n")
    print("\n" + table)
    caught = sum(c for c, _ in lines)
    print(f"\nmutants caught: {caught}/{len(lines)}")
    return 0 if caught == len(lines) else 1


if __name__ == "__main__":
    sys.exit(main())
