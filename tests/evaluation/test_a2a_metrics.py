"""Act2Answer metrics: success vs the random threshold, per layout, paired, side bias."""

from rsb_mj.evaluation.a2a_metrics import a2a_metrics, a2a_table
from rsb_mj.evaluation.metrics import Rate
from rsb_mj.evaluation.records import EpisodeRecord


def rec(index, item, layout, success, side, policy="p", error=False):
    return EpisodeRecord(
        suite="A2A-Color",
        split="eval",
        index=index,
        seed=index,
        policy=policy,
        task="a2a_color.bddl",
        question_id=item,
        template_id="t",
        choices=2,
        correct="A",
        target="plate_a",
        choice=None if side is None else "plate_a",
        chosen_option=None,
        grasped_candidates=["cube"],
        in_zone=[],
        grasp_step=1,
        success_step=None,
        grasped=True,
        correct_choice=success,
        success=success,
        goal_final=success,
        termination="error" if error else "success",
        steps=10,
        max_steps=400,
        wall_s=1.0,
        item=item,
        layout=layout,
        category="COLOR",
        chosen_side=side,
    )


def test_a_left_biased_policy_scores_half_and_never_both_layouts():
    # Correct plate on the left in item 1's original layout and item 2's swapped layout.
    records = [
        rec(0, "i1", "original", True, "left"),
        rec(1, "i1", "swapped", False, "left"),
        rec(2, "i2", "original", False, "left"),
        rec(3, "i2", "swapped", True, "left"),
        rec(4, "i3", "original", True, "left", error=True),
    ]
    (m,) = a2a_metrics(records)
    assert (m.success, m.errors, m.category) == (Rate(2, 4), 1, "COLOR")
    assert m.layouts == {"original": Rate(1, 2), "swapped": Rate(1, 2)}
    assert m.paired == Rate(0, 2)
    assert m.left == Rate(4, 4) and m.side_bias == 0.5
    assert round(m.margin, 4) == 0.49 and m.verdict == "within"


def test_the_table_has_one_row_per_policy_and_category():
    records = [
        rec(i, f"i{i // 2}", ("original", "swapped")[i % 2], True, "right") for i in range(40)
    ]
    records += [
        rec(i, f"i{i // 2}", ("original", "swapped")[i % 2], False, None, "q") for i in range(40)
    ]
    table = a2a_table(a2a_metrics(records))
    assert table[0][:6] == ["policy", "category", "n", "errors", "GSR %", "success %"]
    assert table[1][1:4] == ["COLOR", "40", "0"]
    assert table[1][5] == "100.0 [91.2, 100.0]"
    assert table[1][6:] == [
        "50 +- 15.5",
        "above",
        "100.0 [83.9, 100.0]",
        "100.0 [83.9, 100.0]",
        "100.0 [83.9, 100.0]",
        "-50.0",
    ]
    assert table[2][7] == "below" and table[2][-1] == "-"


def test_records_without_item_are_not_act2answer():
    r = rec(0, "i", "original", True, "left")
    plain = EpisodeRecord(**{**r.__dict__, "item": None, "layout": None, "category": None})
    assert a2a_metrics([plain]) == []
    assert EpisodeRecord.from_dict({**r.__dict__}).item == "i"
