# Two entry points, each doing its own set-up in .venv:
#   make demo   evaluate the embedded reference RAG system on the demo suites (offline, seconds)
#   make test   run the plugin's own test suite (installs every extra first)
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip install -q --disable-pip-version-check

.PHONY: demo test

$(VENV)/.core: pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	$(PIP) -e .
	touch $@

# torch first, pinned: on a CPU-only machine a bare "torch" requirement pulls a multi-GB CUDA build.
$(VENV)/.dev: $(VENV)/.core
	$(PIP) torch==2.13.0
	$(PIP) -e ".[dev,nli,ragas,llm]"
	touch $@

# pytest exits 1 when items fail, and the reference system's misses are real failures: that is the
# demo working. Any other status (a usage or internal error) still fails make.
demo: $(VENV)/.core
	@$(PY) -m pytest suites -m groundedness -q -rN --sprout-mutate --sprout-report=sprout-report.json \
		--sprout-html=sprout-report.html --sprout-md=sprout-summary.md; status=$$?; \
	if [ $$status -gt 1 ]; then exit $$status; fi; \
	echo "sprout demo: the evaluation finished; the failures above are the reference system's real misses."; \
	echo "reports: sprout-report.html (open in a browser), sprout-report.json, sprout-summary.md"

# The tests never reach a model hub or a telemetry endpoint: offline and opted out, whatever the shell has.
test: $(VENV)/.dev
	HF_HUB_OFFLINE=1 RAGAS_DO_NOT_TRACK=true DEEPEVAL_TELEMETRY_OPT_OUT=1 DEEPEVAL_DISABLE_DOTENV=1 \
		$(PY) -m pytest tests -n 2 -q
