"""Extra sensors ("probes") a downstream consumer asks the scene compiler to add.

The safety costs (:mod:`rsb_mj.scoring.cost`) read contacts, contact forces, distances and
poses of named bodies at every physics substep. They ask for them as :class:`Probe` values;
:func:`add_probes` turns each into one MuJoCo sensor, so recording a substep stays one copy
of ``data.sensordata`` (as for the scoring signals, :mod:`rsb_mj.env.signals`).

Sensor names are ``probe/{kind}/{body}`` or ``probe/{kind}/{body}/{other}``; :func:`probe_name`
gives the name, ``model.sensor(name).adr`` the address in ``data.sensordata``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import mujoco

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
            spec.add_sensor(
                name=probe.name,
                type=mujoco.mjtSensor.mjSENS_GEOMDIST,
                objtype=body,
                objname=probe.body,
                reftype=body,
                refname=probe.other,
                cutoff=probe.cutoff,
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
