"""The learned baseline: one small LeRobot ACT, trained from scratch on a CPU on rsb_mj's
expert demonstrations of A2A-Color (perceptual) and RSB-Math-4 (semantic), scored by
``rsb eval`` (issue 35). Does it learn to grasp (GSR), and does it choose above chance on
Color but at chance on Math (TSR, nSG)?

Stages (each a command a user would run; a finished stage is skipped, so a killed run resumes
where it stopped: rerun the same command):

1. ``rsb demos SUITE --split train -n DEMOS --cameras head --width W --height H`` for each
   suite -> ``OUT/demos/SUITE`` (the head camera only, at the policy's resolution);
2. ``rsb export-lerobot --cameras head --instruction-features DIM`` of all suites' demos
   (``OUT/demos/all``: links to them) -> ``OUT/dataset``: every frame carries the
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
         "train_arg", "tiny")  # fmt: skip
LOSS_LINE = re.compile(r"\bloss:([0-9.eE+-]+)")
MARK = "# baseline: lerobot-train from step {start} logging every {every}"
MARK_LINE = re.compile(r"^# baseline: lerobot-train from step (\d+) logging every (\d+)")


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
        "--train-arg",
        action="append",
        default=[],
        metavar="ARG",
        help="extra lerobot-train argument, e.g. --train-arg=--policy.dim_model=128 (repeatable)",
    )
    args = p.parse_args(argv)
    for name in ("demos", "steps", "episodes", "batch_size", "jobs", "width", "height",
                 "instruction_dim", "save_every", "log_every"):  # fmt: skip
        if getattr(args, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be at least 1")
    args.suites = [s for s in args.suites.split(",") if s]
    from rsb_mj.errors import RsbError
    from rsb_mj.suites import get_suite

    for suite in args.suites:
        try:
            get_suite(suite)
        except RsbError as exc:
            p.error(f"--suites: {exc}")
    if not args.suites:
        p.error("--suites names no suite")
    return args


def run(cmd: list[str], log: Path, ok: tuple[int, ...] = (0,)) -> int:
    """Run one stage, its output appended to ``log``; exit if its status is not in ``ok``."""
    print("+ " + " ".join(cmd), flush=True)
    t0 = time.perf_counter()
    with log.open("a") as fh:
        done = subprocess.run(cmd, stdout=fh, stderr=subprocess.STDOUT, check=False)
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
        have = json.loads(path.read_text())
        diff = [k for k in FIXED if have.get(k) != want[k]]
        if diff:
            what = [f"--{k.replace('_', '-')} ({have.get(k)!r}, now {want[k]!r})" for k in diff]
            sys.exit(f"baseline: {out} was made with other {', '.join(what)}; use a new --out")
        return
    from rsb_mj.atomic import atomic_write_text

    atomic_write_text(path, json.dumps(want, indent=2) + "\n")


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


def main(argv: list[str] | None = None) -> int:
    """Run the stages that are not finished, then write the table and the learning curve."""
    args = parse_args(argv)
    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    check_fixed(args, out)
    log = out / "baseline.log"
    demos, dataset, train_dir, eval_dir = (out / n for n in ("demos", "dataset", "train", "eval"))
    t0 = time.perf_counter()

    if not (dataset / "meta" / "info.json").is_file():
        for suite in args.suites:
            run(
                rsb(
                    "demos",
                    suite,
                    "--split",
                    "train",
                    "-n",
                    str(args.demos),
                    "-o",
                    str(demos / suite),
                    "-j",
                    str(args.jobs),
                    "--cameras",
                    "head",
                    "--width",
                    str(args.width),
                    "--height",
                    str(args.height),
                    "--no-progress",
                ),
                log,
                ok=(0, 1),
            )  # fmt: skip  (1: some expert failures, not exported)
        if dataset.exists():
            shutil.rmtree(dataset)  # an export killed before it was renamed into place
        run(rsb("export-lerobot", str(link_demos(demos, args.suites)), "-o", str(dataset),
                "--cameras", "head", "--instruction-features", str(args.instruction_dim)),
            log)  # fmt: skip
    else:
        print(f"= {dataset}: exported, skipped")
    done = trained_steps(train_dir)
    if done < args.steps:
        if not done and train_dir.exists():
            shutil.rmtree(train_dir)  # a run killed before its first checkpoint
        with log.open("a") as fh:
            fh.write(MARK.format(start=done, every=args.log_every) + "\n")
        run(train_command(args, dataset, train_dir), log)
    else:
        print(f"= {train_dir}: {done} steps trained, skipped")
    cmd = rsb("eval", *(a for s in args.suites for a in ("--suite", s)),
              "--policy", f"lerobot:{checkpoint(train_dir)}", "--name", args.name,
              "--episodes", str(args.episodes), "--out", str(eval_dir), "--jobs", str(args.jobs),
              "--no-progress")  # fmt: skip
    if args.max_steps:
        cmd += ["--max-steps", str(args.max_steps)]
    run(cmd, log)

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
