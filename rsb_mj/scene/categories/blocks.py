"""Box-shaped objects of the question tasks, as one table (:data:`BLOCKS`).

``letter_block``: a 4 cm wooden cube showing its option letter on every face (colour and letter
come from the episode). ``pick_cube``: the 4 cm unpainted wooden cube an Act2Answer task moves
onto an answer plate (no answer colour uses its colour). ``playing_card``: a small deck of
cards (5.6 x 4 x 1.6 cm) with the option letter on top, graspable across its 4 cm side
(body y).
"""

from __future__ import annotations

import mujoco

from rsb_mj.scene.categories.base import BuiltObject, Category, collision_defaults


class BoxObject(Category):
    """One box geom ``{obj}/{part}``: lettered (its material shows the option letter) or of a
    fixed colour."""

    def __init__(
        self,
        name: str,
        part: str,
        half: tuple[float, float, float],
        density: float,
        *,
        letters: bool = False,
        rgba: tuple[float, float, float, float] | None = None,
        about: str = "",
    ) -> None:
        self.name, self.part, self.half, self.density = name, part, half, density
        self.letters, self.rgba, self.about = letters, rgba, about
        self.rest_height = half[2]

    @property
    def description(self) -> str:
        """What this row builds."""
        return self.about

    def __repr__(self) -> str:
        return f"BoxObject({self.name!r})"

    def build(self, spec: mujoco.MjSpec, body: mujoco.MjsBody, obj: str) -> BuiltObject:
        kw = {} if self.rgba is None else {"rgba": list(self.rgba)}
        geom = body.add_geom(
            name=f"{obj}/{self.part}",
            type=mujoco.mjtGeom.mjGEOM_BOX,
            size=list(self.half),
            group=2,
            **kw,
        )
        collision_defaults(geom, density=self.density)
        letters = (geom.name,) if self.letters else ()
        return BuiltObject(color_geoms=(), letter_geoms=letters, grip_width=2 * self.half[1])


#: The table (half sizes in metres, densities in kg/m^3).
BLOCKS: tuple[BoxObject, ...] = (
    BoxObject(
        "letter_block",
        "box",
        (0.02, 0.02, 0.02),
        600.0,
        letters=True,
        about="``letter_block``: a 4 cm wooden cube showing its option letter on every face.",
    ),
    BoxObject(
        "playing_card",
        "deck",
        (0.028, 0.02, 0.008),
        700.0,
        letters=True,
        about="``playing_card``: a small deck of cards (5.6 x 4 x 1.6 cm) with the option "
        "letter on top.",
    ),
    BoxObject(
        "pick_cube",
        "box",
        (0.02, 0.02, 0.02),
        600.0,
        rgba=(0.62, 0.46, 0.30, 1.0),
        about="``pick_cube``: the 4 cm wooden cube an Act2Answer task moves onto an answer plate.",
    ),
)
