"""`python -m lib.simulate validate` for the utility study (notebooks 09-12 through papermill against the
in-process simulator) at a small size: every findings row of 10 gets its truth, the parsed shares of
10-12 match the planted failure rate, and a planted defect (the listwise-set parser reading the
passages in reverse order) makes the set-F1 rows miss their truth and the check fail."""
import pandas as pd
import pytest

from lib.simulate import utility_truth as UT
from lib.simulate.__main__ import main
from lib.simulate.truth_file import load_truth
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
    return UT.utility_truths(load_truth(TRUTH), UT.design_from_gti(run_dir / "utility_gti.jsonl", SIZE))


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
    table = pd.concat([wrong.reset_index().drop(columns="has_p"), parsed_shares(run_dir, load_truth(TRUTH))])
    passed, line = verdict(table)
    assert not passed and "FAIL" in line
