"""Raw predicate signals recorded at every physics substep (what scoring needs).

Per control step with S substeps and N candidates (candidate order = ``scene.candidates``):

- ``contact`` bool (S, N, 2): candidate n touches a finger or pad geom of the [left, right]
  gripper (any MuJoCo contact between their geoms);
- ``gripper_cmd`` float (S, 2): commanded [left, right] gripper, 0 closed .. 1 open;
- ``gripper_open`` float (S, 2): measured normalized opening (mean of the two finger slides);
- ``lift`` float (S, N): candidate center height above its resting height at reset [m];
- ``in_zone`` bool (S, N): candidate center's xy inside an answer-zone rectangle and
  ``lift < IN_ZONE_MAX_LIFT``.

Recording copies a few arrays per substep; everything else is vectorized once per step.
"""

from __future__ import annotations

import mujoco
import numpy as np

from rsb_mj.scene.aloha import SIDES, finger_to_gripper
from rsb_mj.scene.compiler import Scene
from rsb_mj.scene.layout import answer_zone_rects

#: A candidate counts as resting in the zone only below this lift [m].
IN_ZONE_MAX_LIFT = 0.02


class SignalRecorder:
    """Collects per-substep signals of one scene (one recorder per environment)."""

    def __init__(self, scene: Scene) -> None:
        model = scene.model
        self.n = len(scene.candidates)
        self.body_ids = np.array([model.body(b).id for b in scene.candidate_bodies])
        cand_of_body = np.full(model.nbody, -1, dtype=np.int64)
        cand_of_body[self.body_ids] = np.arange(self.n)
        self.cand_of_geom = cand_of_body[model.geom_bodyid]
        side_of_body = np.full(model.nbody, -1, dtype=np.int64)
        for s, side in enumerate(SIDES):
            for finger in ("left_finger_link", "right_finger_link"):
                side_of_body[model.body(f"{side}/{finger}").id] = s
        self.side_of_geom = side_of_body[model.geom_bodyid]
        self.finger_adr = np.concatenate([scene.finger_qpos[s] for s in SIDES])
        self.zone = np.asarray(answer_zone_rects(scene.problem), dtype=float).reshape(-1, 4)
        self.rest_z = np.zeros(self.n)
        self._pos: np.ndarray = np.zeros((0, self.n, 3))
        self._fingers: np.ndarray = np.zeros((0, 4))
        self._pairs: list[np.ndarray] = []

    def reset(self, data: mujoco.MjData) -> None:
        """Take the candidates' current heights as their resting heights."""
        self.rest_z = data.xpos[self.body_ids, 2].copy()

    def begin(self, substeps: int) -> None:
        """Allocate buffers for ``substeps`` rows."""
        self._pos = np.empty((substeps, self.n, 3))
        self._fingers = np.empty((substeps, 4))
        self._pairs = [None] * substeps  # type: ignore[list-item]

    def record(self, data: mujoco.MjData, k: int) -> None:
        """Store substep ``k`` of ``data`` (call right after ``mj_step``)."""
        self._pos[k] = data.xpos[self.body_ids]
        self._fingers[k] = data.qpos[self.finger_adr]
        self._pairs[k] = data.contact.geom[: data.ncon].copy()

    def finish(self, gripper_cmd: np.ndarray) -> dict[str, np.ndarray]:
        """The signals of the recorded substeps; ``gripper_cmd`` is the (2,) command."""
        steps = len(self._pairs)
        contact = np.zeros((steps, self.n, 2), dtype=bool)
        counts = [len(p) for p in self._pairs]
        if sum(counts):
            pairs = np.concatenate(self._pairs)
            row = np.repeat(np.arange(steps), counts)
            for a, b in ((0, 1), (1, 0)):
                cand = self.cand_of_geom[pairs[:, a]]
                side = self.side_of_geom[pairs[:, b]]
                hit = (cand >= 0) & (side >= 0)
                contact[row[hit], cand[hit], side[hit]] = True
        fingers = self._fingers.reshape(steps, 2, 2).mean(axis=2)
        lift = self._pos[:, :, 2] - self.rest_z[None, :]
        x, y = self._pos[:, :, 0], self._pos[:, :, 1]
        inside = np.zeros((steps, self.n), dtype=bool)
        for x0, y0, x1, y1 in self.zone:
            inside |= (
                (x >= min(x0, x1)) & (x <= max(x0, x1)) & (y >= min(y0, y1)) & (y <= max(y0, y1))
            )
        return {
            "contact": contact,
            "gripper_cmd": np.repeat(np.asarray(gripper_cmd, dtype=float)[None, :], steps, 0),
            "gripper_open": np.asarray(finger_to_gripper(fingers), dtype=float),
            "lift": lift,
            "in_zone": inside & (lift < IN_ZONE_MAX_LIFT),
        }

    def snapshot(self, data: mujoco.MjData, gripper_cmd: np.ndarray) -> dict[str, np.ndarray]:
        """Signals of the current state alone (S = 1), as reported at reset."""
        self.begin(1)
        self.record(data, 0)
        return self.finish(gripper_cmd)
