"""The task family is decided in one function and tested at a few documented points.

:func:`rsb_mj.lang.task.task_family` says whether a task is a question task or a goal task
(``docs/architecture.md``, "The task family"). A module *tests the family* when it

* names one of the functions that decide or report it (:data:`FAMILY_NAMES`: calls,
  imports, attribute reads such as ``ctx.is_rsb``), or
* compares a task's ``.question`` with None without reading a field of that question in
  the same statement (``problem.question is None`` as a test of its own; a guard such as
  ``if p.question is not None: ... p.question.source`` reads the optional block and is not
  a family test).

Only the modules of :data:`ALLOWED` may; every entry says why. A lint rule never does: it
declares the tasks it applies to (``@rule(..., applies_to="question")``) and the registry
runs it on those only.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "rsb_mj"

#: The names that decide or report a task's family.
FAMILY_NAMES = frozenset(
    {"task_family", "task_semantics", "family_at", "is_goal_task", "is_goal_source", "is_rsb"}
)

#: The modules that may test the family, and why (keep it short: docs/architecture.md).
ALLOWED: dict[str, str] = {
    # the decision
    "rsb_mj.lang.task": "task_family: the one rule",
    "rsb_mj.lang.rules.base": "Context.family: the registry runs the rules that apply",
    # the dispatch points of the pipeline and the language server
    "rsb_mj.tables.episode_source": "is_goal_source: a source's rows, problem, step limit",
    "rsb_mj.env.task_env": "how a source's task is loaded for RsbEnv",
    "rsb_mj.scoring.scorer": "task_scorer: a question task binds ?answer, tracks the choice",
    "rsb_mj.lsp.completion": "the vocabulary completion offers",
}


def _module(path: Path, root: Path) -> str:
    parts = path.relative_to(root.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def family_tests(tree: ast.Module) -> list[tuple[int, str]]:
    """``(line, what)`` of every family test in ``tree``."""
    parents: dict[ast.AST, ast.AST] = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[child] = node
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in FAMILY_NAMES:
            found.append((node.lineno, node.id))
        elif isinstance(node, ast.Attribute) and node.attr in FAMILY_NAMES:
            found.append((node.lineno, ast.unparse(node)))
        elif isinstance(node, ast.ImportFrom):
            names = {a.name for a in node.names}
            if node.module == "rsb_mj.lang.task" and "family" in names:
                names |= {"task_family"}
            found += [(node.lineno, f"import {n}") for n in sorted(names & FAMILY_NAMES)]
        elif _compares_question_with_none(node):
            statement = node
            while not isinstance(statement, ast.stmt):
                statement = parents[statement]
            if not _reads_a_field_of(statement, ast.unparse(node.left)):
                found.append((node.lineno, ast.unparse(node)))
    return sorted(set(found))


def _compares_question_with_none(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Compare)
        and isinstance(node.left, ast.Attribute)
        and node.left.attr == "question"
        and all(isinstance(op, (ast.Is, ast.IsNot)) for op in node.ops)
        and all(isinstance(c, ast.Constant) and c.value is None for c in node.comparators)
    )


def _reads_a_field_of(statement: ast.stmt, question: str) -> bool:
    return any(
        isinstance(n, ast.Attribute) and ast.unparse(n.value) == question
        for n in ast.walk(statement)
    )


def scan(root: Path) -> dict[str, list[tuple[int, str]]]:
    """Module -> its family tests, for every module under ``root`` that has some."""
    out = {}
    for path in sorted(root.rglob("*.py")):
        tests = family_tests(ast.parse(path.read_text(encoding="utf-8")))
        if tests:
            out[_module(path, root)] = tests
    return out


def test_only_the_documented_modules_test_the_task_family():
    found = scan(PACKAGE)
    outside = {m: t for m, t in found.items() if m not in ALLOWED}
    assert outside == {}, (
        "these modules test the task family; call a dispatch point (docs/architecture.md, "
        "'The task family'), or declare applies_to= on a lint rule"
    )
    assert sorted(found) == sorted(ALLOWED)  # no stale entry


def test_the_allow_list_is_the_documented_one():
    doc = (PACKAGE.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = doc.split("## The task family", 1)[1].split("\n## ", 1)[0]
    for module in ALLOWED:
        assert f"`{module}`" in section, module


def _write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / "rsb_mj" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root / "rsb_mj"


def test_family_tests_are_found_and_block_reads_are_not(tmp_path):
    root = _write(
        tmp_path,
        {
            "__init__.py": "",
            "rules.py": "def check(ctx):\n    if not ctx.is_rsb:\n        return\n",
            "direct.py": "def goal(problem):\n    return problem.question is None\n",
            "guard.py": (
                "def scene(ctx):\n    if ctx.problem.question is None:\n        report()\n"
            ),
            "calls.py": (
                "from rsb_mj.lang.task import family as f\n"
                "from rsb_mj.tables.episode_source import is_goal_source\n"
            ),
            "reads.py": (
                "def source(p):\n"
                "    if p.question is not None:\n"
                "        return p.question.source\n"
                "    return p.question.file if p.question is not None else None\n"
            ),
        },
    )
    assert scan(root) == {
        "rsb_mj.calls": [(1, "import task_family"), (2, "import is_goal_source")],
        "rsb_mj.direct": [(2, "problem.question is None")],
        "rsb_mj.guard": [(2, "ctx.problem.question is None")],
        "rsb_mj.rules": [(2, "ctx.is_rsb")],
    }
