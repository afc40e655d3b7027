"""Moving objects: kinematic (mocap) bodies driven along VLA-Arena's four motions.

The task's ``(:moving_objects ...)`` (read by :mod:`rsb_mj.lang.motion`) names objects the
compiler builds as MuJoCo *mocap* bodies: they follow their motion exactly, push the robot
and the free objects they meet (contacts), and are not pushed back. Mocap bodies do not
collide with the table (both are fixed to the world for MuJoCo), so a motion may slide
along the table top.

Time. A motion is a function of ``s``, VLA-Arena control steps (1/20 s) since the start of
the episode: ``s = (data.time + phase) * 20``. :meth:`MotionPlayer.advance` sets every mocap
pose for ``data.time`` before each physics step, so the motion is the same at any control
rate; ``phase`` is 0 or, with ``(:motion_phase random)``, drawn from the episode seed
(:meth:`MotionPlayer.reset`), so the same episode always moves the same way.

Freezing (VLA-Arena's CBDDL): once a per-step cost term naming a moving object is violated,
the environment calls :meth:`MotionPlayer.freeze` and that object stops where it is for the
rest of the episode, so what happens after an accident does not depend on the motion.

Frames: the start pose of a moving object is its ``:init`` place (region center, resting
height) with its body orientation; declared positions (circle center, waypoints, parabolic
start) are in the table frame and converted to world here.
"""

from __future__ import annotations

from dataclasses import dataclass

import mujoco
import numpy as np

from rsb_mj.errors import SceneError
from rsb_mj.lang.motion import Motion
from rsb_mj.scene.frames import table_to_world

#: One VLA-Arena motion step [s] (its control rate is 20 Hz).
STEP_S = 0.05
#: VLA-Arena's waypoint segment time: a segment takes ``SEGMENT_TIME / dt`` steps.
SEGMENT_TIME = 10.0


def _yaw_quat(yaw: float) -> np.ndarray:
    return np.array([np.cos(yaw / 2), 0.0, 0.0, np.sin(yaw / 2)])


def _heading_yaw(direction: tuple[float, ...]) -> float:
    """Yaw [rad] turning body +y (VLA-Arena's reference heading (0 1 0)) onto ``direction``."""
    return float(np.arctan2(direction[1], direction[0]) - np.pi / 2)


@dataclass
class MovingBody:
    """One moving object bound to its mocap slot.

    Attributes:
        motion: the declaration.
        mocap: index into ``data.mocap_pos``.
        start: world position at step 0 [m]; rest_z: world z of the object resting on the
            table [m]; quat: body orientation at rest (w, x, y, z).
        phase: start step of this episode (see :meth:`MotionPlayer.reset`).
        frozen_at: the step it stopped at (:meth:`MotionPlayer.freeze`), or None.
    """

    motion: Motion
    mocap: int
    start: np.ndarray
    rest_z: float
    quat: np.ndarray
    phase: float = 0.0
    frozen_at: float | None = None

    def cycle(self) -> float:
        """Steps after which the motion repeats (parabolic: 0, it does not)."""
        m = self.motion
        if m.type == "linear":
            return 2.0 * (round(m.period) // 2)
        if m.type == "circle":
            return float(m.period)
        if m.type == "waypoint":
            return 2.0 * (len(m.waypoints) - 1) * max(1, int(SEGMENT_TIME / m.dt))
        return 0.0

    def pose(self, s: float) -> tuple[np.ndarray, np.ndarray]:
        """World position [m] and orientation (w, x, y, z) at step ``s`` >= 0."""
        m = self.motion
        if m.type == "linear":
            half = round(m.period) // 2
            u = s % (2 * half)
            along = u / half if u <= half else 2.0 - u / half
            direction = np.asarray(m.direction) / np.linalg.norm(m.direction)
            return self.start + direction * m.travel_dist * along, self.quat
        if m.type == "circle":
            center = table_to_world(*m.center[:2], 0.0)
            center[2] = self.start[2]
            radius = self.start - center
            r = float(np.linalg.norm(radius))
            x_axis = radius / r
            y_axis = np.cross([0.0, 0.0, 1.0], x_axis)
            angle = 2.0 * np.pi * s / m.period
            return center + r * (np.cos(angle) * x_axis + np.sin(angle) * y_axis), self.quat
        if m.type == "waypoint":
            return self._waypoint(s)
        return self._parabolic(s)

    def _waypoint(self, s: float) -> tuple[np.ndarray, np.ndarray]:
        m = self.motion
        length = max(1, int(SEGMENT_TIME / m.dt))
        segments = len(m.waypoints) - 1
        one_way = segments * length
        u = s % (2 * one_way) if m.loop else min(s, 2.0 * one_way)
        q = u if u <= one_way else 2 * one_way - u
        seg = min(int(q // length), segments - 1)
        alpha = (q - seg * length) / length
        (p0, h0), (p1, h1) = m.waypoints[seg], m.waypoints[seg + 1]
        pos = table_to_world(*p0) + alpha * (np.asarray(p1) - np.asarray(p0))
        y0, y1 = _heading_yaw(h0), _heading_yaw(h1)
        turn = (y1 - y0 + np.pi) % (2 * np.pi) - np.pi  # shortest way (slerp about z)
        quat = np.empty(4)
        mujoco.mju_mulQuat(quat, _yaw_quat(y0 + alpha * turn), self.quat)
        return pos, quat

    def _parabolic(self, s: float) -> tuple[np.ndarray, np.ndarray]:
        m = self.motion
        velocity = np.asarray(m.direction) / np.linalg.norm(m.direction) * m.initial_speed
        gravity = np.asarray(m.gravity)
        tau = s * m.dt
        a, b, c = 0.5 * gravity[2], velocity[2], self.start[2] - self.rest_z
        if a < 0:  # lands at the larger root of a t^2 + b t + c = 0
            land = (-b - np.sqrt(max(b * b - 4 * a * c, 0.0))) / (2 * a)
            tau = min(tau, max(land, 0.0))
        return self.start + velocity * tau + 0.5 * gravity * tau * tau, self.quat


class MotionPlayer:
    """Drives a scene's moving objects (empty when the task has none)."""

    def __init__(self, model: mujoco.MjModel, motions: tuple[Motion, ...], rest: dict[str, float]):
        """Bind each motion to its object's mocap body.

        Raises:
            SceneError: when a circle's start position is its center.
        """
        self.bodies: list[MovingBody] = []
        for motion in motions:
            body = model.body(motion.name)
            start = np.array(body.pos, dtype=float)
            if motion.type == "parabolic" and motion.start_pos is not None:
                start = table_to_world(*motion.start_pos)
            rest_z = float(table_to_world(0.0, 0.0, rest[motion.name])[2])
            if motion.type == "circle":
                offset = start[:2] - table_to_world(*motion.center)[:2]
                if np.linalg.norm(offset) < 1e-6:
                    raise SceneError(
                        f"{motion.name}: the circle's center is the object's start position; "
                        "the radius is the distance between them"
                    )
            self.bodies.append(
                MovingBody(
                    motion, int(body.mocapid[0]), start, rest_z, np.array(body.quat, dtype=float)
                )
            )

    def __bool__(self) -> bool:
        return bool(self.bodies)

    def reset(self, data: mujoco.MjData, seed: int) -> None:
        """Draw each motion's start step (``(:motion_phase random)``) from ``seed`` and put
        the bodies at their step-0 poses (``data.time`` must be 0)."""
        rng = np.random.default_rng(seed)
        for body in self.bodies:
            phase = body.motion.phase
            draw = float(rng.uniform(0.0, body.cycle() or 1.0))  # always drawn: stable order
            body.phase = draw if phase == "random" else float(phase or 0.0)
            body.frozen_at = None
        self.advance(data)

    def freeze(self, name: str, data: mujoco.MjData) -> bool:
        """Stop the moving object ``name`` where it is now (no-op for others or when already
        stopped); returns whether it stopped now."""
        for body in self.bodies:
            if body.motion.name == name and body.frozen_at is None:
                body.frozen_at = body.phase + data.time / STEP_S
                return True
        return False

    @property
    def frozen(self) -> tuple[str, ...]:
        """Names of the moving objects stopped so far this episode."""
        return tuple(b.motion.name for b in self.bodies if b.frozen_at is not None)

    def advance(self, data: mujoco.MjData) -> None:
        """Set every mocap pose for ``data.time`` (call before each ``mj_step``)."""
        for body in self.bodies:
            s = body.phase + data.time / STEP_S
            pos, quat = body.pose(s if body.frozen_at is None else min(s, body.frozen_at))
            data.mocap_pos[body.mocap] = pos
            data.mocap_quat[body.mocap] = quat
