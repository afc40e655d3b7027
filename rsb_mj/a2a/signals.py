"""Signals of an Act2Answer scene: the pick cube's grasp signals and which plate it is on.

The candidate axis of the usual signals (:mod:`rsb_mj.env.signals`) is the *pick object*
here (N = 1: ``contact``, ``pinch``, ``table_contact``, ``lift`` of the cube), since the
cube is what the robot grasps; the plates are the answer candidates. One more signal:

- ``on_plate`` bool (S, P): the cube's centre lies over plate p (xy inside its top face,
  the plate's current pose) and the cube rests low (``lift < ON_PLATE_MAX_LIFT``), P in
  ``scene.candidates`` order.
"""

from __future__ import annotations

import numpy as np

from rsb_mj.env.signals import SignalRecorder
from rsb_mj.lang.a2a import pick_objects
from rsb_mj.scene.categories.answer_plate import HALF_SIZE
from rsb_mj.scene.compiler import Scene, SignalSensors

#: The cube counts as resting on a plate below this lift above its start [m] (on a plate it
#: sits 6 mm higher than on the table).
ON_PLATE_MAX_LIFT = 0.02


class A2ASignalRecorder(SignalRecorder):
    """:class:`SignalRecorder` over the pick object, plus ``on_plate``."""

    def __init__(self, scene: Scene) -> None:
        super().__init__(scene)
        picks = pick_objects(scene.problem)
        self.pick = picks[0]
        self.plate_pos = scene.sensors.position  # (P, 3) addresses, plates = candidates
        self.sensors = SignalSensors.of(scene.model, (self.pick,))
        self.n = 1
        sen = self.sensors
        self._gather = np.concatenate(
            [sen.contact.ravel(), sen.table.ravel(), sen.position.ravel(), sen.finger.ravel()]
        )
        self.rest_z = np.zeros(1)

    def finish(self, gripper_cmd: np.ndarray) -> dict[str, np.ndarray]:
        """The cube's signals of the recorded substeps and ``on_plate``."""
        out = super().finish(gripper_cmd)
        cube = self.buffer[:, self.sensors.position[0]]  # (S, 3)
        plates = self.buffer[:, self.plate_pos.ravel()].reshape(len(cube), -1, 3)  # (S, P, 3)
        dx = np.abs(cube[:, None, 0] - plates[:, :, 0])
        dy = np.abs(cube[:, None, 1] - plates[:, :, 1])
        low = (out["lift"][:, 0] < ON_PLATE_MAX_LIFT)[:, None]
        out["on_plate"] = (dx <= HALF_SIZE[0]) & (dy <= HALF_SIZE[1]) & low
        return out
