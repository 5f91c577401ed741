"""`python -m lib.simulate validate` for the utility study (notebooks 09-12 through papermill against the
in-process simulator) at a small size: every findings row of 10, 11 and 12 gets its truth, the parsed
shares of 10-12 match the planted failure rate, and planted defects make rows miss their truth and the
check fail: the listwise-set parser reading the passages in reverse order (10), the ground-truth and
counterfactual passage kinds swapped (11), the no-evidence and ground-truth conditions swapped (12)."""
import pandas as pd
import pytest

from lib.simulate.utility import truth as UT
from lib.simulate.__main__ import main
from lib.simulate.core.truth_file import load_truth
from lib.simulate.validate import compare, parsed_shares, verdict
from .defects import reverse_listwise_sets

pytestmark = pytest.mark.notebooks
SIZE = 12  # items per dataset: a smoke test (36 questions); docs/known_truth.md has the size-45 run
TRUTH = "configs/known_truth.yaml"


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    root = tmp_path_factory.mktemp("kt_utility")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RAGBIAS_RUNS", str(root / "runs"))
        mp.setenv("RAGBIAS_FIGURES", str(root / "figures"))
        main(["validate", "--truth", TRUTH, "--size", str(SIZE), "--run", "kt_utility", "--only", "09,10,11,12"])
        yield root / "runs" / "kt_utility"


def _findings_by_reparse(run_dir) -> pd.DataFrame:
    """Notebook 10's findings rebuilt from its stored replies with today's parsers (the study's own
    reparse, summary and findings code; no model call)."""
    from lib.utility.benchmark import load_benchmark
    from lib.utility.evaluate import RANK_METRICS, SET_METRICS, summarize
    from lib.utility.findings_rows import table2_findings
    from lib.utility.replies import reparse

    per_q = reparse(run_dir / "utility_rq1_replies.jsonl", rows=load_benchmark(run_dir / "utility_gti.jsonl"))
    summary = summarize(per_q, ["source", "judgment", "form"], SET_METRICS + RANK_METRICS, n_boot=1000, seed=0)
    return pd.DataFrame(table2_findings(summary, "sim")).assign(p=float("nan"), p_adjusted=float("nan"))


def _truths(run_dir):
    from lib.simulate.core.roles import Roles
    from lib.simulate.utility.roles import UtilityRoles

    role = UtilityRoles(Roles(run_dir, None)).role
    return UT.utility_truths(load_truth(TRUTH), UT.design_from_gti(run_dir / "utility_gti.jsonl", role, SIZE))


def test_every_row_of_10_has_its_truth_and_parsed_shares_match(run_dir):
    table = pd.read_csv(run_dir / "validation.csv")
    mine = table[table["notebook"].str.match(r"1[0-2]_")]
    f1 = mine[mine["measure_id"].str.startswith("set_f1.")]
    assert len(f1) == 6 and f1["truth"].between(5, 95).all()  # nq, hotpotqa, marco x relevance, utility
    assert len(mine[mine["measure_id"].str.startswith("unreadable_share.")]) == 4
    shares = mine[mine["measure_id"].str.startswith("parsed_share.")].set_index("notebook")
    assert sorted(shares.index) == ["10_relevance_vs_utility", "11_utility_factors", "12_utility_for_answering"]
    assert (shares["covered"] == 1).all(), shares
    stats = (run_dir / "simulator_stats.json").read_text()
    assert '"unknown"' not in stats  # every prompt of 09-12 was recognised


def test_reversed_listwise_parser_misses_the_truth_and_fails(run_dir, monkeypatch):
    truths = _truths(run_dir)
    right = compare(_findings_by_reparse(run_dir), truths).set_index("measure_id")
    findings = pd.read_csv(run_dir / "findings.csv").set_index("measure_id")
    for mid in right.index:  # the reparse path is the notebook's: same estimates
        assert right.loc[mid, "estimate"] == pytest.approx(findings.loc[mid, "estimate"])
    reverse_listwise_sets(monkeypatch)
    wrong = compare(_findings_by_reparse(run_dir), truths).set_index("measure_id")
    utility_f1 = wrong.loc[[m for m in wrong.index if m.startswith("set_f1.") and m.endswith(".utility")], "covered"]
    # rows under 10 readable questions carry no interval (lib.stats.MIN_CI_UNITS): the others all miss
    assert len(utility_f1) == 3 and utility_f1.notna().sum() >= 2 and (utility_f1.dropna() == 0).all(), wrong
    assert (right.loc[utility_f1.dropna().index, "estimate"]
            > wrong.loc[utility_f1.dropna().index, "estimate"] + 15).all()
    table = pd.concat([wrong.reset_index(), parsed_shares(run_dir, load_truth(TRUTH))])
    passed, line = verdict(table)
    assert not passed and "FAIL" in line


@pytest.fixture(scope="module")
def run_truths(run_dir):
    """Every truth of the run's utility rows, from the run's design as validate reads it (once: about 10 s)."""
    return _truths_of_run(run_dir)


def _truths_of_run(run_dir):
    """Every truth of the run's utility rows, from the run's design as validate reads it."""
    from lib import runner
    from lib.simulate.utility.design import utility_design

    cfg = runner.load_config("configs/known_truth_run.yaml", {"n_items": SIZE})  # as validate --size gives it
    return UT.utility_truths(load_truth(TRUTH), utility_design(run_dir, cfg))


def test_every_row_of_11_and_12_has_its_truth_and_most_cover_it(run_dir):
    table = pd.read_csv(run_dir / "validation.csv")
    kinds = table["measure_id"].str.split(".").str[0]
    assert (kinds == "role_selection_gap").sum() == 4 and (kinds == "position_effect").sum() == 2
    assert (kinds == "answer_score").sum() == 2 * 11 and (kinds == "answer_gain").sum() == 4  # nq, marco
    mine = table[kinds.isin(["role_selection_gap", "position_effect", "answer_score", "answer_gain"])]
    covered = mine["covered"].dropna()
    assert len(covered) >= 25 and covered.mean() >= 0.8, mine
    gaps = mine[mine["measure_id"].str.endswith("ground_truth_minus_counterfactual")]
    # planted: 2.0 vs -0.5 log-odds; a row under 30 readable questions is a smoke test outside Holm (not judged)
    assert (gaps["truth"] > 0.3).all() and (gaps["detected"] != 0).all() and (gaps["detected"] == 1).any(), gaps
    assert (table.loc[kinds == "answer_score", "truth"].between(0, 100)).all()


def _factor_rows(run_dir, swap: bool):
    """11's findings rebuilt from its stored replies (the study's reparse and findings code), with the
    ground-truth and counterfactual kinds swapped in the candidate sets when `swap`."""
    from dataclasses import replace

    from lib.utility.benchmark import load_benchmark
    from lib.utility.findings_rows import factor_findings
    from lib.utility.replies import reparse

    swapped = {"ground_truth": "counterfactual", "counterfactual": "ground_truth"}
    rows = [replace(r, passages_types=[swapped.get(t, t) for t in r.passages_types]) if swap else r
            for r in load_benchmark(run_dir / "utility_gti.jsonl")]
    per_q = reparse(run_dir / "utility_rq2_replies.jsonl", rows=rows)
    form_q = per_q[per_q["factor"] == "form"]
    pos_q = per_q[per_q["factor"] == "position"]
    pos_q = pos_q.assign(position=pos_q["level"].astype(int))
    return pd.DataFrame(factor_findings(form_q, pos_q, n_boot=1000)).assign(p_adjusted=float("nan"))


def test_swapped_passage_kinds_in_11_miss_the_truth_and_fail(run_dir, run_truths):
    truths = run_truths
    right = compare(_factor_rows(run_dir, False), truths).set_index("measure_id")
    findings = pd.read_csv(run_dir / "findings.csv").set_index("measure_id")
    for mid in right.index:  # the reparse path is the notebook's: same estimates
        assert right.loc[mid, "estimate"] == pytest.approx(findings.loc[mid, "estimate"])
    wrong = compare(_factor_rows(run_dir, True), truths).set_index("measure_id")
    gaps = [m for m in wrong.index if m.startswith("role_selection_gap.")]
    assert len(gaps) == 4 and (wrong.loc[gaps, "covered"] == 0).all(), wrong.loc[gaps]
    passed, line = verdict(wrong.reset_index())
    assert not passed and "FAIL" in line


def test_swapped_evidence_conditions_in_12_miss_the_truth(run_dir, run_truths):
    from lib.utility.experiments import answer_summary
    from lib.utility.findings_rows import answering_findings

    [path] = list(run_dir.rglob("utility_rq3_answers.csv"))
    answers = pd.read_csv(path)
    truths = run_truths

    def rows(a):
        summary = answer_summary(a, ["model", "source", "condition"], n_boot=1000)
        return compare(pd.DataFrame(answering_findings(a, summary, n_boot=1000)).assign(p_adjusted=float("nan")),
                       truths).set_index("measure_id")
    right = rows(answers)
    ends = [m for m in right.index if m.endswith((".none", ".ground_truth"))]
    # 12 questions per dataset: each interval covers with about 95%, so one miss of four is no defect
    assert len(ends) == 4 and right.loc[ends, "covered"].sum() >= 3, right.loc[ends]
    swap = {"none": "ground-truth", "ground-truth": "none"}
    wrong = rows(answers.assign(condition=answers["condition"].map(lambda c: swap.get(c, c))))
    # graded answers narrow the gap between the two conditions (none reads about 40, not 20): at 12
    # questions a swapped row may still cover by chance, as a right one may miss; three of four must miss
    assert (wrong.loc[ends, "covered"] == 0).sum() >= 3, wrong.loc[ends]
    assert (wrong.loc[ends, "estimate"] - wrong.loc[ends, "truth"]).abs().mean() > 25, wrong.loc[ends]
