"""VLA-Arena's perturbation axes on our tasks: visual V0-V4 and language W0-W4.

:class:`Perturbations` is what :class:`rsb_mj.env.RsbEnv` holds: it puts the compiled
model back before each episode, perturbs lights, colors and camera after the episode's own
edits, substitutes words in the instruction's command part, and adds sensor noise to the
rendered images. Its record (``info["sim"]["perturbation"]``) holds the levels and every
drawn parameter.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import mujoco
import numpy as np

from rsb_mj.episodes.episode import Episode
from rsb_mj.errors import EnvError, EpisodeError
from rsb_mj.lang.settings import VisualSettings, read_settings
from rsb_mj.perturb.draws import kelvin_rgb
from rsb_mj.perturb.language import (
    LANGUAGE_LEVELS,
    check_level,
    perturb_goal_instruction,
    perturb_instruction,
    synonym_table,
)
from rsb_mj.perturb.visual import VISUAL_LEVELS, VisualPerturber

if TYPE_CHECKING:
    from rsb_mj.lang.ast import Problem

__all__ = [
    "LANGUAGE_LEVELS",
    "VISUAL_LEVELS",
    "Perturbations",
    "VisualPerturber",
    "VisualSettings",
    "kelvin_rgb",
    "perturb_instruction",
    "read_settings",
    "synonym_table",
]


class Perturbations:
    """The visual and language perturbations of one environment.

    Args:
        model: the env's compiled model (edited in place at each episode).
        problem: the parsed task (visual blocks, candidate nouns).
        candidates: candidate object names.
        visual_level, language_level: 0..4.
        image_size: (width, height) [px] of the head camera's images (V3 keeps the candidates
            inside that frame).
        instruction: a goal task's instruction (its ``:language``), what an episode without
            a binding is told unless it carries its own.

    Raises:
        EnvError: for a level outside 0..4.
    """

    def __init__(
        self,
        model: mujoco.MjModel,
        problem: Problem,
        candidates: tuple[str, ...],
        visual_level: int = 0,
        language_level: int = 0,
        image_size: tuple[int, int] = (320, 240),
        *,
        instruction: str = "",
    ) -> None:

        self.visual = VisualPerturber(model, problem, candidates, visual_level, image_size)
        try:
            self.language_level = check_level(language_level)
        except EpisodeError as exc:
            raise EnvError(str(exc)) from None
        self.problem = problem
        self.instruction = instruction

    def restore(self) -> None:
        """Undo the previous episode's visual changes (call before ``Scene.apply_episode``)."""
        if self.visual.active:
            self.visual.restore()

    def apply(self, data: mujoco.MjData, episode: Episode) -> tuple[str, dict[str, Any]]:
        """Perturb the scene and the instruction for ``episode``: a question task's (with a
        binding: its colors, its rendered instruction) or a goal task's (its seed, the task's
        ``:language`` or the episode's own instruction;
        :func:`~rsb_mj.perturb.language.perturb_goal_instruction`).

        Returns:
            (instruction, record): the instruction the policy receives and the record
            ``{"visual_level", "light", "colors", "camera", "noise", "language_level",
            "language"}`` for ``info["sim"]["perturbation"]``.
        """
        if episode.binding is None:
            seed = int(episode.seed)
            record = self.visual.apply_seed(data, seed, None)
            base = self.instruction if episode.instruction is None else episode.instruction
            instruction, language = perturb_goal_instruction(base, seed, self.language_level)
        else:
            record = self.visual.apply(data, episode)
            instruction, language = perturb_instruction(episode, self.problem, self.language_level)
        record["language_level"] = self.language_level
        record["language"] = language
        return instruction, record

    def noise(self, images: dict[str, np.ndarray], step: int) -> dict[str, np.ndarray]:
        """The images with sensor noise (V4 or a ``:noise`` block), else unchanged."""
        return self.visual.noise(images, step)
