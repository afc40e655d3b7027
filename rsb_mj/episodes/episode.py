"""One episode: everything drawn for a single run of a task, as a value.

An :class:`Episode` is the contract between the stages: the episode sampler produces it,
the frozen episode tables store it (one JSON row each), the scene compiler builds the MuJoCo
model from it, the environment reports it in ``info["episode"]``, the expert reads its ground
truth and scoring reads the correct option. It never changes after it is drawn.

Frames and units: ``layout`` and ``distractors`` positions are in the *table frame*: origin at
the center of the table top, x to the robot's right, y away from the robot (towards the far
edge), z up; metres, yaw in radians about +z.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from rsb_mj.choices import LETTERS, counts_text
from rsb_mj.errors import EpisodeError
from rsb_mj.lang.layout import Pose2D

__all__ = ["Episode"]


@dataclass(frozen=True)
class Distractor:
    """A non-candidate object's placement: its pose (table frame) and color name."""

    pose: Pose2D
    color: str


@dataclass(frozen=True)
class Episode:
    """One fully determined episode of a suite (or of a task file with no suite).

    Attributes:
        suite: suite name, e.g. ``"RSB-Math-4"``; ``""`` for a bare task file.
        split: ``"train"`` or ``"eval"``.
        index: row index within the suite's table for that split.
        seed: the seed every draw of this episode came from.
        task: task file name (e.g. ``"rsb_math_4.bddl"``) the episode belongs to.
        question_id: stable id of the question in its source (e.g. ``"gsm8k-test-17"``).
        question: the question text.
        options: option texts in letter order (``len == choices``).
        correct: the correct option's letter.
        mapping: option letter -> candidate object name in the task file.
        colors: candidate object name -> color name (see :mod:`rsb_mj.colors`).
        layout: candidate object name -> :class:`Pose2D` (table frame).
        template_id: id of the instruction template, e.g. ``"unseen-4-03"``.
        instruction: the instruction the policy receives.
        extra: source-specific fields (e.g. ``{"source": "arithmetic"}``).
        distractors: non-candidate object name -> :class:`Distractor` (pose and color), for
            task files with objects that are not candidates (the L1/L2 suites); empty, and
            then absent from :meth:`to_dict`, for the others.
    """

    suite: str
    split: str
    index: int
    seed: int
    task: str
    question_id: str
    question: str
    options: tuple[str, ...]
    correct: str
    mapping: dict[str, str]
    colors: dict[str, str]
    layout: dict[str, Pose2D]
    template_id: str
    instruction: str
    extra: dict[str, Any] = field(default_factory=dict)
    distractors: dict[str, Distractor] = field(default_factory=dict)

    def __post_init__(self) -> None:
        letters = LETTERS.get(len(self.options))
        if letters is None:
            raise EpisodeError(
                f"episode {self.suite}/{self.split}/{self.index}: {len(self.options)} options; "
                f"valid choices: {counts_text()}"
            )
        if self.correct not in letters:
            raise EpisodeError(
                f"episode {self.suite}/{self.split}/{self.index}: correct option "
                f"{self.correct!r}; valid choices: {', '.join(letters)}"
            )
        if tuple(sorted(self.mapping)) != tuple(sorted(letters)):
            raise EpisodeError(
                f"episode {self.suite}/{self.split}/{self.index}: mapping letters "
                f"{sorted(self.mapping)} must be exactly {list(letters)}"
            )

    @property
    def choices(self) -> int:
        """Number of options (2..10)."""
        return len(self.options)

    @property
    def letters(self) -> tuple[str, ...]:
        """The option letters of this episode, in order."""
        return LETTERS[self.choices]

    @property
    def target(self) -> str:
        """Name of the candidate object of the correct option."""
        return self.mapping[self.correct]

    @property
    def variant(self) -> str:
        """``"original"``, or what changed the drawn episode (``extra["variant"]``: an
        instruction ablation mode or ``"counterfactual"``, see
        :mod:`rsb_mj.evaluation.ablations`), as :attr:`GoalEpisode.variant` says for a
        goal task's."""
        return str(self.extra.get("variant", "original"))

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (the episode table row)."""
        row = asdict(self)
        row["options"] = list(self.options)
        row["layout"] = {k: [p.x, p.y, p.yaw] for k, p in self.layout.items()}
        if self.distractors:
            row["distractors"] = {
                k: {"pose": [d.pose.x, d.pose.y, d.pose.yaw], "color": d.color}
                for k, d in self.distractors.items()
            }
        else:
            del row["distractors"]
        return row

    @classmethod
    def from_dict(cls, row: dict[str, Any]) -> Episode:
        """Inverse of :meth:`to_dict`.

        Raises:
            EpisodeError: naming the missing or unexpected field.
        """
        names = set(cls.__dataclass_fields__)
        missing = sorted(names - set(row) - {"extra", "distractors"})
        unknown = sorted(set(row) - names)
        if missing or unknown:
            raise EpisodeError(
                f"episode row: missing fields {missing}, unknown fields {unknown}; "
                f"valid fields: {', '.join(sorted(names))}"
            )
        data = dict(row)
        data["options"] = tuple(row["options"])
        data["layout"] = {k: Pose2D(*map(float, v)) for k, v in row["layout"].items()}
        data["extra"] = dict(row.get("extra", {}))
        data["distractors"] = {k: _distractor(k, d) for k, d in row.get("distractors", {}).items()}
        return cls(**data)


def _distractor(name: str, value: Any) -> Distractor:
    """A :class:`Distractor` from its JSON form ``{"pose": [x, y, yaw], "color": name}``.

    Raises:
        EpisodeError: naming the object and the expected form.
    """
    try:
        x, y, yaw = (float(v) for v in value["pose"])
        return Distractor(Pose2D(x, y, yaw), str(value["color"]))
    except (KeyError, TypeError, ValueError):
        raise EpisodeError(
            f"episode row: distractor {name!r} is {value!r}; expected "
            '{"pose": [x, y, yaw], "color": NAME}'
        ) from None
