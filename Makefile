# `make reproduce` (main job), `make test` (test suite) and `make lab` (JupyterLab) each do all the set-up
# first; README's "Commands" lists every target.
PYTHON ?= python3.11
VENV   ?= .venv
PY     := $(VENV)/bin/python
CONFIG ?= configs/demo.yaml

KERNEL := rag-bias-lab

.PHONY: install install-test install-cluster reproduce plan test test-fast lab sweep compare compare-example benchmark strip clean-runs

install: $(VENV)/.installed

$(VENV)/.installed: requirements.txt constraints.txt requirements-nodeps.txt pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV) || python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps -r requirements-nodeps.txt
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps -e .
	# the project's Jupyter kernel (this venv's interpreter), used by JupyterLab and by papermill
	$(PY) -m ipykernel install --sys-prefix --name $(KERNEL) --display-name "Python ($(KERNEL))"
	@touch $@

# test-only extras (a real OpenAI-compatible server for tests/integration); `make reproduce` never needs them.
# llama-cpp-python builds from source once (about 5 minutes on 2 cores); pip's wheel cache makes it fast after.
install-test: $(VENV)/.installed-test

$(VENV)/.installed-test: $(VENV)/.installed-cluster requirements-test.txt
	$(PY) -m pip install --quiet --disable-pip-version-check -c constraints.txt -r requirements-test.txt
	@touch $@

# the cluster extra (Ray, for `sweep --executor ray`; docs/cluster.md): installed by `make test`, never by `make reproduce`
install-cluster: $(VENV)/.installed-cluster

$(VENV)/.installed-cluster: $(VENV)/.installed requirements-cluster.txt
	$(PY) -m pip install --quiet --disable-pip-version-check -c constraints.txt -r requirements-cluster.txt
	@touch $@

# the main job, then its own model x measure table (compare on the run: data/runs/<run>_table/)
reproduce: install
	$(PY) -m lib.runner run $(CONFIG)
	$(PY) -m lib.compare.run_table $(CONFIG)

# before a paid run: requests, tokens, dollars (sync and Batch API) and time per notebook x model, no call
# made (docs/servers.md), e.g. make plan CONFIG=configs/paper.yaml PARAMS="-p model=openai:gpt-4o-mini"
PARAMS ?=
plan: install
	$(PY) -m lib.runner plan $(CONFIG) $(PARAMS)

test: install-test
	$(PY) -m pytest -q -ra

test-fast: install
	$(PY) -m pytest -q -m "not model and not notebooks and not server and not cluster"

# JupyterLab on this environment; open any notebook with the "Python (rag-bias-lab)" kernel.
# LAB_ARGS go to JupyterLab as given, e.g. make lab LAB_ARGS="--port=8899 --no-browser"
LAB_ARGS ?=
lab: install
	$(VENV)/bin/jupyter lab --ServerApp.root_dir=. --MultiKernelManager.default_kernel_name=$(KERNEL) \
		$(if $(filter 0,$(shell id -u)),--allow-root) $(LAB_ARGS)

# e.g. make sweep GRID='--grid model=[local:smollm2,hf:gpt2]' JOBS=2 (a sweep ends with compare)
# on Ray: make sweep EXECUTOR=ray [ADDRESS=auto|host:port] (docs/cluster.md; installs the cluster extra)
JOBS ?= 1
EXECUTOR ?= local
ADDRESS ?=
sweep: install $(if $(filter ray,$(EXECUTOR)),install-cluster)
	$(PY) -m lib.runner sweep $(CONFIG) $(GRID) $(if $(filter ray,$(EXECUTOR)),--executor ray $(if $(ADDRESS),--address $(ADDRESS)),--jobs $(JOBS))

# e.g. make compare RUNS="'data/runs/demo__*'" NAME=my_comparison (docs/compare.md)
NAME ?= comparison
compare: install
	$(PY) -m lib.runner compare $(RUNS) --name $(NAME)

# the worked example of docs/compare.md: both embedded models through a small sweep, then compare
compare-example: install
	$(PY) -m lib.runner sweep configs/compare_example.yaml --jobs $(JOBS)

# the judgments behind a run's findings, one self-contained page: data/runs/<run>/inspect.html (docs/inspect.md)
.PHONY: inspect
RUN ?=
inspect: install
	@test -n "$(RUN)" || { echo "usage: make inspect RUN=<run name or folder> [MEASURE=<measure_id>]"; exit 2; }
	$(PY) -m lib.inspect '$(RUN)' $(if $(MEASURE),--measure '$(MEASURE)')

# the bias profile of one model: data/runs/profile__<model>/profile.html (docs/profile.md)
.PHONY: profile
MODEL ?= local:smollm2
profile: install
	$(PY) -m lib.profile --model '$(MODEL)'

benchmark: install
	$(PY) benchmarks/bench_foundation.py
	$(PY) benchmarks/bench_inference.py
	$(PY) benchmarks/bench_concurrency.py
	$(PY) benchmarks/bench_prefix_reuse.py --run $(notdir $(basename $(CONFIG)))
	$(PY) benchmarks/bench_sim_server.py
	$(MAKE) benchmark-known-truth

strip:
	$(PY) -m lib.nbstrip notebooks/*.ipynb

clean-runs:
	rm -rf data/runs figures/*/

# Known truth (docs/known_truth.md): the simulated judge with planted biases answers the studies'
# notebooks; exits non-zero when the findings miss what was planted. e.g. make validate TRUTH=configs/known_truth_null.yaml
.PHONY: validate
TRUTH ?= configs/known_truth.yaml
SIZE ?=
CONCURRENCY ?=
PARALLEL ?=
UTILITY_SIZES ?=
validate: install
	$(PY) -m lib.simulate validate --truth $(TRUTH) $(if $(SIZE),--size $(SIZE)) $(if $(CONCURRENCY),--concurrency $(CONCURRENCY)) $(if $(PARALLEL),--parallel $(PARALLEL)) $(if $(UTILITY_SIZES),--utility-sizes $(UTILITY_SIZES))

# planted pipeline defects (benchmarks/mutants.yaml), each in a scratch copy checked by the smallest
# validate that should catch it: a caught / not caught table (docs/known_truth.md, "Mutants")
# e.g. make validate-mutants MUTANT_ARGS="--only own_other_swap,one_sided_test --jobs 2"
.PHONY: validate-mutants
MUTANT_ARGS ?=
validate-mutants: install
	$(PY) benchmarks/validate_mutants.py $(MUTANT_ARGS)

# N truth files drawn from declared ranges (docs/known_truth.md, "Random truth files"), each validated;
# fails where a notebook covers below 90% of its rows over the draws. e.g. make validate-random N=5 SIZE=20
.PHONY: validate-random
N ?= 5
SEED ?= 0
validate-random: install
	$(PY) -m lib.simulate validate --random $(N) --seed $(SEED) $(if $(SIZE),--size $(SIZE))

# questions for 80% power of the headline effects at 3 planted sizes (docs/power.md): data/runs/power/
# e.g. make power POWER_ARGS="--config configs/my_run.yaml --reps 400" (Holm families counted at that design)
.PHONY: power
POWER_ARGS ?=
power: install
	$(PY) -m lib.simulate.power --truth $(TRUTH) $(POWER_ARGS)

# replications of the known-truth check (part of `make benchmark`): coverage per measure family, false
# detection of planted nulls; 20 seeds x both truth files, every notebook with truths (docs/known_truth.md)
# e.g. make benchmark-known-truth KT_ARGS="--families rm,utility --seeds 40"
.PHONY: benchmark-known-truth
KT_ARGS ?=
benchmark-known-truth: install
	$(PY) benchmarks/bench_known_truth.py $(KT_ARGS)
