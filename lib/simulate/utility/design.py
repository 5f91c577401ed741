"""What notebooks 10-12 of a validate run judge, as far as their truths depend on it (`utility.truth`):
which passages the candidate sets notebook 09 wrote hold (utility_gti.jsonl, utility_gtu.jsonl), each
with the role the simulator knows from the data (`utility.roles`, never 09's labels), and the notebooks'
effective parameters (notebook default < config < command line, as the runner gives them). Nothing
measured is read: only the run's data and settings."""
from __future__ import annotations

from pathlib import Path

from lib import paths

from ..core.roles import Roles
from .answers import WRONG_ANSWER, answer_score
from .roles import UtilityRoles
from .truth import AnswerQuestion, UtilityDesign, design_from_gti

NB09 = "09_utility_benchmarks"
NB10, NB11, NB12 = "10_relevance_vs_utility", "11_utility_factors", "12_utility_for_answering"
SET_FORMS = ("pointwise", "listwise-set")


def notebook_parameters(cfg: dict, notebook: str) -> dict:
    """The parameters a notebook runs with under this runner config, its own defaults included."""
    from lib import runner

    [(_, eff)] = runner.effective_parameters(cfg, [paths.NOTEBOOKS / f"{notebook}.ipynb"])
    return {k: v for k, (v, _) in eff.items()}


def table4_conditions(params: dict) -> tuple:
    """Notebook 12's Table 4 rows, from its parameters (the notebook's own function)."""
    from lib.utility.study import table4_conditions as rows

    return tuple(rows(params["relevance_forms"], params["utility_forms"], params["k_values"]))


def answer_questions(run_dir: Path, roles: UtilityRoles, datasets, n_items: int) -> tuple:
    """12's GTU questions, each passage's role as the simulator knows it (`roles`, from the data), and
    the scores (`answers`, the simulator's own metrics) of its gold and wrong answers; its graded answer's
    score depends on the truth file (`truth.answer_scores`)."""
    from lib.utility.benchmark import load_benchmark, select

    path = Path(run_dir) / "utility_gtu.jsonl"
    if not path.exists():
        return ()
    out = []
    for r in select(load_benchmark(path), list(datasets) or None, n_items):
        item = roles.item_by_id(r.id) or {}  # the row's item in the data: its answers score the reply
        answer, aliases = str(item.get("answer", "")), [str(a) for a in item.get("aliases") or []]

        def score(text):  # against the data's answers, not 09's answer field
            return answer_score(text, answer, aliases, r.source)
        wrong, gold = score(WRONG_ANSWER), roles.answer(r.question)  # gold: what the simulator answers when right
        # the "ground-truth" condition hands over the item's gold evidence, whatever 09 stored as it
        out.append(AnswerQuestion(r.source, tuple(roles.role(r.question, p) for p in r.passage),
                                  bool(item), score(gold) if gold else wrong, wrong, gold, (answer, *aliases)))
    return tuple(out)


def utility_design(run_dir: Path, cfg: dict) -> UtilityDesign:
    """The design of notebooks 10-12 in this run (an empty part for a notebook the run does not hold)."""
    run_dir = Path(run_dir)
    gti = run_dir / "utility_gti.jsonl"
    p09, p10, p11, p12 = (notebook_parameters(cfg, nb) for nb in (NB09, NB10, NB11, NB12))
    if p09.get("max_words"):  # a clipped counterfactual may hold none of its substitutions: not knowable
        raise ValueError(f"{NB09} runs with max_words={p09['max_words']}: the simulator knows a passage's role "
                         "only from whole passages (or a window of a ground truth); validate 09 with max_words 0")
    roles = UtilityRoles(Roles(run_dir, None))
    factor = design_from_gti(gti, roles.role, p11["n_items"], p11["datasets"])
    positions = [int(p) for p in p11["positions"]]
    return UtilityDesign(
        sets=design_from_gti(gti, roles.role, p10["n_items"], p10.get("datasets", ())).sets,
        factor_sets=factor.sets, set_forms=tuple(f for f in p11["forms"] if f in SET_FORMS),
        position_forms=tuple(f for f in p11["position_forms"] if f in ("listwise-set", "listwise-rank")),
        positions=(min(positions), max(positions)) if positions else (),
        answers=answer_questions(run_dir, roles, p12["datasets"], p12["n_items"]), conditions=table4_conditions(p12))
