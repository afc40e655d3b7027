"""How a candidate shows which option it stands for: its *display kind*, in the scene.

Every candidate category has one kind (:mod:`rsb_mj.lang.display`):

* ``letter``: the option letter on its top face (``letter_block``, ``playing_card``);
* ``color``: only its color, which the instruction names ("A is the purple can");
* ``answer``: its option's *answer*, a picture or printed text written into its texture
  per episode (``answer_plate``; ``episode.extra["plates"]``: letter -> picture spec,
  :mod:`rsb_mj.scene.pictures`), so the instruction needs no option list and no mapping.

:func:`apply_answers` shows an episode's answers (letters and colors are applied by
:meth:`rsb_mj.scene.compiler.Scene.apply_episode` itself); each kind is read from a camera
image by its reader in :data:`rsb_mj.scene.reading.READERS`.
"""

from __future__ import annotations

import mujoco

from rsb_mj.episodes.episode import Episode
from rsb_mj.errors import SceneError
from rsb_mj.scene.pictures import content_image
from rsb_mj.scene.plates import write_picture


def apply_answers(model: mujoco.MjModel, episode: Episode, candidates: tuple[str, ...]) -> None:
    """Write the picture each of the answer-showing ``candidates`` shows (its option's, from
    ``episode.extra["plates"]``) into its texture.

    Raises:
        SceneError: when the episode gives no picture for a candidate's option, or names an
            option letter the mapping lacks.
    """
    shown = dict(episode.extra.get("plates", {}))
    unknown = sorted(set(shown) - set(episode.mapping))
    if unknown:
        raise SceneError(
            f"episode plates name option {unknown[0]!r}; valid choices: "
            + ", ".join(episode.mapping)
        )
    letter_of = {obj: letter for letter, obj in episode.mapping.items()}
    for obj in candidates:
        letter = letter_of.get(obj)
        if letter not in shown:
            raise SceneError(
                f"candidate {obj!r} shows its answer, but the episode gives no picture for "
                f"option {letter!r} (extra['plates']: {', '.join(shown) or 'none'})"
            )
        write_picture(model, obj, content_image(str(shown[letter])))


__all__ = ["apply_answers"]
