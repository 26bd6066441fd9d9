# Two entry points for a newcomer: `make demo` and `make test`. Both set up .venv first.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
# The CPU build of torch that lies on this kind of machine's disk; an unpinned torch would pull
# a multi-GB CUDA build. GPU machines use their own torch (see README).
TORCH_PIN ?= torch==2.13.0
TRITON_PIN ?= triton==3.9.0
OUT ?= out

.PHONY: venv demo demo-broken test lint clean sandboxes suite-check aot-check

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q "$(TORCH_PIN)" "$(TRITON_PIN)"
	$(PY) -m pip install -q -e ".[dev]"
	touch $@

venv: $(VENV)/.installed

# --force: the demo replaces its own earlier run; the example token log gets example prices.
demo: venv
	$(VENV)/bin/kgb verify examples/honest --jobs 2 --out $(OUT)/honest --force \
	  --pricing examples/pricing.example.toml

demo-broken: venv
	$(VENV)/bin/kgb verify examples/broken --jobs 2 --out $(OUT)/broken --timeout 30 --force

# Real isolation for the demo and for tests (as root on Debian/Ubuntu): bubblewrap and Docker,
# and the offline runner image. Without them kgb falls back to the `process` sandbox.
sandboxes: venv
	.ci/setup-sandboxes

# Two pytest-xdist workers, one a core: tests that share a run go to one worker, the slowest
# start first (tests/conftest.py). `-n 0` (or plain pytest) runs them in one process.
test: venv
	$(PY) -m pytest -q -n 2 --dist loadgroup --no-loadscope-reorder --durations=15

# Every task's quality check (`make test` checks a fixed quarter of the suite, see
# tests/test_suite_quality.py; KGB_QUALITY=all there checks all), then every task's solution
# through the whole pipeline, every CPU shape (hours on 2 cores). On a GPU machine: kgb suite
# check --device cuda.
suite-check: venv
	$(PY) -m kgb.suite.quality
	$(VENV)/bin/kgb suite check --device cpu --jobs 2 --out $(OUT)/suite --force

# Every solution's kernels compiled for sm_90 (no GPU needed) with the GPU image's Triton,
# installed aside in .cache (never into .venv): what the interpreter runs and the GPU's
# compiler refuses (scripts/aot_check.py): the front end (where tl.dot checks types and
# shapes), 456 tasks in ~215 s of CPU; AOT_ARGS="--upto cubin" adds layouts, LLVM and ptxas
# (0.3-1.4 s of CPU a compilation measured, ~7200 of them: 1-3 hours). Not in `make test`.
TRITON_GPU_PIN ?= triton==3.6.0
AOT_TRITON := .cache/aot-$(subst ==,-,$(TRITON_GPU_PIN))
aot-check: venv
	test -d $(AOT_TRITON) || $(PY) -m pip install -q --no-deps --target $(AOT_TRITON) "$(TRITON_GPU_PIN)"
	env -u TRITON_INTERPRET PYTHONPATH=$(AOT_TRITON) $(PY) scripts/aot_check.py --upto ttir $(AOT_ARGS)

# ruff (style, bugs) and mypy (types) over kgb/, configured in pyproject.toml; CI runs it.
lint: venv
	$(VENV)/bin/ruff check kgb
	$(VENV)/bin/mypy

clean:
	rm -rf $(VENV) $(OUT)
