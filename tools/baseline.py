"""The learned baseline: one small LeRobot ACT, trained from scratch on a CPU on rsb_mj's
expert demonstrations of A2A-Color (perceptual) and RSB-Math-4 (semantic), scored by
``rsb eval`` (issue 35). Does it learn to grasp (GSR), and does it choose above chance on
Color but at chance on Math (TSR, nSG)?

Stages (each a command a user would run; a finished stage is skipped, so a killed run resumes
where it stopped: rerun the same command):

1. ``rsb demos SUITE --split train -n DEMOS --cameras head --width W --height H`` for each
   suite -> ``OUT/demos/SUITE`` (the head camera only, at the policy's resolution);
2. ``rsb export-lerobot --cameras head --instruction-features DIM --no-fixture-joints`` of
   all suites' demos (``OUT/demos/all``: links to them) -> ``OUT/dataset``: every frame carries the
   instruction as DIM hashed word uni- and bigram counts (``observation.environment_state``),
   which ACT projects into a token with a learned layer: a text encoder trained from
   scratch, so the policy sees the instruction (ACT has no text input of its own);
3. ``lerobot-train --policy.type=act`` with a small configuration (ResNet-18 from random
   init, no pretrained weights, nothing downloaded; dim 256, 2 encoder / 1 decoder layers,
   chunks of 20, learning rate 1e-4) for STEPS steps -> ``OUT/train`` (resumes from its last
   checkpoint);
4. ``rsb eval --suite A2A-Color --suite RSB-Math-4 --policy lerobot:CKPT --name NAME`` on
   EPISODES eval rows each -> ``OUT/eval`` (``rsb eval`` resumes itself);
5. the table (GSR, TSR, nSG with Wilson 95% intervals, chance) -> ``OUT/baseline.md`` and
   ``OUT/baseline.json``; the training loss by step -> ``OUT/learning_curve.png``.

One policy is trained on both suites (the instruction tells them apart). The counts and
sizes of a folder are fixed by its first run (``OUT/baseline_args.json``); a rerun may raise
``--steps`` (training continues) or ``--episodes``, anything else needs a new ``--out``.

    nice -n 10 python tools/baseline.py --out runs/baseline --jobs 2

``--diagnose`` (on a finished folder) asks why RSB-Math-4's GSR is low instead. It rolls the
last checkpoint out on ``--diagnose-episodes`` rows of each of three sets, with the scene's
state at every gripper close command: ``seen`` (the train rows the demos were made from:
layout, question and instruction seen in training), ``new-layout`` (the train rows after
them: seen instruction templates, unseen layouts) and ``eval`` (unseen layouts and
templates); the expert on 10 seen rows as the reference of a close on a block. It also counts
which slot (the blocks left to right) the train demos grasp and how many pixels wide a block
is in the head camera at the folder's resolution. -> ``OUT/diagnosis.json``,
``OUT/diagnosis.md`` (finished episodes kept in ``OUT/diagnosis/episodes.jsonl``; a rerun
runs only the missing ones):

    nice -n 10 python tools/baseline.py --out runs/baseline --jobs 2 --diagnose

``--task FILE.bddl`` trains and scores one goal task (a LIBERO or VLA-Arena file, issue 42)
instead of the suites: ``rsb demos FILE.bddl`` on seeds 0..DEMOS-1 (the expert's
demonstrations; the instruction is the file's ``:language``) with the head and both wrist
cameras (``--cameras``; the expert uses the arm nearer the object, so either wrist), the
same export and training, then ``rsb eval FILE.bddl`` on the unseen seeds
``--eval-start``..``--eval-start``+EPISODES-1 (default 1000..): success and grasp rates
with Wilson 95% intervals, the terminations and failure classes -> ``OUT/baseline.md``,
``OUT/baseline.json``:

    nice -n 10 python tools/baseline.py --out runs/bowl --jobs 2 \
        --task tasks/libero/libero_goal/put_the_bowl_on_the_plate.bddl --demos 80 \
        --width 96 --height 96 --steps 2000 --episodes 40

``--head-camera question`` is an experiment switch (issue 42 item 5: the policy before and
after the camera change): demos and eval render the goal scene with the question scenes'
fixed head camera (:mod:`rsb_mj.scene.aloha` ``HEAD_EYE``/``HEAD_TARGET``/``HEAD_FOVY``,
what goal scenes had before :mod:`rsb_mj.scene.framing`) instead of the task's framed
one. The tool's ``rsb`` subprocesses (and their workers) load
``OUT/head_camera_question/sitecustomize.py`` through ``PYTHONPATH``, which replaces
``GoalLayout._frame_head`` by keeping the compiled camera; every record and demo carries the
pose it rendered with (``head_camera``).

Run it with the Python of the lerobot venv (``tools/lerobot_venv.sh VENV``); ``lerobot-train``
is taken from the same folder as that Python.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import h5py
import numpy as np

SUITES = ("A2A-Color", "RSB-Math-4")
#: The small ACT: lerobot's ACT with a narrower transformer and shorter chunks (the
#: ResNet-18 backbone is the cost; see docs/diagnosis.md, "A learned baseline").
SMALL_ACT = (
    "--policy.dim_model=256", "--policy.n_heads=4", "--policy.dim_feedforward=1024",
    "--policy.n_encoder_layers=2", "--policy.n_decoder_layers=1", "--policy.latent_dim=32",
    "--policy.chunk_size=20", "--policy.n_action_steps=20",
    # from scratch, lerobot's ACT default (1e-5, tuned for a pretrained backbone) is too slow
    "--policy.optimizer_lr=1e-4", "--policy.optimizer_lr_backbone=1e-4",
)  # fmt: skip
#: Arguments that fix what a folder holds: a rerun with other values needs a new --out.
FIXED = ("suites", "demos", "width", "height", "instruction_dim", "batch_size", "seed",
         "train_arg", "tiny", "task", "cameras", "head_camera", "eval_start")  # fmt: skip
#: What a folder made before --task existed holds for the fixed arguments it did not record.
FIXED_BEFORE_TASK = {"task": None, "cameras": "head", "head_camera": "goal", "eval_start": 0}
#: The cameras of a --task run (the expert grasps with either arm): the head and both wrists.
TASK_CAMERAS = "head,left_wrist,right_wrist"
#: ``--head-camera question``: the sitecustomize that keeps a goal scene's compiled head
#: camera (the question scenes' fixed one) instead of framing the task.
QUESTION_HEAD = '''"""tools/baseline.py --head-camera question: goal scenes keep the question
head camera (the compiled one of rsb_mj.scene.aloha) instead of framing the task."""
import numpy as np

from rsb_mj.scene import region_layout
from rsb_mj.scene.framing import HeadView


def _question_head(self):
    cid = self.model.camera("head").id
    mat = np.zeros(9)
    import mujoco

    mujoco.mju_quat2Mat(mat, self.model.cam_quat[cid])
    mat = mat.reshape(3, 3)
    self.head = HeadView(
        tuple(float(v) for v in self.model.cam_pos[cid]),
        tuple(float(v) for v in (*mat[:, 0], *mat[:, 1])),
        float(self.model.cam_fovy[cid]),
    )


region_layout.GoalLayout._frame_head = _question_head
'''
#: Prints the name of the goal layout's head framing in a subprocess (``_question_head`` when
#: :data:`QUESTION_HEAD` took).
SWITCH_PROBE = (
    "import sitecustomize\n"
    "from rsb_mj.scene.region_layout import GoalLayout\n"
    "print(GoalLayout._frame_head.__name__)"
)
LOSS_LINE = re.compile(r"\bloss:([0-9.eE+-]+)")
MARK = "# baseline: lerobot-train from step {start} logging every {every}"
TRAIN_S = re.compile(r"^# baseline: train ([0-9.]+) s$", re.M)
MARK_LINE = re.compile(r"^# baseline: lerobot-train from step (\d+) logging every (\d+)")


def worker_policy(spec: str) -> tuple[object, tuple[str, ...]]:
    """A diagnosis worker's policy of ``spec`` (``expert`` or ``lerobot:CKPT``) and the
    cameras it reads, built once per process."""
    if spec not in _WORKER:
        if spec == "expert":
            from rsb_mj.policies.scripted import ExpertPolicy

            _WORKER[spec] = (ExpertPolicy(), ())
        else:
            from rsb_mj.policies.lerobot import LeRobotPolicy

            policy = LeRobotPolicy(spec)
            _WORKER[spec] = (policy, policy.cameras)
    return _WORKER[spec]


def traced(store: Path, key: str) -> dict[tuple, dict]:
    """The diagnosis episodes already traced in ``store`` (its folder made if missing), by
    ``(arm, row[key], max_steps)``: a rerun runs only the missing ones."""
    store.parent.mkdir(exist_ok=True)
    done = {}
    if store.is_file():
        for line in store.read_text().splitlines():
            row = json.loads(line)
            done[(row["arm"], row[key], row["max_steps"])] = row
    return done


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line (see the module docstring)."""
    p = argparse.ArgumentParser(
        prog="baseline.py",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="\n\n".join(__doc__.split("\n\n")[1:]),
    )
    p.add_argument("--out", type=Path, required=True, help="run folder (resumed)")
    p.add_argument(
        "--suites", default=",".join(SUITES), help=f"comma-separated suites ({','.join(SUITES)})"
    )
    p.add_argument(
        "--task",
        type=Path,
        help="a goal task file (.bddl) instead of --suites: demos on seeds 0..DEMOS-1, eval "
        "on seeds --eval-start.. (see the docstring)",
    )
    p.add_argument("--eval-start", type=int, default=None, help="--task: first eval seed (1000)")
    p.add_argument(
        "--cameras",
        default=None,
        help=f"cameras recorded and exported (head; with --task: {TASK_CAMERAS})",
    )
    p.add_argument(
        "--head-camera",
        choices=("goal", "question"),
        default="goal",
        help="--task experiment switch: the head camera goal scenes render with (goal: framed "
        "for the task; question: the question scenes' fixed one, as before issue 42)",
    )
    p.add_argument(
        "--demos",
        type=int,
        default=100,
        help="train demos per suite (100: A2A-Color's train table has 100 rows)",
    )
    p.add_argument("--steps", type=int, default=5000, help="training steps (5000)")
    p.add_argument("--episodes", type=int, default=200, help="eval episodes per suite (200)")
    p.add_argument("--batch-size", type=int, default=16, help="training batch size (16)")
    p.add_argument("--width", type=int, default=128, help="head camera width [px] (128)")
    p.add_argument("--height", type=int, default=96, help="head camera height [px] (96)")
    p.add_argument(
        "--instruction-dim", type=int, default=256, help="instruction vector length (256)"
    )
    p.add_argument("--jobs", type=int, default=1, help="worker processes for demos and eval")
    p.add_argument("--max-steps", type=int, help="eval step limit (default: the suite's)")
    p.add_argument("--save-every", type=int, default=1000, help="checkpoint every N steps")
    p.add_argument("--log-every", type=int, default=100, help="loss logged every N steps")
    p.add_argument("--seed", type=int, default=1000, help="lerobot-train's seed (1000)")
    p.add_argument("--name", default="baseline-act-cpu", help="the policy's name in records")
    p.add_argument(
        "--tiny",
        action="store_true",
        help="a tiny ACT (dim 64, 1+1 layers) for tests, instead of the baseline's",
    )
    p.add_argument(
        "--diagnose",
        action="store_true",
        help=f"diagnose a finished run's {DIAG_SUITE} grasping instead (see the docstring): "
        "OUT/diagnosis.json and OUT/diagnosis.md",
    )
    p.add_argument(
        "--diagnose-episodes",
        type=int,
        default=50,
        help="--diagnose: episodes per set of rows (50)",
    )
    p.add_argument(
        "--train-arg",
        action="append",
        default=[],
        metavar="ARG",
        help="extra lerobot-train argument, e.g. --train-arg=--policy.dim_model=128 (repeatable)",
    )
    args = p.parse_args(argv)
    for name in ("demos", "steps", "episodes", "batch_size", "jobs", "width", "height",
                 "instruction_dim", "save_every", "log_every", "diagnose_episodes"):  # fmt: skip
        if getattr(args, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be at least 1")
    if args.width * 3 != args.height * 4:
        p.error(
            f"--width {args.width} --height {args.height} is not 4:3: rsb eval renders "
            "320x240 and pads an image of another shape to the policy's (black bars, a "
            "wider view than the demos'), e.g. --width 96 --height 72"
        )
    args.suites = [s for s in args.suites.split(",") if s]
    from rsb_mj.errors import RsbError
    from rsb_mj.suites import get_suite

    if args.task is not None:
        if not args.task.is_file():
            p.error(f"--task {args.task}: no such file")
        args.task = str(args.task.resolve())
        args.suites = []
        args.eval_start = 1000 if args.eval_start is None else args.eval_start
        if args.eval_start < args.demos:
            p.error(f"--eval-start {args.eval_start} must be at least --demos {args.demos} "
                    "(the eval seeds must be unseen)")  # fmt: skip
        args.cameras = args.cameras or TASK_CAMERAS
        return args
    for name in ("eval_start",):
        if getattr(args, name) is not None:
            p.error(f"--{name.replace('_', '-')} needs --task")
    if args.head_camera != "goal":
        p.error("--head-camera needs --task (question scenes have one head camera)")
    args.eval_start = 0
    args.cameras = args.cameras or "head"

    for suite in args.suites:
        try:
            get_suite(suite)
        except RsbError as exc:
            p.error(f"--suites: {exc}")
    if not args.suites:
        p.error("--suites names no suite")
    return args


def run(
    cmd: list[str], log: Path, ok: tuple[int, ...] = (0,), env: dict[str, str] | None = None
) -> int:
    """Run one stage, its output appended to ``log``; exit if its status is not in ``ok``."""
    print("+ " + " ".join(cmd), flush=True)
    t0 = time.perf_counter()
    with log.open("a") as fh:
        done = subprocess.run(cmd, stdout=fh, stderr=subprocess.STDOUT, check=False, env=env)
    print(f"  ({time.perf_counter() - t0:.1f} s)", flush=True)
    if done.returncode not in ok:
        tail = log.read_text().splitlines()[-20:]
        print("\n".join(tail), file=sys.stderr)
        sys.exit(f"baseline: {Path(cmd[0]).name} {cmd[1] if len(cmd) > 1 else ''} failed "
                 f"(exit {done.returncode}); full log: {log}")  # fmt: skip
    return done.returncode


def rsb(*args: str) -> list[str]:
    """An ``rsb`` command in this Python."""
    return [sys.executable, "-m", "rsb_mj", *args]


def checkpoint(train_dir: Path) -> Path:
    """The last checkpoint's ``pretrained_model`` folder."""
    return train_dir / "checkpoints" / "last" / "pretrained_model"


def trained_steps(train_dir: Path) -> int:
    """Steps of the last checkpoint (0 when there is none)."""
    state = train_dir / "checkpoints" / "last" / "training_state" / "training_step.json"
    return int(json.loads(state.read_text())["step"]) if state.is_file() else 0


def check_fixed(args: argparse.Namespace, out: Path) -> None:
    """Record the folder's fixed arguments on its first run; exit when a rerun differs."""
    path = out / "baseline_args.json"
    want = {k: getattr(args, k) for k in FIXED}
    if path.is_file():
        have = {**FIXED_BEFORE_TASK, **json.loads(path.read_text())}
        diff = [k for k in FIXED if have.get(k) != want[k]]
        if diff:
            what = [f"--{k.replace('_', '-')} ({have.get(k)!r}, now {want[k]!r})" for k in diff]
            sys.exit(f"baseline: {out} was made with other {', '.join(what)}; use a new --out")
        return
    from rsb_mj.atomic import atomic_write_text

    atomic_write_text(path, json.dumps(want, indent=2) + "\n")


def sources(args: argparse.Namespace) -> list[str]:
    """The folders under ``OUT/demos`` this run's demos go to: one per suite, or the task
    file's stem for ``--task``."""
    return [Path(args.task).stem] if args.task else list(args.suites)


def subprocess_env(args: argparse.Namespace, out: Path) -> dict[str, str] | None:
    """The environment of the ``rsb`` subprocesses: ``None`` (this one's), or for
    ``--head-camera question`` one whose ``PYTHONPATH`` starts with the folder of
    :data:`QUESTION_HEAD` (written here)."""
    if args.head_camera == "goal":
        return None
    from rsb_mj.atomic import atomic_write_text

    folder = out / "head_camera_question"
    folder.mkdir(exist_ok=True)
    atomic_write_text(folder / "sitecustomize.py", QUESTION_HEAD)
    path = [str(folder), *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(path)}
    # Python only warns when a sitecustomize fails to import: check the switch took, or the
    # "question camera" run would silently record the framed one
    took = subprocess.run(
        [sys.executable, "-c", SWITCH_PROBE], env=env, capture_output=True, text=True, check=False
    )
    if took.returncode != 0 or took.stdout.strip() != "_question_head":
        said = (took.stderr.strip().splitlines() or ["no output"])[-1]
        raise SystemExit(
            f"baseline.py: --head-camera question: the switch in {folder / 'sitecustomize.py'} "
            f"did not take in {sys.executable} ({said})"
        )
    return env


def link_demos(demos: Path, suites: list[str]) -> Path:
    """``demos/all``: a link to every suite's demonstration files, in suite then row order."""
    combined = demos / "all"
    if combined.exists():
        shutil.rmtree(combined)
    combined.mkdir()
    for s, suite in enumerate(suites):
        for path in sorted((demos / suite).glob("episode_*.hdf5")):
            (combined / f"episode_{s}{path.name.removeprefix('episode_')}").symlink_to(path)
    return combined


def train_command(args: argparse.Namespace, dataset: Path, train_dir: Path) -> list[str]:
    """``lerobot-train`` for this run (a resume when a checkpoint exists)."""
    exe = str(Path(sys.executable).with_name("lerobot-train"))
    if trained_steps(train_dir):
        config = checkpoint(train_dir) / "train_config.json"
        return [exe, f"--config_path={config}", "--resume=true", f"--steps={args.steps}"]
    model = TINY_ACT if args.tiny else SMALL_ACT
    return [
        exe,
        "--dataset.repo_id=rsb_mj/baseline",
        f"--dataset.root={dataset}",
        "--policy.type=act",
        "--policy.device=cpu",
        "--policy.vision_backbone=resnet18",
        "--policy.pretrained_backbone_weights=null",
        "--policy.push_to_hub=false",
        *model,
        f"--steps={args.steps}",
        f"--batch_size={args.batch_size}",
        f"--save_freq={args.save_every}",
        f"--log_freq={args.log_every}",
        "--eval_freq=0",
        f"--seed={args.seed}",
        "--num_workers=0",
        "--wandb.enable=false",
        f"--output_dir={train_dir}",
        *args.train_arg,
    ]


#: The tests' ACT (seconds per step on a CPU, learns nothing).
TINY_ACT = (
    "--policy.dim_model=64", "--policy.n_heads=2", "--policy.dim_feedforward=128",
    "--policy.n_encoder_layers=1", "--policy.n_decoder_layers=1", "--policy.latent_dim=8",
    "--policy.chunk_size=20", "--policy.n_action_steps=20",
    # from scratch, lerobot's ACT default (1e-5, tuned for a pretrained backbone) is too slow
    "--policy.optimizer_lr=1e-4", "--policy.optimizer_lr_backbone=1e-4",
)  # fmt: skip


def loss_curve(log_text: str) -> list[tuple[int, float]]:
    """(step, loss) of every loss ``lerobot-train`` logged, from the training log.

    lerobot prints steps rounded ("1K"), so each loss line's step is counted from the last
    ``MARK`` line this tool wrote before starting ``lerobot-train`` (its start step and
    ``--log_freq``). A resumed run repeats the steps after its checkpoint: the later value of
    a step wins.
    """
    points: dict[int, float] = {}
    start, every, n = 0, 0, 0
    for line in log_text.splitlines():
        mark = MARK_LINE.match(line)
        if mark:
            start, every, n = int(mark.group(1)), int(mark.group(2)), 0
            continue
        loss = LOSS_LINE.search(line)
        if loss and every and "step:" in line:
            n += 1
            points[start + n * every] = float(loss.group(1))
    return sorted(points.items())


def plot_curve(points: list[tuple[int, float]], path: Path, title: str) -> None:
    """The learning curve (training loss by step, log scale) as a PNG, written atomically."""
    import io

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from rsb_mj.atomic import atomic_write_bytes

    fig, ax = plt.subplots(figsize=(6, 3.5), dpi=100)
    if points:
        ax.plot([s for s, _ in points], [v for _, v in points], marker=".")
        ax.set_yscale("log")
    else:
        ax.text(0.5, 0.5, "no loss logged yet", ha="center", va="center", transform=ax.transAxes)
    ax.set_xlabel("training step")
    ax.set_ylabel("training loss (L1 + KL)")
    ax.set_title(title, fontsize=9)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", metadata={"Software": None})
    plt.close(fig)
    atomic_write_bytes(path, buf.getvalue())


def summary_rows(eval_dir: Path) -> list[dict]:
    """GSR, TSR, nSG per suite of the eval run (rsb_mj's own metrics over its records)."""
    from rsb_mj.evaluation.metrics import summarize
    from rsb_mj.evaluation.run_folder import RunFolder

    rows = []
    for row in summarize(RunFolder(eval_dir).records()):
        rows.append({
            "suite": row.suite, "policy": row.policy, "choices": row.choices,
            "episodes": row.episodes, "errors": row.errors,
            "gsr": row.gsr.value, "gsr_interval": list(row.gsr.interval),
            "tsr": row.tsr.value, "tsr_interval": list(row.tsr.interval),
            "nsg": row.nsg, "chance": 1.0 / row.choices,
        })  # fmt: skip
    return rows


def task_summary(eval_dir: Path, demo_dir: Path) -> dict:
    """A ``--task`` run's figures: success and grasp rates (Wilson 95%) over the eval
    episodes, their terminations, failure classes and steps; the demos kept (expert
    successes) and their length; the head camera pose the episodes rendered with."""
    from collections import Counter

    from rsb_mj.evaluation.run_folder import RunFolder

    records = sorted(RunFolder(eval_dir).records(), key=lambda r: r.seed)
    ok = [r for r in records if not r.is_error]
    heads = {json.dumps(r.sim.get("head_camera"), sort_keys=True) for r in ok}
    lengths = []
    kept = 0
    for path in sorted(demo_dir.glob("episode_*.hdf5")):
        with h5py.File(path, "r") as f:
            if bool(f.attrs["success"]):
                kept += 1
                lengths.append(int(f.attrs["num_frames"]))
    return {
        "episodes": len(records),
        "errors": len(records) - len(ok),
        "seeds": [records[0].seed, records[-1].seed] if records else [],
        "success": rate(sum(r.success for r in ok), len(ok)),
        "grasped": rate(sum(r.grasped for r in ok), len(ok)),
        "terminations": dict(Counter(r.termination for r in ok)),
        "failure_classes": dict(Counter(r.failure_class or "" for r in ok if not r.success)),
        "steps_of_successes": sorted(r.steps for r in ok if r.success),
        "max_steps": ok[0].max_steps if ok else None,
        "head_camera": [json.loads(h) for h in sorted(heads)],
        "demos_kept": kept,
        "demo_frames": [min(lengths), int(np.median(lengths)), max(lengths)] if lengths else [],
    }


def task_table(args: argparse.Namespace, summary: dict) -> str:
    """The markdown table of a ``--task`` run. The records' ``grasped`` is kept in
    ``baseline.json`` only: on put_the_bowl_on_the_plate it was False in every policy
    episode, the successful ones included (issue 42 item 5), so it does not say whether the
    mover was held; ``--diagnose`` measures the mover's lift instead."""
    steps = summary["steps_of_successes"]
    return (
        "| task | head camera | policy | episodes (seeds) | success [95% CI] | "
        "steps of the successes |\n|---|---|---|---|---|---|\n"
        f"| {Path(args.task).name} | {args.head_camera} | {args.name} | "
        f"{summary['episodes']} ({summary['errors']} errors; seeds "
        f"{'-'.join(map(str, summary['seeds']))}) | {fmt_rate(summary['success'])} | "
        f"{', '.join(map(str, steps)) or '-'} |\n"
    )


def finish_task(args: argparse.Namespace, out: Path, log: Path, t0: float) -> int:
    """``--task``: write ``OUT/baseline.json``, ``OUT/baseline.md`` and the learning curve."""
    from rsb_mj.atomic import atomic_write_text

    train_dir = out / "train"
    summary = task_summary(out / "eval", out / "demos" / sources(args)[0])
    points = loss_curve(log.read_text())
    steps = trained_steps(train_dir)
    result = {
        "task": args.task, "head_camera": args.head_camera, "demos": args.demos,
        "steps": steps, "batch_size": args.batch_size,
        "cameras": f"{args.cameras} {args.width}x{args.height}",
        "instruction_dim": args.instruction_dim, "eval_start": args.eval_start, **summary,
        "train_s": train_seconds(log.read_text()),
        "loss": [[s, v] for s, v in points], "wall_s": round(time.perf_counter() - t0, 1),
        "cpus": os.cpu_count(),
    }  # fmt: skip
    atomic_write_text(out / "baseline.json", json.dumps(result, indent=2) + "\n")
    text = task_table(args, summary)
    atomic_write_text(out / "baseline.md", text)
    plot_curve(
        points,
        out / "learning_curve.png",
        f"{args.name}: ACT, {Path(args.task).stem}, {args.demos} demos, {args.cameras} "
        f"{args.width}x{args.height}, batch {args.batch_size}",
    )
    print(text, end="")
    print(f"baseline: {steps} steps; table {out / 'baseline.md'}, curve "
          f"{out / 'learning_curve.png'} ({result['wall_s']:.0f} s this run)")  # fmt: skip
    return 0


def train_seconds(log_text: str) -> float:
    """Seconds ``lerobot-train`` ran, summed over its runs (resumed ones too): the
    ``# baseline: train ... s`` lines :func:`main` appends to the log after each, also when
    it was stopped. A stopped run trained past its last checkpoint for up to
    ``--save-every`` steps that count here and are lost."""
    return round(sum(float(m) for m in TRAIN_S.findall(log_text)), 1)


def table(rows: list[dict]) -> str:
    """The markdown table of the rows (rates with Wilson 95% intervals)."""
    lines = [
        "| suite | policy | episodes | GSR [95% CI] | TSR [95% CI] | chance | nSG |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        gl, gh = r["gsr_interval"]
        tl, th = r["tsr_interval"]
        nsg = "n/a" if r["nsg"] is None else f"{r['nsg']:.3f}"
        lines.append(
            f"| {r['suite']} | {r['policy']} | {r['episodes']} ({r['errors']} errors) | "
            f"{r['gsr']:.1%} [{gl:.1%}, {gh:.1%}] | {r['tsr']:.1%} [{tl:.1%}, {th:.1%}] | "
            f"{r['chance']:.1%} | {nsg} |"
        )
    return "\n".join(lines) + "\n"


# ---- the diagnosis (--diagnose): why the policy rarely grasps on RSB-Math-4 ----------------

#: The suite the diagnosis looks at (the one whose GSR is low).
DIAG_SUITE = "RSB-Math-4"
#: A gripper command below this closes the gripper (0 closed .. 1 open; the env's rule).
CLOSED_BELOW = 0.5
#: The sets of rows the checkpoint is rolled out on: (name, split, what it tells apart).
#: ``seen`` are the rows the train demos were made from (layout, question and instruction
#: all seen in training); ``seen-blank`` the same rows with the instruction blanked (does the
#: image alone take it to the demo's block?); ``new-layout`` are train rows past the demos
#: (the seen instruction templates; layouts and questions never seen); ``eval`` the eval
#: rows (unseen templates too). The first row of ``new-layout`` is the folder's demo count.
ARMS = (
    ("seen", "train", "the train rows the demos were made from"),
    ("seen-blank", "train", "the same rows, the instruction blanked"),
    ("new-layout", "train", "train rows past the demos: seen templates, unseen layouts"),
    ("eval", "eval", "eval rows: unseen layouts and unseen templates"),
)
#: The arms that run their rows with an instruction ablation (rsb eval --instruction MODE).
ABLATION = {"seen-blank": "blank"}
#: Where the first close of an episode happens, by the tool center point's (TCP) distance in
#: the table plane from the nearest block's centre (blocks are 4 cm cubes placed at least
#: 7 cm apart): on a block (within its half width), near one (within half the minimum
#: spacing: nearer that block than any neighbour could be), or away from every block
#: (between blocks or over empty table); ``in the air`` is a close with the TCP higher above
#: the table than a block is tall, ``never`` an episode that never closes a gripper.
CLOSE_CLASSES = ("on a block", "near a block", "away from every block", "in the air", "never")
#: Spacing of the blocks' centres the task enforces [m] (rsb_math_4.bddl's :min_spacing).
MIN_SPACING_M = 0.07


def arm_rows(arm: str, demos: int, n: int) -> tuple[str, range]:
    """The split and rows of a diagnosis arm (see :data:`ARMS`) for a folder of ``demos``
    demos per suite and ``n`` episodes per arm (``seen`` is capped at ``demos``)."""
    split = {name: s for name, s, _ in ARMS}[arm]
    if arm in ("seen", "seen-blank"):
        return split, range(min(n, demos))
    if arm == "new-layout":
        return split, range(demos, demos + n)
    return split, range(n)


class CloseTracer:
    """``Rollout``'s ``on_step``: the state of the scene at every gripper close command.

    A close is a step whose action commands a gripper below :data:`CLOSED_BELOW` after a
    step (or the reset) that commanded it open. Each close keeps the step (1-based), the
    arm, the TCP's table-frame position [m] and every candidate's table-frame position [m]
    at the moment the command is sent.
    """

    def __init__(self, env) -> None:
        self.env = env
        self.step = 0
        self.open = {"left": True, "right": True}
        self.closes: list[dict] = []

    def __call__(self, obs, action) -> None:
        from rsb_mj.scene.frames import world_to_table

        self.step += 1
        u = self.env.unwrapped
        for side, index in (("left", 6), ("right", 13)):
            closed = float(action[index]) < CLOSED_BELOW
            if closed and self.open[side]:
                tcp = world_to_table(u.data.site(u.scene.gripper_sites[side]).xpos)
                blocks = {
                    c: world_to_table(u.data.body(c).xpos).round(4).tolist()
                    for c in u.scene.candidates
                }
                self.closes.append(
                    {"step": self.step, "arm": side, "tcp": tcp.round(4).tolist(), "blocks": blocks}
                )
            self.open[side] = not closed


def close_geometry(close: dict | None, target: str) -> dict:
    """Where one close happened: the TCP's distance in the table plane [m] from the nearest
    block's centre, from the target's, from the centroid of the blocks, its height above
    the table [m], the nearest block and the class (:data:`CLOSE_CLASSES`)."""
    if close is None:
        return {"class": "never"}
    tcp = np.array(close["tcp"])
    blocks = {c: np.array(p) for c, p in close["blocks"].items()}
    dist = {c: float(np.hypot(*(tcp[:2] - p[:2]))) for c, p in blocks.items()}
    nearest = min(dist, key=dist.get)
    centroid = np.mean([p[:2] for p in blocks.values()], axis=0)
    d_near = dist[nearest]
    height = float(tcp[2])
    if height > 0.04:  # higher than a block is tall (4 cm): closing in the air
        cls = "in the air"
    elif d_near <= 0.02:
        cls = "on a block"
    elif d_near <= MIN_SPACING_M / 2:
        cls = "near a block"
    else:
        cls = "away from every block"
    return {
        "class": cls,
        "nearest": nearest,
        "d_nearest_m": round(d_near, 4),
        "d_target_m": round(dist[target], 4),
        "d_centroid_m": round(float(np.hypot(*(tcp[:2] - centroid))), 4),
        "tcp_height_m": round(height, 4),
        "step": close["step"],
        "arm": close["arm"],
    }


def slot_of(block: str, xs: dict[str, float]) -> int:
    """The block's slot: 1..4 from left to right in the head camera (table x ascending)."""
    return 1 + sorted(xs, key=xs.get).index(block)


_WORKER: dict = {}


def _diag_episode(job: tuple[str, str, str, int, int]) -> dict:
    """One traced episode (a worker process; env and policy built once per process):
    ``job`` is (arm, policy spec or ``expert``, split, row, max steps)."""
    from rsb_mj.env import RsbEnv
    from rsb_mj.evaluation.ablations import ablate
    from rsb_mj.evaluation.rollout import Rollout
    from rsb_mj.tables.episode_source import load_episode, load_problem, task_path

    arm, spec, split, index, max_steps = job
    policy, cameras = worker_policy(spec)
    key = ("env", split, cameras)
    if key not in _WORKER:
        _WORKER[key] = RsbEnv(
            task_path(DIAG_SUITE), suite=DIAG_SUITE, split=split, cameras=cameras
        )  # 320x240, as rsb eval renders
    env = _WORKER[key]
    problem = load_problem(DIAG_SUITE)
    episode = load_episode(DIAG_SUITE, split, index)
    if arm in ABLATION:
        episode = ablate(episode, problem, ABLATION[arm])
    tracer = CloseTracer(env)
    record = Rollout(env, policy, episode, problem, max_steps=max_steps, on_step=tracer).run()
    if record.is_error:
        return {"arm": arm, "split": split, "index": index, "error": str(record.error)}
    xs = {c: float(p.x) for c, p in episode.layout.items()}
    first = tracer.closes[0] if tracer.closes else None
    return {
        "arm": arm,
        "split": split,
        "index": index,
        "question_id": episode.question_id,
        "target": episode.target,
        "target_slot": slot_of(episode.target, xs),
        "grasped": record.grasped,
        "choice": record.choice,
        "choice_slot": slot_of(record.choice, xs) if record.choice else None,
        "success": record.success,
        "steps": record.steps,
        "closes": len(tracer.closes),
        "first_close": close_geometry(first, episode.target),
        "trace": tracer.closes[:8],
    }


def demo_stats(demo_dir: Path) -> dict:
    """What the suite's train demos show: how many grasp the block in each slot (1..4, left
    to right), with which arm, and at which step the gripper closes (from each demo's
    actions and its episode's layout)."""
    slots, arms, steps = [0, 0, 0, 0], {"left": 0, "right": 0}, []
    for path in sorted(demo_dir.glob("episode_*.hdf5")):
        with h5py.File(path, "r") as f:
            episode = json.loads(f.attrs["episode"])
            target = str(f.attrs["target"])
            action = np.asarray(f["action"])
        xs = {c: float(p[0]) for c, p in episode["layout"].items()}
        slots[slot_of(target, xs) - 1] += 1
        closed = {
            side: np.flatnonzero(action[:, i] < CLOSED_BELOW)
            for side, i in (("left", 6), ("right", 13))
        }
        side = min((s for s in closed if closed[s].size), key=lambda s: closed[s][0])
        arms[side] += 1
        steps.append(int(closed[side][0]) + 1)
    return {
        "demos": sum(slots),
        "target_slot": slots,
        "arm": arms,
        "close_step": [min(steps), int(np.median(steps)), max(steps)] if steps else [],
    }


def demo_targets(demo_dir: Path) -> list[list[float]]:
    """Table-frame (x, y) [m] of each train demo's target block at reset (its layout)."""
    targets = []
    for path in sorted(demo_dir.glob("episode_*.hdf5")):
        with h5py.File(path, "r") as f:
            layout = json.loads(f.attrs["episode"])["layout"]
            targets.append([float(v) for v in layout[str(f.attrs["target"])][:2]])
    return targets


def nearest_target_m(points: list[list[float]], targets: list[list[float]]) -> list[float]:
    """Each table-plane point's distance [m] to the nearest of ``targets``."""
    p, t = np.asarray(points, float).reshape(-1, 2), np.asarray(targets, float).reshape(-1, 2)
    return np.hypot(*(p[:, None, :] - t[None, :, :]).transpose(2, 0, 1)).min(axis=1).tolist()


def uniform_nearest_target_m(targets: list[list[float]], n: int = 1000) -> float:
    """The median distance [m] from a point drawn uniformly in the task's candidates region
    (seeded) to the nearest demo target: what a close placed without regard to the demos
    would score on :func:`nearest_target_m`."""
    from rsb_mj.tables.episode_source import load_problem

    (rect,) = next(r.ranges for r in load_problem(DIAG_SUITE).regions if r.name == "candidates")
    rng = np.random.default_rng(0)
    points = np.c_[rng.uniform(rect.x0, rect.x1, n), rng.uniform(rect.y0, rect.y1, n)]
    return round(float(np.median(nearest_target_m(points.tolist(), targets))), 4)


def block_pixels(rows: range, width: int, height: int) -> dict:
    """How wide a block is in the head camera at the policy's resolution, and how far apart
    the blocks' centres are, in pixels: a segmentation render of each row's scene at reset
    (``width`` x ``height``, as the demos were rendered)."""
    import mujoco

    from rsb_mj.env import RsbEnv
    from rsb_mj.tables.episode_source import load_episode, task_path

    env = RsbEnv(task_path(DIAG_SUITE), suite=DIAG_SUITE, split="train", cameras=())
    u = env.unwrapped
    model = u.model
    model.vis.global_.offwidth = max(model.vis.global_.offwidth, width)
    model.vis.global_.offheight = max(model.vis.global_.offheight, height)
    renderer = mujoco.Renderer(model, height, width)
    renderer.enable_segmentation_rendering()
    option = mujoco.MjvOption()
    option.geomgroup[:] = [0, 1, 1, 0, 0, 0]
    widths, spacings = [], []
    try:
        for index in rows:
            env.reset(options={"episode": load_episode(DIAG_SUITE, "train", index)})
            renderer.update_scene(u.data, camera="head", scene_option=option)
            seg = renderer.render()[..., 0]
            centres = []
            for cand in u.scene.candidates:
                geoms = np.flatnonzero(model.geom_bodyid == model.body(cand).id)
                vs, us = np.nonzero(np.isin(seg, geoms))
                if us.size:
                    widths.append(int(us.max() - us.min() + 1))
                    centres.append((us.mean(), vs.mean()))
            c = np.array(centres)
            gaps = np.hypot(*(c[:, None, :] - c[None, :, :]).transpose(2, 0, 1))
            gaps[np.diag_indices(len(c))] = np.inf
            spacings += gaps.min(axis=1).tolist()
    finally:
        renderer.close()
        env.close()
    return {
        "rows": len(rows),
        "image": f"{width}x{height}",
        "block_width_px": [min(widths), float(np.median(widths)), max(widths)],
        "nearest_centre_px": [
            round(min(spacings), 1),
            round(float(np.median(spacings)), 1),
            round(max(spacings), 1),
        ],
        "metres_per_px": round(0.04 / float(np.median(widths)), 4),
    }


def rate(k: int, n: int) -> dict:
    """k of n with its Wilson 95% interval."""
    from rsb_mj.evaluation.metrics import wilson

    low, high = wilson(k, n)
    return {"k": k, "n": n, "rate": k / n if n else 0.0, "interval": [low, high]}


def summarize_arm(rows: list[dict], targets: list[list[float]]) -> dict:
    """GSR, TSR, the first closes by class and distance, the chosen slots of one arm;
    ``targets`` are the train demos' target positions (:func:`demo_targets`). A missed
    close is the first close of an episode that grasped nothing."""
    n = len(rows)
    classes = {c: sum(r["first_close"]["class"] == c for r in rows) for c in CLOSE_CLASSES}
    missed = [r for r in rows if not r["grasped"] and "d_nearest_m" in r["first_close"]]
    d_near = [r["first_close"]["d_nearest_m"] for r in missed]
    d_cent = [r["first_close"]["d_centroid_m"] for r in missed]
    tcps = [r["trace"][0]["tcp"][:2] for r in missed]
    d_demo = nearest_target_m(tcps, targets) if targets else []
    return {
        "episodes": n,
        "gsr": rate(sum(r["grasped"] for r in rows), n),
        "grasped_target": sum(r["grasped"] and r["choice"] == r["target"] for r in rows),
        "tsr": rate(sum(r["success"] for r in rows), n),
        "first_close": classes,
        "missed_closes": len(missed),
        "missed_d_nearest_m": quartiles(d_near),
        "missed_d_demo_target_m": quartiles(d_demo),
        "missed_nearer_centroid": sum(c < d for c, d in zip(d_cent, d_near, strict=True)),
        "choice_slot": [sum(r["choice_slot"] == s for r in rows) for s in (1, 2, 3, 4)],
        "target_slot": [sum(r["target_slot"] == s for r in rows) for s in (1, 2, 3, 4)],
    }


def quartiles(values: list[float]) -> list[float]:
    """The 25th, 50th and 75th percentiles, rounded to 0.1 mm ([] for no values)."""
    if not values:
        return []
    return [round(float(q), 4) for q in np.percentile(values, [25, 50, 75])]


def fmt_rate(r: dict) -> str:
    """``k/n (p%) [lo%, hi%]``."""
    lo, hi = r["interval"]
    return f"{r['k']}/{r['n']} ({r['rate']:.0%}) [{lo:.0%}, {hi:.0%}]"


def diagnosis_markdown(result: dict) -> str:
    """The diagnosis as markdown tables (``OUT/diagnosis.md``)."""
    arms = result["arms"]
    names = list(arms)
    lines = [
        f"# Why {DIAG_SUITE}'s GSR is low: {result['checkpoint']}",
        "",
        "| rows | policy | episodes | GSR [95% CI] | grasps of the target | TSR [95% CI] |",
        "|---|---|---|---|---|---|",
    ]
    for name in names:
        a = arms[name]
        lines.append(
            f"| {name} ({a['rows']}) | {a['policy']} | {a['episodes']} | "
            f"{fmt_rate(a['gsr'])} | {a['grasped_target']} of {a['gsr']['k']} | "
            f"{fmt_rate(a['tsr'])} |"
        )
    lines += [
        "",
        "First gripper close of each episode (the TCP's distance in the table plane "
        "from the nearest block's centre; blocks 4 cm, >= 7 cm apart):",
        "",
        "| rows | " + " | ".join(CLOSE_CLASSES) + " | missed closes: d nearest block "
        "[m] (25/50/75%) | d nearest demo target [m] | nearer the blocks' centroid |",
        "|---|" + "---|" * (len(CLOSE_CLASSES) + 3),
    ]
    for name in names:
        a = arms[name]
        near = "/".join(f"{v:.3f}" for v in a["missed_d_nearest_m"]) or "-"
        demo = "/".join(f"{v:.3f}" for v in a["missed_d_demo_target_m"]) or "-"
        lines.append(
            f"| {name} | "
            + " | ".join(str(a["first_close"][c]) for c in CLOSE_CLASSES)
            + f" | {near} | {demo} | {a['missed_nearer_centroid']} of {a['missed_closes']} |"
        )
    lines += [
        "",
        "A missed close is the first close of an episode that grasped nothing; its distance "
        "to the nearest train demo's target block (where a demo closed) compares with "
        f"{result['uniform_d_demo_target_m']:.3f} m (median) for a point drawn uniformly "
        "in the candidates region.",
    ]
    demos, pixels = result["demos"], result["pixels"]
    lines += [
        "",
        "Slots (1..4: the blocks left to right in the head camera):",
        "",
        "| what | slot 1 | slot 2 | slot 3 | slot 4 |",
        "|---|---|---|---|---|",
        "| train demos: target | " + " | ".join(map(str, demos["target_slot"])) + " |",
    ]
    for name in names:
        lines.append(
            f"| {name}: block grasped | " + " | ".join(map(str, arms[name]["choice_slot"])) + " |"
        )
    lines += [
        "",
        f"Train demos: {demos['demos']}, arm {demos['arm']}, gripper closes at step "
        f"{'/'.join(map(str, demos['close_step']))} (min/median/max).",
        f"Head camera {pixels['image']} ({pixels['rows']} rows): a block is "
        f"{'/'.join(map(str, pixels['block_width_px']))} px wide (min/median/max), the "
        f"nearest other block's centre {'/'.join(map(str, pixels['nearest_centre_px']))} "
        f"px away; {pixels['metres_per_px'] * 1000:.1f} mm a pixel at the blocks.",
        "",
    ]
    return "\n".join(lines)


def diagnose(args: argparse.Namespace) -> int:
    """``--diagnose``: roll the run's checkpoint out on RSB-Math-4's rows of each of
    :data:`ARMS` with a trace of every gripper close, the expert on the seen rows for
    reference, and count the demos' slots and the blocks' pixels; write
    ``OUT/diagnosis.json`` and ``OUT/diagnosis.md``. Finished episodes are kept in
    ``OUT/diagnosis/episodes.jsonl``: a rerun runs only the missing ones."""
    import multiprocessing

    from rsb_mj.atomic import atomic_write_text
    from rsb_mj.tables.episode_source import step_limit

    out = args.out
    made = out / "baseline_args.json"
    ckpt = checkpoint(out / "train")
    demo_dir = out / "demos" / DIAG_SUITE
    if not made.is_file() or not (ckpt / "config.json").is_file() or not demo_dir.is_dir():
        sys.exit(
            f"baseline: --diagnose needs a finished run in {out} (its {made.name}, "
            f"{DIAG_SUITE} demos and a checkpoint); run tools/baseline.py --out {out} first"
        )
    fixed = json.loads(made.read_text())
    demos, n = int(fixed["demos"]), args.diagnose_episodes
    max_steps = args.max_steps or step_limit(DIAG_SUITE)
    spec = f"lerobot:{ckpt}"
    jobs = []
    for i in range(n):
        for arm, _, _ in ARMS:
            split, rows = arm_rows(arm, demos, n)
            if i < len(rows):
                jobs.append((arm, spec, split, rows[i], max_steps))
    for i in arm_rows("seen", demos, min(n, 10))[1]:
        jobs.append(("expert", "expert", "train", i, max_steps))
    store = out / "diagnosis" / "episodes.jsonl"
    done = traced(store, "index")
    todo = [j for j in jobs if (j[0], j[3], j[4]) not in done]
    print(
        f"= {store}: {len(jobs) - len(todo)} of {len(jobs)} episodes traced, {len(todo)} to run",
        flush=True,
    )
    t0 = time.perf_counter()
    if todo:
        os.environ.setdefault("OMP_NUM_THREADS", "1")  # torch in the workers (spawned below)
        ctx = multiprocessing.get_context("spawn")
        with ctx.Pool(min(args.jobs, len(todo))) as pool:
            for row in pool.imap_unordered(_diag_episode, todo):
                if "error" in row:
                    sys.exit(
                        f"baseline: --diagnose: {row['arm']} {row['split']} row {row['index']} "
                        f"ended in an error ({row['error']}); rerun the same command to retry "
                        f"it (finished episodes are kept in {store})"
                    )
                row["max_steps"] = max_steps
                done[(row["arm"], row["index"], max_steps)] = row
                atomic_write_text(store, "".join(json.dumps(r) + "\n" for r in done.values()))
                print(
                    f"  {row['arm']} {row['split']} {row['index']}: grasped={row['grasped']} "
                    f"close={row['first_close']['class']}",
                    flush=True,
                )
    rows = [done[(j[0], j[3], j[4])] for j in jobs]
    targets = demo_targets(demo_dir)
    arms = {}
    for arm, split, what in (*ARMS, ("expert", "train", "the expert on the seen rows")):
        mine = [r for r in rows if r["arm"] == arm]
        if not mine:
            continue
        span = f"{split} {mine[0]['index']}-{mine[-1]['index']}"
        arms[arm] = {
            "rows": span,
            "what": what,
            "policy": "expert" if arm == "expert" else args.name,
            **summarize_arm(sorted(mine, key=lambda r: r["index"]), targets),
        }
    result = {
        "suite": DIAG_SUITE,
        "checkpoint": str(ckpt),
        "max_steps": max_steps,
        "arms": arms,
        "demos": demo_stats(demo_dir),
        "uniform_d_demo_target_m": uniform_nearest_target_m(targets),
        "pixels": block_pixels(range(min(demos, 20)), int(fixed["width"]), int(fixed["height"])),
        "wall_s": round(time.perf_counter() - t0, 1),
    }
    atomic_write_text(out / "diagnosis.json", json.dumps(result, indent=2) + "\n")
    text = diagnosis_markdown(result)
    atomic_write_text(out / "diagnosis.md", text)
    print(text, end="")
    return 0


# ---- --task --diagnose: where the policy's gripper goes on a goal task -------------------


class GoalTracer:
    """``run_goal_episode``'s ``on_step`` on a goal task: every step's tool centre points
    (TCPs) and the objects' positions [m, world], and each gripper close command (a
    command below :data:`CLOSED_BELOW` after an open one) with the step (1-based)."""

    def __init__(self, env, objects: tuple[str, ...]) -> None:
        self.env = env
        self.objects = objects
        self.step = 0
        self.open = {"left": True, "right": True}
        self.tcp: dict[str, list[np.ndarray]] = {"left": [], "right": []}
        self.pos: dict[str, list[np.ndarray]] = {o: [] for o in objects}
        self.closes: list[tuple[int, str]] = []

    def __call__(self, obs, action) -> None:
        from rsb_mj.scene.aloha import gripper_site

        self.step += 1
        u = self.env.unwrapped
        for side, index in (("left", 6), ("right", 13)):
            self.tcp[side].append(u.data.site(gripper_site(side)).xpos.copy())
            closed = float(action[index]) < CLOSED_BELOW
            if closed and self.open[side]:
                self.closes.append((self.step, side))
            self.open[side] = not closed
        for o in self.objects:
            self.pos[o].append(u.data.body(o).xpos.copy())


def _mover_target(task) -> tuple[str, str]:
    """The first ``On(mover, target)``-like relation of the goal: its two object names."""
    from rsb_mj.lang.named_objects import named_objects

    names = [n for n in named_objects(task) if n in task.objects]
    return names[0], names[1] if len(names) > 1 else names[0]


def _task_episode(job: tuple[str, str, str, int, int]) -> dict:
    """One traced goal episode (a worker; env and policy built once per process): ``job``
    is (arm, policy spec or ``expert``, task file, seed, max steps)."""
    from rsb_mj.env.rsb_env import GoalEnv
    from rsb_mj.evaluation.rollout import run_goal_episode

    arm, spec, task, seed, max_steps = job
    policy, cameras = worker_policy(spec)
    key = ("goal", task, cameras)
    if key not in _WORKER:
        _WORKER[key] = GoalEnv(task, cameras=cameras)  # 320x240, as rsb eval renders
    env = _WORKER[key]
    mover, target = _mover_target(env.task)
    tracer = GoalTracer(env, (mover, target))
    record = run_goal_episode(env, policy, seed, max_steps=max_steps, on_step=tracer)
    if record.is_error:
        return {"arm": arm, "seed": seed, "error": str(record.error)}
    m0 = tracer.pos[mover][0]
    dist = {
        side: [float(np.linalg.norm(t - m)) for t, m in zip(tcps, tracer.pos[mover], strict=True)]
        for side, tcps in tracer.tcp.items()
    }
    near_side = min(dist, key=lambda s: min(dist[s]))
    first = tracer.closes[0] if tracer.closes else None
    close = None
    if first is not None:
        step, side = first
        tcp, m = tracer.tcp[side][step - 1], tracer.pos[mover][step - 1]
        close = {
            "step": step,
            "arm": side,
            "d_mover_m": round(float(np.linalg.norm(tcp - m)), 4),
            "d_mover_xy_m": round(float(np.linalg.norm((tcp - m)[:2])), 4),
            "tcp_above_mover_m": round(float(tcp[2] - m[2]), 4),
        }
    final = tracer.pos[mover][-1] - tracer.pos[target][-1]
    return {
        "arm": arm,
        "seed": seed,
        "success": record.success,
        "grasped": record.grasped,
        "steps": record.steps,
        "mover": mover,
        "target": target,
        "nearest_arm": near_side,
        "min_d_tcp_mover_m": round(min(dist[near_side]), 4),
        "closes": len(tracer.closes),
        "first_close": close,
        "mover_lift_m": round(float(max(p[2] for p in tracer.pos[mover]) - m0[2]), 4),
        "mover_moved_xy_m": round(float(np.linalg.norm((tracer.pos[mover][-1] - m0)[:2])), 4),
        "final_mover_target_xy_m": round(float(np.linalg.norm(final[:2])), 4),
    }


def diagnose_task(args: argparse.Namespace) -> int:
    """``--task --diagnose``: roll the run's checkpoint out on ``--diagnose-episodes``
    seeds of the train demos (``seen``: 0..) and of the eval seeds (``eval``:
    ``--eval-start``..), and the expert on the same eval seeds, tracing where the grippers
    go relative to the task's mover (the first object the goal names, e.g. the bowl):
    the nearest the TCP comes to it, where the first gripper close happens, how high the
    mover is lifted, how far it ends from the target. -> ``OUT/diagnosis.json``,
    ``OUT/diagnosis.md`` (finished episodes kept in ``OUT/diagnosis/episodes.jsonl``)."""
    import multiprocessing

    from rsb_mj.atomic import atomic_write_text

    out = args.out
    ckpt = checkpoint(out / "train")
    if not (ckpt / "config.json").is_file():
        sys.exit(f"baseline: --diagnose needs a trained run in {out}; run it without "
                 "--diagnose first")  # fmt: skip
    from rsb_mj.suites import GOAL_MAX_STEPS

    max_steps = args.max_steps or GOAL_MAX_STEPS
    n = args.diagnose_episodes
    spec = f"lerobot:{ckpt}"
    jobs = [("seen", spec, args.task, s, max_steps) for s in range(min(n, args.demos))]
    jobs += [("eval", spec, args.task, args.eval_start + i, max_steps) for i in range(n)]
    jobs += [("expert", "expert", args.task, args.eval_start + i, max_steps) for i in range(n)]
    store = out / "diagnosis" / "episodes.jsonl"
    done = traced(store, "seed")
    todo = [j for j in jobs if (j[0], j[3], j[4]) not in done]
    print(f"= {store}: {len(jobs) - len(todo)} of {len(jobs)} episodes traced, "
          f"{len(todo)} to run", flush=True)  # fmt: skip
    if todo:
        os.environ.setdefault("OMP_NUM_THREADS", "1")
        ctx = multiprocessing.get_context("spawn")
        with ctx.Pool(min(args.jobs, len(todo))) as pool:
            for row in pool.imap_unordered(_task_episode, todo):
                if "error" in row:
                    sys.exit(f"baseline: --diagnose: {row['arm']} seed {row['seed']} ended in "
                             f"an error ({row['error']})")  # fmt: skip
                row["max_steps"] = max_steps
                done[(row["arm"], row["seed"], max_steps)] = row
                atomic_write_text(store, "".join(json.dumps(r) + "\n" for r in done.values()))
                print(f"  {row['arm']} seed {row['seed']}: success={row['success']} "
                      f"min d={row['min_d_tcp_mover_m']}", flush=True)  # fmt: skip
    rows = [done[(j[0], j[3], j[4])] for j in jobs]
    arms = {}
    for arm in ("seen", "eval", "expert"):
        mine = [r for r in rows if r["arm"] == arm]
        if not mine:
            continue
        closes = [r["first_close"] for r in mine if r["first_close"]]
        arms[arm] = {
            "seeds": [mine[0]["seed"], mine[-1]["seed"]],
            "policy": "expert" if arm == "expert" else args.name,
            "success": rate(sum(r["success"] for r in mine), len(mine)),
            "grasped": rate(sum(r["grasped"] for r in mine), len(mine)),
            "min_d_tcp_mover_m": quartiles([r["min_d_tcp_mover_m"] for r in mine]),
            "within_3cm": sum(r["min_d_tcp_mover_m"] < 0.03 for r in mine),
            "closed": len(closes),
            "close_d_mover_m": quartiles([c["d_mover_m"] for c in closes]),
            "close_d_mover_xy_m": quartiles([c["d_mover_xy_m"] for c in closes]),
            "close_step": quartiles([c["step"] for c in closes]),
            "mover_lift_m": quartiles([r["mover_lift_m"] for r in mine]),
            "lifted_2cm": sum(r["mover_lift_m"] > 0.02 for r in mine),
            "final_mover_target_xy_m": quartiles([r["final_mover_target_xy_m"] for r in mine]),
            "nearest_arm": {a: sum(r["nearest_arm"] == a for r in mine) for a in ("left", "right")},
        }
    expert_arm = {r["seed"]: r["nearest_arm"] for r in rows if r["arm"] == "expert"}
    if "eval" in arms and expert_arm:
        arms["eval"]["same_arm_as_expert"] = sum(
            expert_arm.get(r["seed"]) == r["nearest_arm"] for r in rows if r["arm"] == "eval"
        )
    result = {"task": args.task, "checkpoint": str(ckpt), "max_steps": max_steps,
              "mover": rows[0]["mover"], "target": rows[0]["target"], "arms": arms}  # fmt: skip
    atomic_write_text(out / "diagnosis.json", json.dumps(result, indent=2) + "\n")
    text = task_diagnosis_markdown(result)
    atomic_write_text(out / "diagnosis.md", text)
    print(text, end="")
    return 0


def task_diagnosis_markdown(result: dict) -> str:
    """``OUT/diagnosis.md`` of ``--task --diagnose``."""
    q = lambda v: "/".join(f"{x:.3f}" for x in v) or "-"  # noqa: E731
    lines = [
        f"# Where the policy goes on {Path(result['task']).name}: {result['checkpoint']}",
        "",
        f"Mover {result['mover']}, target {result['target']}; distances in metres "
        "(25/50/75%), the TCP of either arm; step limit "
        f"{result['max_steps']}.",
        "",
        "| seeds | policy | success | grasped | min TCP-mover d | within 3 cm | episodes "
        "with a close | first close: d mover (3D) | d mover (xy) | step | mover lift | "
        "lifted > 2 cm | final mover-target d (xy) |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, a in result["arms"].items():
        lines.append(
            f"| {name} {a['seeds'][0]}-{a['seeds'][1]} | {a['policy']} | "
            f"{fmt_rate(a['success'])} | {fmt_rate(a['grasped'])} | "
            f"{q(a['min_d_tcp_mover_m'])} | {a['within_3cm']} | {a['closed']} | "
            f"{q(a['close_d_mover_m'])} | {q(a['close_d_mover_xy_m'])} | "
            f"{'/'.join(f'{x:g}' for x in a['close_step']) or '-'} | {q(a['mover_lift_m'])} | "
            f"{a['lifted_2cm']} | {q(a['final_mover_target_xy_m'])} |"
        )
    lines += [
        "",
        "The arm that came nearest the mover (left/right): "
        + "; ".join(
            f"{name} {a['nearest_arm']['left']}/{a['nearest_arm']['right']}"
            for name, a in result["arms"].items()
        )
        + (
            f"; on {result['arms']['eval']['same_arm_as_expert']} of the eval seeds the "
            "policy's is the expert's."
            if "same_arm_as_expert" in result["arms"].get("eval", {})
            else "."
        ),
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Run the stages that are not finished, then write the table and the learning curve."""
    args = parse_args(argv)
    if args.diagnose and args.task:
        return diagnose_task(args)
    if args.diagnose:
        return diagnose(args)
    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    check_fixed(args, out)
    log = out / "baseline.log"
    demos, dataset, train_dir, eval_dir = (out / n for n in ("demos", "dataset", "train", "eval"))
    t0 = time.perf_counter()

    env = subprocess_env(args, out)
    names = sources(args)
    if not (dataset / "meta" / "info.json").is_file():
        for name, source in zip(names, [args.task] if args.task else args.suites, strict=True):
            where = ["--start", "0"] if args.task else ["--split", "train"]
            run(
                rsb(
                    "demos",
                    source,
                    *where,
                    "-n",
                    str(args.demos),
                    "-o",
                    str(demos / name),
                    "-j",
                    str(args.jobs),
                    "--cameras",
                    args.cameras,
                    "--width",
                    str(args.width),
                    "--height",
                    str(args.height),
                    "--no-progress",
                ),
                log,
                ok=(0, 1),
                env=env,
            )  # fmt: skip  (1: some expert failures, not exported)
        if dataset.exists():
            shutil.rmtree(dataset)  # an export killed before it was renamed into place
        # --no-fixture-joints: a tier-B --task file's drawer/door/knob joints would take
        # observation.environment_state, the instruction vector's key (and rsb eval gives a
        # policy no fixture joints)
        run(rsb("export-lerobot", str(link_demos(demos, names)), "-o", str(dataset),
                "--cameras", args.cameras, "--instruction-features", str(args.instruction_dim),
                "--no-fixture-joints"),
            log)  # fmt: skip
    else:
        print(f"= {dataset}: exported, skipped")
    done = trained_steps(train_dir)
    if done < args.steps:
        if not done and train_dir.exists():
            shutil.rmtree(train_dir)  # a run killed before its first checkpoint
        with log.open("a") as fh:
            fh.write(MARK.format(start=done, every=args.log_every) + "\n")
        t_train = time.perf_counter()
        try:
            run(train_command(args, dataset, train_dir), log)
        finally:  # also when training is stopped (killed) to keep its last checkpoint
            with log.open("a") as fh:
                fh.write(f"# baseline: train {time.perf_counter() - t_train:.1f} s\n")
    else:
        print(f"= {train_dir}: {done} steps trained, skipped")
    what = [args.task, "--start", str(args.eval_start)] if args.task else [
        a for s in args.suites for a in ("--suite", s)]  # fmt: skip
    cmd = rsb("eval", *what,
              "--policy", f"lerobot:{checkpoint(train_dir)}", "--name", args.name,
              "--episodes", str(args.episodes), "--out", str(eval_dir), "--jobs", str(args.jobs),
              "--no-progress")  # fmt: skip
    if args.max_steps:
        cmd += ["--max-steps", str(args.max_steps)]
    run(cmd, log, env=env)

    if args.task:
        return finish_task(args, out, log, t0)
    rows = summary_rows(eval_dir)
    points = loss_curve(log.read_text())
    steps = trained_steps(train_dir)
    from rsb_mj.atomic import atomic_write_text

    result = {
        "suites": args.suites, "demos_per_suite": args.demos, "steps": steps,
        "batch_size": args.batch_size, "camera": f"head {args.width}x{args.height}",
        "instruction_dim": args.instruction_dim, "rows": rows,
        "loss": [[s, v] for s, v in points], "wall_s": round(time.perf_counter() - t0, 1),
        "cpus": os.cpu_count(),
    }  # fmt: skip
    atomic_write_text(out / "baseline.json", json.dumps(result, indent=2) + "\n")
    atomic_write_text(out / "baseline.md", table(rows))
    plot_curve(
        points,
        out / "learning_curve.png",
        f"{args.name}: ACT, {args.demos} demos/suite, head {args.width}x{args.height}, "
        f"batch {args.batch_size}",
    )
    print(table(rows), end="")
    print(f"baseline: {steps} steps; table {out / 'baseline.md'}, curve "
          f"{out / 'learning_curve.png'} ({result['wall_s']:.0f} s this run)")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
