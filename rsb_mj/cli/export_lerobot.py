"""``rsb export-lerobot DEMO_DIR -o OUT``: demonstrations (HDF5) as a LeRobot dataset."""

from __future__ import annotations

import argparse
from pathlib import Path

from rsb_mj.cli._flags import add_out


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``export-lerobot`` subcommand."""
    p = subparsers.add_parser(
        "export-lerobot",
        help="convert demonstrations (rsb demos) into a LeRobot dataset (v3.0 or v2.1)",
        description=(
            "Convert the episode_*.hdf5 files written by `rsb demos` into a LeRobot dataset: "
            "parquet frames, one H.264 MP4 per camera, meta/ files; ALOHA feature names "
            "(observation.state, action, observation.images.cam_high|cam_left_wrist|"
            "cam_right_wrist), the instruction as the task, 20 fps; a tier-B scene's fixture "
            "joint positions (m for a slide, rad for a hinge) as observation.environment_state, "
            "named by joint. Version 3.0 is read by "
            "lerobot >= 0.4; 2.1 by the lerobot openpi pins (openpi fine-tuning). Needs the "
            "lerobot-export extra (pyarrow, PyAV; not lerobot): pip install "
            "'rsb_mj[lerobot-export]'. Exit 0 done, 2 usage error."
        ),
    )
    p.add_argument("demo_dir", type=Path, help="folder of episode_*.hdf5 (rsb demos -o)")
    add_out(p, "dataset folder to create (default DEMO_DIR/lerobot)")
    p.add_argument(
        "--lerobot-version", default="3.0", choices=("3.0", "2.1"), help="dataset format"
    )
    p.add_argument(
        "--cameras",
        default="head,left_wrist,right_wrist",
        help="comma-separated rsb_mj cameras to export",
    )
    p.add_argument(
        "--instruction-features",
        type=int,
        default=0,
        metavar="DIM",
        help="also store the instruction in every frame as observation.environment_state, "
        "DIM hashed word uni- and bigram counts, for policies with no text encoder (ACT, "
        "diffusion; rsb eval --policy lerobot: computes the same vector); default 0: off",
    )
    p.add_argument(
        "--no-fixture-joints",
        dest="fixture_joints",
        action="store_false",
        help="leave out the fixture joint positions of tier-B demonstrations (drawers, "
        "doors, knobs; m or rad), otherwise every frame's observation.environment_state, "
        "named by joint; needed with --instruction-features on such demonstrations",
    )
    p.add_argument(
        "--include-failures",
        action="store_true",
        help="also export demonstrations whose expert failed (skipped by default)",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Export and print one summary line."""
    # deferred: rsb --help imports every command module, not the stages they run
    from rsb_mj.datasets.lerobot import export_lerobot

    out = args.out or args.demo_dir / "lerobot"
    cameras = tuple(c for c in args.cameras.split(",") if c)
    res = export_lerobot(
        args.demo_dir,
        out,
        version=args.lerobot_version,
        cameras=cameras,
        successful_only=not args.include_failures,
        instruction_features=args.instruction_features,
        fixture_joints=args.fixture_joints,
    )
    print(
        f"rsb export-lerobot: {res.episodes} episodes, {res.frames} frames, {res.tasks} tasks, "
        f"{len(res.cameras)} cameras -> {res.out_dir} (LeRobot v{res.version})"
    )
    return 0
