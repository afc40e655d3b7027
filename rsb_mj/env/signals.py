"""Raw predicate signals recorded at every physics substep (what scoring needs).

Per control step with S substeps and N candidates (candidate order = ``scene.candidates``):

- ``contact`` bool (S, N, 2): candidate n touches a finger link (finger mesh or pad) of the
  [left, right] gripper (any MuJoCo contact between their geoms);
- ``pinch`` bool (S, N, 2): candidate n touches *both* finger links of the [left, right]
  gripper (held between the fingers; a contact through a held object is not a contact);
- ``table_contact`` bool (S, N): candidate n touches the table (answer-zone patch included);
- ``gripper_cmd`` float (S, 2): commanded [left, right] gripper, 0 closed .. 1 open;
- ``gripper_open`` float (S, 2): measured normalized opening (mean of the two finger slides);
- ``lift`` float (S, N): candidate center height above its resting height at reset [m];
- ``in_zone`` bool (S, N): candidate center's xy inside an answer-zone rectangle and
  ``lift < IN_ZONE_MAX_LIFT``.

Row k describes the state at the start of physics substep k+1, as MuJoCo's forward pass
computed it inside ``mj_step`` (contacts, positions). Everything comes from the scene's
signal sensors (:class:`rsb_mj.scene.compiler.SignalSensors`), so recording one substep is a
single copy of ``data.sensordata``; the signals are then computed vectorized once per step.
"""

from __future__ import annotations

import mujoco
import numpy as np

from rsb_mj.scene.aloha import finger_to_gripper
from rsb_mj.scene.compiler import Scene
from rsb_mj.scene.layout import answer_zone_rects

#: A candidate counts as resting in the zone only below this lift [m].
IN_ZONE_MAX_LIFT = 0.02


class SignalRecorder:
    """Collects per-substep signals of one scene (one recorder per environment)."""

    def __init__(self, scene: Scene) -> None:
        self.n = len(scene.candidates)
        self.sensors = scene.sensors
        self.nsensordata = scene.model.nsensordata
        zone = np.asarray(answer_zone_rects(scene.problem), dtype=float).reshape(-1, 4)
        # Rectangles as (x_min, y_min, x_max, y_max).
        self.zone = np.concatenate(
            [np.minimum(zone[:, :2], zone[:, 2:]), np.maximum(zone[:, :2], zone[:, 2:])], axis=1
        )
        sen = scene.sensors
        # One gather per step: contact counts (N*4), table contacts (N), positions (N*3),
        # fingers (4).
        self._gather = np.concatenate(
            [sen.contact.ravel(), sen.table.ravel(), sen.position.ravel(), sen.finger.ravel()]
        )
        self.rest_z = np.zeros(self.n)
        self.buffer = np.zeros((0, self.nsensordata))

    def reset(self, data: mujoco.MjData) -> None:
        """Take the candidates' current heights as their resting heights (needs mj_forward)."""
        self.rest_z = data.sensordata[self.sensors.position[:, 2]].copy()

    def begin(self, substeps: int) -> None:
        """Allocate the buffer for ``substeps`` rows."""
        self.buffer = np.empty((substeps, self.nsensordata))

    def record(self, data: mujoco.MjData, k: int) -> None:
        """Store substep ``k`` (call right after ``mj_step``)."""
        self.buffer[k] = data.sensordata

    def finish(self, gripper_cmd: np.ndarray) -> dict[str, np.ndarray]:
        """The signals of the recorded substeps; ``gripper_cmd`` is the (2,) command."""
        n = self.n
        steps = len(self.buffer)
        rows = self.buffer[:, self._gather]
        fingers_touching = rows[:, : 4 * n].reshape(steps, n, 2, 2) > 0
        table = rows[:, 4 * n : 5 * n] > 0
        pos = rows[:, 5 * n : 8 * n].reshape(steps, n, 3)
        fingers = rows[:, 8 * n :].reshape(steps, 2, 2).mean(axis=2)
        lift = pos[:, :, 2] - self.rest_z
        x, y = pos[:, :, 0], pos[:, :, 1]
        inside = np.zeros((steps, n), dtype=bool)
        for x0, y0, x1, y1 in self.zone:
            inside |= (x >= x0) & (x <= x1) & (y >= y0) & (y <= y1)
        return {
            "contact": fingers_touching.any(axis=3),
            "pinch": fingers_touching.all(axis=3),
            "table_contact": table,
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


def recorder_for(scene: Scene) -> SignalRecorder:
    """The recorder of ``scene``: :class:`SignalRecorder`, or for an Act2Answer scene (one with
    a pick object) :class:`rsb_mj.a2a.signals.A2ASignalRecorder`."""
    from rsb_mj.lang.a2a import pick_objects

    if pick_objects(scene.problem):
        from rsb_mj.a2a.signals import A2ASignalRecorder

        return A2ASignalRecorder(scene)
    return SignalRecorder(scene)
