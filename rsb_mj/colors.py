"""The named block colors shared by instructions ("the red block") and the scene (rgba)."""

from __future__ import annotations

from rsb_mj.errors import EpisodeError

#: Color name -> rgba in [0, 1]. Chosen to stay distinct under software rendering.
PALETTE: dict[str, tuple[float, float, float, float]] = {
    "red": (0.85, 0.12, 0.12, 1.0),
    "green": (0.15, 0.65, 0.20, 1.0),
    "blue": (0.15, 0.30, 0.85, 1.0),
    "yellow": (0.95, 0.85, 0.15, 1.0),
    "orange": (0.95, 0.50, 0.10, 1.0),
    "purple": (0.55, 0.20, 0.70, 1.0),
    "pink": (0.95, 0.55, 0.70, 1.0),
    "cyan": (0.15, 0.75, 0.80, 1.0),
}

#: The one color of all ten blocks in 10-choice suites (letters tell them apart).
TEN_CHOICE_COLOR = "yellow"


def rgba(name: str) -> tuple[float, float, float, float]:
    """The rgba of color ``name``.

    Raises:
        EpisodeError: for an unknown color, naming the valid ones.
    """
    try:
        return PALETTE[name]
    except KeyError:
        raise EpisodeError(
            f"unknown color {name!r}; valid choices: {', '.join(sorted(PALETTE))}"
        ) from None
