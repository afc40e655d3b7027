"""Policies behind one small interface (:class:`Policy`), built from a spec string.

Built in: ``noop``, ``expert``, ``random-grasp``, ``nearest``; the language-blind
``try-all``, ``nearest-to-zone``, ``fixed-letter``, ``fixed-position``
(:mod:`rsb_mj.policies.blind`); ``openpi:HOST:PORT`` for openpi policy servers;
``module:factory`` for your own (see :mod:`rsb_mj.policies.spec`).
"""

from rsb_mj.policies.base import ACTION_DIM, BatchedPolicy, Policy, PolicyStatus, policy_rng
from rsb_mj.policies.blind import (
    FixedLetterPolicy,
    FixedPositionPolicy,
    NearestToZonePolicy,
    TryAllPolicy,
)
from rsb_mj.policies.noop import NoopPolicy
from rsb_mj.policies.openpi import CAMERA_KEYS, OpenPiPolicy
from rsb_mj.policies.scripted import ExpertPolicy, NearestPolicy, RandomGraspPolicy
from rsb_mj.policies.spec import BUILTIN, make_policy

__all__ = [
    "ACTION_DIM",
    "BUILTIN",
    "CAMERA_KEYS",
    "BatchedPolicy",
    "ExpertPolicy",
    "FixedLetterPolicy",
    "FixedPositionPolicy",
    "NearestPolicy",
    "NearestToZonePolicy",
    "NoopPolicy",
    "OpenPiPolicy",
    "Policy",
    "PolicyStatus",
    "RandomGraspPolicy",
    "TryAllPolicy",
    "make_policy",
    "policy_rng",
]
