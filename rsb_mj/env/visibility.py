"""Can a goal task's named objects be seen? Visible pixels per object and camera at reset.

**Rule 1** (issue 42; :func:`check_rule`): at reset, every object and fixture that the task's
``:goal`` or ``:language`` names (:func:`rsb_mj.lang.named_objects.named_objects`) is wholly
inside the head camera's :data:`SIZE` x :data:`SIZE` image and covers at least
:data:`MIN_PIXELS` visible pixels there.

* **Visible pixels** are counted on a segmentation render (:func:`measure`): a pixel belongs to
  an object when the geom drawn there (visual groups 1 and 2, as the cameras draw) is one of
  the object's bodies; occlusion by other objects, fixtures and the arms is counted.
* **Wholly inside**: every corner of the bounding box of each of the object's visual geoms
  (MuJoCo's ``geom_aabb``, at the pose after settling) projects inside the image, in front of
  the camera.
* A place that the file itself stacks its mover on at reset (``(On a b)`` in ``:init`` with
  ``b`` named) is exempt from the pixel count (it is under its mover), not from being inside.
* **The tight camera's floor** (issue 44): where the task's head camera is the tight framing
  (:attr:`rsb_mj.scene.region_layout.GoalLayout.tight`: no pose shows its small named
  objects at :data:`MIN_PIXELS` by their estimate) and a named object has fewer than
  :data:`MIN_PIXELS` even **unoccluded** (the same render with every other body hidden),
  it needs :data:`FLOOR_SHARE` of its unoccluded pixels and at least :data:`FLOOR_MIN`
  instead (:func:`pixel_floors`): in view and not hidden, at the size its layout allows (the
  three 5.2 cm tomatoes, bowls and board of ``generalization_object_preposition_combinations``
  span 0.7-1.0 m: 70-150 px unoccluded in any 224 px image that holds them all).
* An object inside a closed drawer or microwave at ``:init`` is not exempt (LIBERO's and
  VLA-Arena's cameras cannot see into one either); no shipped file puts one there
  (docs/goal_tasks.md), so rule 1 needs no such exemption.

The render is made at :data:`SIZE` x :data:`SIZE` directly (the policy image of a 224 px
model), without perturbations. ``rsb visibility`` (:mod:`rsb_mj.cli.visibility`) reports it
per row; ``tools/goal_visibility.py`` prints the figure over the shipped goal suites.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import mujoco
import numpy as np

from rsb_mj.env.rsb_env import GoalEnv, RsbEnv
from rsb_mj.episodes.episode import Episode
from rsb_mj.errors import RsbError
from rsb_mj.lang.named_objects import exempt_places, named_objects
from rsb_mj.lang.task import Task
from rsb_mj.scene import aloha
from rsb_mj.scene.gl import patch_late_import
from rsb_mj.suites import GOAL_SUITES, goal_suite
from rsb_mj.tables.episode_source import (
    goal_row_source,
    goal_task,
    load_episode,
    resolve,
    task_path,
)
from rsb_mj.workspace import CAMERAS

__all__ = [
    "FLOOR_MIN",
    "FLOOR_SHARE",
    "MIN_PIXELS",
    "SIZE",
    "ObjectView",
    "RowVisibility",
    "check_rule",
    "head_fails",
    "measure",
    "pixel_floors",
    "question_head",
    "source_rows",
    "visibility_sources",
]

#: Side of the square image rule 1 is measured on [px].
SIZE = 224
#: Visible pixels a named object needs in the head image.
MIN_PIXELS = 150
#: Share of its unoccluded pixels, and the fewest pixels [px], a named object needs where the
#: tight head camera cannot show it at :data:`MIN_PIXELS` (:func:`pixel_floors`).
FLOOR_SHARE, FLOOR_MIN = 0.8, 50


@dataclass(frozen=True)
class ObjectView:
    """One object's view in one camera: ``pixels`` visible, ``inside`` wholly in the image."""

    pixels: int
    inside: bool


def _roots(model: mujoco.MjModel, names: tuple[str, ...]) -> dict[int, str]:
    """Root body id -> name, for the bodies called ``names``."""
    out = {}
    for name in names:
        bid = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, name)
        if bid >= 0:
            out[int(model.body_rootid[bid])] = name
    return out


def _inside(
    model: mujoco.MjModel, data: mujoco.MjData, camera: int, geoms: np.ndarray, size: int
) -> bool:
    """Every corner of every geom's bounding box projects into a ``size`` square image."""
    if len(geoms) == 0:
        return False
    pos, mat = data.cam_xpos[camera], data.cam_xmat[camera].reshape(3, 3)
    f = 0.5 * size / math.tan(math.radians(model.cam_fovy[camera]) / 2)
    signs = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)])
    for g in geoms:
        centre, half = model.geom_aabb[g, :3], model.geom_aabb[g, 3:]
        local = centre + signs * half
        world = data.geom_xpos[g] + local @ data.geom_xmat[g].reshape(3, 3).T
        cam = (world - pos) @ mat  # camera frame: x right, y up, -z forward
        depth = -cam[:, 2]
        if np.any(depth <= 1e-6):
            return False
        u = size / 2 + f * cam[:, 0] / depth
        v = size / 2 - f * cam[:, 1] / depth
        if np.any(u < 0) or np.any(u > size) or np.any(v < 0) or np.any(v > size):
            return False
    return True


def measure(
    model: mujoco.MjModel,
    data: mujoco.MjData,
    names: tuple[str, ...],
    cameras: tuple[str, ...] = CAMERAS,
    size: int = SIZE,
) -> dict[str, dict[str, ObjectView]]:
    """Camera -> object name -> its :class:`ObjectView` at ``data``'s state, rendered at
    ``size`` x ``size`` [px] (module docstring). ``model`` must allow that offscreen size."""
    roots = _roots(model, names)
    visual = np.isin(model.geom_group, (1, 2))
    geom_root = model.body_rootid[model.geom_bodyid]
    option = mujoco.MjvOption()
    option.geomgroup[:] = [0, 1, 1, 0, 0, 0]
    option.sitegroup[:] = 0
    model.vis.global_.offwidth = max(model.vis.global_.offwidth, size)
    model.vis.global_.offheight = max(model.vis.global_.offheight, size)
    patch_late_import()
    renderer = mujoco.Renderer(model, size, size)
    out: dict[str, dict[str, ObjectView]] = {}
    try:
        renderer.enable_segmentation_rendering()
        for cam in cameras:
            renderer.update_scene(data, camera=cam, scene_option=option)
            seg = renderer.render()
            ids, types = seg[..., 0], seg[..., 1]
            geom_px = ids[(types == int(mujoco.mjtObj.mjOBJ_GEOM)) & (ids >= 0)]
            counts = np.bincount(geom_px, minlength=model.ngeom)
            cid = model.camera(cam).id
            views = {}
            for root, name in roots.items():
                mine = np.flatnonzero((geom_root == root) & visual)
                views[name] = ObjectView(
                    int(counts[mine].sum()), _inside(model, data, cid, mine, size)
                )
            out[cam] = {n: views[n] for n in names if n in views}
    finally:
        renderer.close()
    return out


def _alone(model: mujoco.MjModel, data: mujoco.MjData, name: str, camera: str) -> int:
    """Visible pixels of body ``name`` in ``camera`` at :data:`SIZE` px with every other
    body's geoms hidden: what the camera shows of it unoccluded."""
    root = model.body_rootid[mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, name)]
    saved = model.geom_group.copy()
    model.geom_group[model.body_rootid[model.geom_bodyid] != root] = 5  # a group not drawn
    try:
        return measure(model, data, (name,), (camera,))[camera][name].pixels
    finally:
        model.geom_group[:] = saved


def pixel_floors(env: RsbEnv, head: dict[str, ObjectView]) -> dict[str, tuple[int, int]]:
    """Named object -> (pixels rule 1 asks of it, its unoccluded pixels) for each object
    whose floor is not :data:`MIN_PIXELS` (module docstring: the tight camera's floor), at
    ``env``'s state with head views ``head``: :data:`FLOOR_SHARE` of its unoccluded pixels,
    at least :data:`FLOOR_MIN`; ``{}`` where the head camera is not the tight framing's."""
    layout = env.scene.layout
    if layout is None or not layout.tight:
        return {}
    out = {}
    for name in named_objects(env.task):
        view = head.get(name)
        if view is None or view.pixels >= MIN_PIXELS:
            continue
        alone = _alone(env.model, env.data, name, "head")
        if alone < MIN_PIXELS:
            out[name] = (max(FLOOR_MIN, math.ceil(FLOOR_SHARE * alone)), alone)
    return out


def check_rule(
    task: Task,
    head: dict[str, ObjectView],
    min_pixels: int | None = None,
    floors: dict[str, tuple[int, int]] | None = None,
) -> list[str]:
    """Why rule 1 fails for the named objects' head views ``head``: one line per object
    (``"plate_1: 88 px < 150"``, ``"plate_1: not wholly inside the head image"``,
    ``"tomato_1: 45 px < 88 (80% of its 110 px unoccluded, tight head camera)"``); ``[]``
    when it holds. ``min_pixels`` defaults to :data:`MIN_PIXELS`; ``floors`` are
    :func:`pixel_floors`' (none by default)."""
    min_pixels = MIN_PIXELS if min_pixels is None else min_pixels
    floors = floors or {}
    exempt = exempt_places(task)
    out = []
    for name in named_objects(task):
        view = head.get(name)
        if view is None:
            out.append(f"{name}: not in the scene")
            continue
        floor, alone = floors.get(name, (min_pixels, None))
        if not view.inside:
            out.append(f"{name}: not wholly inside the head image ({view.pixels} px)")
        elif view.pixels < floor and name not in exempt:
            why = (
                ""
                if alone is None
                else f" ({FLOOR_SHARE:.0%} of its {alone} px unoccluded, at least {FLOOR_MIN}: "
                "tight head camera)"
            )
            out.append(f"{name}: {view.pixels} px < {floor}{why}")
    return out


@dataclass(frozen=True)
class RowVisibility:
    """One row's views: ``task`` the source, ``index`` the row, ``seed`` its seed,
    ``named`` the named objects, ``views`` camera -> object -> view (every object and fixture
    of the task, named or not), ``fails`` why rule 1 fails (``[]``: it holds)."""

    task: str
    index: int
    seed: int
    named: tuple[str, ...]
    views: dict[str, dict[str, ObjectView]]
    fails: list[str]

    def to_dict(self) -> dict[str, object]:
        """JSON form: views as ``{camera: {object: {"pixels", "inside"}}}``."""
        return {
            "task": self.task,
            "index": self.index,
            "seed": self.seed,
            "named": list(self.named),
            "views": {
                cam: {n: {"pixels": v.pixels, "inside": v.inside} for n, v in objs.items()}
                for cam, objs in self.views.items()
            },
            "fails": list(self.fails),
            "passed": not self.fails,
        }


def head_fails(env: RsbEnv) -> list[str]:
    """Why rule 1 fails for ``env``'s state (after a reset), ``[]`` when it holds: the
    head camera alone, as ``rsb episodes build`` checks a goal row."""
    names = named_objects(env.task)
    head = measure(env.model, env.data, names, ("head",))["head"]
    return check_rule(env.task, head, floors=pixel_floors(env, head))


def question_head(model: mujoco.MjModel) -> None:
    """Give ``model``'s head camera the question scenes' pose (:mod:`rsb_mj.scene.aloha`):
    what goal scenes used before their camera was framed (the "before" figure)."""
    bare = aloha.aloha_spec("fast").compile()
    src, dst = bare.camera("head").id, model.camera("head").id
    model.cam_pos[dst] = bare.cam_pos[src]
    model.cam_quat[dst] = bare.cam_quat[src]
    model.cam_fovy[dst] = bare.cam_fovy[src]


def source_rows(
    source: str,
    split: str,
    indices: range,
    *,
    cameras: tuple[str, ...] = CAMERAS,
    legacy_head: bool = False,
) -> list[RowVisibility]:
    """The views of rows ``indices`` of a goal source (a goal task file: bare seeds; a goal
    suite's file as ``SUITE::FILE``: its frozen rows), each placed and settled as ``rsb eval``
    resets it, rendered at :data:`SIZE` px; ``legacy_head`` uses :func:`question_head`.

    Raises:
        EvalError: for a row outside the source's table;
        LayoutError: for a row with no valid layout.
    """
    env = GoalEnv(goal_task(source), cameras=())
    try:
        if legacy_head:
            question_head(env.model)
        names = named_objects(env.task)
        every = (*env.task.objects, *(f for f in env.task.fixtures if f != env.task.table))
        out = []
        for index in indices:
            episode = load_episode(source, split, index)
            assert isinstance(episode, Episode) and episode.binding is None
            env.reset(options={"episode": episode})
            views = measure(env.model, env.data, every, cameras)
            head = views.get("head", {})
            floors = {} if legacy_head else pixel_floors(env, head)  # the framed camera's
            fails = check_rule(env.task, head, floors=floors) if "head" in cameras else []
            out.append(RowVisibility(source, index, episode.seed, names, views, fails))
        return out
    finally:
        env.close()


def visibility_sources(sources: list[str]) -> list[str]:
    """The goal sources ``rsb visibility SOURCE...`` names, each once: a goal suite expanded
    into its files' row sources (:func:`~rsb_mj.tables.episode_source.goal_row_source`),
    ``SUITE::FILE`` and goal task files kept (only goal tasks have a rule-1 report; the
    source lookup says which are, :attr:`~rsb_mj.tables.episode_source.Source.goal`).

    Raises:
        RsbError: for a source that is neither a goal task file, ``SUITE::FILE`` nor a goal
            suite, naming the valid suites.
    """
    out: list[str] = []
    for source in sources:
        suite = goal_suite(source)
        if suite is not None:
            out.extend(goal_row_source(suite.name, path) for path in suite.files)
            continue
        try:
            task_path(source)
        except RsbError as exc:
            raise RsbError(
                f"{exc}; a SOURCE is a goal task file, SUITE::FILE, or a goal suite: "
                f"{', '.join(GOAL_SUITES)}"
            ) from None
        if not resolve(source, "eval").goal:
            raise RsbError(f"{source}: not a goal task (it has a :question; see rsb legibility)")
        out.append(source)
    return list(dict.fromkeys(out))
