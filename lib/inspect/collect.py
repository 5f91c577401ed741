"""What the inspector shows, read from a run folder: per findings row (measure_id x model) the units
its n counts and the judgments under each, through the reader its declaration names
(`Measure.judgments`, lib.report.measures). Nothing here knows a notebook or a records file."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from lib.report.measures import JUDGMENT_COLUMNS, find_or_none, notebook_parameters


@dataclass
class Section:
    """One measure_id of findings.csv: its declaration's words, its rows (one per model) and the
    judgments behind them (empty, with `no_judgments` saying why, when the run keeps none)."""

    measure_id: str
    name: str
    notebook: str
    unit: str
    records: str = ""
    unit_key: tuple = ()
    pairwise: bool = False
    no_judgments: str = ""
    rows: pd.DataFrame = field(default_factory=pd.DataFrame)  # its findings rows
    judgments: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=JUDGMENT_COLUMNS))


def read_findings(folder: Path) -> pd.DataFrame:
    """The run's findings rows: every notebook's own rows file (findings/<notebook>.csv, what findings.csv
    is made of at the end of a run, so a notebook sees its rows while the run goes on), else findings.csv."""
    from lib.report.findings import collect

    folder = Path(folder)
    rows = collect(folder)
    if len(rows):
        return rows
    path = folder / "findings.csv"
    if not path.exists():
        raise FileNotFoundError(f"{path} does not exist: give a run folder whose notebooks wrote findings.")
    return pd.read_csv(path)


def sections(folder: Path, measure: str | None = None) -> list[Section]:
    """Every measure_id of the run's findings (or only `measure`), in findings order, with its
    judgments; each declaration's reader is called once for all of its ids."""
    folder = Path(folder)
    findings = read_findings(folder)
    if measure is not None:
        findings = findings[findings["measure_id"] == measure]
        if findings.empty:
            raise KeyError(f"{measure!r} is not a measure_id of {folder / 'findings.csv'}.")
    out, by_reader = [], {}
    for mid, rows in findings.groupby("measure_id", sort=False):
        m = find_or_none(mid)
        s = Section(mid, m.name if m else str(rows["measure"].iloc[0]), str(rows["notebook"].iloc[0]),
                    str(rows["unit"].iloc[0]), rows=rows.reset_index(drop=True))
        if m is None:
            s.no_judgments = "no study declares this measure_id"
        elif m.judgments is None:
            s.no_judgments = m.no_judgments
        else:
            s.records, s.unit_key, s.pairwise = m.judgments.records, m.judgments.unit_key, m.judgments.pairwise
            by_reader.setdefault((m.judgments, m.notebook), []).append(s)
        out.append(s)
    for (declared, notebook), group in by_reader.items():
        got = declared.read(folder, [s.measure_id for s in group], notebook_parameters(folder, notebook))
        for s in group:
            s.judgments = got[got["measure_id"] == s.measure_id].reset_index(drop=True)
            if s.judgments.empty:
                s.no_judgments = f"the run folder has no judgments in {declared.records} for it"
    return out


def counted_units(judgments: pd.DataFrame) -> pd.Series:
    """Per model, how many units have a counted judgment: what each findings row's n counts."""
    got = judgments[judgments["counted"].astype(bool)]
    return got.groupby("model")["unit_id"].nunique()


def unaccounted(measures) -> list[str]:
    """Declarations that neither name their judgments nor say why a run keeps none, or do both."""
    out = []
    for m in measures:
        if m.judgments is None and not m.no_judgments.strip():
            out.append(f"{m.pattern}: no judgments and no no_judgments reason")
        elif m.judgments is not None and m.no_judgments:
            out.append(f"{m.pattern}: both judgments and no_judgments")
    return out
