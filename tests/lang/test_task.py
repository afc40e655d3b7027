"""The typed task view reaches every stage: parameters named ``problem``, ``task`` or
``episode`` carry a concrete type (never ``Any``), and no module probes those objects with
``getattr``/``hasattr``."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import pkgutil
import types
import typing
from pathlib import Path

import pytest

import rsb_mj
from rsb_mj.episodes.episode import Episode
from rsb_mj.episodes.instructions import TaskLike
from rsb_mj.episodes.sources import QuestionSource
from rsb_mj.lang.ast import Problem
from rsb_mj.lang.task import Task
from rsb_mj.scene.compiler import Scene

#: The stages downstream of the language layer (every module of these packages is walked).
STAGE_PACKAGES = (
    "rsb_mj.datasets",
    "rsb_mj.env",
    "rsb_mj.episodes",
    "rsb_mj.evaluation",
    "rsb_mj.expert",
    "rsb_mj.perturb",
    "rsb_mj.scene",
    "rsb_mj.scoring",
    "rsb_mj.tables",
)
#: Single modules walked besides the packages.
STAGE_MODULES = ("rsb_mj.episodes.episode", "rsb_mj.lang.a2a", "rsb_mj.lang.task")
#: Parameter name -> the types its annotation may be made of (a union of some of them).
ALLOWED: dict[str, frozenset[type]] = {
    "problem": frozenset({Problem, Task, type(None)}),  # None: "load it" (build_table)
    # str / Path: a task file (Task, the one Task's former name, is Task)
    "task": frozenset({Task, Problem, str, Path}),
    # None: a goal task's demonstration, which has no question episode (datasets.demo_file)
    # Episode: either family's (a seed and a layout, plus a question task's binding)
    # str: a candidate's name standing for the episode's binding (a scripted baseline's own
    # choice: rsb_mj.expert.placements.placements)
    # dict: a question episode as reset's options["episode"] carries it (RsbEnv._episode)
    "episode": frozenset({Episode, str, dict, type(None)}),
}
#: Names the test resolves for modules that import them only for type checking.
TYPE_NAMES = {"Problem": Problem, "Task": Task, "TaskLike": TaskLike, "Episode": Episode}
TYPE_NAMES["Scene"] = Scene
TYPE_NAMES["QuestionSource"] = QuestionSource
#: Names that hold a task, problem or episode object (probing targets).
HOLDERS = frozenset({"problem", "task", "episode", "parsed"})


def stage_modules() -> list[str]:
    """Every module of :data:`STAGE_PACKAGES` plus :data:`STAGE_MODULES`, sorted."""
    names = set(STAGE_MODULES)
    for package in STAGE_PACKAGES:
        names.add(package)
        path = importlib.import_module(package).__path__
        names.update(m.name for m in pkgutil.walk_packages(path, f"{package}."))
    return sorted(names)


def functions_of(module: types.ModuleType) -> list[types.FunctionType]:
    """The functions defined in ``module``: module level and the methods of its classes
    (static and class methods too), cached ones (``functools.cache``) unwrapped."""
    out = []
    for value in vars(module).values():
        if getattr(value, "__module__", None) != module.__name__:
            continue
        if inspect.isclass(value):
            out.extend(_function(v) for v in vars(value).values())
        else:
            out.append(_function(value))
    return [f for f in out if f is not None]


def _function(value: object) -> types.FunctionType | None:
    if isinstance(value, (staticmethod, classmethod)):
        value = value.__func__
    value = inspect.unwrap(value) if callable(value) else value
    return value if inspect.isfunction(value) else None


def _members(hint: object) -> tuple[object, ...]:
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        return typing.get_args(hint)
    return (hint,)


def _describe(hint: object) -> str:
    """``Problem | None``, ``Any``, ``missing``: a hint as the report writes it (the same on
    every Python version)."""
    if hint is inspect.Parameter.empty:
        return "missing"
    return " | ".join(_name(m) for m in _members(hint))


def _name(member: object) -> str:
    if isinstance(member, type) and typing.get_origin(member) is None:
        return "None" if member is type(None) else member.__qualname__
    return str(member).replace("typing.", "")


def _concrete(hint: object) -> bool:
    """A class, or a union or generic of classes, with no ``Any`` (and not missing)."""
    if hint is typing.Any or hint is inspect.Parameter.empty:
        return False
    if typing.get_origin(hint) is not None:  # tuple[float, ...]: the Ellipsis is no type
        return all(a is Ellipsis or _concrete(a) for a in typing.get_args(hint))
    return isinstance(hint, type)


def untyped_parameters(module: types.ModuleType) -> tuple[list[str], int]:
    """The parameters of ``module``'s functions named in :data:`ALLOWED` whose annotation is
    missing, ``Any`` or made of other types (``"module.func(name: hint)"``), and the return
    annotations of functions named ``*problem``, ``*task`` or ``*episode`` that are missing
    or hold ``Any`` (``"module.func -> hint"``); and how many of both were checked."""
    bad, checked = [], 0
    for fn in functions_of(module):
        names = [n for n in inspect.signature(fn).parameters if n in ALLOWED]
        returns = fn.__name__.endswith(tuple(ALLOWED))
        if not names and not returns:
            continue
        hints = typing.get_type_hints(fn, localns=TYPE_NAMES)
        where = f"{module.__name__}.{fn.__qualname__}"
        for name in names:
            checked += 1
            hint = hints.get(name, inspect.Parameter.empty)
            if not all(isinstance(m, type) and m in ALLOWED[name] for m in _members(hint)):
                bad.append(f"{where}({name}: {_describe(hint)})")
        if returns:
            checked += 1
            hint = hints.get("return", inspect.Parameter.empty)
            if not _concrete(hint):
                bad.append(f"{where} -> {_describe(hint)}")
    return bad, checked


def probes(source: str) -> list[str]:
    """``getattr``/``hasattr`` calls on a task, problem or episode in ``source``
    (``"line: call"``): on a name in :data:`HOLDERS` or an attribute of that name, or
    fetching one (``getattr(env, "problem", None)``)."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
            continue
        if node.func.id not in ("getattr", "hasattr") or not node.args:
            continue
        target = node.args[0]
        name = target.id if isinstance(target, ast.Name) else getattr(target, "attr", None)
        asked = node.args[1] if len(node.args) > 1 else None
        fetched = asked.value if isinstance(asked, ast.Constant) else None
        if name in HOLDERS or fetched in HOLDERS:
            out.append(f"{node.lineno}: {ast.unparse(node)}")
    return out


def test_stage_parameters_are_typed():
    bad, checked = [], 0
    for name in stage_modules():
        found, n = untyped_parameters(importlib.import_module(name))
        bad += found
        checked += n
    assert bad == []
    assert checked >= 140  # the walk reached the stages (146 parameters and returns when written)


def load_module(folder: Path, source: str) -> types.ModuleType:
    """Import ``source`` written to ``folder/fake_stage.py`` as module ``fake_stage``."""
    path = folder / "fake_stage.py"
    path.write_text("from __future__ import annotations\nfrom typing import Any\n\n" + source)
    spec = importlib.util.spec_from_file_location("fake_stage", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("def f(problem: Any) -> None: ...", "f(problem: Any)"),
        ("def f(episode) -> None: ...", "f(episode: missing)"),
        ("def f(task: object) -> None: ...", "f(task: object)"),
        ("def f(problem: Problem | Any) -> None: ...", "f(problem: Problem | Any)"),
        ("def f(episode: Problem) -> None: ...", "f(episode: Problem)"),
        ("def f(task: dict[str, Any]) -> None: ...", "f(task: dict[str, Any])"),
        ("class C:\n    def m(self, problem: dict) -> None: ...", "C.m(problem: dict)"),
        ("class C:\n    @staticmethod\n    def m(episode: Any) -> None: ...", "C.m(episode: Any)"),
        ("import functools\n@functools.cache\ndef f(task: Any) -> None: ...", "f(task: Any)"),
        ("def load_problem(path: str) -> Any: ...", "load_problem -> Any"),
        ("def job_episode(job: int): ...", "job_episode -> missing"),
        ("def as_task(x: int) -> list[Any]: ...", "as_task -> list[Any]"),
    ],
)
def test_an_untyped_parameter_is_reported(tmp_path, source, expected):
    module = load_module(tmp_path, source)
    assert untyped_parameters(module) == ([f"fake_stage.{expected}"], 1)


def test_typed_parameters_pass(tmp_path):
    module = load_module(
        tmp_path,
        "from rsb_mj.episodes.episode import Episode\n"
        "from rsb_mj.lang.ast import Problem\n\n\n"
        "def f(problem: Problem | None, episode: Episode, task: str) -> None: ...\n",
    )
    assert untyped_parameters(module) == ([], 3)


def test_no_module_probes_a_task_problem_or_episode():
    root = Path(rsb_mj.__file__).parent
    found = {
        str(path.relative_to(root)): hits
        for path in sorted(root.rglob("*.py"))
        if (hits := probes(path.read_text(encoding="utf-8")))
    }
    assert found == {}


def test_probes_are_found():
    source = (
        "x = getattr(problem, 'question', None)\n"
        "y = hasattr(env.problem, 'objects')\n"
        "z = getattr(module, 'name')\n"
        "w = getattr(episode.extra, 'get')\n"
        "v = getattr(env.unwrapped, 'problem', None) or load()\n"
    )
    assert probes(source) == [
        "1: getattr(problem, 'question', None)",
        "2: hasattr(env.problem, 'objects')",
        "5: getattr(env.unwrapped, 'problem', None)",
    ]


# --- the one Task: both families are read by task_of, the question part is optional ---------

TASKS = Path(__file__).resolve().parents[2] / "tasks"


def test_a_question_task_is_a_task_whose_goal_places_answer():
    from rsb_mj.errors import TaskError
    from rsb_mj.lang.parser import parse_file
    from rsb_mj.lang.task import QuestionSpec, SourceSpec, TemplateSpec, task_of

    problem = parse_file(TASKS / "rsb_math_4.bddl")
    task = task_of(problem)
    assert (task.family, task.semantics, task.tier) == ("question", "rsb", "A0")
    assert [(r.predicate, r.mover, r.place, r.kind) for r in task.goal] == [
        ("In", "?answer", "table_answer_zone", "region")
    ]
    assert task.candidates == ("block_a", "block_b", "block_c", "block_d")
    assert task.asked() is task.question
    assert task.question == QuestionSpec(
        source=SourceSpec("arithmetic"),
        choices=4,
        templates=(("train", TemplateSpec("seen")), ("eval", TemplateSpec("unseen"))),
        option_pairs=None,
        answer_zones=("table_answer_zone",),
        nouns=tuple((c, "block") for c in task.candidates),
    )
    assert task_of(problem) is task  # one reading per problem
    with pytest.raises(TaskError, match=r"rsb_math_4\.bddl: a question task is not read as a goal"):
        task_of(problem, expect="goal")
    act2answer = task_of(parse_file(TASKS / "a2a_color.bddl"))
    assert [(r.text, r.kind) for r in act2answer.goal] == [("On cube ?answer", "object")]


def test_a_goal_task_has_no_question_part_and_the_question_stages_refuse_it():
    from rsb_mj.episodes.instructions import as_task
    from rsb_mj.errors import EpisodeError
    from rsb_mj.lang.parser import parse_file
    from rsb_mj.lang.task import task_of

    path = TASKS / "libero/libero_goal/put_the_bowl_on_the_plate.bddl"
    task = task_of(parse_file(path))
    assert (task.family, task.semantics, task.tier, task.on_xy) == ("goal", "libero", "A1", 0.03)
    assert task.question is None and task.candidates == ()
    assert [r.text for r in task.goal] == ["On akita_black_bowl_1 plate_1"]
    with pytest.raises(EpisodeError) as err:
        as_task(task)
    assert str(err.value) == f"{path}: task has no (:question (:source S) (:choices N)) block"
