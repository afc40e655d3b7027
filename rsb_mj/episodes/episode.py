"""One episode: a seed and the layout drawn from it, plus a binding for a question task.

An :class:`Episode` is the contract between the stages, for a task of either family
(:func:`rsb_mj.lang.task.task_family`): the episode sampler (a question task) or a goal
suite's table (a goal task) produces it, the frozen episode tables store it (one JSON row
each), the scene compiler builds the MuJoCo model from it, the environment reports it in
``info["episode"]``, the expert reads its ground truth and scoring reads the candidate
``?answer`` binds. It never changes after it is drawn.

* Every episode has a seed and a layout: ``suite``, ``split``, ``index``, ``seed``, ``task``
  and ``layout`` (and, for a goal suite's row, ``draw`` and ``skipped``).
* A question task's episode also carries a :class:`Binding`: the question, its options in
  letter order, the correct letter, the letter -> candidate mapping (so ``?answer`` binds the
  correct candidate, :attr:`Episode.target`), the candidates' colours and the instruction
  template. A goal task's has none (``binding is None``): its ``:goal`` names its movers and
  places itself, and :attr:`Episode.target` is ``""``.
* A goal task's episode of a bare seed (``rsb eval MY_TASK.bddl`` on a file that ships no
  table, :meth:`Episode.seeded`) has an empty layout: the environment draws it from the seed
  at reset (:meth:`rsb_mj.env.rsb_env.RsbEnv.reset`); a table row's layout is frozen.

Both kinds of frozen table are rows of it (:meth:`Episode.to_dict` / :meth:`Episode.from_dict`
keep each kind's JSON form byte for byte): a question suite's row (``tasks/episodes/``,
:mod:`rsb_mj.tables.rsb`) and a goal suite's row (:mod:`rsb_mj.tables.layouts`).

Frames and units: a question task's ``layout`` and ``distractors`` positions are in the
*table frame* (:class:`~rsb_mj.lang.layout.Pose2D`): origin at the center of the table top,
x to the robot's right, y away from the robot (towards the far edge), z up; metres, yaw in
radians about +z. A goal task's ``layout`` poses (:data:`Pose4`) are MuJoCo *world*
coordinates of each object's body origin, (x, y, z) in metres, and the yaw about +z in
radians, after the frame map of the task (:mod:`rsb_mj.scene.region_layout`), before settling.
"""

from __future__ import annotations

import copy
import dataclasses
import json
from dataclasses import dataclass, field
from typing import Any

from rsb_mj.choices import LETTERS, counts_text
from rsb_mj.errors import EpisodeError
from rsb_mj.lang.layout import Pose2D

__all__ = ["Binding", "Distractor", "Episode", "Pose4"]

#: A goal task's object pose: x, y, z [m, world] of its body origin and yaw [rad] about +z.
Pose4 = tuple[float, float, float, float]

#: The fields of a :class:`Binding`, in the order a question row writes them.
_BINDING = ("question_id", "question", "options", "correct", "mapping", "colors", "template_id")
#: The fields of a goal suite's row (:meth:`Episode.to_dict` of an episode with no binding).
_GOAL_NEED = ("suite", "split", "task", "index", "seed", "draw", "layout")


@dataclass(frozen=True)
class Distractor:
    """A non-candidate object's placement: its pose (table frame) and color name."""

    pose: Pose2D
    color: str


@dataclass(frozen=True)
class Binding:
    """What a question task's episode binds ``?answer`` with (module docstring).

    Attributes:
        question_id: stable id of the question in its source (e.g. ``"gsm8k-test-17"``).
        question: the question text.
        options: option texts in letter order (``len == choices``).
        correct: the correct option's letter.
        mapping: option letter -> candidate object name in the task file.
        colors: candidate object name -> color name (see :mod:`rsb_mj.colors`).
        template_id: id of the instruction template, e.g. ``"unseen-4-03"``.
    """

    question_id: str
    question: str
    options: tuple[str, ...]
    correct: str
    mapping: dict[str, str]
    colors: dict[str, str]
    template_id: str

    @property
    def target(self) -> str:
        """Name of the candidate object of the correct option."""
        return self.mapping[self.correct]


@dataclass(frozen=True)
class Episode:
    """One fully determined episode of a task (module docstring).

    Attributes:
        suite: suite name, e.g. ``"RSB-Math-4"`` or ``"vla-arena"``; ``""`` for a bare task
            file.
        split: ``"train"`` or ``"eval"``.
        index: row index within the suite's table for that split (a goal suite's: among the
            task file's rows of ``split``).
        seed: the seed every draw of this episode came from.
        task: the task file: a question task's file name (``"rsb_math_4.bddl"``); a goal
            table row's path relative to ``tasks/`` in POSIX form, else the path as given.
        layout: object name -> pose: a question task's candidates' :class:`Pose2D` (table
            frame), a goal task's objects' :data:`Pose4` (world, in the task's object
            order; empty for a bare seed, drawn at reset).
        binding: a question task's :class:`Binding`; None for a goal task's episode.
        instruction: the instruction the policy receives (a question task's, always); for a
            goal task's, that of an ablated episode (``rsb eval --instruction blank``,
            :func:`rsb_mj.evaluation.ablations.ablate`), or None for the task's ``:language``
            (never in a goal table row).
        extra: source-specific fields (e.g. ``{"source": "arithmetic"}``), and ``"variant"``
            for an ablated or counterfactual episode (:attr:`variant`).
        distractors: non-candidate object name -> :class:`Distractor` (pose and color), for
            question task files with objects that are not candidates (the L1/L2 suites);
            empty, and then absent from :meth:`to_dict`, for the others.
        draw: which draw of the seed's generator is a goal row's layout (0: the first; the
            earlier ones failed the settle checks,
            :meth:`rsb_mj.scene.region_layout.GoalLayout.reset`).
        skipped: seeds tried just before a goal row's that gave no valid layout in any draw
            (the table skips them to the next seed; see :mod:`rsb_mj.tables.layouts`).
    """

    suite: str
    split: str
    index: int
    seed: int
    task: str
    layout: dict[str, Pose2D] | dict[str, Pose4] = field(default_factory=dict)
    binding: Binding | None = None
    instruction: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    distractors: dict[str, Distractor] = field(default_factory=dict)
    draw: int = 0
    skipped: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if self.binding is None:
            return
        options, correct = self.binding.options, self.binding.correct
        letters = LETTERS.get(len(options))
        if letters is None:
            raise EpisodeError(
                f"episode {self.suite}/{self.split}/{self.index}: {len(options)} options; "
                f"valid choices: {counts_text()}"
            )
        if correct not in letters:
            raise EpisodeError(
                f"episode {self.suite}/{self.split}/{self.index}: correct option "
                f"{correct!r}; valid choices: {', '.join(letters)}"
            )
        if tuple(sorted(self.binding.mapping)) != tuple(sorted(letters)):
            raise EpisodeError(
                f"episode {self.suite}/{self.split}/{self.index}: mapping letters "
                f"{sorted(self.binding.mapping)} must be exactly {list(letters)}"
            )

    @classmethod
    def bound(
        cls,
        suite: str,
        split: str,
        index: int,
        seed: int,
        task: str,
        question_id: str,
        question: str,
        options: tuple[str, ...],
        correct: str,
        mapping: dict[str, str],
        colors: dict[str, str],
        layout: dict[str, Pose2D],
        template_id: str,
        instruction: str,
        extra: dict[str, Any] | None = None,
        distractors: dict[str, Distractor] | None = None,
    ) -> Episode:
        """A question task's episode, its :class:`Binding` given field by field (in the order
        of a question row, :meth:`to_dict`).

        Raises:
            EpisodeError: for an option count, correct letter or mapping that do not agree.
        """
        binding = Binding(
            question_id, question, tuple(options), correct, mapping, colors, template_id
        )
        return cls(
            suite,
            split,
            index,
            seed,
            task,
            layout,
            binding,
            instruction,
            dict(extra or {}),
            dict(distractors or {}),
        )

    @classmethod
    def seeded(cls, task: str, seed: int, split: str = "eval") -> Episode:
        """A goal task's episode of a bare seed of ``task`` (row ``seed``; its layout drawn
        at reset)."""
        return cls("", split, int(seed), int(seed), str(task))

    def rebound(self, **changes: Any) -> Episode:
        """This question episode with binding fields (``options``, ``correct``, ...) and
        episode fields (``instruction``, ``extra``, ...) replaced, as
        :func:`dataclasses.replace` does for the episode's own.

        Raises:
            EpisodeError: on a goal task's episode (no binding), or for changes that leave the
                options, correct letter and mapping disagreeing.
        """
        binding = self._bound("rebound")
        moved = {k: changes.pop(k) for k in _BINDING if k in changes}
        if "options" in moved:
            moved["options"] = tuple(moved["options"])
        return dataclasses.replace(self, binding=dataclasses.replace(binding, **moved), **changes)

    def _bound(self, name: str) -> Binding:
        """The binding, or an error naming ``name`` for a goal task's episode."""
        if self.binding is None:
            raise EpisodeError(
                f"episode {self.task}/{self.split}/{self.index}: {name} is a question task's "
                "(its binding); a goal task's episode has none"
            )
        return self.binding

    # the binding's fields, read through the episode (a goal task's has none)
    @property
    def question_id(self) -> str:
        """:attr:`Binding.question_id`."""
        return self._bound("question_id").question_id

    @property
    def question(self) -> str:
        """:attr:`Binding.question`."""
        return self._bound("question").question

    @property
    def options(self) -> tuple[str, ...]:
        """:attr:`Binding.options`."""
        return self._bound("options").options

    @property
    def correct(self) -> str:
        """:attr:`Binding.correct`."""
        return self._bound("correct").correct

    @property
    def mapping(self) -> dict[str, str]:
        """:attr:`Binding.mapping`."""
        return self._bound("mapping").mapping

    @property
    def colors(self) -> dict[str, str]:
        """:attr:`Binding.colors`."""
        return self._bound("colors").colors

    @property
    def template_id(self) -> str:
        """:attr:`Binding.template_id`."""
        return self._bound("template_id").template_id

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
        """The candidate ``?answer`` binds: the correct option's candidate object, or ``""``
        for a goal task's episode (its ``:goal`` names its movers and places itself)."""
        return "" if self.binding is None else self.binding.target

    @property
    def variant(self) -> str:
        """``"original"``, or what changed the drawn episode (``extra["variant"]``: an
        instruction ablation mode or ``"counterfactual"``, see
        :mod:`rsb_mj.evaluation.ablations`)."""
        return str(self.extra.get("variant", "original"))

    @property
    def frozen(self) -> bool:
        """Whether the layout is given (a table row), not drawn at reset."""
        return bool(self.layout)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict: the table row of its kind (module docstring).

        A question episode's row has every field of the episode and its binding (``distractors``
        only when not empty); a goal episode's has ``suite``, ``split``, ``task``, ``index``,
        ``seed``, ``draw``, ``layout``, ``skipped`` only when not empty, and ``instruction``
        and ``variant`` only in an ablated episode (a table row has neither).
        """
        if self.binding is None:
            return self._goal_dict()
        b = self.binding
        row: dict[str, Any] = {
            "suite": self.suite,
            "split": self.split,
            "index": self.index,
            "seed": self.seed,
            "task": self.task,
            "question_id": b.question_id,
            "question": b.question,
            "options": list(b.options),
            "correct": b.correct,
            "mapping": dict(b.mapping),
            "colors": dict(b.colors),
            "layout": {k: [p.x, p.y, p.yaw] for k, p in self.layout.items()},  # type: ignore[union-attr]
            "template_id": b.template_id,
            "instruction": self.instruction,
            "extra": copy.deepcopy(self.extra),
        }
        if self.distractors:
            row["distractors"] = {
                k: {"pose": [d.pose.x, d.pose.y, d.pose.yaw], "color": d.color}
                for k, d in self.distractors.items()
            }
        return row

    def _goal_dict(self) -> dict[str, Any]:
        """The goal table row of an episode with no binding (:meth:`to_dict`)."""
        out: dict[str, Any] = {
            "suite": self.suite,
            "split": self.split,
            "task": self.task,
            "index": self.index,
            "seed": self.seed,
            "draw": self.draw,
            "layout": {k: list(v) for k, v in self.layout.items()},
        }
        if self.skipped:
            out["skipped"] = list(self.skipped)
        if self.instruction is not None:
            out["instruction"] = self.instruction
        if self.variant != "original":
            out["variant"] = self.variant
        return out

    def dumps(self) -> str:
        """The row as one JSON line (no newline); floats as Python writes them, so they read
        back bit for bit."""
        return json.dumps(self.to_dict(), ensure_ascii=False)

    @classmethod
    def from_dict(cls, row: dict[str, Any], *, goal: bool | None = None) -> Episode:
        """Inverse of :meth:`to_dict`, for a row of either kind.

        Args:
            row: the JSON row.
            goal: True to read a goal suite's row, False a question suite's; None (a row of
                unknown kind) reads a row with a ``draw`` and none of a binding's fields as a
                goal row, any other as a question row.

        Raises:
            EpisodeError: naming the missing, unexpected or malformed field.
        """
        if goal is None:
            goal = not isinstance(row, dict) or (
                "draw" in row and not any(k in row for k in _BINDING)
            )
        return cls._goal_row(row) if goal else cls._question_row(row)

    @classmethod
    def _question_row(cls, row: dict[str, Any]) -> Episode:
        """A question suite's row (:meth:`from_dict`)."""
        names = {"suite", "split", "index", "seed", "task", *_BINDING, "layout", "instruction"}
        names |= {"extra", "distractors"}
        missing = sorted(names - set(row) - {"extra", "distractors"})
        unknown = sorted(set(row) - names)
        if missing or unknown:
            raise EpisodeError(
                f"episode row: missing fields {missing}, unknown fields {unknown}; "
                f"valid fields: {', '.join(sorted(_QUESTION_FIELDS))}"
            )
        return cls.bound(
            suite=row["suite"],
            split=row["split"],
            index=row["index"],
            seed=row["seed"],
            task=row["task"],
            question_id=row["question_id"],
            question=row["question"],
            options=tuple(row["options"]),
            correct=row["correct"],
            mapping=row["mapping"],
            colors=row["colors"],
            layout={k: Pose2D(*map(float, v)) for k, v in row["layout"].items()},
            template_id=row["template_id"],
            instruction=row["instruction"],
            extra=dict(row.get("extra", {})),
            distractors={k: _distractor(k, d) for k, d in row.get("distractors", {}).items()},
        )

    @classmethod
    def _goal_row(cls, row: dict[str, Any]) -> Episode:
        """A goal suite's row (:meth:`from_dict`)."""
        if not isinstance(row, dict):
            raise EpisodeError(f"a goal row is a JSON object, got {type(row).__name__}")
        missing = [k for k in _GOAL_NEED if k not in row]
        if missing:
            raise EpisodeError(f"goal row lacks the field(s) {', '.join(missing)}")
        extra = sorted(set(row) - {*_GOAL_NEED, "skipped", "instruction", "variant"})
        if extra:
            raise EpisodeError(f"goal row has unknown field(s) {', '.join(extra)}")
        for key in ("index", "seed", "draw"):
            if not isinstance(row[key], int) or isinstance(row[key], bool) or row[key] < 0:
                raise EpisodeError(f"goal row field {key!r}: a whole number >= 0, got {row[key]!r}")
        layout = row["layout"]
        if not isinstance(layout, dict):
            raise EpisodeError("goal row field 'layout': an object of name -> [x, y, z, yaw]")
        poses: dict[str, Any] = {}
        for name, pose in layout.items():
            joint = "/" in str(name)  # a fixture joint's drawn :init state (tier B): [qpos]
            if (
                not isinstance(pose, list)
                or len(pose) != (1 if joint else 4)
                or not all(isinstance(v, int | float) and not isinstance(v, bool) for v in pose)
            ):
                want = "[qpos] (a fixture joint's state)" if joint else "[x, y, z, yaw] (4 numbers)"
                raise EpisodeError(f"goal row field 'layout': {name!r} is not {want}")
            poses[str(name)] = tuple(float(v) for v in pose)
        skipped = row.get("skipped", [])
        if not isinstance(skipped, list) or not all(isinstance(s, int) for s in skipped):
            raise EpisodeError("goal row field 'skipped': a list of seeds")
        instruction = row.get("instruction")
        if instruction is not None and not isinstance(instruction, str):
            raise EpisodeError("goal row field 'instruction': a string or absent")
        variant = row.get("variant", "original")
        if not isinstance(variant, str):
            raise EpisodeError("goal row field 'variant': a string or absent")
        return cls(
            suite=str(row["suite"]),
            split=str(row["split"]),
            index=row["index"],
            seed=row["seed"],
            task=str(row["task"]),
            layout=poses,
            instruction=instruction,
            extra={} if variant == "original" else {"variant": variant},
            draw=row["draw"],
            skipped=tuple(skipped),
        )


#: The fields of a question suite's row, as its "valid fields" message lists them.
_QUESTION_FIELDS = (
    "suite",
    "split",
    "index",
    "seed",
    "task",
    *_BINDING,
    "layout",
    "instruction",
    "extra",
    "distractors",
)


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
