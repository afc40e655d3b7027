"""Joint and gripper conventions between rsb_mj and an openpi policy server.

rsb_mj's state and action share one layout and one gripper scale: 14-D ``[left 6 joints
(rad), left gripper, right 6 joints (rad), right gripper]``, grippers 0 closed .. 1 open,
linear in the finger slide (``rsb_mj.scene.aloha.finger_to_gripper``).

openpi's ALOHA policies (``src/openpi/policies/aloha_policy.py``, ``adapt_to_pi=True``: the
``pi0_aloha*``/``pi05_aloha`` configs and the base models' ALOHA transforms) use two scales:

* state gripper: the normalized *linear* finger position of the Interbotix runtime,
  ``(x - 0.01844) / (0.05800 - 0.01844)`` [m]. The server turns it into a horn angle
  ``theta = arcsin((r^2 + x^2 - l^2) / (2 r x))`` (arm ``l = 0.036`` m, horn ``r = 0.022``
  m) and normalizes that to pi's range ``(theta - 0.5476) / (1.6296 - 0.5476)``.
* action gripper: a normalized *joint angle*: the server adds 0.5476 to the model's output
  and normalizes between the puppet gripper joint limits ``-0.6213 .. 1.4910`` rad.

So a model that holds its (pi-space) state returns an action gripper that differs from the
state gripper (0.1 -> 0.174, 0.25 -> 0.310, 0.75 -> 0.659). :class:`AlohaConvention` maps
the returned gripper back through the exact inverse of the state path, so that holding the
state holds the fingers. Joints need no change: robosuite's Aloha is the Interbotix vx300s
with ALOHA's joint order, axes, signs and limits (the server applies pi's joint flips itself
in both directions). rsb_mj's finger span ``FINGER_CLOSED .. FINGER_OPEN`` stands for
ALOHA's ``0.01844 .. 0.05800`` m, so the normalized state gripper is sent unchanged.

:class:`RsbConvention` (``convention="rsb"``) sends and returns everything unchanged: for
servers whose state and action grippers share one linear scale (``adapt_to_pi=False``, e.g.
``pi0_aloha_sim``, or your own server speaking rsb_mj's convention).
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np

from rsb_mj.errors import EvalError, did_you_mean

#: Gripper indices in the 14-D state and action.
GRIPPERS = (6, 13)
#: Interbotix puppet finger positions [m] of ALOHA's normalized state gripper 0 and 1.
PUPPET_POSITION_CLOSE, PUPPET_POSITION_OPEN = 0.01844, 0.05800
#: Puppet gripper joint angles [rad] of ALOHA's normalized action gripper 0 and 1.
PUPPET_JOINT_CLOSE, PUPPET_JOINT_OPEN = -0.6213, 1.4910
#: pi's gripper angle range [rad]: the state is normalized to 0..1 over it; the action
#: is offset by its start.
PI_ANGLE_LOW, PI_ANGLE_HIGH = 0.5476, 1.6296
#: Interbotix gripper linkage: arm length and horn radius [m].
LINKAGE_ARM, LINKAGE_HORN = 0.036, 0.022


def horn_angle(position: np.ndarray) -> np.ndarray:
    """Horn angle [rad] of a finger position [m] (openpi's ``linear_to_radian``)."""
    x = np.asarray(position, dtype=np.float64)
    value = (LINKAGE_HORN**2 + x**2 - LINKAGE_ARM**2) / (2 * LINKAGE_HORN * x)
    return np.arcsin(np.clip(value, -1.0, 1.0))


def finger_position(angle: np.ndarray) -> np.ndarray:
    """Finger position [m] of a horn angle [rad]: the inverse of :func:`horn_angle`.

    Solves ``x^2 - 2 r sin(theta) x + r^2 - l^2 = 0`` for its positive root; angles are
    clipped to ``[-pi/2, pi/2]``, the range of ``arcsin``.
    """
    theta = np.clip(np.asarray(angle, dtype=np.float64), -np.pi / 2, np.pi / 2)
    r, arm = LINKAGE_HORN, LINKAGE_ARM
    return r * np.sin(theta) + np.sqrt(arm**2 - (r * np.cos(theta)) ** 2)


def action_gripper_to_state_gripper(action: np.ndarray) -> np.ndarray:
    """ALOHA action gripper (normalized joint angle) -> the state gripper (normalized
    linear opening) a model holding its state meant, clipped to 0..1.

    The inverse of the server's path ``state -> pi state -> (echo) -> action``: undo
    ``_gripper_from_angular`` (back to pi's action value), read that value as pi's
    normalized state, unnormalize it to the horn angle, then the linkage to the position.
    """
    a = np.asarray(action, dtype=np.float64)
    pi_value = a * (PUPPET_JOINT_OPEN - PUPPET_JOINT_CLOSE) + PUPPET_JOINT_CLOSE - PI_ANGLE_LOW
    theta = pi_value * (PI_ANGLE_HIGH - PI_ANGLE_LOW) + PI_ANGLE_LOW
    x = finger_position(theta)
    s = (x - PUPPET_POSITION_CLOSE) / (PUPPET_POSITION_OPEN - PUPPET_POSITION_CLOSE)
    return np.clip(s, 0.0, 1.0)


class Convention(ABC):
    """How rsb_mj's state goes to a server and the server's actions come back."""

    name: str

    @abstractmethod
    def state_to_server(self, state: np.ndarray) -> np.ndarray:
        """rsb_mj state (14,) -> the state the server expects (14,)."""

    @abstractmethod
    def actions_from_server(self, actions: np.ndarray) -> np.ndarray:
        """Server actions (H, 14) -> rsb_mj actions (H, 14), float64."""


class RsbConvention(Convention):
    """rsb_mj's own convention on both sides: nothing is converted."""

    name = "rsb"

    def state_to_server(self, state: np.ndarray) -> np.ndarray:
        """The state unchanged."""
        return np.asarray(state)

    def actions_from_server(self, actions: np.ndarray) -> np.ndarray:
        """The actions unchanged (as float64)."""
        return np.asarray(actions, dtype=np.float64)


class AlohaConvention(Convention):
    """openpi's ALOHA convention (see the module docstring)."""

    name = "aloha"

    def state_to_server(self, state: np.ndarray) -> np.ndarray:
        """The state unchanged: joints and the normalized linear gripper are ALOHA's."""
        return np.asarray(state)

    def actions_from_server(self, actions: np.ndarray) -> np.ndarray:
        """Joints unchanged; grippers through :func:`action_gripper_to_state_gripper`."""
        out = np.array(actions, dtype=np.float64)
        out[:, GRIPPERS] = action_gripper_to_state_gripper(out[:, GRIPPERS])
        return out


#: Convention name -> instance.
CONVENTIONS: dict[str, Convention] = {c.name: c for c in (AlohaConvention(), RsbConvention())}


def get_convention(name: str) -> Convention:
    """The convention called ``name``.

    Raises:
        EvalError: for an unknown name, listing the valid ones.
    """
    if name not in CONVENTIONS:
        raise EvalError(f"unknown openpi convention {name!r}" + did_you_mean(name, CONVENTIONS))
    return CONVENTIONS[name]
