#!/usr/bin/env bash
# Build the LeRobot policy venv: rsb_mj (editable, test extras) + lerobot + torch, in one
# Python 3.11 venv, from the package registries only. `rsb eval --policy lerobot:CKPT`,
# `lerobot-train`, vla-eval's LeRobot model server and the tests of tests/policies/
# test_lerobot*.py run in it (the tests find it through RSB_LEROBOT_VENV).
#
# Usage: tools/lerobot_venv.sh VENV_DIR        (reuses VENV_DIR when it is already complete)
#        tools/lerobot_venv.sh --help
#
# What it installs, and why not simply `pip install 'rsb_mj[lerobot-policy]'` (which also
# works, with the torch lerobot pins):
#   torch 2.14.1 and torchvision 0.29.1 (CUDA 13 builds, they run on CPU too): lerobot 0.4.4
#     (the newest lerobot for Python 3.11) pins torch < 2.11, which pip would fetch with
#     ~3 GB of CUDA libraries; this machine and CI hold torch 2.14.1, torchvision 0.29.1 and
#     their CUDA libraries on disk (pip's local index). The CPU-only torch 2.13.0 wheel on
#     disk has no torchvision: PyPI's torchvision 0.28.0 links the CUDA torch and fails to
#     load its operators on the CPU build. lerobot 0.4.4 is installed with --no-deps, then
#     every requirement it declares except torch, torchvision and torchcodec (read from its
#     own metadata, so the other pins stay lerobot's).
#   torchcodec: torchvision >= 0.25 no longer decodes video, so LeRobotDataset reads the MP4s
#     through torchcodec (0.14, the release for torch 2.14), which loads the system's FFmpeg
#     libraries (Debian: libavcodec59 and friends; this script installs them with apt-get
#     when it runs as root and they are missing).
# Nothing is downloaded at run time: the tests train ACT with
# --policy.pretrained_backbone_weights=null (no ImageNet weights).
set -euo pipefail
if [ "${1:-}" = "--help" ] || [ "${1:-}" = "-h" ] || [ $# -ne 1 ]; then
  awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
  [ $# -eq 1 ] && exit 0 || exit 2
fi
cd "$(dirname "$0")/.."
VENV="$1"
PY="${PYTHON:-python}"
LEROBOT=0.4.4
TORCH=2.14.1
TORCHVISION=0.29.1
TORCHCODEC=0.14.0
STAMP="$VENV/.rsb_lerobot_venv"
WANT="lerobot=$LEROBOT torch=$TORCH torchvision=$TORCHVISION torchcodec=$TORCHCODEC"

if ! ldconfig -p | grep -q "libavcodec.so"; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      libavcodec59 libavformat59 libavutil57 libswscale6 libswresample4 libavdevice59 \
      libavfilter8 >/dev/null
  else
    echo "lerobot_venv: FFmpeg's shared libraries (libavcodec) are missing; install them" >&2
    exit 2
  fi
fi

if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$WANT" ] && [ -x "$VENV/bin/python" ]; then
  "$VENV/bin/pip" install -q --disable-pip-version-check -e ".[test]"  # this checkout's deps
  echo "lerobot_venv: $VENV is ready ($WANT)"
  exit 0
fi
"$PY" -m venv "$VENV"
pip() { "$VENV/bin/pip" install -q --disable-pip-version-check "$@"; }
pip "torch==$TORCH" "torchvision==$TORCHVISION" "torchcodec==$TORCHCODEC"
pip --no-deps "lerobot==$LEROBOT"
mapfile -t REQS < <("$VENV/bin/python" - <<'PY'
from importlib.metadata import requires
skip = {"torch", "torchvision", "torchcodec"}
for req in requires("lerobot"):
    name = req.split(";")[0]
    for sep in "<>=![ ~":
        name = name.split(sep)[0]
    if "extra ==" not in req and name.strip().lower() not in skip:
        print(req)
PY
)
pip "${REQS[@]}" -e ".[test]"
"$VENV/bin/python" -c "import lerobot, torch, torchcodec, rsb_mj; from lerobot.policies.act.modeling_act import ACTPolicy"
echo "$WANT" > "$STAMP"
echo "lerobot_venv: built $VENV ($WANT)"
