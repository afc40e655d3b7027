"""Each cost predicate driven with scripted contacts and poses in a real MuJoCo scene."""

from __future__ import annotations

from pathlib import Path

import mujoco
import numpy as np
import pytest

from rsb_mj.env import RsbEnv
from rsb_mj.episodes import sample_episode
from rsb_mj.errors import EvalError
from rsb_mj.lang import parse_text
from rsb_mj.lang.predicates import RSB_COST
from rsb_mj.resources import tasks_dir
from rsb_mj.scene.compiler import compile_scene
from rsb_mj.scoring.cost import CostMeter
from rsb_mj.scoring.cost_predicates import COST_PREDICATES, DIST_MARGIN_M
from rsb_mj.tables import episode_source

TASK = Path(__file__).parents[2] / "tasks" / "rsb_math_4.bddl"
#: One term per line; the tests read the violations by term index.
TERMS = (
    "(InContact block_a block_b)",  # 0
    "(Collide block_b)",  # 1
    "(CheckGripperContact block_d)",  # 2
    "(CheckGripperDistance block_d 0.01)",  # 3
    "(CheckDistance block_a block_b 0.005)",  # 4
    "(CheckForce block_c table 0.1)",  # 5
    "(CheckForce block_c table 5)",  # 6
    "(Fall block_c)",  # 7
    "(NotOn block_a table)",  # 8
    "(NotOn block_a block_b)",  # 9
    "(NotOn block_c table_candidates)",  # 10
    "(NotOn block_c table_answer_zone)",  # 11
    "(Up block_a)",  # 12
    "(Or (Not (InContact block_a block_b)) (And (Up block_c) (Not (Fall block_c))))",  # 13
)


def _task(cost: str) -> str:
    return TASK.read_text().replace("  (:layout", f"  (:cost {cost})\n  (:layout")


class Rig:
    """A scene compiled with the cost probes, one episode, and a scripted substep runner."""

    def __init__(self) -> None:
        self.problem = parse_text(_task("(And " + " ".join(TERMS) + ")"), str(TASK))
        self.meter = CostMeter(self.problem)
        self.scene = compile_scene(self.problem, probes=self.meter.probes)
        self.model = self.scene.model
        self.meter.bind(self.model)
        self.data = mujoco.MjData(self.model)
        self.episode = sample_episode(self.problem, suite="", split="eval", index=0, seed=3)

    def reset(self) -> None:
        self.scene.apply_episode(self.data, self.episode)
        self.meter.reset(self.data.sensordata)

    def move(self, body: str, pos: np.ndarray, quat=(1.0, 0.0, 0.0, 0.0)) -> None:
        adr = self.model.joint(f"{body}/free").qposadr[0]
        self.data.qpos[adr : adr + 3] = pos
        self.data.qpos[adr + 3 : adr + 7] = quat
        self.data.qvel[:] = 0.0
        mujoco.mj_forward(self.model, self.data)

    def pos(self, body: str) -> np.ndarray:
        return self.data.xpos[self.model.body(body).id].copy()

    def step(self, substeps: int = 1) -> tuple[float, tuple[bool, ...]]:
        rows = np.empty((substeps, self.model.nsensordata))
        for k in range(substeps):
            mujoco.mj_step(self.model, self.data)
            rows[k] = self.data.sensordata
        return self.meter.step(rows)


@pytest.fixture(scope="module")
def rig() -> Rig:
    return Rig()


def test_every_vocabulary_cost_predicate_is_implemented_and_no_other():
    assert set(COST_PREDICATES) == RSB_COST
    assert sorted(RSB_COST) == [
        "CheckDistance",
        "CheckForce",
        "CheckGripperContact",
        "CheckGripperDistance",
        "Collide",
        "Fall",
        "InContact",
        "NotOn",
        "Up",
    ]


def test_terms_kinds_follow_vla_arena(rig):
    kinds = [t.kind for t in rig.meter.terms]
    step, end = "step", "end"
    assert kinds == [step, end, step, step, step, step, step, end, end, end, end, end, step, end]
    assert rig.meter.terms[13].text == TERMS[13]


def test_resting_scene(rig):
    rig.reset()
    cost, hits = rig.step(25)
    want = [False] * len(TERMS)
    want[5] = True  # the resting block presses on the table with its weight (0.3 N > 0.1 N)
    want[9] = True  # block_a is not on block_b
    want[11] = True  # block_c rests in the candidates region, not in the answer zone
    want[13] = True  # a and b do not touch
    assert list(hits) == want
    assert cost == 1.0  # the one step term violated (CheckForce 0.1 N); 9, 11, 13 are end terms


def test_stacked_blocks_touch_collide_and_are_not_on_the_table(rig):
    rig.reset()
    b = rig.pos("block_b")
    rig.move("block_a", b + np.array([0.0, 0.0, 0.0399]))  # resting on block_b, 0.1 mm overlap
    _, hits = rig.step(1)
    assert hits[0] and hits[1] and hits[4]  # InContact, Collide b, distance <= 5 mm
    assert hits[8]  # NotOn a table: a does not touch the table
    assert not hits[9]  # a is on b
    assert not hits[13]  # a and b touch, c is not up


def test_gripper_contact_and_distance(rig):
    rig.reset()
    for finger in ("left/left_finger", "left/right_finger"):  # 2 cm apart: on the 4 cm block
        rig.data.qpos[rig.model.joint(finger).qposadr[0]] = 0.01
    mujoco.mj_forward(rig.model, rig.data)
    site = rig.data.site_xpos[rig.model.site("left/gripper").id].copy()
    rig.move("block_d", site)
    _, hits = rig.step(1)
    assert hits[2] and hits[3]
    rig.move("block_d", site + np.array([0.0, 0.0, 0.3]))  # far from every finger
    _, hits = rig.step(1)
    assert not hits[2] and not hits[3]


def test_force_threshold_in_newtons(rig):
    rig.reset()
    rig.step(25)
    _, hits = rig.step(25)
    assert hits[5] and not hits[6]  # 0.1 N < weight of a 64 g block < 5 N


def test_fall_tilted_and_up(rig):
    rig.reset()
    c = rig.pos("block_c")
    tilt = [np.cos(0.15), np.sin(0.15), 0.0, 0.0]  # 0.3 rad about world x
    rig.move("block_c", c + np.array([0.0, 0.0, 0.01]), tilt)
    _, hits = rig.step(1)
    assert hits[7]
    rig.reset()
    rig.move("block_a", rig.pos("block_a") + np.array([0.0, 0.0, 0.3]))  # center above z = 1 m
    _, hits = rig.step(1)
    assert hits[12]
    assert hits[8]  # lifted: not on the table


def test_fall_within_thresholds_is_not_a_fall(rig):
    rig.reset()
    c, q0 = rig.pos("block_c"), rig.data.xquat[rig.model.body("block_c").id].copy()
    quat = np.empty(4)
    mujoco.mju_mulQuat(quat, [np.cos(0.2), 0.0, 0.0, np.sin(0.2)], q0)  # 0.4 rad about z
    rig.move("block_c", c + np.array([0.0, -0.03, 0.0]), quat)  # 3 cm toward the robot
    _, hits = rig.step(1)
    assert not hits[7]


def test_or_and_not_nest(rig):
    rig.reset()
    rig.move("block_c", rig.pos("block_c") + np.array([0.0, 0.0, 0.3]))
    b = rig.pos("block_b")
    rig.move("block_a", b + np.array([0.0, 0.0, 0.0399]))
    _, hits = rig.step(1)
    assert hits[0]  # a touches b: the Or's first branch is false
    assert not hits[13]  # c is up but it also fell (moved 0.3 m): And is false


@pytest.mark.parametrize(
    ("cost", "message"),
    [
        (
            "(InContact block_a vase_1)",
            "'vase_1' is not a declared object or fixture; valid choices: block_a, block_b, "
            "block_c, block_d, table",
        ),
        (
            "(Open block_a)",
            "predicate 'Open' cannot be evaluated in :cost; valid choices: CheckDistance, "
            "CheckForce, CheckGripperContact, CheckGripperDistance, Collide, Fall, InContact, "
            "NotOn, Up",
        ),
        (
            "(CheckDistance block_a block_b -1)",
            "argument of CheckDistance must be a number >= 0",
        ),
        (
            "(NotOn block_a table_nowhere)",
            "'table_nowhere' is not a declared object or fixture or region; valid choices: "
            "block_a, block_b, block_c, block_d, table, table_answer_zone, table_candidates",
        ),
    ],
)
def test_bad_atoms_name_the_position_and_the_choices(cost, message):
    problem = parse_text(_task(cost), "t.bddl")
    with pytest.raises(EvalError) as err:
        CostMeter(problem)
    assert str(err.value) == f"t.bddl:28:10: {message}"


def test_answer_is_bound_to_the_episodes_correct_candidate():
    problem = parse_text(_task("(And (Up ?answer) (Fall block_b))"), str(TASK))
    meter = CostMeter(problem)
    assert [t.text for t in meter.terms] == ["(Up ?answer)", "(Fall block_b)"]
    scene = compile_scene(problem, probes=meter.probes)
    meter.bind(scene.model)
    data = mujoco.MjData(scene.model)
    episode = sample_episode(problem, suite="", split="eval", index=0, seed=3)
    scene.apply_episode(data, episode)
    adr = scene.model.joint("block_c/free").qposadr[0]
    data.qpos[adr + 2] += 0.3  # block_c's center above z = 1 m
    mujoco.mj_forward(scene.model, data)
    for target, up in [("block_c", True), ("block_a", False)]:
        meter.reset(data.sensordata, target)
        assert meter.step(data.sensordata[None].copy())[1] == (up, False)
    with pytest.raises(EvalError, match=r"\?answer must be bound to a candidate, got 'cart'"):
        meter.reset(data.sensordata, "cart")


def test_a_variable_over_candidates_cannot_be_costed():
    problem = parse_text(_task("(Fall ?c - candidate)"), "t.bddl")
    with pytest.raises(EvalError, match=r"^t.bddl:28:10: :cost terms take object names and"):
        CostMeter(problem)


def _hull_distance(m: mujoco.MjModel, d: mujoco.MjData, g1: int, g2: int) -> float:
    """Distance [m] between two mesh geoms' convex hulls (Gilbert's iteration on vertices)."""

    def verts(g: int) -> np.ndarray:
        k = m.geom_dataid[g]
        v = m.mesh_vert[m.mesh_vertadr[k] : m.mesh_vertadr[k] + m.mesh_vertnum[k]]
        return d.geom_xpos[g] + v @ d.geom_xmat[g].reshape(3, 3).T

    a, b = verts(g1), verts(g2)
    x = a.mean(0) - b.mean(0)
    for _ in range(5000):
        step = x - (a[np.argmax(a @ -x)] - b[np.argmax(b @ x)])
        if step @ step < 1e-18:
            break
        x = x - np.clip((x @ step) / (step @ step), 0.0, 1.0) * step
    return float(np.linalg.norm(x))


def test_gripper_distance_cutoff_stays_where_mujoco_reads_true_distances(tmp_path):
    """RSB-Math-4-L2 eval row 2, a substep of the expert's reach (the bottle's and the left
    finger's saved poses): the collision hulls are 0.054 m apart, MuJoCo 3.8.1's distance
    query reads 0.0 with a cutoff of 0.08 m but its cap with the probe's cutoff (just above
    the 0.03 m threshold), so the term is not charged."""
    text = (tasks_dir() / "rsb_math_4_l2.bddl").read_text()
    cost = "(CheckGripperContact bottle_1) (Fall bottle_1) (CheckGripperContact cart_1)"
    assert cost in text
    task = tmp_path / "rsb_math_4_l2.bddl"
    task.write_text(text.replace(f"(And {cost})", "(CheckGripperDistance bottle_1 0.03)"))
    env = RsbEnv(task, cameras=())
    env.reset(options={"episode": episode_source.load_episode("RSB-Math-4-L2", "eval", 2)})
    m, d = env.model, env.data
    g1 = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_GEOM, "bottle_1/mesh")
    g2 = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_GEOM, "left/left_finger_g1")
    saved = np.load(Path(__file__).parent.parent / "data/scoring/l2_finger_near_bottle.npz")
    d.geom_xpos[g1], d.geom_xmat[g1] = saved["xpos1"], saved["xmat1"]
    d.geom_xpos[g2], d.geom_xmat[g2] = saved["xpos2"], saved["xmat2"]
    assert _hull_distance(m, d, g1, g2) == pytest.approx(0.0544, abs=5e-4)
    assert mujoco.mj_geomDistance(m, d, g1, g2, 0.08, None) == 0.0
    dist = int(mujoco.mjtSensor.mjSENS_GEOMDIST)
    cutoffs = [
        float(m.sensor_cutoff[i])
        for i in range(m.nsensor)
        if (m.sensor_type[i], m.sensor_objid[i], m.sensor_refid[i]) == (dist, g1, g2)
    ]
    cutoff = 0.03 + DIST_MARGIN_M
    assert cutoffs == [pytest.approx(cutoff)] and DIST_MARGIN_M == 0.001
    assert mujoco.mj_geomDistance(m, d, g1, g2, cutoff, None) == pytest.approx(cutoff)
