"""The judgments behind notebooks 05 and 06's findings rows, laid out for the inspector (lib.inspect;
columns `lib.report.measures.JUDGMENT_COLUMNS`): 05's ratings of the human and the evaluator's own
passage per question, 06's pairs in both orders. Read from the records the notebooks keep in the run
folder; the prompts are filled again from the run's passage bank (06 keeps no passage texts)."""
from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import numpy as np
import pandas as pd

from lib.records import read_records
from lib.report.measures import JUDGMENT_COLUMNS

RATINGS_FILE = "pointwise_ratings.jsonl"  # notebook 05's ratings, every reply kept
PAIRS_FILE = "generation_pairs.jsonl"  # notebook 06's pairs, every reply kept (no passage texts)
# 06's measure kinds -> the preference column whose non-missing values the findings row counts
PREFERENCE_COLUMNS = {"self_preference_rate": "chose_a", "order_balanced_self_preference_rate": "chose_a",
                      "first_position_rate": "chose_first", "factual_preference_rate": "chose_true",
                      "tf_minus_ft_asymmetry": "chose_true"}
_ASYMMETRIC = ("TF", "FT")  # the combinations whose passages differ in factuality
ORDER_LABELS = {"a_first": "own passage first", "b_first": "other passage first"}


def _empty() -> pd.DataFrame:
    return pd.DataFrame(columns=JUDGMENT_COLUMNS)


def _specs(params: dict) -> dict:
    """Evaluator author name -> the spec findings rows name it by (as the notebooks map them)."""
    from lib.models.specs import author_specs

    return author_specs(params.get("evaluators"), params.get("author_names"))


def _frame(folder: Path, name: str) -> pd.DataFrame:
    """A run's records file as a frame (item ids as text); empty when the run has none."""
    path = Path(folder) / name
    got = pd.DataFrame(read_records(path)) if path.exists() else pd.DataFrame()
    return got.assign(item_id=got["item_id"].astype(str)) if len(got) else got


def _bank(folder: Path, params: dict) -> pd.DataFrame | None:
    """The passage bank the notebook read (its bank_path, else the run's own), or None without one."""
    from lib.self_preference.bank import load_bank

    path = Path(params.get("bank_path") or Path(folder) / "passage_bank.jsonl")
    if not path.exists():
        return None
    return load_bank(path)


def _last_reply(responses) -> str:
    return str(responses[-1]) if isinstance(responses, list) and responses else ""


# ---------------------------------------------------------------- 06: pairs in both orders

def _pair_prompts(bank: pd.DataFrame | None, evaluators) -> dict:
    """(evaluator, item, other author, combo, order, styles) -> the generation-phase prompt, filled from
    the bank with the pair builder notebook 06 used."""
    from lib.prompts.self_preference import generation_phase_prompt

    from .pairwise import build_pairs

    prompts = {}
    if bank is None:
        return prompts
    for evaluator in evaluators:
        if evaluator not in set(bank["author"]):
            continue
        for r in build_pairs(bank, evaluator).itertuples(index=False):
            if r.status == "ok":
                key = (evaluator, str(r.item_id), r.b_author, r.combo, r.order)
                prompts[key] = generation_phase_prompt(r.question, r.text_1, r.text_2)
    return prompts


def _method_view(scored: pd.DataFrame, method: str) -> pd.DataFrame | None:
    """The pairs as the findings row's method decided them (06's `method_views`, by slug)."""
    from lib.report.findings import slug

    from .likelihood import method_views

    with contextlib.redirect_stdout(io.StringIO()):  # it prints why likelihoods are missing: the page says it
        views, _ = method_views(scored)
    return next((v for label, v in views.items() if slug(label) == method), None)


def _chosen(view: pd.DataFrame, which: str) -> pd.Series:
    """The chosen passage's `which` field (author / fact): position 1 or 2 by the choice."""
    choice = pd.to_numeric(view["choice"], errors="coerce").to_numpy(dtype=float)
    return pd.Series(np.where(choice == 1, view[f"{which}_1"], np.where(choice == 2, view[f"{which}_2"], None)),
                     index=view.index)


def pair_judgments(folder: Path, measure_ids, params: dict) -> pd.DataFrame:
    """06's pairs behind each measure_id, both orders of every asked pair: the reply (or the
    likelihoods), the chosen passage, why none was chosen, and whether the verdict flipped with the order."""
    scored = _frame(folder, PAIRS_FILE)
    if not len(scored):
        return _empty()
    specs = _specs(params)
    prompts = _pair_prompts(_bank(folder, params), scored["evaluator"].unique())
    parts = []
    for mid in measure_ids:
        kind, method = mid.split(".", 1)
        view = _method_view(scored, method)
        if view is None or kind not in PREFERENCE_COLUMNS:
            continue
        column = PREFERENCE_COLUMNS[kind]
        keep = scored["status"] == "ok"  # the pairs the paper's method asked
        if column == "chose_true":
            keep &= scored["combo"].isin(_ASYMMETRIC)
        v = view[keep].copy()
        pair = (v["dataset"].astype(str) + "|" + v["item_id"] + "|" + v["evaluator"] + "|" + v["b_author"]
                + "|" + v["combo"] + "|" + v["a_style"].astype(str) + "|" + v["b_style"].astype(str))
        chose_a = v["chose_a"].astype("boolean")
        both = v.assign(pair=pair, a=chose_a).dropna(subset=["a"]).groupby("pair")["a"].agg(["nunique", "size"])
        flipped = (both["size"] == 2) & (both["nunique"] == 2)
        likelihood = method != "paper_parsed_reply"
        if likelihood:
            reply = [f"no reply: log P(answer of passage 1) = {a:.3f}, log P(answer of passage 2) = {b:.3f}"
                     if pd.notna(a) and pd.notna(b) else "no reply: the likelihood was not computed"
                     for a, b in zip(v.get("lik_lp_1", pd.Series(np.nan, v.index)),
                                     v.get("lik_lp_2", pd.Series(np.nan, v.index)))]
        else:
            reply = v["response"].fillna("").astype(str)
        choice = pd.to_numeric(v["choice"], errors="coerce")
        author, fact = _chosen(v, "author"), _chosen(v, "fact")
        parsed = [f"passage {int(c)} ({a}, {f}) by {m}" if pd.notna(c) else ""
                  for c, a, f, m in zip(choice, author, fact, v["method"])]
        reason = ["" if pd.notna(c) else ("the two passages carry the same answer string: the likelihood "
                                           "cannot tell them apart" if s == "same_answer" else str(m))
                  for c, s, m in zip(choice, v["status"], v["method"])]
        parts.append(pd.DataFrame({
            "measure_id": mid, "model": v["evaluator"].map(lambda e: specs.get(e, e)),
            "unit_id": v["dataset"].astype(str) + "|" + v["item_id"], "stratum": v["dataset"].astype(str),
            "counted": v[column].notna().to_numpy(), "pair_id": pair, "order": v["order"].map(ORDER_LABELS),
            "prompt": [prompts.get((e, i, b, c, o), "") for e, i, b, c, o in
                       zip(v["evaluator"], v["item_id"], v["b_author"], v["combo"], v["order"])],
            "reply": reply, "attempts": v["attempts"], "parsed": parsed, "reason": reason,
            "author_1": v["author_1"], "fact_1": v["fact_1"], "author_2": v["author_2"], "fact_2": v["fact_2"],
            "own_chosen": chose_a.to_numpy(), "false_chosen": (fact == "false").where(choice.notna()).to_numpy(),
            "flipped": pair.map(flipped).fillna(False).to_numpy()}))
    return pd.concat(parts, ignore_index=True)[JUDGMENT_COLUMNS] if parts else _empty()


# ---------------------------------------------------------------- 05: two ratings per question

_HMS = re.compile(r"human_minus_self\.(?P<dataset>[^.]+)\.(?P<setting>[^.]+)\.self_(?P<fact>[^.]+)\.(?P<method>[^.]+)")


def rating_judgments(folder: Path, measure_ids, params: dict) -> pd.DataFrame:
    """05's ratings behind each human-minus-self measure_id: per question the human's true passage
    and the evaluator's own (true or false), each with its prompt, reply and score; a question counts
    where the findings row's reader (`units.pointwise_units`) gives it a difference."""
    from lib.report.findings import slug

    from .likelihood import RATING_METHODS
    from .units import pointwise_units
    from .pointwise import pointwise_prompt

    ratings = _frame(folder, RATINGS_FILE)
    if not len(ratings):
        return _empty()
    units = pointwise_units(folder, params)
    counted = set(zip(units["measure_id"], units["model"], units["unit_id"]))
    specs = _specs(params)
    columns = {slug(label): col for label, col in RATING_METHODS.items()}
    ratings["unit_id"] = ratings["dataset"].astype(str) + "|" + ratings["item_id"]
    ratings["prompt"] = [pointwise_prompt(s, q, t) for s, q, t in
                         zip(ratings["setting"], ratings["question"], ratings["text"])]
    parts = []
    for mid in measure_ids:
        m = _HMS.fullmatch(mid)
        if m is None or columns.get(m["method"]) not in ratings:
            continue
        col = columns[m["method"]]
        r = ratings[ratings["setting"] == m["setting"]]
        if m["dataset"] != "all":
            r = r[r["dataset"] == m["dataset"]]
        human = (r["author"] == "human") & (r["factuality"] == "true")
        own = (r["author"] == r["evaluator"]) & (r["factuality"] == m["fact"])
        r = r[human | own]
        model = r["evaluator"].map(lambda e: specs.get(e, e))
        score = pd.to_numeric(r[col], errors="coerce")
        paper = col == "score"
        parts.append(pd.DataFrame({
            "measure_id": mid, "model": model, "unit_id": r["unit_id"], "stratum": r["dataset"].astype(str),
            "counted": [(mid, mm, u) in counted for mm, u in zip(model, r["unit_id"])],
            "pair_id": r["unit_id"] + "|" + r["evaluator"],
            "order": np.where(human[r.index], "human passage (true)", f"own passage ({m['fact']})"),
            "prompt": r["prompt"],
            "reply": r["responses"].map(_last_reply) if paper else
            "no reply: read from the next-token distribution over 1..5 after ###",
            "attempts": r["attempts"], "parsed": [f"{s:g}" if pd.notna(s) else "" for s in score],
            "reason": ["" if pd.notna(s) else (f"not parsed ({h})" if paper else "no likelihood for this rating")
                       for s, h in zip(score, r.get("parse_how", pd.Series("", r.index)))],
            "author_1": r["author"], "fact_1": r["factuality"], "author_2": "", "fact_2": "",
            "own_chosen": pd.NA, "false_chosen": pd.NA, "flipped": False}))
    return pd.concat(parts, ignore_index=True)[JUDGMENT_COLUMNS] if parts else _empty()
