"""``apple``: a small procedural apple (4.9 cm wide, 4.6 cm tall) with a brown stem."""

from __future__ import annotations

from rsb_mj.scene.categories.revolved import RevolvedObject


class Apple(RevolvedObject):
    """An apple standing on its flattened bottom, widest above its middle."""

    name = "apple"
    pieces = (
        (
            (0.0, 0.0),
            (0.011, 0.0),
            (0.017, 0.003),
            (0.0215, 0.009),
            (0.024, 0.017),
            (0.0245, 0.025),
            (0.0235, 0.033),
            (0.020, 0.040),
            (0.013, 0.0448),
            (0.005, 0.046),
            (0.0, 0.046),
        ),
    )
    density = 800.0
    stem = (0.0016, 0.005, 0.001, 0.004, 0.3)
