"""A plan against what the run did: per notebook x model, planned and booked requests and tokens, from
the cost ledger each notebook writes (data/runs/<run>/cache_stats/<notebook>_cost.csv).

`python -m lib.planning.versus RUN_FOLDER` plans the run again from its manifest (the config and
command-line parameters it ran with, its notebooks) and prints the comparison per notebook; for a
known-truth run, also what the plan sends against what the simulator counted receiving
(simulator_stats.json: requests, and prompt tokens with `validate --count-tokens`)."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import pandas as pd

from .designs import GENERATE, OPTIONS, TOPK


def actual(run_folder: Path) -> pd.DataFrame:
    """Booked requests and tokens per notebook x model (cached results included, as the ledger counts)."""
    parts = []
    for f in sorted((Path(run_folder) / "cache_stats").glob("*_cost.csv")):
        df = pd.read_csv(f)
        if len(df):
            parts.append(df.assign(notebook=f.name.removesuffix("_cost.csv")))
    if not parts:
        return pd.DataFrame(columns=["notebook", "model", "requests", "tokens_in", "tokens_out"])
    got = pd.concat(parts, ignore_index=True)
    return got.groupby(["notebook", "model"], as_index=False)[["requests", "tokens_in", "tokens_out"]].sum()


def versus(plan, run_folder: Path) -> pd.DataFrame:
    """Planned against booked, per notebook x model; prompt tokens compared on rows whose every
    result books them or books none (generations, top-k and option log-probabilities: the plan's
    `tokens_booked`; a likelihood books its continuation's tokens, so a row with one is not compared)."""
    from .plan import _model_key

    rows = [{"notebook": r.notebook, "model": _model_key(r.model), "planned": r.requests, "planned_in": r.tokens_booked,
             "planned_out": r.tokens_out, "planned_out_max": r.tokens_out_max,
             "comparable": set(r.kinds) <= {GENERATE, OPTIONS, TOPK}} for r in plan.rows]
    planned = pd.DataFrame(rows).groupby(["notebook", "model"], as_index=False).agg(
        {"planned": "sum", "planned_in": "sum", "planned_out": "sum", "planned_out_max": "sum", "comparable": "all"})
    got = actual(run_folder).rename(columns={"requests": "booked", "tokens_in": "booked_in", "tokens_out": "booked_out"})
    both = planned.merge(got, on=["notebook", "model"], how="outer").fillna(
        {"planned": 0, "booked": 0, "comparable": False})
    return both


def summary(table: pd.DataFrame) -> dict:
    """Total requests planned and booked, and prompt / completion tokens over comparable rows."""
    table = table[table["notebook"].isin(set(table.loc[table["booked"] > 0, "notebook"]))]  # notebooks that ran
    comp = table[table["comparable"].astype(bool)]
    return {"planned": int(table["planned"].sum()), "booked": int(table["booked"].sum()),
            "requests_error": float(table["planned"].sum() / max(table["booked"].sum(), 1) - 1),
            "planned_in": int(comp["planned_in"].sum()), "booked_in": int(comp["booked_in"].sum()),
            "tokens_in_error": float(comp["planned_in"].sum() / max(comp["booked_in"].sum(), 1) - 1),
            "planned_out": int(comp["planned_out"].sum()), "planned_out_max": int(comp["planned_out_max"].sum()),
            "booked_out": int(comp["booked_out"].sum())}


def per_notebook(table: pd.DataFrame) -> pd.DataFrame:
    """The comparison summed over each notebook's models: requests over every row, prompt tokens
    over the comparable rows (a notebook with none has no token error), with planned / booked - 1."""
    comp = table[table["comparable"].astype(bool)]
    req = table.groupby("notebook")[["planned", "booked"]].sum()
    tok = comp.groupby("notebook")[["planned_in", "booked_in", "planned_out", "planned_out_max", "booked_out"]].sum()
    out = req.join(tok, how="left").fillna(0).astype(int)
    out["requests_error"] = out["planned"] / out["booked"].where(out["booked"] > 0) - 1
    out["tokens_in_error"] = out["planned_in"] / out["booked_in"].where(out["booked_in"] > 0) - 1
    return out.reset_index()


def plan_of_run(run_folder: Path, retry_share: float | None = None):
    """The plan of a finished run, from its manifest: the config and command-line parameters it ran
    with, for the notebooks it ran, from an empty cache (what it sent, not what is cached now);
    `retry_share` plans the re-asks at another share than the run's (e.g. one measured on the run)."""
    from lib.run_config import RETRY

    from .plan import build

    manifest = json.loads((Path(run_folder) / "manifest.json").read_text())
    overrides = {**(manifest.get("command_line_parameters") or {}),
                 **({RETRY: retry_share} if retry_share is not None else {})}
    cfg = {**manifest["config"], "_overrides": overrides, "_path": manifest.get("config_file", "")}
    only = [Path(e["notebook"]).stem for e in manifest["notebooks"]]
    return build(cfg, only, from_cache=False)


def against_server(plan, stats: dict) -> dict:
    """What the plan sends to servers against what a server counted receiving (the simulator's
    statistics: requests, and prompt tokens when it counted them): planned / counted - 1. Rows of
    models computed here (09's embedder, an embedded model) reach no server and are left out."""
    from .plan import _on_server

    served = [r for r in plan.rows if _on_server(r.model)]
    t = {"sent": sum(r.sent for r in served), "tokens_sent": sum(r.tokens_sent for r in served)}
    out = {"planned_sent": t["sent"], "received": stats.get("requests"),
           "requests_error": t["sent"] / stats["requests"] - 1 if stats.get("requests") else None,
           "planned_tokens_sent": t["tokens_sent"], "received_tokens": stats.get("prompt_tokens")}
    out["tokens_error"] = (t["tokens_sent"] / stats["prompt_tokens"] - 1) if stats.get("prompt_tokens") else None
    return out


def main(argv=None) -> int:
    """Print a finished run's plan against its ledger, per notebook, with the totals."""
    ap = argparse.ArgumentParser(prog="python -m lib.planning.versus", description=__doc__)
    ap.add_argument("run_folder", help="data/runs/<run> of a finished run (its manifest.json and cache_stats/)")
    ap.add_argument("--retry-share", type=float, default=None,
                    help="plan the re-asks at this share of unparsed replies per try (default: the run's, or the plan's)")
    args = ap.parse_args(argv)
    folder = Path(args.run_folder)
    if not (folder / "manifest.json").exists():
        print(f"{folder}: no manifest.json (give a finished run's folder)", file=sys.stderr)
        return 2
    plan = plan_of_run(folder, args.retry_share)
    table = versus(plan, folder)
    rows = per_notebook(table)
    pd.set_option("display.width", 200)
    print(rows.to_string(index=False, float_format=lambda x: f"{x:+.1%}"))
    s = summary(table)
    print(f"total: requests {s['planned']:,} planned / {s['booked']:,} booked ({s['requests_error']:+.1%}); "
          f"prompt tokens {s['planned_in']:,} / {s['booked_in']:,} ({s['tokens_in_error']:+.1%}, comparable rows); "
          f"completions expected {s['planned_out']:,} / at max_tokens {s['planned_out_max']:,} / booked {s['booked_out']:,}")
    served = folder / "simulator_stats.json"
    if served.exists():  # a known-truth run: what its server counted receiving
        v = against_server(plan, json.loads(served.read_text()))
        tokens = (f"prompt tokens {v['planned_tokens_sent']:,} planned / {v['received_tokens']:,} counted "
                  f"({v['tokens_error']:+.1%})" if v["tokens_error"] is not None else "prompt tokens not counted")
        print(f"server: requests {v['planned_sent']:,} planned / {v['received']:,} received "
              f"({v['requests_error']:+.1%}); {tokens}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
