"""Released: no finger or pad of either gripper touches the candidate."""

from rsb_mj.scoring.predicates import Released
from rsb_mj.scoring.signals import StepSignals


def test_released_is_false_while_either_gripper_touches(make_signals):
    d = make_signals(3, 2)
    d["contact"][0, 0, 0] = True
    d["contact"][1, 0, 1] = True
    out = Released().evaluate(StepSignals.from_info(d, 2))
    assert out[:, 0].tolist() == [False, False, True]
    assert out[:, 1].all()
