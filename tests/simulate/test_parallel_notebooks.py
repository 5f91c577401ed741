"""lib.runner.run_parallel (validate runs two notebooks at once): a notebook starts only after the
notebooks it reads from or reuses the cached replies of (lib.pipeline) have finished, never more than `workers` run at once, and a
notebook's error reaches `finished`."""
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from lib import runner

STEMS = ["01_dataset", "02_passage_bank", "04_knowledge_probe", "07_knowledge_stratified",
         "09_utility_benchmarks", "12_utility_for_answering", "13_rewardbench", "14_rm_difficulty", "15_best_of_n"]


def _run(monkeypatch, workers, fail=()):
    log, lock, running = [], threading.Lock(), set()
    peak = [0]

    def fake_execute(notebook, output, parameters, kernel_name, timeout=None):
        stem = Path(notebook).stem
        with lock:
            running.add(stem)
            peak[0] = max(peak[0], len(running))
            log.append(("start", stem))
        time.sleep(0.05)
        with lock:
            running.discard(stem)
            log.append(("end", stem))
        if stem in fail:
            raise RuntimeError(f"{stem} broke")

    monkeypatch.setattr(runner, "execute_one", fake_execute)
    nbs = [Path(f"{s}.ipynb") for s in STEMS]
    jobs = {nb: dict(notebook=str(nb), output="", parameters={}, kernel_name="k") for nb in nbs}
    errors = {}
    with ThreadPoolExecutor(workers) as pool:
        runner.run_parallel(nbs, workers, lambda nb: True, lambda nb, t0, e: errors.__setitem__(nb.stem, e),
                            jobs, pool=pool)
    return log, peak[0], errors


def test_a_notebook_starts_after_what_it_reads_and_two_run_at_once(monkeypatch):
    log, peak, errors = _run(monkeypatch, 2)
    at = {(kind, stem): i for i, (kind, stem) in enumerate(log)}
    assert set(errors) == set(STEMS) and not any(errors.values())
    for stem, needs in [("02_passage_bank", "01_dataset"), ("09_utility_benchmarks", "01_dataset"),
                        ("07_knowledge_stratified", "04_knowledge_probe"), ("07_knowledge_stratified", "02_passage_bank"),
                        ("12_utility_for_answering", "09_utility_benchmarks"), ("13_rewardbench", "02_passage_bank"),
                        # 14 and 15 reuse 13's cached verdicts: at once, both would pay for the same requests
                        ("14_rm_difficulty", "13_rewardbench"), ("15_best_of_n", "13_rewardbench")]:
        assert at[("start", stem)] > at[("end", needs)], (stem, needs)
    assert peak == 2


def test_one_worker_runs_them_one_after_another_and_errors_are_reported(monkeypatch):
    log, peak, errors = _run(monkeypatch, 1, fail=("04_knowledge_probe",))
    assert peak == 1
    assert [s for kind, s in log if kind == "start"] == STEMS
    assert str(errors["04_knowledge_probe"]) == "04_knowledge_probe broke"
    assert errors["07_knowledge_stratified"] is None  # skipping is `starting`'s decision (the runner's _blocked_by)
