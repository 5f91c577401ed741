"""Every row the self-preference study writes to the run's findings table (lib.report.findings), one
function per notebook: 03's perplexity differences (`ppl_findings`), 05's human-minus-self ratings
(`pointwise_findings`), 06's preference rates (`preference_findings`) and 08's styled-passage
preferences (`style_findings`). Each row's measure is declared in `measures.py`."""
from __future__ import annotations

import pandas as pd

from lib.report.findings import declared_finding, slug

from .likelihood import asymmetry
from .tables import UNIT, balanced_rate_cell, question_ids, rate_cell


def readable_method(method: str) -> str:
    """A method's name as a reader writes it ("likelihood per_word" -> "likelihood per word"); its
    measure_id keeps the slug."""
    return method.replace("_", " ")


def ppl_findings(tests: pd.DataFrame, notebook: str = "03_perplexity", specs: dict | None = None) -> list[dict]:
    """Findings rows (lib.report.findings) from `ppl_tests`: human minus model perplexity, n, CI, p.
    `specs` maps author names to their model specs, so the row names the model as every other row
    does (a release's authors, not our models, keep their names)."""
    rows = []
    for r in tests.itertuples(index=False):
        low, high = r.diff_ci_low, r.diff_ci_high
        rows.append(declared_finding("self-preference", notebook, f"PPL human minus model ({r.dataset}, {r.test})",
                            (specs or {}).get(r.author, r.author), min(r.n_human, r.n_model),
                            r.diff, low, high, p=r.p, unit="item", ci_note=r.no_interval,
                            pooled=r.dataset == "all",  # "all" repeats the datasets' rows
                            measure_id=f"ppl_human_minus_model.{r.dataset}.{slug(r.test)}",
                            n_attempted=max(r.n_human, r.n_model), scale="perplexity points",
                            direction="positive = the model's own passage is more predictable than the human one"))
    return rows


def pointwise_findings(hms: pd.DataFrame, specs: dict, notebook: str = "05_pointwise_reranking",
                       paper_values: dict | None = None) -> list[dict]:
    """Human-minus-self rating difference per dataset x evaluator x setting x factuality x method
    (rows of `human_minus_self_methods`); `specs` maps author names to evaluator specs. One
    difference per item (paired t over items); dataset "all" rows repeat the others: pooled. The
    paper's parsed score is the primary reading; the next-token argmax / expected-score rows read
    the same quantity again (declared secondary in measures.py: outside Holm's family)."""
    rows = []
    for r in hms.to_dict("records"):
        for fact in ("true", "false"):
            if not r.get(f"n_{fact}"):
                continue
            measure = f"human-minus-self rating ({r['dataset']}, {r['setting']}, self {fact}, {r['method']})"
            rows.append(declared_finding("self-preference", notebook, measure, specs.get(r["evaluator"], r["evaluator"]),
                                r[f"n_{fact}"], r[f"diff_{fact}"], r[f"ci_low_{fact}"],
                                r[f"ci_high_{fact}"], r[f"p_{fact}"],
                                (paper_values or {}).get(measure), unit="item", pooled=r["dataset"] == "all",
                                measure_id=f"human_minus_self.{r['dataset']}.{r['setting']}.self_{fact}.{slug(r['method'])}",
                                scale="rating points (1-5 scale)",
                                direction="negative = rates its own passage above the human one (self-preference)",
                                no_interval=_paired_t_gap(r[f"n_{fact}"], r[f"ci_low_{fact}"])))
    return rows


def _paired_t_gap(n: int, ci_low: float) -> str:
    """Why a human-minus-self row of 3 or more items has no interval (tables._human_minus computes
    one where the differences vary), or '' (fewer items: `finding` says there are too few)."""
    return "" if n < 3 or pd.notna(ci_low) else "every item's difference is the same (nothing varies between items)"


PREF_LABELS = {"chose_a": "self-preference rate", "chose_first": "first-position rate",
               "chose_true": "factual preference rate"}
BALANCED_LABEL = "order-balanced self-preference rate"  # beyond the paper: the mean of the two orders' rates
# what a higher share means, per preference (the findings' `direction`)
PREF_DIRECTIONS = {"chose_a": "higher = chooses its own passage more (0.5 = chance)",
                   "chose_first": "higher = chooses the first position more (0.5 = chance)",
                   "chose_true": "higher = chooses the true passage more (0.5 = chance)"}
ASYMMETRY_LABEL = "TF-minus-FT asymmetry of factual choice"


def pair_types(pairs: pd.DataFrame) -> str:
    """The factuality combinations a method can decide among these pairs (its 'ok' rows: what the
    paper's method asked, what the likelihood can tell apart), e.g. 'TF/FT'."""
    from .pairwise import COMBOS

    found = set(pairs.loc[pairs["status"] == "ok", "combo"])
    return "/".join(c for c in COMBOS if c in found) or "none"


def preference_findings(views: dict, specs: dict, notebook: str = "06_generation_phase",
                        paper_values: dict | None = None) -> list[dict]:
    """Per evaluator (pooled over authors, combos and orders) under each method; `views` maps a
    method label to pairs in `score_pairs` columns, the paper's method first. Each measure names the
    pair types it covers. The paper's self-preference needs every combination the paper's method was
    asked on; the likelihood decides only pairs with two answer strings (no TT), so for it the
    self-related quantity is the TF-minus-FT asymmetry, given for every method on TF/FT pairs.
    Beside the paper's self-preference rate (pooled over orders by parsed judgments), the
    order-balanced one (`tables.balanced_rate_cell`), so order-dependent parse failures show. The
    paper's method is the primary reading; the likelihood methods and the balanced rate are
    secondary readings of the same quantities (declared in measures.py: outside Holm's family)."""
    paper = next(iter(views.values()))
    asked = {e: set(g.loc[g["status"] == "ok", "combo"]) for e, g in paper.groupby("evaluator", sort=False)}
    rows = []
    for method, pairs in views.items():
        for evaluator, g in pairs.groupby("evaluator", sort=False):
            model = specs.get(evaluator, evaluator)
            attempted = len(set(question_ids(g)))  # questions asked, readable or not
            for col, label in PREF_LABELS.items():
                ok = g[g["status"] == "ok"]
                if col == "chose_a" and pairs is not paper and not asked.get(evaluator, set()) <= set(ok["combo"]):
                    continue  # the paper's self-preference is over every asked combo; this method lacks some
                if col == "chose_true":
                    ok = ok[ok["combo"].isin(["TF", "FT"])]
                c = rate_cell(g[col], question_ids(g))
                measure = f"{label} ({readable_method(method)}; {pair_types(ok)} pairs)"
                rows.append(declared_finding("self-preference", notebook, measure, model, c["n_items"], c["rate"],
                                    c["ci_low"], c["ci_high"], c["p"],
                                    (paper_values or {}).get(measure), n_judgments=c["n"], unit=UNIT,
                                    measure_id=f"{slug(label)}.{slug(method)}",
                                    ci_note=c["ci_note"], n_attempted=attempted,
                                    scale="share 0-1", direction=PREF_DIRECTIONS[col],
                                    no_interval="" if c["n_items"] else "no pair gave a readable choice"))
                if col == "chose_a":
                    b = balanced_rate_cell(g, col)
                    rows.append(declared_finding("self-preference", notebook, f"{BALANCED_LABEL} ({readable_method(method)}; {pair_types(ok)} pairs)",
                                        model, b["n_items"], b["rate"], b["ci_low"], b["ci_high"],
                                        b["p"], n_judgments=max(b["n"], b["n_items"]), unit=UNIT,
                                        measure_id=f"{slug(BALANCED_LABEL)}.{slug(method)}",
                                        ci_note=b["ci_note"], n_attempted=max(attempted, b["n_items"]),
                                        scale="share 0-1", direction=PREF_DIRECTIONS[col],
                                        no_interval="" if b["n_items"] else "no question decided in both orders"))
            a = asymmetry(g)
            measure = f"{ASYMMETRY_LABEL} ({readable_method(method)}; TF/FT pairs)"
            rows.append(declared_finding("self-preference", notebook, measure, model, a["n_items"], a["estimate"],
                                a["ci_low"], a["ci_high"], a["p"],
                                (paper_values or {}).get(measure), n_judgments=a["n_judgments"], unit=UNIT,
                                measure_id=f"tf_minus_ft_asymmetry.{slug(method)}",
                                ci_note=a.get("ci_note", ""), n_attempted=max(attempted, a["n_items"]),
                                scale="difference of shares (-1 to 1)",
                                direction="positive = chooses the true passage more when it is its own (self-preference)",
                                no_interval="" if a["n_items"] else "no TF and FT pairs both decided"))
    return rows


# v2 Tables 4 and 5 name these preferences; `kind` as lib.self_preference.pairwise.STYLE_COMPARISONS has it
STYLE_LABELS = {"gen_by_qa": "gen-by-QA preference rate (own QA-written passage vs the human one)",
                "long": "long-passage preference rate (own long passage vs own normal one)"}


def style_findings(style_table: pd.DataFrame, specs: dict, notebook: str = "08_writing_style") -> list[dict]:
    """One row per kind x dataset x evaluator of `style_table` (notebook 08's, `style_*` columns of
    `tables.preference_table`) where the styled passage is the evaluator's own (`is_self`): the share
    of valid pairs (both orders) that used the styled passage, interval and test against 50% over
    questions. `specs` maps author names to evaluator specs."""
    rows = []
    if style_table is None or style_table.empty:
        return rows
    for r in style_table[style_table["is_self"].astype(bool)].to_dict("records"):
        label = STYLE_LABELS.get(r["kind"], f"{r['kind']} preference rate")
        rows.append(declared_finding("self-preference", notebook, f"{label} ({r['dataset']})",
                            specs.get(r["evaluator"], r["evaluator"]), int(r["style_n_items"]), r["style_rate"],
                            r["style_ci_low"], r["style_ci_high"], r["style_p"],
                            n_judgments=max(int(r["style_n"]), int(r["style_n_items"])), unit=UNIT,
                            measure_id=f"style_preference.{r['kind']}.{r['dataset']}", scale="share 0-1",
                            direction="higher = prefers the styled passage more (0.5 = chance)",
                            no_interval="" if int(r["style_n_items"]) else "no pair gave a readable choice"))
    return rows

