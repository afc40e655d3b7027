"""Extra sensors ("probes") a downstream consumer asks the scene compiler to add.

The safety costs (:mod:`rsb_mj.scoring.cost`) read contacts, contact forces, distances and
poses of named bodies at every physics substep. They ask for them as :class:`Probe` values;
:func:`add_probes` turns each into one MuJoCo sensor, so recording a substep stays one copy
of ``data.sensordata`` (as for the scoring signals, :mod:`rsb_mj.env.signals`).

Sensor names are ``probe/{kind}/{body}`` or ``probe/{kind}/{body}/{other}``; :func:`probe_name`
gives the name and :func:`probe_columns` the columns of ``data.sensordata`` it fills. A
``dist`` probe is one MuJoCo distance sensor per pair of *collision* geoms of the two bodies
(named ``{name}#{k}``; the smallest value is the distance): a body-level distance sensor
would also measure the visual meshes (thousands of vertices for the robot's fingers), about
ten times slower per substep for the same answer up to the visual-collision offset.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import mujoco
import numpy as np

from rsb_mj.errors import SceneError

#: Probe kinds and the sensor values each reports (per substep).
KINDS: dict[str, str] = {
    "contact": "[number of contacts, net contact force x, y, z (N, world frame)]",
    "dist": "[smallest distance between the two bodies' geoms (m), capped at the cutoff]",
    "pos": "[body origin x, y, z (m, world frame)]",
    "quat": "[body orientation w, x, y, z (world frame)]",
}
#: Stand-in for "any other body" as the second body of a contact probe.
ANY = "*"


@dataclass(frozen=True)
class Probe:
    """One sensor request.

    Attributes:
        kind: one of :data:`KINDS`.
        body: the body it reads.
        other: the second body (``contact``: a body name or :data:`ANY`; ``dist``: a body
            name), "" for ``pos``/``quat``.
        cutoff: ``dist`` only: distances above it read as the cutoff [m].
    """

    kind: str
    body: str
    other: str = ""
    cutoff: float = 0.0

    @property
    def name(self) -> str:
        """The sensor's name in the compiled model."""
        return probe_name(self.kind, self.body, self.other)


def probe_name(kind: str, body: str, other: str = "") -> str:
    """``probe/{kind}/{body}[/{other}]``."""
    return f"probe/{kind}/{body}" + (f"/{other}" if other else "")


def merge(probes: Iterable[Probe]) -> tuple[Probe, ...]:
    """One probe per sensor name, in first-seen order (a ``dist`` keeps the largest cutoff)."""
    out: dict[str, Probe] = {}
    for probe in probes:
        held = out.get(probe.name)
        if held is None or probe.cutoff > held.cutoff:
            out[probe.name] = (
                probe if held is None else Probe(**{**vars(held), "cutoff": probe.cutoff})
            )
    return tuple(out.values())


def _collision_geoms(spec: mujoco.MjSpec, body: str) -> list[str]:
    """Names of the geoms of ``body`` (its own, not its children's) that collide; unnamed
    ones get the name ``{body}/probe_geom{k}``."""
    out = []
    for k, geom in enumerate(spec.body(body).geoms):
        if geom.contype or geom.conaffinity:
            if not geom.name:
                geom.name = f"{body}/probe_geom{k}"
            out.append(geom.name)
    return out


def probe_columns(model: mujoco.MjModel, name: str) -> np.ndarray:
    """Columns of ``data.sensordata`` filled by the probe called ``name`` (every sensor
    ``name`` or ``name#k``, in model order).

    Raises:
        SceneError: when the model has no such sensor.
    """
    cols = [
        int(model.sensor_adr[i]) + np.arange(int(model.sensor_dim[i]))
        for i in range(model.nsensor)
        if (sensor := model.sensor(i).name) == name or sensor.startswith(name + "#")
    ]
    if not cols:
        raise SceneError(f"the scene has no probe sensor {name!r}")
    return np.concatenate(cols)


def add_probes(spec: mujoco.MjSpec, probes: Iterable[Probe]) -> None:
    """Add one sensor per (merged) probe to ``spec``."""
    body = mujoco.mjtObj.mjOBJ_BODY
    for probe in merge(probes):
        if probe.kind == "contact":
            sensor = spec.add_sensor(
                name=probe.name,
                type=mujoco.mjtSensor.mjSENS_CONTACT,
                objtype=body,
                objname=probe.body,
            )
            if probe.other != ANY:
                sensor.reftype, sensor.refname = body, probe.other
            sensor.intprm = [1 | 2, 3, 1]  # data="found force", reduce="netforce", num=1
        elif probe.kind == "dist":
            pairs = [
                (a, b)
                for a in _collision_geoms(spec, probe.body)
                for b in _collision_geoms(spec, probe.other)
            ]
            for k, (a, b) in enumerate(pairs):
                spec.add_sensor(
                    name=f"{probe.name}#{k}",
                    type=mujoco.mjtSensor.mjSENS_GEOMDIST,
                    objtype=mujoco.mjtObj.mjOBJ_GEOM,
                    objname=a,
                    reftype=mujoco.mjtObj.mjOBJ_GEOM,
                    refname=b,
                    cutoff=probe.cutoff,
                )
            if not pairs:
                raise SceneError(
                    f"probe {probe.name!r}: {probe.body!r} or {probe.other!r} has no "
                    "collision geom to measure a distance from"
                )
        elif probe.kind in ("pos", "quat"):
            kind = (
                mujoco.mjtSensor.mjSENS_FRAMEPOS
                if probe.kind == "pos"
                else mujoco.mjtSensor.mjSENS_FRAMEQUAT
            )
            spec.add_sensor(name=probe.name, type=kind, objtype=body, objname=probe.body)
        else:
            raise SceneError(
                f"unknown probe kind {probe.kind!r}; valid choices: {', '.join(KINDS)}"
            )
