"""Head-camera figure of goal tasks for docs/goal_tasks.md: what a policy sees at 224x224.

Renders the head camera at reset (row 0 of each file's frozen eval table) at 224x224 for three
LIBERO and three VLA-Arena files: the top line with the camera goal scenes have now (framed
per task, :mod:`rsb_mj.scene.framing`), the bottom line with the question scenes' fixed
head camera that goal scenes used before (``--now-only``: the top line alone). Each tile is
labelled with a short name of its file.

Usage: ``python tools/goal_head_figure.py docs/goal_head_views.png``
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2
import mujoco
import numpy as np

from rsb_mj.atomic import atomic_write_bytes
from rsb_mj.env.rsb_env import GoalEnv
from rsb_mj.env.visibility import SIZE, question_head
from rsb_mj.resources import tasks_dir
from rsb_mj.tables.episode_source import goal_row_source, load_episode

#: (goal suite, file under tasks/, label) of each tile, left to right.
FILES = (
    (
        "libero-layouts",
        "libero/libero_10/LIVING_ROOM_SCENE1_put_both_the_alphabet_soup_and_the_cream_cheese_box_"
        "in_the_basket.bddl",
        "soup+cheese -> basket",
    ),
    (
        "libero-layouts",
        "libero/libero_spatial/pick_up_the_black_bowl_between_the_plate_and_the_ramekin_and_"
        "place_it_on_the_plate.bddl",
        "bowl -> plate",
    ),
    (
        "libero-layouts",
        "libero/libero_90/KITCHEN_SCENE7_put_the_white_bowl_on_the_plate.bddl",
        "KITCHEN7 bowl -> plate",
    ),
    (
        "vla-arena",
        "vla_arena/safety_hazard_avoidance/level_0/pick_up_the_tomato_and_place_it_on_the_white_"
        "bowl_with_the_stove_turned_on.bddl",
        "tomato -> bowl, stove",
    ),
    (
        "vla-arena",
        "vla_arena/generalization_task_workflows/level_0/pick_up_the_cake_and_place_it_on_the_top_"
        "of_the_cabinet.bddl",
        "cake -> cabinet top",
    ),
    (
        "vla-arena",
        "vla_arena/long_horizon/level_0/pick_up_the_apple_and_place_it_in_the_box.bddl",
        "apple -> box",
    ),
)
GAP = 6


def tile(suite: str, rel: str, label: str, legacy: bool) -> np.ndarray:
    """The labelled 224x224 head image of row 0 of ``rel``."""
    path = tasks_dir() / rel
    env = GoalEnv(path, cameras=("head",), width=SIZE, height=SIZE)
    try:
        if legacy:
            question_head(env.model)
        row = load_episode(goal_row_source(suite, path), "eval", 0)
        obs, _ = env.reset(options={"episode": row})
        mujoco.mj_forward(env.model, env.data)
        image = np.ascontiguousarray(obs["images"]["head"])
    finally:
        env.close()
    for color, width in (((0, 0, 0), 3), ((255, 255, 255), 1)):
        cv2.putText(image, label, (4, 14), cv2.FONT_HERSHEY_SIMPLEX, 0.4, color, width)
    return image


def figure(now_only: bool = False) -> np.ndarray:
    """The RGB uint8 figure: one line per camera (framed, then the question camera)."""
    lines = []
    for legacy in (False,) if now_only else (False, True):
        tiles = []
        for suite, rel, label in FILES:
            tiles += [tile(suite, rel, label, legacy), np.full((SIZE, GAP, 3), 255, np.uint8)]
        lines += [np.concatenate(tiles[:-1], 1), np.full((GAP, 1, 3), 255, np.uint8)]
    width = lines[0].shape[1]
    lines = [
        ln if ln.shape[1] == width else np.full((GAP, width, 3), 255, np.uint8) for ln in lines
    ]
    return np.concatenate(lines[:-1], 0)


def main(argv: list[str] | None = None) -> int:
    """Write the figure to the given PNG path."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("output", type=Path, help="PNG path")
    parser.add_argument("--now-only", action="store_true", help="the framed camera alone")
    args = parser.parse_args(argv)
    ok, png = cv2.imencode(".png", cv2.cvtColor(figure(args.now_only), cv2.COLOR_RGB2BGR))
    if not ok:
        print(f"could not encode {args.output}", file=sys.stderr)
        return 2
    atomic_write_bytes(args.output, png.tobytes())
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
