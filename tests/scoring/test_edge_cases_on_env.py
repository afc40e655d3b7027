"""The remaining scoring edge cases, driven on the real MuJoCo scene (issue 24).

Act2Answer: a cube straddling both plates, a cube set on one plate then slid to the other,
a thrown cube. RSB: a grasp through a held distractor (-L1, -L2), two candidates grasped in
the same control step by the two arms. Each case asserts the exact outcome of
:class:`rsb_mj.scoring.EpisodeScorer` (and, for the last, the record's ``failure_reason``);
the rules are docs/protocol.md.
"""

from dataclasses import replace

import mujoco
import numpy as np
import pytest

from rsb_mj.evaluation.rollout import Rollout
from rsb_mj.expert import PickPlaceExpert
from rsb_mj.expert.placements import placements
from rsb_mj.policies.base import Policy
from rsb_mj.scoring import EpisodeScorer
from rsb_mj.scoring.outcome import SUCCESS_HOLD_STEPS
from rsb_mj.suites import get_suite
from rsb_mj.tables.episode_source import load_episode


def _env(suite, **kwargs):
    from rsb_mj.env import RsbEnv

    return RsbEnv(get_suite(suite).path, suite=suite, cameras=(), **kwargs)


@pytest.fixture(scope="module")
def a2a():
    # The cube starts on the table (--a2a-start table): these cases throw, slide and set it
    # down from there; the held start is tests/a2a/test_held.py's.
    e = _env("A2A-Color", start_held=False)
    yield e
    e.close()


def _start(env, suite, index):
    episode = load_episode(suite, "eval", index)
    obs, info = env.reset(options={"episode": episode})
    scorer = EpisodeScorer.for_problem(env.problem, tuple(info["candidates"]), episode.target)
    return episode, obs, scorer


def _pos(env, body):
    return env.data.xpos[env.model.body(body).id].copy()


def _put(env, body, xyz, velocity=(0.0,) * 6):
    """Teleport ``body`` (a free body) to world ``xyz`` with the given (6,) velocity."""
    joint = env.model.joint(f"{body}/free")
    env.data.qpos[joint.qposadr[0] : joint.qposadr[0] + 3] = xyz
    env.data.qvel[joint.dofadr[0] : joint.dofadr[0] + 6] = velocity
    mujoco.mj_forward(env.model, env.data)


def _hold(env, scorer, action, steps):
    for _ in range(steps):
        *_, info = env.step(action)
        out = scorer.update(info["signals"])
    return out, info


def _touching(env, a, b):
    """Whether bodies ``a`` and ``b`` are in contact."""
    ids = {env.model.body(a).id, env.model.body(b).id}
    return any(
        {env.model.geom_bodyid[c.geom1], env.model.geom_bodyid[c.geom2]} == ids
        for c in env.data.contact[: env.data.ncon]
    )


# -- Act2Answer ----------------------------------------------------------------------------


def test_a_straddling_cube_decides_nothing_until_it_rests_on_one_plate_only(a2a):
    env = a2a
    _, _, scorer = _start(env, "A2A-Color", 0)
    hold = env.state()
    a = _pos(env, "plate_a")  # plate_a stands left (x -0.11); plate_b moves 1 cm beside it
    _put(env, "plate_b", a + np.array([0.17, 0.0, 0.0]))
    z = _pos(env, "cube")[2] + 0.008  # on a plate's top face (6 mm up)
    # The cube's centre 5 mm inside plate_a's inner edge; its other side lies on plate_b.
    _put(env, "cube", [a[0] + 0.075, a[1], z])
    out, info = _hold(env, scorer, hold, 2 * SUCCESS_HOLD_STEPS)
    assert _touching(env, "cube", "plate_a") and _touching(env, "cube", "plate_b")
    assert abs(_pos(env, "cube")[0] - a[0]) < 0.08  # the centre is over plate_a
    assert info["signals"]["on"][-1, 0].tolist() == [False, False]
    assert (out.decided, out.choice, out.in_zone) == (False, None, [])
    _put(env, "cube", [a[0], a[1], z])  # now on plate_a only
    out, _ = _hold(env, scorer, hold, SUCCESS_HOLD_STEPS)
    assert (out.decided, out.choice, out.decided_step) == (True, "plate_a", 3 * SUCCESS_HOLD_STEPS)
    assert scorer.finish().success is False  # plate_b is the answer, and nothing was grasped


def _set_down_on(env, scorer, obs, plate):
    """Run the expert putting the cube on ``plate`` until the released cube first rests on
    it (the placement's 0.5 s start)."""
    expert = PickPlaceExpert(env, plate)
    n = env.scene.candidates.index(plate)
    for _ in range(400):
        obs, *_, info = env.step(expert.act(obs))
        out = scorer.update(info["signals"])
        if info["signals"]["on"][-1, 0, n] and not info["signals"]["contact"][-1].any():
            return expert, obs, out
    raise AssertionError(f"the cube never rested on {plate}")


def _slide(env, scorer, expert, obs, onto, steps=5):
    """Slide the cube across to the centre of ``onto`` in ``steps`` control steps (the
    expert goes on retreating)."""
    start, end = _pos(env, "cube"), _pos(env, onto)
    end[2] = start[2]
    for k in range(1, steps + 1):
        _put(env, "cube", start + (end - start) * k / steps)
        obs, *_, info = env.step(expert.act(obs))
        out = scorer.update(info["signals"])
    return obs, out


@pytest.mark.parametrize("rested", [SUCCESS_HOLD_STEPS, 0], ids=["after-0.5-s", "at-once"])
def test_a_cube_set_on_one_plate_then_slid_to_the_other(a2a, rested):
    env = a2a
    episode, obs, scorer = _start(env, "A2A-Color", 0)
    assert episode.target == "plate_b"
    expert, obs, out = _set_down_on(env, scorer, obs, "plate_a")  # the wrong plate
    placed = out.steps
    for _ in range(rested):
        obs, *_, info = env.step(expert.act(obs))
        out = scorer.update(info["signals"])
    obs, out = _slide(env, scorer, expert, obs, "plate_b")
    out, _ = _hold(env, scorer, env.state(), 2 * SUCCESS_HOLD_STEPS)
    assert out.grasped and out.decided
    if rested:  # the first placement decided: sliding the cube on changes nothing
        assert (out.choice, out.success) == ("plate_a", False)
        assert placed + SUCCESS_HOLD_STEPS - 1 <= out.decided_step <= placed + SUCCESS_HOLD_STEPS
    else:  # slid away before 0.5 s: the plate it comes to rest on decides, later
        assert (out.choice, out.success) == ("plate_b", True)
        assert out.decided_step > placed + SUCCESS_HOLD_STEPS


def _throw(env, scorer, obs, speed, up):
    """Grasp and lift the cube with the expert, open the gripper and throw the cube at
    ``speed`` m/s towards plate_b, ``up`` m/s upwards; step until decided (3 s at most)."""
    expert = PickPlaceExpert(env, "plate_b")
    while expert.phase != "carry":
        obs, *_, info = env.step(expert.act(obs))
        scorer.update(info["signals"])
    release = env.state()
    release[[6, 13]] = 1.0
    _hold(env, scorer, release, 3)
    cube, plate = _pos(env, "cube"), _pos(env, "plate_b")
    heading = (plate - cube)[:2] / np.linalg.norm((plate - cube)[:2])
    _put(env, "cube", cube, [*(speed * heading), up, 0.0, 0.0, 0.0])
    for _ in range(60):
        out, _ = _hold(env, scorer, release, 1)
        if out.decided:
            break
    return out


def test_a_thrown_cube_chooses_the_plate_it_comes_to_rest_on(a2a):
    env = a2a
    _, obs, scorer = _start(env, "A2A-Color", 0)
    out = _throw(env, scorer, obs, 1.4, 0.6)
    assert (out.grasped, out.choice, out.success, out.in_zone) == (
        True,
        "plate_b",
        True,
        ["plate_b"],
    )
    # Thrown past the plates: it rests on the table, nothing is chosen.
    _, obs, scorer = _start(env, "A2A-Color", 0)
    out = _throw(env, scorer, obs, 1.6, 0.9)
    assert _pos(env, "cube")[1] > _pos(env, "plate_b")[1] + 0.06  # beyond plate_b
    out = scorer.finish()
    assert (out.grasped, out.choice, out.success, out.in_zone) == (True, None, False, [])


# -- RSB -----------------------------------------------------------------------------------


@pytest.mark.parametrize("suite", ["RSB-Math-4-L1", "RSB-Math-4-L2"])
def test_a_grasp_through_a_held_distractor_is_no_grasp(suite):
    """The expert grasps the can (not a candidate), then sweeps it through a block with the
    gripper closed: the block is pushed by the can, never between the fingers."""
    env = _env(suite)
    try:
        _, obs, scorer = _start(env, suite, 2)
        # the task's placement, bound to the can instead of a candidate: pick a distractor
        (asked,) = placements(env.scene.problem, env.scene.candidates[0])
        asked = replace(asked, relation=replace(asked.relation, mover="can_1"), choice="can_1")
        expert = PickPlaceExpert(env, asked)
        while expert.phase != "carry":
            obs, *_, info = env.step(expert.act(obs))
            scorer.update(info["signals"])
        can, (tcp, rot) = _pos(env, "can_1"), expert.arm.tcp(env.data)
        block = min(env.scene.candidates, key=lambda c: np.linalg.norm((_pos(env, c) - can)[:2]))
        b = _pos(env, block)
        low = np.array([b[0], b[1] - 0.09, b[2]]) - (can - tcp)  # the can beside the block
        action = env.state()
        action[[6, 13]] = 1.0
        action[expert.arm.offset + 6] = 0.0  # the can stays held
        q, pressed, fingers = expert.arm.q(env.data), 0, 0
        n = env.scene.candidates.index(block)
        up, sweep = np.array([0.0, 0.0, 0.1]), np.array([0.0, 0.14, 0.0])
        for p0, p1, per_cm in ((tcp, low + up, 2), (low + up, low, 2), (low, low + sweep, 2)):
            for p in np.linspace(p0, p1, int(np.linalg.norm(p1 - p0) * 100) + 1):
                q = expert.arm.ik.solve(p, rot, q0=q).q
                action[expert.arm.offset : expert.arm.offset + 6] = q
                for _ in range(per_cm):
                    out, info = _hold(env, scorer, action, 1)
                    pressed += _touching(env, "can_1", block)
                    fingers += int(info["signals"]["contact"][:, n].any())
        assert np.linalg.norm((_pos(env, block) - b)[:2]) > 0.02  # really pushed 2+ cm
        assert pressed > 0 and fingers == 0  # pushed by the can, never touched by a finger
        assert _pos(env, "can_1")[2] > env.scene.table_top_z + 0.02  # still held up
        out = scorer.finish()
        assert (out.grasped, out.choice, out.grasped_candidates) == (False, None, [])
    finally:
        env.close()


class TwoArms(Policy):
    """Each arm's expert on its own block (the leftmost and the rightmost candidate), in
    step: both descend, then both grippers close in the same control step."""

    name = "two-arms"
    simulator = True

    def reset(self, env, obs, info):
        xs = {c: env.data.xpos[env.model.body(c).id][0] for c in env.scene.candidates}
        self.blocks = (min(xs, key=xs.get), max(xs, key=xs.get))
        self.experts = [PickPlaceExpert(env, b) for b in self.blocks]
        self.last = [e.act(obs) for e in self.experts]
        self.closed = 0

    def act(self, obs):
        if all(e.phase == "close" for e in self.experts):
            self.closed += 1
        else:
            self.last = [
                e.act(obs) if e.phase != "close" else a
                for e, a in zip(self.experts, self.last, strict=True)
            ]
        action = np.concatenate([self.last[0][:7], self.last[1][7:]])
        if self.closed:
            action[[6, 13]] = 0.0
        return action

    @property
    def done(self):
        return self.closed > 20


def test_two_candidates_grasped_in_the_same_control_step_are_no_choice():
    env = _env("RSB-Math-4")
    try:
        episode = load_episode("RSB-Math-4", "eval", 0)
        policy = TwoArms()
        record = Rollout(env, policy, episode, env.problem, max_steps=400).run()
    finally:
        env.close()
    left, right = policy.blocks
    assert (left, right) == ("block_c", "block_b") and episode.target == "block_b"
    assert (record.grasped, record.choice, record.success) == (True, None, False)
    assert record.termination == "wrong_choice" and record.steps == record.grasp_step
    assert record.grasped_candidates == ["block_b", "block_c"]
    assert record.failure_reason == "block_b, block_c grasped in the same control step: no choice"
