"""Joint and gripper conventions between rsb_mj and ALOHA data: openpi servers, LeRobot exports.

rsb_mj's own state and action share one layout and one gripper scale: 14-D ``[left 6 joints
(rad), left gripper, right 6 joints (rad), right gripper]``, grippers 0 closed .. 1 open,
linear in the finger slide (``rsb_mj.scene.aloha.finger_to_gripper``).

Real ALOHA data, and openpi's ALOHA transforms with their default ``adapt_to_pi=True``
(``src/openpi/policies/aloha_policy.py``: ``AlohaInputs``/``AlohaOutputs``, used by every
``LeRobotAlohaDataConfig``, ``pi0_aloha_sim`` included), use two gripper scales:

* state gripper ``s``: the Interbotix puppet finger position normalized over
  ``0.01844 .. 0.05800`` m. openpi turns it into a horn angle ``theta = arcsin((r^2 + x^2 -
  l^2) / (2 r x))`` (arm ``l = 0.036`` m, horn ``r = 0.022`` m) and normalizes that over pi's
  gripper range ``0.5476 .. 1.6296`` rad: pi's state gripper ``(theta - 0.5476) / 1.082``.
* action gripper ``a``: the puppet gripper *joint* normalized over ``-0.6213 .. 1.4910`` rad.
  openpi's training targets are ``a * 2.1123 - 0.6213 - 0.5476`` (``_gripper_from_angular_
  inv``), and a model's output ``p`` comes back as ``a = (p + 0.5476 + 0.6213) / 2.1123``.

:class:`AlohaConvention` (``"aloha"``, the default of ``openpi:HOST:PORT`` and the convention
``rsb export-lerobot`` writes, named in the dataset's ``meta/info.json``) puts rsb_mj's
gripper ``g`` at pi's gripper value ``p = g * PI_OPEN`` in both directions, with
``PI_OPEN = (pi/2 - 0.5476) / 1.082 = 0.9457`` (the widest opening the state path can carry:
``arcsin`` stops at ``theta = pi/2``, finger 0.058 m). So in pi's space

* closed is 0 and open is 0.9457: state and action grippers lie in openpi's 0..1 range
  (rsb_mj's raw scale put the targets at -1.17..0.94);
* a model that holds its state returns its state (state and action share one scale), and
  an ideal model fine-tuned on an export returns the recorded grippers exactly;
* the ALOHA values are ``s = normalized finger_position(0.5476 + g * (pi/2 - 0.5476))``
  (0.600 closed .. 1.0 open) and ``a = (g * PI_OPEN + 1.1689) / 2.1123`` (0.5534 .. 1.0011).

Joints need no change: rsb_mj's arms are the Interbotix vx300s with ALOHA's joint order,
axes, signs and limits (openpi applies pi's joint flips itself, in both directions).

:class:`RsbConvention` (``convention="rsb"``) sends and returns everything unchanged: for a
server speaking rsb_mj's own scale, or a model fine-tuned on a dataset exported before
datasets named their convention (no ``rsb_convention`` in ``meta/info.json``: rsb_mj's
grippers were written unchanged, and an ideal model returns them unchanged).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

import numpy as np

from rsb_mj.errors import EvalError

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
#: pi's gripper value of rsb_mj's open gripper (1): the horn at pi/2, the finger at 0.058 m.
PI_OPEN = (np.pi / 2 - PI_ANGLE_LOW) / (PI_ANGLE_HIGH - PI_ANGLE_LOW)


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


def gripper_to_aloha_state(gripper: np.ndarray) -> np.ndarray:
    """rsb_mj gripper (0..1, clipped) -> ALOHA's state gripper (normalized finger position)
    that openpi's ``_gripper_to_angular`` reads as pi's value ``gripper * PI_OPEN``."""
    g = np.clip(np.asarray(gripper, dtype=np.float64), 0.0, 1.0)
    theta = PI_ANGLE_LOW + g * PI_OPEN * (PI_ANGLE_HIGH - PI_ANGLE_LOW)
    x = finger_position(theta)
    return (x - PUPPET_POSITION_CLOSE) / (PUPPET_POSITION_OPEN - PUPPET_POSITION_CLOSE)


def gripper_from_aloha_state(state: np.ndarray) -> np.ndarray:
    """ALOHA's state gripper -> rsb_mj gripper, clipped to 0..1: the inverse of
    :func:`gripper_to_aloha_state` (openpi's ``_gripper_to_angular`` over ``PI_OPEN``)."""
    s = np.asarray(state, dtype=np.float64)
    x = s * (PUPPET_POSITION_OPEN - PUPPET_POSITION_CLOSE) + PUPPET_POSITION_CLOSE
    pi_value = (horn_angle(x) - PI_ANGLE_LOW) / (PI_ANGLE_HIGH - PI_ANGLE_LOW)
    return np.clip(pi_value / PI_OPEN, 0.0, 1.0)


def gripper_to_aloha_action(gripper: np.ndarray) -> np.ndarray:
    """rsb_mj gripper (0..1, clipped) -> ALOHA's action gripper (normalized joint angle)
    whose openpi training target (``_gripper_from_angular_inv``) is ``gripper * PI_OPEN``."""
    g = np.clip(np.asarray(gripper, dtype=np.float64), 0.0, 1.0)
    return (g * PI_OPEN + PI_ANGLE_LOW - PUPPET_JOINT_CLOSE) / (
        PUPPET_JOINT_OPEN - PUPPET_JOINT_CLOSE
    )


def gripper_from_aloha_action(action: np.ndarray) -> np.ndarray:
    """ALOHA's action gripper -> rsb_mj gripper, clipped to 0..1: the inverse of
    :func:`gripper_to_aloha_action` (undoes openpi's ``_gripper_from_angular``)."""
    a = np.asarray(action, dtype=np.float64)
    pi_value = a * (PUPPET_JOINT_OPEN - PUPPET_JOINT_CLOSE) + PUPPET_JOINT_CLOSE - PI_ANGLE_LOW
    return np.clip(pi_value / PI_OPEN, 0.0, 1.0)


class Convention(ABC):
    """How rsb_mj's state and actions map to a server's or a dataset's (14-D rows)."""

    name: str

    @abstractmethod
    def state_to_server(self, state: np.ndarray) -> np.ndarray:
        """rsb_mj states (..., 14) -> the convention's (sent to a server, written to a
        dataset's ``observation.state``)."""

    @abstractmethod
    def actions_to_server(self, actions: np.ndarray) -> np.ndarray:
        """rsb_mj actions (..., 14) -> the convention's (a dataset's ``action``)."""

    @abstractmethod
    def actions_from_server(self, actions: np.ndarray) -> np.ndarray:
        """The convention's actions (H, 14) -> rsb_mj actions (H, 14), float64."""

    def metadata(self) -> dict[str, Any]:
        """What a dataset records about the convention (``meta/info.json``'s
        ``rsb_convention``)."""
        return {"name": self.name, "client": f"openpi:HOST:PORT,convention={self.name}"}


class RsbConvention(Convention):
    """rsb_mj's own convention on both sides: nothing is converted."""

    name = "rsb"

    def state_to_server(self, state: np.ndarray) -> np.ndarray:
        """The state unchanged."""
        return np.asarray(state)

    def actions_to_server(self, actions: np.ndarray) -> np.ndarray:
        """The actions unchanged."""
        return np.asarray(actions)

    def actions_from_server(self, actions: np.ndarray) -> np.ndarray:
        """The actions unchanged (as float64)."""
        return np.asarray(actions, dtype=np.float64)


class AlohaConvention(Convention):
    """ALOHA's convention as openpi's ALOHA transforms read it (see the module docstring)."""

    name = "aloha"

    def state_to_server(self, state: np.ndarray) -> np.ndarray:
        """Joints unchanged; grippers through :func:`gripper_to_aloha_state`."""
        out = np.array(state, dtype=np.float64)
        out[..., GRIPPERS] = gripper_to_aloha_state(out[..., GRIPPERS])
        return out

    def actions_to_server(self, actions: np.ndarray) -> np.ndarray:
        """Joints unchanged; grippers through :func:`gripper_to_aloha_action`."""
        out = np.array(actions, dtype=np.float64)
        out[..., GRIPPERS] = gripper_to_aloha_action(out[..., GRIPPERS])
        return out

    def actions_from_server(self, actions: np.ndarray) -> np.ndarray:
        """Joints unchanged; grippers through :func:`gripper_from_aloha_action`."""
        out = np.array(actions, dtype=np.float64)
        out[..., GRIPPERS] = gripper_from_aloha_action(out[..., GRIPPERS])
        return out

    def metadata(self) -> dict[str, Any]:
        """The name, the client spec and both gripper scales in words and numbers."""
        return super().metadata() | {
            "joints": "ALOHA (Interbotix vx300s) joint angles [rad], ALOHA's order and signs",
            "state_gripper": "puppet finger position normalized over 0.01844..0.05800 m; "
            "rsb_mj gripper g (0 closed..1 open) is written at horn angle "
            "0.5476 + g * (pi/2 - 0.5476) rad",
            "action_gripper": "puppet gripper joint normalized over -0.6213..1.4910 rad; "
            f"openpi's adapt_to_pi target is g * {PI_OPEN:.6f}",
            "openpi": "LeRobotAlohaDataConfig with its default adapt_to_pi=True",
        }


#: The convention ``rsb export-lerobot`` writes and ``openpi:HOST:PORT`` uses by default.
DEFAULT_CONVENTION = "aloha"
#: Convention name -> instance.
CONVENTIONS: dict[str, Convention] = {c.name: c for c in (AlohaConvention(), RsbConvention())}


def get_convention(name: str) -> Convention:
    """The convention called ``name``.

    Raises:
        EvalError: for an unknown name, listing the valid ones.
    """
    if name not in CONVENTIONS:
        raise EvalError(
            f"unknown openpi convention {name!r}; valid choices: {', '.join(sorted(CONVENTIONS))}"
        )
    return CONVENTIONS[name]
