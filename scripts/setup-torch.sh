#!/usr/bin/env bash
# Create the Python venv that provides libtorch (torch==$TORCH_VERSION from PyPI), once.
#
# Idempotent: a marker file is written only after a successful install, and a re-run that finds
# it does nothing. A half-finished install (no marker) is resumed: `python3 -m venv` and
# `pip install` both accept an existing venv.
#
# Environment:
#   FAIRYZERO_TORCH_VENV  venv location (default: ~/.cache/fairyzero/torch-$TORCH_VERSION)
#   TORCH_VERSION         PyTorch version to install (default 2.13.0; tch 0.26 needs 2.13.x)
#   PYTHON                interpreter used to create the venv (default python3)
set -euo pipefail

TORCH_VERSION="${TORCH_VERSION:-2.13.0}"
VENV="${FAIRYZERO_TORCH_VENV:-$HOME/.cache/fairyzero/torch-$TORCH_VERSION}"
PYTHON="${PYTHON:-python3}"
MARKER="$VENV/.fairyzero-torch-installed"

if [[ -f "$MARKER" && "$(cat "$MARKER")" == "torch==$TORCH_VERSION" && -x "$VENV/bin/python" ]]; then
    exit 0
fi

echo "setup-torch: installing torch==$TORCH_VERSION into $VENV (about 4.7 GB, a few minutes)" >&2
start=$SECONDS
mkdir -p "$(dirname "$VENV")"
"$PYTHON" -m venv "$VENV"
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "torch==$TORCH_VERSION"
# Check that torch imports and is the right version before declaring success.
"$VENV/bin/python" - "$TORCH_VERSION" <<'PY'
import sys, warnings
warnings.simplefilter("ignore")  # torch warns that numpy is missing; we do not need it
import torch
want = sys.argv[1]
got = torch.__version__.split("+")[0]
if got != want:
    sys.exit(f"setup-torch: expected torch {want}, the venv has {torch.__version__}")
print(f"setup-torch: torch {torch.__version__} ready", file=sys.stderr)
PY
echo "torch==$TORCH_VERSION" > "$MARKER"
echo "setup-torch: done in $((SECONDS - start)) s" >&2
