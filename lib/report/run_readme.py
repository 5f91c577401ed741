"""A run's README.md: what the run found, per study, in sentences a paper can quote (the finding first,
then the estimates without a test, then the diagnostics); then the findings, the diagnostics (failure
shares, parse rates) and the smoke rows, each in its own table where every row has n used / n
attempted, an interval or the reason for none, a scale and a direction.

Every sentence comes from one of the templates below (`TEMPLATES`), so its wording can be checked:
plain English, counts with their own singular or plural, no nested parentheses. This module reads a
findings frame and imports nothing of `findings` (which imports it to write the README)."""
from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd

from .judgment_links import link as inspect_link
from .labels import label
from .latex_table import format_number, interval_text

ALPHA = 0.05

TEMPLATES = {
    "significant": "After Holm's correction over {which} of {family} (alpha = {alpha}), {k} "
                   "differ{s} from {its} null: {named}.",
    "none_significant": "After Holm's correction over {which} of {family} (alpha = {alpha}), none "
                        "differs from its null; the smallest adjusted p is {p}, for {label}: {measured}.",
    # which family: the study's own (its primary readings), or one its measures declare by name
    "own_family": "this study's family",
    "named_family": "the family `{name}`",
    "named": "{label} is {measured}, adjusted p = {p}{direction}",
    "family": "The family: {members}.",
    "family_rest": "The family's other members: {members}.",
    "untested_only": "No measure of this study was tested with at least {smoke_n} units, so the run draws no "
                     "conclusion on bias here.",
    "smoke_only": "No finding of this study has {smoke_n} independent units or more: the run shows that the "
                  "pipeline works, not a finding.",
    "untested": "{count_estimates} with at least {smoke_n} units {carry} no test, for example {label}: "
                "{measured}.",
    "diagnostics": "Diagnostics of the pipeline, not of the model's bias: {count_quantities}; the largest is "
                   "{label}: {measured}.",
}


def plural(n: int, word: str, many: str | None = None) -> str:
    """'1 question', '3 questions', '2 estimates' (`many` for an irregular plural)."""
    return f"{n} {word if n == 1 else many or word + 's'}"


def plain(text) -> str:
    """Text for a sentence: a parenthesis inside it becomes a comma clause, so a sentence that puts
    the text in parentheses never nests them; a snake_case word ('ground_truth') is written as words."""
    text = re.sub(r"\b([a-z]+(?:_[a-z]+)+)\b", lambda m: m.group(1).replace("_", " "), str(text))
    while re.search(r"\([^()]*\)", text):
        text = re.sub(r"\s*\(([^()]*)\)", r", \1", text)
    text = text.replace("(", "").replace(")", "")
    # a clause that is a machine word reads as its name: "nq, rag, self true" -> "NQ, RAG prompt, own passage true"
    return ", ".join(_CLAUSES.get(c, label(c) if c in _SHORT_NAMES else c) for c in text.split(", "))


_CLAUSES = {"all": "all datasets", "self true": "own passage true", "self false": "own passage false"}
_SHORT_NAMES = {"nq", "marco", "triviaqa", "hotpotqa", "rag", "normal"}


def family_mask(frame: pd.DataFrame, study: str) -> pd.Series:
    """Rows in one of Holm's families of a study: the findings' `family` column is set (blank: no
    family); the study's own family and the families its measures declare alike."""
    if "family" not in frame.columns:
        return pd.Series(False, index=frame.index)
    return frame["family"].astype(object).fillna("").astype(str).ne("") & frame["study"].eq(study)


def family_names(family: pd.DataFrame, study: str) -> list[str]:
    """The study's families in a reading order: its own (the primary readings) first, then the rest
    as they come."""
    names = list(dict.fromkeys(family["family"].astype(str)))
    return sorted(names, key=lambda n: n != study)


def interval_reason(r) -> str:
    """Why a row has no interval: the writer's stated reason, else what its counts show."""
    if r.get("no_interval"):
        return once(str(r["no_interval"]))
    if int(r["n_items"]) == 0:
        return "no unit could be used"
    if pd.isna(r["estimate"]):
        return "nothing to estimate from the units used"
    if int(r["n_items"]) == 1:
        return "one unit: an interval needs at least two"
    return "none computed, the notebook states no reason"


def once(reason: str) -> str:
    """A reason for no interval without its own 'no interval' (the sentence around it says that once):
    'all units equal: no interval (nothing varies between units)' -> 'all units equal (nothing varies
    between units)'."""
    text = re.sub(r"\s*[:;,]?\s*\bno (95% )?(interval|CI)\b\s*[:;,]?\s*", " ", reason, flags=re.I).strip(" :;,")
    text = re.sub(r"^\(([^()]*)\)$", r"\1", text)  # nothing left outside the parenthesis
    return text or reason


def value_text(r) -> str:
    """'0.560 [0.350, 0.760] share 0-1' (percentages to one decimal), or the estimate on its scale
    with the reason for no interval after a semicolon, never in parentheses."""
    decimals = 1 if str(r.get("scale") or "").startswith("%") else 3
    if r["estimate"] is None or pd.isna(r["estimate"]):
        return f"no estimate, {plain(interval_reason(r))}"
    text = interval_text(r["estimate"], r["ci_low"], r["ci_high"], decimals)
    scale = f" {r['scale']}" if r.get("scale") else ""
    if pd.isna(r["ci_low"]) or pd.isna(r["ci_high"]):
        return f"{text}{scale} with no interval, {plain(interval_reason(r))}"
    return text + scale


def measured_text(r) -> str:
    """'0.560 [0.350, 0.760] share 0-1 over 17 of 20 questions', or with no interval '20.0 % of
    questions over 5 of 5 questions, with no interval: too few units, fewer than 10'."""
    if r["estimate"] is None or pd.isna(r["estimate"]):
        return f"no estimate over {count_text(r)}: {plain(interval_reason(r))}"
    decimals = 1 if str(r.get("scale") or "").startswith("%") else 3
    text = interval_text(r["estimate"], r["ci_low"], r["ci_high"], decimals)
    scale = f" {r['scale']}" if r.get("scale") else ""
    if pd.isna(r["ci_low"]) or pd.isna(r["ci_high"]):
        return f"{text}{scale} over {count_text(r)}, with no interval: {plain(interval_reason(r))}"
    return f"{text}{scale} over {count_text(r)}"


def count_text(r) -> str:
    """'17 of 20 questions' (used of attempted)."""
    unit = str(r.get("unit") or "unit")
    return f"{int(r['n_items'])} of {plural(int(r['n_attempted']), unit)}"


def label_text(r) -> str:
    """'PPL human minus model, all, paired t, for local:smollm2' (no parentheses around the model)."""
    return f"{plain(r['measure'])} for {r['model']}" if r.get("model") else plain(r["measure"])


def _p(value) -> str:
    return format_number(float(value), 3 if float(value) < 0.01 else 2)


def study_conclusion(study: str, title: str, frame: pd.DataFrame, smoke_n: int) -> str:
    """The sentences a reader can quote about one study: what Holm's family says and which measures it
    holds, what else was estimated with enough units, and how much of the pipeline failed."""
    rows = frame[frame["study"] == study]
    family = rows[family_mask(frame, study).loc[rows.index]]
    kind = rows["kind"] if "kind" in rows else pd.Series("finding", index=rows.index)
    diagnostics, found = rows[kind == "diagnostic"], rows[kind != "diagnostic"]
    sized = found[~found["smoke"].astype(bool)]
    sentences = []
    if len(family):
        for name in family_names(family, study):
            which = (TEMPLATES["own_family"] if name == study else TEMPLATES["named_family"].format(name=name))
            sentences += family_sentences(family[family["family"].astype(str) == name], which)
    elif len(sized):
        sentences.append(TEMPLATES["untested_only"].format(smoke_n=smoke_n))
    else:
        sentences.append(TEMPLATES["smoke_only"].format(smoke_n=smoke_n))
    untested = sized[sized["p"].isna() & ~sized.index.isin(family.index)]
    if len(untested):
        first = untested.iloc[0]
        sentences.append(TEMPLATES["untested"].format(
            count_estimates=plural(len(untested), "estimate"), smoke_n=smoke_n, label=label_text(first),
            measured=measured_text(first), carry="carries" if len(untested) == 1 else "carry"))
    if len(diagnostics):
        worst = diagnostics.loc[diagnostics["estimate"].astype(float).fillna(-np.inf).idxmax()]
        sentences.append(TEMPLATES["diagnostics"].format(
            count_quantities=plural(len(diagnostics), "quantity", "quantities"), label=label_text(worst),
            measured=measured_text(worst)))
    return f"**{title}.** " + " ".join(sentences)


def direction_clause(r) -> str:
    """', where negative = ...' for a direction that says what a value means ('higher = ...'); none for
    one that only restates the estimate ('after minus before')."""
    direction = str(r.get("direction") or "")
    return f", where {plain(direction)}" if "=" in direction else ""


def family_sentences(family: pd.DataFrame, which: str) -> list[str]:
    """What one Holm family says: which of its measures differ from their null (or its smallest
    adjusted p), then its other members."""
    adjusted = family["p_adjusted"].astype(float)
    sig = family[adjusted < ALPHA]
    size = plural(len(family), "tested measure")
    if sig.empty:
        best = family.loc[adjusted.idxmin()] if adjusted.notna().any() else family.iloc[0]
        sentences = [TEMPLATES["none_significant"].format(
            which=which, family=size, alpha=ALPHA, p=_p(best["p_adjusted"]), label=label_text(best),
            measured=measured_text(best))]
    else:
        named = "; ".join(TEMPLATES["named"].format(
            label=label_text(r), measured=measured_text(r), p=_p(r["p_adjusted"]),
            direction=direction_clause(r)) for _, r in sig.iterrows())
        sentences = [TEMPLATES["significant"].format(which=which, family=size, alpha=ALPHA, k=len(sig), named=named,
                                                     s="s" if len(sig) == 1 else "",
                                                     its="its" if len(sig) == 1 else "their")]
    # measures the sentence before has named are not listed again
    rest = family if sig.empty else family.drop(sig.index)
    if len(rest):
        template = TEMPLATES["family" if sig.empty else "family_rest"]
        sentences.append(template.format(members="; ".join(label_text(r) for _, r in rest.iterrows())))
    return sentences


READABLE = ["notebook", "measure", "model", "n used / attempted", "estimate [95% CI]", "direction", "p",
            "Holm p", "paper value", "judgments"]


def readable_table(rows: pd.DataFrame) -> str:
    """Rows as a GitHub markdown table a reader can take in: counts, the estimate with its interval
    (or the reason for none) and scale in one cell, the direction, the test."""

    def p_cell(v):
        return "" if v is None or (isinstance(v, float) and math.isnan(v)) else format_number(float(v), 3)

    lines = ["| " + " | ".join(READABLE) + " |", "|" + " --- |" * len(READABLE)]
    for _, r in rows.iterrows():
        paper = ""
        if pd.notna(r.get("paper_value")):
            paper = format_number(float(r["paper_value"]), 3) + (f", {r['paper_model']}" if r.get("paper_model") else "")
        judged = f"[judgments]({inspect_link(r['measure_id'])})" if pd.notna(r.get("measure_id")) else ""
        note = "; pooled over datasets" if bool(r.get("pooled")) else ""
        cells = [str(r["notebook"]), plain(r["measure"]) + note, str(r["model"]), count_text(r), value_text(r),
                 plain(r.get("direction") or "not stated"), p_cell(r["p"]), p_cell(r["p_adjusted"]), paper, judged]
        lines.append("| " + " | ".join(c.replace("|", "/") for c in cells) + " |")
    return "\n".join(lines)


HOW_TO_READ = (
    "`n used / attempted` counts independent units: questions, items or pairs. Units that failed, with no "
    "readable reply or a missing passage, are the difference. The estimate's 95% interval follows it in "
    "brackets, on the stated scale. Where one unit gives several judgments, the interval and the test are "
    "over units: a Clopper-Pearson interval at the effective n for a rate, a cluster bootstrap for other "
    "means, and exact sign flips up to 32 units or their saddlepoint approximation above for p. Where each "
    "unit gives one judgment, a Wilson interval and a binomial test or a paired t-test. Below 10 units, or "
    "where every unit agrees, no interval is shown and the reason is given; every table and figure of the "
    "run follows the same rule (docs/statistics.md). `Holm p` is Holm's correction within one family, the "
    "`family` column of `findings.csv`, which holds the tested findings with at least {smoke_n} units. Each "
    "study has one family for the papers' readings, one reading per quantity, and one for its secondary "
    "readings, such as the likelihood readings beside the paper's parsed reply. A row pooled over datasets "
    "repeats its datasets' data, so it enters its family only in their place: when none of its notebook's "
    "per-dataset rows for that model has {smoke_n} units. `findings.csv` has every column. `judgments` links each row to the judgments behind it "
    "in `inspect.html`: prompts, replies and parsed values, written at the end of a run or by `make inspect RUN=<run>`.")


def render(frame: pd.DataFrame, name: str, studies: dict, smoke_n: int, metadata: dict) -> str:
    """The whole README.md of a run."""
    kind = frame["kind"] if "kind" in frame else pd.Series("finding", index=frame.index)
    diagnostics = frame[kind == "diagnostic"]
    rest = frame[kind != "diagnostic"]
    found, smoke = rest[~rest["smoke"].astype(bool)], rest[rest["smoke"].astype(bool)]
    git = metadata.get("git") or {}
    models = ", ".join(f"{m.get('spec')}" + (f", {m['package']} {m.get('package_version')}" if m.get("package") else "")
                       for m in metadata.get("models") or []) or "none recorded"
    text = [f"# Run `{name}`: what it found", ""]
    present = [s for s in studies if (frame["study"] == s).any()]
    if present:
        text += ["- " + study_conclusion(s, studies[s], frame, smoke_n) for s in present]
    else:
        text.append("This run wrote no findings: its notebooks state no headline quantity.")
    text += ["", f"Commit {git.get('commit', 'unknown')}" + (" with uncommitted changes" if git.get("dirty") else "")
             + f", {metadata.get('date', '')}. Models: {models}. Full provenance in `results.json`.", "",
             f"## Findings with at least {smoke_n} units", "",
             readable_table(found) if len(found) else "None in this run.", "",
             "## Diagnostics: the pipeline, not the models' bias", "",
             "Failure shares and parse rates.", "",
             readable_table(diagnostics) if len(diagnostics) else "None in this run.", "",
             f"## Smoke tests: fewer than {smoke_n} units, the pipeline runs and nothing more", "",
             readable_table(smoke) if len(smoke) else "None.", "",
             "## How to read these tables", "", HOW_TO_READ.format(smoke_n=smoke_n), ""]
    return "\n".join(text)


# what a README a paper can quote never has: machine plurals, a count in parentheses, a reason in parentheses
MACHINE = re.compile(r"\w\(s\)|\(n >= |\(no interval: ")
NO_INTERVAL = re.compile(r"\bno (95% )?(interval|CI)\b", re.I)
PARSE_FAILURE = re.compile(r"unparsed|unreadable|did not parse")


def wording_problems(text: str) -> list[str]:
    """What keeps a run README from being quoted, one line each: machine plurals ('row(s)'), nested
    parentheses, a missing interval explained twice, a parse failure listed among the findings."""
    problems = [f"machine prose: {m!r}" for m in MACHINE.findall(text)]
    for line in text.splitlines():
        depth = 0
        for ch in line:
            depth += (ch == "(") - (ch == ")")
            if depth > 1:
                problems.append(f"nested parentheses: {line[:120]}")
                break
    # a missing interval is explained once: one "no interval" per table cell or sentence
    for line in text.splitlines():
        for part in re.split(r"\s\|\s|(?<=[a-z)])\.\s", line):
            if len(NO_INTERVAL.findall(part)) > 1:
                problems.append(f"a missing interval explained twice: {part[:120]}")
    if "## Findings" in text and "## Diagnostics" in text:
        found = text[text.index("## Findings"):text.index("## Diagnostics")]
        problems += [f"a parse failure among the findings: {line[:120]}" for line in found.splitlines()
                     if line.startswith("|") and PARSE_FAILURE.search(line)]
    return problems
