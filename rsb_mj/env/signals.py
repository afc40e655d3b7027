"""Raw predicate signals recorded at every physics substep (what scoring needs).

The recorder records the signals of a :class:`rsb_mj.scoring.SignalPlan` (those the task's
compiled ``:grasp`` and ``:goal`` predicates declare, :func:`rsb_mj.scoring.signal_plan`).
Per control step with S substeps, M objects (the plan's objects: the candidates in RSB,
the cube in Act2Answer) and N candidates (``scene.candidates``):

- ``contact`` bool (S, M, 2): object m touches a finger link (finger mesh or pad) of the
  [left, right] gripper (any MuJoCo contact between their geoms);
- ``pinch`` bool (S, M, 2): object m touches *both* finger links of the [left, right]
  gripper (held between the fingers; a contact through a held object is not a contact);
- ``table_contact`` bool (S, M): object m touches the table (answer-zone patch included);
- ``gripper_cmd`` float (S, 2): commanded [left, right] gripper, 0 closed .. 1 open;
- ``gripper_open`` float (S, 2): measured normalized opening (mean of the two finger slides);
- ``lift`` float (S, M): object center height above its resting height at reset [m];
- ``in_zone`` bool (S, M): object center's xy inside an answer-zone rectangle and
  ``lift < REST_MAX_LIFT``;
- ``on`` bool (S, M, N): object m rests on candidate n alone: its center lies over n's
  footprint (:mod:`rsb_mj.scene.footprint`, in n's current frame), ``lift < REST_MAX_LIFT``
  and m touches no other candidate (a cube bridging two plates is on neither); m is an
  object the task moves onto a candidate (``sig/touch/{m}/{n}`` contact sensors).

Row k describes the state at the start of physics substep k+1, as MuJoCo's forward pass
computed it inside ``mj_step`` (contacts, positions). Everything comes from the scene's
signal sensors (:class:`rsb_mj.scene.compiler.SignalSensors`), so recording one substep is a
single copy of ``data.sensordata``; the signals are then computed vectorized once per step.
"""

from __future__ import annotations

import mujoco
import numpy as np

from rsb_mj.lang.layout import answer_zone_rects
from rsb_mj.scene.aloha import finger_to_gripper
from rsb_mj.scene.compiler import Scene, SignalSensors
from rsb_mj.scene.footprint import Footprint, footprint, in_footprint
from rsb_mj.scoring.signals import SignalPlan

#: An object counts as resting (in the zone, on a candidate) only below this lift [m].
REST_MAX_LIFT = 0.02


class SignalRecorder:
    """Collects per-substep signals of one scene (one recorder per environment).

    Attributes:
        plan: what is recorded, over which objects.
        sensors: the signal sensors of the plan's objects.
    """

    def __init__(self, scene: Scene, plan: SignalPlan | None = None) -> None:
        """Args:
        scene: the compiled scene; it has signal sensors for the plan's objects
            (``compile_scene(..., tracked=plan.objects)``).
        plan: the signals to record (default: the candidates' base signals).
        """
        self.plan = plan or SignalPlan.of_candidates(scene.candidates)
        self.n = len(self.plan.objects)
        self.sensors = SignalSensors.of(scene.model, self.plan.objects)
        self.nsensordata = scene.model.nsensordata
        zone = np.asarray(answer_zone_rects(scene.problem), dtype=float).reshape(-1, 4)
        # Rectangles as (x_min, y_min, x_max, y_max).
        self.zone = np.concatenate(
            [np.minimum(zone[:, :2], zone[:, 2:]), np.maximum(zone[:, :2], zone[:, 2:])], axis=1
        )
        sen = self.sensors
        # One gather per step: contact counts (M*4), table contacts (M), positions (M*3),
        # fingers (4).
        self._gather = np.concatenate(
            [sen.contact.ravel(), sen.table.ravel(), sen.position.ravel(), sen.finger.ravel()]
        )
        self._supports: tuple[np.ndarray, np.ndarray, list[Footprint], np.ndarray] | None = None
        self._movers: list[int] = []
        if "on" in self.plan.names:
            cand_names = self.plan.candidates
            cand = SignalSensors.of(scene.model, cand_names)
            bodies = dict(zip(scene.candidates, scene.candidate_bodies, strict=True))
            adr = lambda name: int(scene.model.sensor(name).adr[0])  # noqa: E731
            # Only objects that are not candidates rest on one (On refuses a candidate).
            self._movers = [i for i, o in enumerate(self.plan.objects) if o not in cand_names]
            touch = [
                [adr(f"sig/touch/{self.plan.objects[i]}/{c}") for c in cand_names]
                for i in self._movers
            ]
            self._supports = (
                cand.position,
                cand.orientation,
                [footprint(scene.model, bodies[c]) for c in cand_names],
                np.array(touch, dtype=int).reshape(len(self._movers), len(cand_names)),
            )
        self.rest_z = np.zeros(self.n)
        self.buffer = np.zeros((0, self.nsensordata))

    def reset(self, data: mujoco.MjData) -> None:
        """Take the objects' current heights as their resting heights (needs mj_forward)."""
        self.rest_z = data.sensordata[self.sensors.position[:, 2]].copy()

    def begin(self, substeps: int) -> None:
        """Allocate the buffer for ``substeps`` rows."""
        self.buffer = np.empty((substeps, self.nsensordata))

    def record(self, data: mujoco.MjData, k: int) -> None:
        """Store substep ``k`` (call right after ``mj_step``)."""
        self.buffer[k] = data.sensordata

    def finish(self, gripper_cmd: np.ndarray) -> dict[str, np.ndarray]:
        """The plan's signals of the recorded substeps; ``gripper_cmd`` is the (2,) command."""
        n = self.n
        steps = len(self.buffer)
        rows = self.buffer[:, self._gather]
        fingers_touching = rows[:, : 4 * n].reshape(steps, n, 2, 2) > 0
        pos = rows[:, 5 * n : 8 * n].reshape(steps, n, 3)
        lift = pos[:, :, 2] - self.rest_z
        resting = lift < REST_MAX_LIFT
        out: dict[str, np.ndarray] = {}
        for name in self.plan.names:
            if name == "contact":
                out[name] = fingers_touching.any(axis=3)
            elif name == "pinch":
                out[name] = fingers_touching.all(axis=3)
            elif name == "table_contact":
                out[name] = rows[:, 4 * n : 5 * n] > 0
            elif name == "gripper_cmd":
                cmd = np.asarray(gripper_cmd, dtype=float)[None, :]
                out[name] = np.repeat(cmd, steps, 0)
            elif name == "gripper_open":
                fingers = rows[:, 8 * n :].reshape(steps, 2, 2).mean(axis=2)
                out[name] = np.asarray(finger_to_gripper(fingers), dtype=float)
            elif name == "lift":
                out[name] = lift
            elif name == "in_zone":
                out[name] = self._in_zone(pos) & resting
            elif name == "on":
                out[name] = self._on(pos) & resting[:, :, None]
        return out

    def _in_zone(self, pos: np.ndarray) -> np.ndarray:
        """Bool (S, M): the objects' xy inside an answer-zone rectangle."""
        x, y = pos[:, :, 0], pos[:, :, 1]
        inside = np.zeros(x.shape, dtype=bool)
        for x0, y0, x1, y1 in self.zone:
            inside |= (x >= x0) & (x <= x1) & (y >= y0) & (y <= y1)
        return inside

    def _on(self, pos: np.ndarray) -> np.ndarray:
        """Bool (S, M, N): the objects' centres over the candidates' footprints, touching no
        other candidate."""
        assert self._supports is not None
        position, orientation, prints, touch = self._supports
        movers = pos[:, self._movers]  # (S, K, 3): the objects that are not candidates
        over = np.zeros((*movers.shape[:2], len(prints)), dtype=bool)
        for c, fp in enumerate(prints):
            at = self.buffer[:, position[c]][:, None, :]  # (S, 1, 3)
            quat = self.buffer[:, orientation[c]][:, None, :]  # (S, 1, 4)
            over[:, :, c] = in_footprint(movers, at, quat, fp)
        touching = self.buffer[:, touch] > 0  # (S, K, N)
        others = touching.sum(axis=2, keepdims=True) - touching  # other candidates touched
        out = np.zeros((*pos.shape[:2], len(prints)), dtype=bool)
        out[:, self._movers] = over & (others == 0)
        return out

    def snapshot(self, data: mujoco.MjData, gripper_cmd: np.ndarray) -> dict[str, np.ndarray]:
        """Signals of the current state alone (S = 1), as reported at reset."""
        self.begin(1)
        self.record(data, 0)
        return self.finish(gripper_cmd)
