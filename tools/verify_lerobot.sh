#!/usr/bin/env bash
# Load `rsb export-lerobot` output with lerobot's own LeRobotDataset, in separate venvs
# (lerobot needs Python >= 3.12 / numpy >= 2 and is not an rsb_mj dependency):
#   v3.0 with lerobot 0.4.4 (codebase v3.0, current lerobot)
#   v2.1 with lerobot 0.3.3 (codebase v2.1, the format of the lerobot openpi pins)
# Every frame's state and action must equal the demonstration's (float32), every video
# frame must decode at its timestamp close to the demonstration's JPEG frame, and each
# frame's task must be the episode's instruction. Prints the figures; exit 0 when all hold.
#
# Usage: tools/verify_lerobot.sh [WORKDIR]     (default /tmp/rsb_verify_lerobot; venvs are
# kept there and reused). Needs rsb_mj with the lerobot-export extra in the current Python, a
# python3.12 (PY312=/path/to/python3.12 to choose) and PyPI access for the venvs.
set -euo pipefail
case "${1:-}" in -h | --help) sed -n '2,/^$/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
cd "$(dirname "$0")/.."
WORK="${1:-/tmp/rsb_verify_lerobot}"
PY312="${PY312:-$(command -v python3.12 || ls "$HOME"/.pyenv/versions/3.12*/bin/python3.12 2>/dev/null | head -1)}"
[ -x "$PY312" ] || { echo "verify_lerobot: no python3.12 (set PY312)" >&2; exit 2; }
mkdir -p "$WORK"

venv() {  # venv DIR LEROBOT_VERSION
  if [ ! -x "$1/bin/python" ] || ! "$1/bin/python" -c "import lerobot" 2>/dev/null; then
    "$PY312" -m venv "$1"
    "$1/bin/pip" install -q "lerobot==$2"
  fi
}
venv "$WORK/venv30" 0.4.4
venv "$WORK/venv21" 0.3.3
# lerobot 0.3.3 decodes through torchvision 0.22's pyav reader, which passes
# av.open(metadata_errors=...), gone from PyAV >= 15 (pip resolves av 19 for it).
"$WORK/venv21/bin/pip" install -q --only-binary :all: "av==14.2.0"

rsb demos RSB-Math-4 --split train -n 2 -o "$WORK/demos" --no-progress
rm -rf "$WORK/ds30" "$WORK/ds21"
rsb export-lerobot "$WORK/demos" -o "$WORK/ds30"
rsb export-lerobot "$WORK/demos" -o "$WORK/ds21" --lerobot-version 2.1

# Reference arrays from the HDF5 demonstrations (read with rsb_mj's own reader).
python - "$WORK" <<'PY'
import sys
from pathlib import Path
import numpy as np
from rsb_mj.datasets.demo_file import read_demo
work = Path(sys.argv[1])
ref = {"state": [], "action": [], "task": [], "head": [], "left_wrist": [], "right_wrist": []}
for path in sorted((work / "demos").glob("episode_*.hdf5")):
    d = read_demo(path)
    ref["state"].append(d.states); ref["action"].append(d.actions)
    ref["task"] += [str(d.attrs.get("prompt") or d.attrs["instruction"])] * len(d.actions)
    for cam in ("head", "left_wrist", "right_wrist"):
        ref[cam].append(np.stack(d.images[cam]))
np.savez(work / "ref.npz", **{k: (np.array(v) if k == "task" else np.concatenate(v)) for k, v in ref.items()})
PY

CHECK=$(cat <<'PY'
import sys, time
import numpy as np
import lerobot
from lerobot.datasets.lerobot_dataset import LeRobotDataset
root, work = sys.argv[1], sys.argv[2]
ref = np.load(f"{work}/ref.npz")
t0 = time.perf_counter()
ds = LeRobotDataset("rsb_mj/verify", root=root, video_backend="pyav")
n = len(ds)
assert ds.fps == 20, ds.fps
assert (ds.num_episodes, n) == (2, len(ref["action"])), (ds.num_episodes, n)
cams = {"head": "observation.images.cam_high", "left_wrist": "observation.images.cam_left_wrist",
        "right_wrist": "observation.images.cam_right_wrist"}
err = {c: [] for c in cams}
for i in range(n):
    item = ds[i]
    assert np.array_equal(item["observation.state"].numpy(), ref["state"][i].astype(np.float32)), i
    assert np.array_equal(item["action"].numpy(), ref["action"][i].astype(np.float32)), i
    assert item["task"] == str(ref["task"][i]), i
    for cam, key in cams.items():
        img = (item[key].numpy().transpose(1, 2, 0) * 255).round()
        err[cam].append(np.abs(img - ref[cam][i]).mean())
worst = {c: max(e) for c, e in err.items()}
mean = {c: float(np.mean(e)) for c, e in err.items()}
assert max(worst.values()) < 8.0, worst
print(f"lerobot {getattr(lerobot, '__version__', '?')}: LeRobotDataset({root}) codebase "
      f"{ds.meta.info['codebase_version']}: {ds.num_episodes} episodes, {n} frames, fps {ds.fps}; "
      f"state/action equal on every frame; tasks equal; video |error| per pixel (0-255) "
      f"mean {', '.join(f'{c} {v:.2f}' for c, v in mean.items())}, worst frame "
      f"{max(worst.values()):.2f}; load + read all in {time.perf_counter() - t0:.1f} s")
PY
)
HF_HUB_OFFLINE=1 "$WORK/venv30/bin/python" -c "$CHECK" "$WORK/ds30" "$WORK"
HF_HUB_OFFLINE=1 "$WORK/venv21/bin/python" -c "$CHECK" "$WORK/ds21" "$WORK"
echo "verify_lerobot: v3.0 and v2.1 exports load in LeRobotDataset"
