"""The judgment-level check (lib/simulate/reply_check.py) on questions drawn with replacement: every
05 score and 06 choice against the simulator's own probability for its prompt. It holds for the
simulator as it is, and it flags a role look-up that fails for copies (hypothesis 1 of the
papers'-size diagnosis, planted here: the simulator no longer recognises its own texts of copies)."""
import pytest

from lib.simulate import reply_check as RC
from lib.simulate.core.roles import Roles
from lib.simulate.core.truth_file import Truth

SIZE = dict(n_items=60, seed=0, settings=("rag",), datasets=("nq", "triviaqa"))  # 60 each from ~45: copies


@pytest.fixture
def truth():
    return Truth(format_failure=0.05)


def _check(run_dir, truth, ratings, pairs):
    assert ratings["item_id"].str.contains("~").mean() > 0.3  # many copies
    rep = RC.replier_of(run_dir, truth)
    return RC.rating_z(ratings, rep), RC.pair_z(pairs, rep)


def test_replies_match_the_simulators_probabilities_with_copies(tmp_runs, tmp_path, truth):
    r, p = _check(tmp_path, truth, *RC.sized_run(truth, run_dir=tmp_path, **SIZE))
    assert len(r) == 4 and len(p) == 5  # 4 rating cells; 06 overall and per combo
    assert (r["n"] >= 100).all() and p["n"].iloc[0] >= 800
    assert RC.flagged(r).empty and RC.flagged(p).empty


def test_an_own_text_of_a_copy_not_recognised_is_flagged(tmp_runs, tmp_path, truth, monkeypatch):
    real = Roles.is_own
    monkeypatch.setattr(Roles, "is_own", lambda self, text: real(self, text) and "[copy" not in text)
    ratings, pairs = RC.sized_run(truth, run_dir=tmp_path, **SIZE)
    monkeypatch.undo()  # the check reads the roles as the run's data say
    r, p = _check(tmp_path, truth, ratings, pairs)
    bad = RC.flagged(r)
    assert len(bad) and bad["cell"].str.contains(" sim ").all() and (bad["z"] < 0).all()  # own rated as others'
    assert p.loc[p["cell"] == "06 chose own", "z"].iloc[0] < -2  # and chosen less often (-2.7 here: half are copies)
