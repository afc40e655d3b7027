"""The one typed task: what the sampler, scene, scoring and expert read of a task file.

:class:`Task` is built once from a parsed (and linted) :class:`~rsb_mj.lang.ast.Problem` by
:func:`task_of`, for any task: its family (:func:`task_family`), the predicate semantics of
its source (:func:`task_semantics`: RSB's grasp rule, LIBERO's or VLA-Arena's thresholds),
its ``:goal`` read as placements (:class:`Relation`: ``On``/``In`` of a mover onto an
object, a region or into a site) and fixture-state atoms (:class:`StateAtom`), the same of
its ``:init``, its tier (:func:`tier_of`), and, for a question task, the question part
(:class:`QuestionSpec`: the question source with its parameters and the question bank path,
the instruction templates of each split (a shipped set or a template file, paths relative
to the task file and inside its folder: see :mod:`rsb_mj.lang.files`), the option map, the
answer-zone regions and the candidates' nouns). A question task is a task whose goal places
``?answer`` (``(In ?answer table_answer_zone)``), bound per episode to a candidate; its
:attr:`Task.goal` holds that atom with ``?answer`` unbound. Later stages take a ``Task`` (or
a ``Problem``, which they turn into one with :func:`task_of`), never an untyped object.

Which family a task is, is decided here and nowhere else: :func:`task_family` (``"question"``
or ``"goal"``) and the predicate semantics that go with it, :func:`task_semantics`
(``"rsb"``, ``"libero"`` or ``"vla_arena"``). The pipeline (source resolution, the scorer's
choice), the linter (which rules run: :attr:`rsb_mj.lang.rules.base.Rule.applies_to`) and
the language server's completion call them (``docs/architecture.md``, "The task family").

Tiers (``shared/reference/goal_tasks.md``): **A0** a table workspace, no articulated
fixture, a goal of On/In only; **A1** as A0 with an articulated fixture standing as a prop;
**B1** a drawer or microwave used as a container (by the goal, or holding an object at
``:init``); **B2** a goal that operates a fixture (Open, Close, TurnOn, TurnOff); **C** a
floor workspace. What rsb_mj builds of them: :mod:`rsb_mj.lang.buildable`.

Names: a region ``R`` with ``(:target T)`` is called ``T_R`` (``main_table_plate_region``,
``wooden_cabinet_1_top_side``); on a fixture or object it is the site ``{T}_{R}`` of the
scene.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from rsb_mj.errors import TaskError
from rsb_mj.lang.ast import Problem
from rsb_mj.lang.blocks import FILE_SOURCE, SourceParam
from rsb_mj.lang.categories import RSB_CATEGORIES
from rsb_mj.lang.expr import Atom, Name, Variable, walk_atoms
from rsb_mj.lang.files import ReferencedFileError, resolve_referenced, task_folder
from rsb_mj.lang.nodes import Span

#: The two task families: a question task binds ``?answer`` per episode to the candidate of
#: the correct option; a goal task (LIBERO, VLA-Arena, a user's "put the bowl on the plate")
#: has a fixed :goal.
Family = Literal["question", "goal"]
FAMILIES: tuple[Family, ...] = ("question", "goal")
#: The domain of question tasks (rsb's own vocabulary: letter blocks, answer plates).
QUESTION_DOMAIN = "rsb"

#: Predicate semantics per goal-task source: the xy distance [m] within which ``On(a, b)``
#: (b an object) holds. LIBERO's ``check_ontop`` uses 0.03 m, VLA-Arena's 0.07 m. (A question
#: task's semantics, ``"rsb"``, is its grasp rule: the first grasp is the choice.)
SEMANTICS: dict[str, float] = {"libero": 0.03, "vla_arena": 0.07}
#: Fixture categories that are articulated (drawers, doors, knobs) in LIBERO / VLA-Arena;
#: rsb_mj poses them as static props (tier A1).
ARTICULATED = frozenset(
    {
        "wooden_cabinet",
        "white_cabinet",
        "short_cabinet",
        "flat_stove",
        "microwave",
        "slide_cabinet",
        "window",
        "faucet",
        "short_fridge",
        "dishwasher",
    }
)
#: Workspace fixture categories (the table the scene stands on; ``floor`` is tier C).
TABLES = frozenset(
    {"table", "kitchen_table", "living_room_table", "study_table", "main_table", "coffee_table"}
    | {"floor"}  # tier C: the floor patch is re-hosted on the table (frame_map.layout_change)
)
#: Regions of an articulated fixture that are on top of it (usable as a prop's surface).
TOP_REGIONS = frozenset({"top_side", "cook_region", "top_region_on_top"})
#: Goal predicates that operate a fixture (tier B2).
OPERATING = frozenset({"open", "close", "turnon", "turnoff"})
#: Canonical spelling of each fixture-state predicate, by its lowercased name.
STATE_PREDICATES = {"open": "Open", "close": "Close", "turnon": "TurnOn", "turnoff": "TurnOff"}


def family(domain: str | None, has_question: bool) -> Family:
    """The family of a task that declares ``(:domain domain)`` (None: no ``:domain``) and
    has (``has_question``) or lacks a ``(:question ...)`` block: the one rule.

    A task is a question task when it asks a question or declares rsb's domain; every other
    task (``(:domain robosuite)``, another domain or none, without a question) is a goal
    task. A ``(:domain rsb)`` file without a question is therefore a question task missing
    its ``:question``: ``rsb lint`` reports RSB401 and the pipeline refuses it with the
    missing block named, rather than running it as a goal task the linter never checked.
    """
    if has_question or (domain or "").lower() == QUESTION_DOMAIN:
        return "question"
    return "goal"


def task_family(problem: Problem) -> Family:
    """The family of ``problem`` (:func:`family` of its ``:domain`` and ``:question``)."""
    return family(problem.domain, problem.question is not None)


def task_semantics(problem: Problem) -> str:
    """Whose predicate semantics score ``problem``: ``"rsb"`` for a question task (the first
    grasp is the choice), else ``"libero"`` for a LIBERO problem (its name starts with
    ``LIBERO``; ``On`` within 0.03 m) or ``"vla_arena"`` (VLA-Arena's and users' own goal
    tasks; ``On`` within 0.07 m: :data:`SEMANTICS`)."""
    if task_family(problem) == "question":
        return "rsb"
    return "libero" if problem.name.upper().startswith("LIBERO") else "vla_arena"


#: Template sets used when a task has no ``:instruction`` block (the RSB paper's protocol).
DEFAULT_TEMPLATES = {"train": "seen", "eval": "unseen"}


@dataclass(frozen=True)
class SourceSpec:
    """Where a task's questions come from.

    Attributes:
        name: a built-in source (``arithmetic``, ``gsm8k``, ``mmlu_pro``, ``mmlu``) or
            ``"file"`` for a question bank.
        params: the built-in source's parameters as written (``(:subject "biology")``).
        file: the question bank, resolved against the task file's folder, or None.
    """

    name: str
    params: tuple[SourceParam, ...] = ()
    file: Path | None = None


@dataclass(frozen=True)
class TemplateSpec:
    """The instruction templates of one split: a shipped set or a template file.

    Attributes:
        set_name: ``"seen"`` or ``"unseen"`` (``tasks/templates/{set}_{N}.txt``), or None.
        file: a template file resolved against the task file's folder, or None.
    """

    set_name: str | None = None
    file: Path | None = None


@dataclass(frozen=True)
class Relation:
    """One ``On``/``In`` atom between a thing and a place.

    Attributes:
        predicate: ``"On"`` or ``"In"``.
        mover: the object placed (first argument; ``"?answer"`` in a question task's goal
            until an episode binds it).
        place: an object or fixture name, or a region's full name (``"?answer"``: the
            candidate an episode binds).
        kind: ``"object"`` (place is an object or fixture), ``"region"`` (a region on the
            table), ``"site"`` (a region on a fixture or object).
        span: position of the atom in the task file.
    """

    predicate: str
    mover: str
    place: str
    kind: str
    span: Span

    @property
    def text(self) -> str:
        """``On apple_1 plate_1``."""
        return f"{self.predicate} {self.mover} {self.place}"


@dataclass(frozen=True)
class StateAtom:
    """One fixture-state atom: ``(Open X)``, ``(Close X)``, ``(TurnOn X)``, ``(TurnOff X)``.

    Attributes:
        predicate: ``"Open"``, ``"Close"``, ``"TurnOn"`` or ``"TurnOff"`` (LIBERO lowercases
            predicate names, so ``Turnon`` is ``TurnOn``).
        target: a whole fixture (``microwave_1``) or a region on one
            (``wooden_cabinet_1_top_region``: that drawer's joint alone).
        span: position of the atom in the task file.
    """

    predicate: str
    target: str
    span: Span

    @property
    def text(self) -> str:
        """``Open wooden_cabinet_1_top_region``."""
        return f"{self.predicate} {self.target}"


@dataclass(frozen=True)
class QuestionSpec:
    """The question part of a question task: what binds ``?answer`` per episode.

    Attributes:
        source: the question source (:class:`SourceSpec`).
        choices: options per episode (2..10).
        templates: ``(("train", spec), ("eval", spec))``: the templates of each split.
        option_pairs: a fixed ``(:map (A obj) ...)`` as letter/object pairs, or None when
            the mapping is shuffled per episode.
        answer_zones: full names of the answer-zone regions.
        nouns: candidate -> the noun instructions use ("block", "lemon").
    """

    source: SourceSpec
    choices: int
    templates: tuple[tuple[str, TemplateSpec], ...]
    option_pairs: tuple[tuple[str, str], ...] | None
    answer_zones: tuple[str, ...]
    nouns: tuple[tuple[str, str], ...]

    def templates_for(self, split: str) -> TemplateSpec:
        """The template selection of ``split`` (``"train"`` or ``"eval"``)."""
        return dict(self.templates)[split]

    def noun(self, obj: str) -> str:
        """The noun instructions use for candidate ``obj``."""
        return dict(self.nouns)[obj]


@dataclass(frozen=True)
class Task:
    """A task file as the runtime reads it: one type for every task.

    Attributes:
        problem: the parsed task (regions, objects, expressions for the scene and scoring).
        path: the task file path (``"<string>"`` for text).
        family: ``"question"`` or ``"goal"`` (:func:`task_family`).
        semantics: whose predicate semantics score it: ``"rsb"`` (a question task: the
            first grasp is the choice), ``"libero"`` or ``"vla_arena"``
            (:func:`task_semantics`).
        instruction: ``:language`` (a goal task's instruction; ``""`` without one).
        objects: object name -> category, declaration order.
        fixtures: fixture name -> category (the table included).
        goal: the goal's placements, source order (a question task's places ``?answer``).
        init: the ``:init`` placements, source order.
        tier: ``"A0"``, ``"A1"``, ``"B1"``, ``"B2"`` or ``"C"`` (:func:`tier_of`).
        goal_states: the goal's fixture-state atoms (``Open``/``Close``/``TurnOn``/
            ``TurnOff``), source order.
        init_states: the ``:init`` fixture-state atoms, source order.
        question: the question part (:class:`QuestionSpec`) of a question task; None for a
            goal task.
    """

    problem: Problem
    path: str
    family: Family
    semantics: str
    instruction: str
    objects: dict[str, str] = field(hash=False)
    fixtures: dict[str, str] = field(hash=False)
    goal: tuple[Relation, ...]
    init: tuple[Relation, ...]
    tier: str
    goal_states: tuple[StateAtom, ...] = ()
    init_states: tuple[StateAtom, ...] = ()
    question: QuestionSpec | None = None

    def asked(self) -> QuestionSpec:
        """The question part, for the stages that need one (the sampler, the tables).

        Raises:
            TaskError: for a task without one (``path: task has no (:question (:source S)
                (:choices N)) block``).
        """
        if self.question is None:
            raise TaskError(_NO_QUESTION.format(path=self.path))
        return self.question

    @property
    def candidates(self) -> tuple[str, ...]:
        """The candidates ``?answer`` binds to, declaration order (``()`` for a goal task)."""
        return self.problem.candidates

    @property
    def folder(self) -> Path:
        """The folder relative paths of the task file are read from."""
        return task_folder(self.path)

    @property
    def on_xy(self) -> float:
        """The ``On(a, b)`` xy threshold of a goal task's source [m] (:data:`SEMANTICS`)."""
        return SEMANTICS[self.semantics]

    @property
    def table(self) -> str:
        """The name of the workspace table fixture (``main_table`` when none is declared)."""
        for name, cat in self.fixtures.items():
            if cat in TABLES:
                return name
        return "main_table"

    @property
    def movers(self) -> tuple[str, ...]:
        """The objects the goal moves, first appearance order."""
        return tuple(dict.fromkeys(r.mover for r in self.goal))


_NO_QUESTION = "{path}: task has no (:question (:source S) (:choices N)) block"


def _noun(category: str) -> str:
    info = RSB_CATEGORIES.get(category)
    return info.noun if info is not None else category.replace("_", " ")


def _referenced(path: str, name: str, what: str, span: Span) -> Path:
    """A file the task names, checked (:func:`rsb_mj.lang.files.resolve_referenced`); a
    missing one is left to its reader, which says so.

    Raises:
        TaskError: ``path:line:col: ...`` for a file outside the task's folder (and every
            allowed root), not a regular file, or over the size cap.
    """
    try:
        return resolve_referenced(path, name, what)
    except ReferencedFileError as exc:
        if exc.kind == "missing":
            return task_folder(path) / name
        raise TaskError(f"{path}:{span.line}:{span.column}: {exc}") from None


def _arg(node: object) -> str | None:
    """The name an atom's argument stands for: an object, region or site name, or
    ``?answer`` (a variable an episode binds); None for anything else."""
    if isinstance(node, Name):
        return node.value
    if isinstance(node, Variable):
        return f"?{node.name}"
    return None


def _relation(problem: Problem, atom: Atom, regions: set[str]) -> Relation | None:
    pred = atom.predicate.lower()
    if pred not in ("on", "in") or len(atom.args) != 2:
        return None
    a, b = (_arg(x) for x in atom.args)
    if a is None or b is None:
        return None
    decls = problem.declarations()
    if b in regions:
        region = problem.region(b)
        target = region.target or ""
        kind = "region" if target in _tables(problem) else "site"
    elif b in decls or b.startswith("?"):
        kind = "object"  # a declared object or fixture, or the candidate ?answer binds
    else:
        kind = "site"  # a site the fixture's model defines (e.g. white_cabinet_1_top_region)
    return Relation("On" if pred == "on" else "In", a, b, kind, atom.span)


def _state(atom: Atom) -> StateAtom | None:
    pred = STATE_PREDICATES.get(atom.predicate.lower())
    if pred is None or len(atom.args) != 1 or not isinstance(atom.args[0], Name):
        return None
    return StateAtom(pred, atom.args[0].value, atom.span)


def _tables(problem: Problem) -> set[str]:
    out = {d.name for d in problem.fixtures if d.category in TABLES}
    return out or {"main_table"}


def tier_of(problem: Problem) -> str:
    """The tier of ``problem`` (see the module docstring)."""
    if any(d.category == "floor" for d in problem.fixtures):
        return "C"
    atoms = [a for t in problem.goal_terms for a in walk_atoms(t)]
    if any(a.predicate.lower() in OPERATING for a in atoms):
        return "B2"
    # a drawer used as a container: by the goal, or holding an object at :init
    atoms += [a for t in problem.init for a in walk_atoms(t) if a.predicate.lower() == "in"]
    articulated = {d.name for d in problem.fixtures if d.category in ARTICULATED}
    regions = {r.full_name: r for r in problem.regions}
    for atom in atoms:
        if atom.predicate.lower() not in ("on", "in") or len(atom.args) != 2:
            continue
        place = atom.args[1]
        if not isinstance(place, Name):
            continue
        region = regions.get(place.value)
        target = region.target if region is not None else None
        name = region.name if region is not None else None
        if region is None:  # a site named by the fixture's model: `{fixture}_{region}`
            for fixture in articulated:
                if place.value.startswith(fixture + "_"):
                    target, name = fixture, place.value[len(fixture) + 1 :]
        if target in articulated and name not in TOP_REGIONS:
            return "B1"
    return "A1" if articulated else "A0"


def task_of(problem: Problem, expect: Family | None = None) -> Task:
    """The :class:`Task` of ``problem``, any family (memoized per problem object).

    Args:
        problem: the parsed task.
        expect: the family the caller reads (``"goal"``: a goal task's reader, which needs
            its ``:goal``), or None for any.

    Raises:
        TaskError: a question task without ``(:question (:source S) (:choices N))`` or
            naming a file it may not read; with ``expect``, a task of the other family
            (``path: a question task is not read as a goal task``, or the missing question
            block named) or a goal task without ``:goal`` (``path: the task has no
            :goal``).
    """
    path = str(problem.path)
    if expect is not None and task_family(problem) != expect:
        if expect == "goal":
            raise TaskError(f"{path}: a question task is not read as a goal task")
        raise TaskError(_NO_QUESTION.format(path=path))
    if expect == "goal" and not problem.goal_terms:
        raise TaskError(f"{path}: the task has no :goal")
    cached = _CACHE.get(id(problem))
    if cached is not None and cached[0] is problem:
        return cached[1]
    task = _build(problem)
    if len(_CACHE) > 64:
        _CACHE.clear()
    _CACHE[id(problem)] = (problem, task)
    return task


_CACHE: dict[int, tuple[Problem, Task]] = {}


def _build(problem: Problem) -> Task:
    path = str(problem.path)
    kind = task_family(problem)
    question = _question(problem, path) if kind == "question" else None
    regions = {r.full_name for r in problem.regions}
    goal = tuple(
        r
        for t in problem.goal_terms
        for a in walk_atoms(t)
        if (r := _relation(problem, a, regions)) is not None
    )
    init = tuple(
        r for t in problem.init for a in walk_atoms(t) if (r := _relation(problem, a, regions))
    )
    return Task(
        problem=problem,
        path=path,
        family=kind,
        semantics=task_semantics(problem),
        instruction=(problem.language or "").strip(),
        objects={d.name: d.category for d in problem.objects},
        fixtures={d.name: d.category for d in problem.fixtures},
        goal=goal,
        init=init,
        tier=tier_of(problem),
        goal_states=tuple(
            s for t in problem.goal_terms for a in walk_atoms(t) if (s := _state(a)) is not None
        ),
        init_states=tuple(
            s for t in problem.init for a in walk_atoms(t) if (s := _state(a)) is not None
        ),
        question=question,
    )


def _question(problem: Problem, path: str) -> QuestionSpec:
    """The question part of a question task ``problem``."""
    q = problem.question
    if q is None or q.source is None or q.choices is None:
        raise TaskError(_NO_QUESTION.format(path=path))
    file = None
    if q.source == FILE_SOURCE and q.file is not None:
        file = _referenced(path, q.file, "question bank", q.source_span)
    source = SourceSpec(q.source, q.params, file)
    templates = []
    for split, default in DEFAULT_TEMPLATES.items():
        chosen = problem.instruction.for_split(split) if problem.instruction else None
        if chosen is None:
            spec = TemplateSpec(default)
        elif chosen.file is not None:
            spec = TemplateSpec(None, _referenced(path, chosen.file, "template file", chosen.span))
        else:
            spec = TemplateSpec(chosen.set_name)
        templates.append((split, spec))
    options = problem.options
    pairs = options.pairs if options is not None and options.rule == "fixed" else None
    nouns = tuple((c, _noun(problem.category_of(c))) for c in problem.candidates)
    return QuestionSpec(
        source=source,
        choices=int(q.choices),
        templates=tuple(templates),
        option_pairs=pairs,
        answer_zones=problem.answer_zone_names,
        nouns=nouns,
    )
