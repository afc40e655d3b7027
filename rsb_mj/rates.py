"""Simulation and control rates: one definition for the scene, the environment, the scorer,
the datasets and the reports (pure Python).

The physics steps every 2 ms (500 Hz); the default control rate is 20 Hz, so one control
step holds its targets for 25 physics steps (50 ms). Other control rates must divide the
physics rate (openpi's ALOHA policies run at 50 Hz: 10 physics steps).
"""

from __future__ import annotations

#: MuJoCo timestep of every scene [s].
PHYSICS_TIMESTEP_S = 0.002
#: Physics rate [Hz].
PHYSICS_HZ = 500
#: Default control rate of every suite's environment [Hz].
CONTROL_HZ = 20
#: Physics steps per control step at :data:`CONTROL_HZ`.
SUBSTEPS = PHYSICS_HZ // CONTROL_HZ
#: Control rates ``rsb eval --control-hz`` runs at [Hz]: the default and openpi's ALOHA rate.
CONTROL_RATES: tuple[int, ...] = (CONTROL_HZ, 50)
