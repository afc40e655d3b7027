"""The validity experiment: are rsb_mj's demonstrations learnable, and do its scores separate
motor skill from semantics? LeRobot ACT trained on expert demos, scored by ``rsb eval``.

Stages (each a command a user would run; a finished stage is kept, so a rerun resumes):

1. ``rsb demos SUITE --split train -n DEMOS`` -> ``OUT/demos`` (expert demonstrations);
2. ``rsb export-lerobot`` -> ``OUT/dataset`` (LeRobot v3.0);
3. ``lerobot-train --policy.type=act`` for ``STEPS`` steps -> ``OUT/train`` (no pretrained
   backbone: ``--policy.pretrained_backbone_weights=null``, nothing is downloaded; a killed
   run resumes from its last checkpoint);
4. ``rsb eval --policy lerobot:OUT/train/checkpoints/last/pretrained_model`` on ``EPISODES``
   eval rows -> ``OUT/eval``;
5. prints GSR, TSR and nSG (with Wilson 95% intervals) and writes ``OUT/validity.json``.

The paper's models reach GSR 91-100% with TSR near chance (1/N): a policy that learned the
motions but not the meaning. The defaults are the real experiment (500 RSB-Math-4 train
demos, 20k steps, 200 eval episodes); it needs a GPU (``--device cuda``): ACT runs about
17 s per training step on a loaded 2-core CPU. A test runs it end to end on CPU with 2
steps and tiny counts.

    python tools/validity_act.py --out runs/validity --device cuda --jobs 16

Run it with the Python of the lerobot venv (``tools/lerobot_venv.sh``); ``lerobot-train``
is taken from the same folder as that Python.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

ACT = "act"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line (see the module docstring)."""
    p = argparse.ArgumentParser(
        prog="validity_act.py",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="\n\n".join(__doc__.split("\n\n")[1:]),
    )
    p.add_argument("--out", type=Path, required=True, help="experiment folder (resumed)")
    p.add_argument("--suite", default="RSB-Math-4", help="suite (default RSB-Math-4)")
    p.add_argument("--demos", type=int, default=500, help="train demonstrations (500)")
    p.add_argument("--steps", type=int, default=20_000, help="ACT training steps (20000)")
    p.add_argument("--episodes", type=int, default=200, help="eval episodes (200)")
    p.add_argument("--batch-size", type=int, default=8, help="training batch size (8)")
    p.add_argument("--device", default="cpu", help="torch device: cpu or cuda (cpu)")
    p.add_argument("--jobs", type=int, default=1, help="worker processes for demos and eval")
    p.add_argument("--width", type=int, default=320, help="camera width [px] of the demos")
    p.add_argument("--height", type=int, default=240, help="camera height [px] of the demos")
    p.add_argument("--max-steps", type=int, help="eval step limit (default: the suite's)")
    p.add_argument("--seed", type=int, default=1000, help="lerobot-train's seed (1000)")
    p.add_argument(
        "--train-arg",
        action="append",
        default=[],
        metavar="ARG",
        help="extra lerobot-train argument, e.g. --train-arg=--policy.dim_model=256 (repeatable)",
    )
    args = p.parse_args(argv)
    for name in ("demos", "steps", "episodes", "batch_size", "jobs"):
        if getattr(args, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be at least 1")
    return args


def run(cmd: list[str], log: Path, ok: tuple[int, ...] = (0,)) -> None:
    """Run one stage, its output appended to ``log``; exit if its status is not in ``ok``."""
    print("+ " + " ".join(cmd), flush=True)
    t0 = time.perf_counter()
    with log.open("a") as fh:
        done = subprocess.run(cmd, stdout=fh, stderr=subprocess.STDOUT, check=False)
    print(f"  ({time.perf_counter() - t0:.1f} s)", flush=True)
    if done.returncode not in ok:
        tail = log.read_text().splitlines()[-20:]
        print("\n".join(tail), file=sys.stderr)
        sys.exit(f"validity_act: {cmd[0]} {cmd[1] if len(cmd) > 1 else ''} failed "
                 f"(exit {done.returncode}); full log: {log}")  # fmt: skip


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


def train_command(args: argparse.Namespace, dataset: Path, train_dir: Path) -> list[str]:
    """``lerobot-train`` for this experiment (a resume when a checkpoint exists)."""
    exe = str(Path(sys.executable).with_name("lerobot-train"))
    if trained_steps(train_dir):
        config = checkpoint(train_dir) / "train_config.json"
        return [exe, f"--config_path={config}", "--resume=true", f"--steps={args.steps}"]
    save_every = max(1, min(args.steps, 5_000))
    return [
        exe,
        f"--dataset.repo_id=rsb_mj/{args.suite}",
        f"--dataset.root={dataset}",
        f"--policy.type={ACT}",
        f"--policy.device={args.device}",
        "--policy.pretrained_backbone_weights=null",
        "--policy.push_to_hub=false",
        f"--steps={args.steps}",
        f"--batch_size={args.batch_size}",
        f"--save_freq={save_every}",
        f"--log_freq={max(1, min(args.steps, 200))}",
        "--eval_freq=0",
        f"--seed={args.seed}",
        "--num_workers=0" if args.device == "cpu" else "--num_workers=4",
        "--wandb.enable=false",
        f"--output_dir={train_dir}",
        *args.train_arg,
    ]


def summary(args: argparse.Namespace, eval_dir: Path) -> dict:
    """GSR, TSR, nSG of the eval run (rsb_mj's own metrics over its records)."""
    from rsb_mj.evaluation.metrics import summarize
    from rsb_mj.evaluation.run_folder import RunFolder

    (row,) = summarize(RunFolder(eval_dir).records())
    return {
        "suite": row.suite,
        "policy": row.policy,
        "choices": row.choices,
        "demos": args.demos,
        "steps": trained_steps(eval_dir.parent / "train"),
        "episodes": row.episodes,
        "errors": row.errors,
        "gsr": row.gsr.value,
        "gsr_interval": list(row.gsr.interval),
        "tsr": row.tsr.value,
        "tsr_interval": list(row.tsr.interval),
        "nsg": row.nsg,
        "chance": 1.0 / row.choices,
    }


def main(argv: list[str] | None = None) -> int:
    """Run the stages that are not finished, then print the rates."""
    args = parse_args(argv)
    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    log = out / "validity.log"
    demos, dataset, train_dir, eval_dir = (out / n for n in ("demos", "dataset", "train", "eval"))
    t0 = time.perf_counter()

    run(
        rsb(
            "demos",
            args.suite,
            "--split",
            "train",
            "-n",
            str(args.demos),
            "-o",
            str(demos),
            "-j",
            str(args.jobs),
            "--width",
            str(args.width),
            "--height",
            str(args.height),
            "--no-progress",
        ),
        log,
        ok=(0, 1),
    )  # fmt: skip  (1: some expert failures, not exported)
    if not (dataset / "meta" / "info.json").is_file():
        run(rsb("export-lerobot", str(demos), "-o", str(dataset)), log)
    done = trained_steps(train_dir)
    if done < args.steps:
        if not done and train_dir.exists():
            shutil.rmtree(train_dir)  # a run killed before its first checkpoint
        run(train_command(args, dataset, train_dir), log)
    spec = f"lerobot:{checkpoint(train_dir)}" + (",device=cuda" if args.device == "cuda" else "")
    cmd = rsb("eval", "--suite", args.suite, "--policy", spec, "--episodes", str(args.episodes),
              "--out", str(eval_dir), "--jobs", str(args.jobs), "--no-progress")  # fmt: skip
    if args.max_steps:
        cmd += ["--max-steps", str(args.max_steps)]
    run(cmd, log)

    result = summary(args, eval_dir)
    result["wall_s"] = round(time.perf_counter() - t0, 1)
    (out / "validity.json").write_text(json.dumps(result, indent=2) + "\n")
    nsg = "n/a" if result["nsg"] is None else f"{result['nsg']:.3f}"
    gl, gh = result["gsr_interval"]
    tl, th = result["tsr_interval"]
    print(
        f"validity: {result['suite']} ACT, {result['steps']} steps on {args.demos} demos, "
        f"{result['episodes']} eval episodes ({result['errors']} errors): "
        f"GSR {result['gsr']:.1%} [{gl:.1%}, {gh:.1%}], TSR {result['tsr']:.1%} "
        f"[{tl:.1%}, {th:.1%}] (chance {result['chance']:.1%}), nSG {nsg}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
