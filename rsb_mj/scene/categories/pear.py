"""``pear``: a small procedural pear (4.7 cm wide, 6.9 cm tall), graspable by its neck."""

from __future__ import annotations

from rsb_mj.scene.categories.revolved import RevolvedObject


class Pear(RevolvedObject):
    """Two convex pieces, a round bottom and a tapering neck, and a stem."""

    name = "pear"
    pieces = (
        (
            (0.0, 0.0),
            (0.010, 0.0),
            (0.018, 0.004),
            (0.0225, 0.012),
            (0.0235, 0.021),
            (0.021, 0.031),
            (0.016, 0.040),
            (0.0, 0.040),
        ),
        (
            (0.0, 0.033),
            (0.0175, 0.033),
            (0.0145, 0.049),
            (0.0105, 0.061),
            (0.005, 0.068),
            (0.0, 0.069),
        ),
    )
    density = 800.0
    stem = (0.0015, 0.006, -0.001, 0.005, -0.25)
