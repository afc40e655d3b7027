#!/usr/bin/env bash
# Build (or reuse) the venv in which openpi's copied source files (tests/third_party/openpi)
# run for tests/policies/test_openpi_conformance.py: everything from PyPI, CPU only, at
# openpi's own pins where it pins (jax 0.5.3, flax 0.10.2, jaxtyping 0.2.36, beartype
# 0.19.0, chex 0.1.90, orbax-checkpoint 0.11.13, transformers 4.53.2, numpy < 2). No PyTorch:
# the copied files import it for one type alias (see tests/third_party/openpi/README.md).
# About 1.2 GB, 2 min on 2 cores.
#
# Usage: tools/openpi_venv.sh [VENV]   (default .venvs/openpi; prints the venv's python).
# A venv whose requirements stamp matches is reused. Exit 0 ready, 1 pip failed, 2 usage.
set -euo pipefail
case "${1:-}" in -h|--help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0;; esac
[ $# -le 1 ] || { echo "usage: tools/openpi_venv.sh [VENV]" >&2; exit 2; }
cd "$(dirname "$0")/.."
VENV="${1:-.venvs/openpi}"
REQS=(
  "jax[cpu]==0.5.3" "flax==0.10.2" "jaxtyping==0.2.36" "beartype==0.19.0" "numpy<2"
  "numpydantic>=1.6.6" "pydantic>=2" "einops>=0.8.0" "sentencepiece>=0.2.0" "chex==0.1.90"
  "orbax-checkpoint==0.11.13" "ml-dtypes==0.4.1" "tensorstore==0.1.74" "filelock>=3.16"
  "fsspec>=2024.6.0" "tqdm-loggable>=0.2" "openpi-client==0.1.2" "websockets>=14"
  "pyarrow>=15,<23" "av>=12" "tyro>=0.9.5" "etils>=1.5" "transformers==4.53.2"
)
STAMP="$(printf '%s\n' "${REQS[@]}" | sha256sum | cut -c1-16)"
if [ -x "$VENV/bin/python" ] && [ "$(cat "$VENV/.rsb-stamp" 2>/dev/null)" = "$STAMP" ]; then
  echo "$VENV/bin/python"
  exit 0
fi
rm -rf "$VENV"
python3 -m venv "$VENV"
"$VENV/bin/pip" install -q --disable-pip-version-check "${REQS[@]}" 2>&1 \
  | grep -v "^WARNING: Location" >&2 || true
"$VENV/bin/python" -c "import jax, flax, numpydantic, openpi_client, sentencepiece, av" \
  || { echo "openpi_venv: the venv at $VENV lacks packages (pip failed)" >&2; exit 1; }
echo "$STAMP" > "$VENV/.rsb-stamp"
echo "$VENV/bin/python"
