"""The judgments behind notebook 10's findings rows, laid out for the inspector (lib.inspect; columns
`lib.report.measures.JUDGMENT_COLUMNS`): one listwise reply per question, judgment and form, read
from `utility_rq1_replies.jsonl` with today's parsers, its prompt filled again from the candidate set
in the order it was shown."""
from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from lib.records import read_records
from lib.report.measures import JUDGMENT_COLUMNS

RQ1_FILE = "utility_rq1_replies.jsonl"  # notebook 10's replies, one line per question, judgment and form
_SET_F1 = re.compile(r"set_f1\.(?P<source>[^.]+)\.(?P<judgment>[^.]+)")
_UNREADABLE = re.compile(r"unreadable_share\.(?P<judgment>[^.]+)\.(?P<form>[^.]+)")


def _shown(order: list[int], stored, ranked: bool = False) -> str:
    """Stored passage indices as the reply numbered them (Passage-0 is the first shown); a set in
    shown order, a ranking as ranked."""
    shown = [order.index(i) for i in stored]
    return ", ".join(f"Passage-{i}" for i in (shown if ranked else sorted(shown)))


def _parsed(j, row) -> str:
    if j.failed:
        return ""
    gt = [i for i, g in enumerate(row.ground_truth_label) if g]
    got = j.selected if j.selected is not None else j.ranking
    what = "selected" if j.selected is not None else "ranked"
    return f"{what} {_shown(j.order, got, j.ranking is not None) or 'none'} (ground truth: {_shown(j.order, gt) or 'none'})"


def listwise_judgments(folder: Path, measure_ids, params: dict) -> pd.DataFrame:
    """10's replies behind each measure_id: set F1's readable listwise-set replies per source and
    judgment (every reply with `failures="zero"`), the unreadable share's replies per judgment and form."""
    from lib.models.specs import short_name
    from lib.prompts.utility import as_text, judgment_messages
    from lib.utility.benchmark import load_benchmark
    from lib.utility.judging import from_replies

    path = Path(folder) / RQ1_FILE
    gti = Path(params.get("gti_path") or Path(folder) / "utility_gti.jsonl")
    if not path.exists() or not gti.exists():
        return pd.DataFrame(columns=JUDGMENT_COLUMNS)
    rows = {r.id: r for r in load_benchmark(gti, params.get("release_dataset") or "", params.get("answers_path") or None)}
    specs = {short_name(s): s for s in [params.get("chat_model")] if s}
    recs = []
    for rec in read_records(path):
        row = rows.get(rec["id"])
        if row is None:
            continue
        j = from_replies(rec["id"], rec["form"], rec["judgment"], rec["order"], rec["replies"])
        prompt = as_text(judgment_messages(row.question, [row.passage[i] for i in j.order], rec["judgment"], rec["form"]))
        recs.append({"model": specs.get(rec.get("model"), rec.get("model")), "unit_id": rec["id"], "stratum": row.source,
                     "form": rec["form"], "judgment": rec["judgment"], "failed": j.failed, "prompt": prompt,
                     "reply": "\n---\n".join(rec["replies"]), "attempts": len(rec["replies"]),
                     "parsed": _parsed(j, row), "reason": ("; ".join(j.notes) or "unreadable") if j.failed else ""})
    got = pd.DataFrame(recs)
    parts = []
    for mid in measure_ids:
        f1, unreadable = _SET_F1.fullmatch(mid), _UNREADABLE.fullmatch(mid)
        if f1 and len(got):
            g = got[(got["form"] == "listwise-set") & (got["judgment"] == f1["judgment"]) & (got["stratum"] == f1["source"])]
            counted = ~g["failed"] if params.get("failures", "exclude") != "zero" else pd.Series(True, g.index)
        elif unreadable and len(got):
            g = got[(got["form"] == unreadable["form"]) & (got["judgment"] == unreadable["judgment"])]
            counted = pd.Series(True, g.index)
        else:
            continue
        parts.append(g.assign(measure_id=mid, counted=counted, pair_id="", order=g["form"], author_1="", fact_1="",
                              author_2="", fact_2="", own_chosen=pd.NA, false_chosen=pd.NA, flipped=False))
    return pd.concat(parts, ignore_index=True)[JUDGMENT_COLUMNS] if parts else pd.DataFrame(columns=JUDGMENT_COLUMNS)
