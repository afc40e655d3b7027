"""Data flows one way: no import cycle, and no module imports from a later stage.

Every ``import`` and ``from ... import`` of every ``rsb_mj`` module counts, at any depth
(imports inside functions and under ``TYPE_CHECKING`` too): a lazy import still reaches
back upstream. ``from package import name`` counts as an import of the module that defines
``name`` (a submodule, a name the package re-exports, or a name it loads lazily with
:func:`rsb_mj.lazy.lazy_exports`); only a name the package itself defines is an import of
the package's ``__init__``.

The stage order is written once, here (:data:`STAGES`), and follows the data flow: task file
-> AST -> linter -> episodes -> tables -> scene -> scoring -> expert -> env -> policies ->
evaluation -> reporting -> datasets -> cli. A module belongs to the stage of the longest
prefix that names it, and every stage is a folder (or, for the question data and the probes'
feature capture, a few modules of one): a module whose work belongs to another stage moves
to that stage's folder. One rule makes the order a little finer than the folders: what a
stage is *checked against* comes before it. The question sources (the data a task's
``(:source ...)`` names) come before the linter, which checks a task against them; the
scorer comes before the environment, which scores every step, and so does the expert, whose
pick the environment runs for a task that starts with an object in a gripper.

A package's ``__init__`` may import anything beneath it (it re-exports its stages' names),
and the root package ``rsb_mj`` is the facade of them all: Python imports it before any
``rsb_mj`` module, so importing it is never an upward import.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "rsb_mj"

#: The stages in data-flow order, each with the module prefixes it holds.
STAGES: tuple[tuple[str, tuple[str, ...]], ...] = (
    # Leaves every stage may use: errors, writing files, locks, progress lines, child processes
    # that end with their parent, version, data folders, physical rates, the table's geometry
    # and the arms' reach, answer letters and colors, split names, image resizing (openpi's
    # resize_with_pad).
    (
        "base",
        (
            "rsb_mj.errors",
            "rsb_mj.atomic",
            "rsb_mj.file_kind",
            "rsb_mj.lock",
            "rsb_mj.procs",
            "rsb_mj.progress",
            "rsb_mj.lazy",
            "rsb_mj.deferred",
            "rsb_mj.version",
            "rsb_mj.resources",
            "rsb_mj.rates",
            "rsb_mj.workspace",
            "rsb_mj.colors",
            "rsb_mj.choices",
            "rsb_mj.splits",
            "rsb_mj.resize",
            "rsb_mj.stats",
        ),
    ),
    # Task file -> AST: grammar, parser, AST, formatter, vocabulary, the typed task view,
    # the layout sampler (over a task's regions: the episode sampler draws with it, the
    # linter runs its trials), and the shipped task files by name (suites).
    ("lang", ("rsb_mj.lang", "rsb_mj.suites")),
    # The question data a task names: built-in sources, question banks, Act2Answer items,
    # and what they are read with (numeric answers, near-duplicates, number-shape probes).
    (
        "sources",
        (
            "rsb_mj.episodes.sources",
            "rsb_mj.episodes.question",
            "rsb_mj.episodes.numeric",
            "rsb_mj.episodes.dedup",
            "rsb_mj.episodes.probes",
        ),
    ),
    # AST -> findings: the lint rules, template files.
    (
        "linter",
        ("rsb_mj.lang.linter", "rsb_mj.lang.rules", "rsb_mj.lang.templates"),
    ),
    # Task -> episode: the Episode record (a value every later stage reads) and the sampler.
    ("episodes", ("rsb_mj.episodes",)),
    # Episodes -> frozen tables: their files, manifest, builds, checks and audits, private
    # draws, and the one row lookup (source, split, index) -> Episode.
    ("tables", ("rsb_mj.tables",)),
    # Episode -> MuJoCo model: objects, layout, rendering.
    ("scene", ("rsb_mj.scene",)),
    # Predicates, the scorer and safety costs over a scene's state.
    ("scoring", ("rsb_mj.scoring",)),
    # The built-in expert: a planner over a compiled scene's model and data, which the
    # scripted policies drive and the environment's held start (Act2Answer's cube in the
    # gripper at reset) uses for its pick.
    ("expert", ("rsb_mj.expert",)),
    # The gymnasium environment, its cameras, signals and perturbations.
    ("env", ("rsb_mj.env", "rsb_mj.perturb")),
    ("policies", ("rsb_mj.policies",)),
    # Runs, records and metrics, the pool; rsb doctor (reference frames vs goldens); the
    # features a rollout keeps for the probes (their capture and store).
    (
        "evaluation",
        (
            "rsb_mj.evaluation",
            "rsb_mj.doctor",
            "rsb_mj.probing.capture",
            "rsb_mj.probing.store",
        ),
    ),
    # Records -> reports (rsb report: Markdown, CSV, PNG, HTML); layerwise probing of the
    # stored features (rsb probe), whose tables a report shows and which reads the report's
    # sections: one stage.
    ("reporting", ("rsb_mj.reporting", "rsb_mj.probing")),
    ("datasets", ("rsb_mj.datasets", "rsb_mj.integrations")),
    # the language server reads the linter, formatter and registries; only the CLI starts it
    ("tools", ("rsb_mj.lsp",)),
    ("cli", ("rsb_mj.cli", "rsb_mj.__main__")),
)

STAGE_NAMES = tuple(name for name, _ in STAGES)


def stage_of(module: str) -> str:
    """The stage of ``module`` (see the module docstring)."""
    if module == "rsb_mj":
        return STAGE_NAMES[0]
    best, length = None, -1
    for name, prefixes in STAGES:
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > length:
                best, length = name, len(prefix)
    assert best is not None, f"{module} has no stage: add it to STAGES in {__file__}"
    return best


class ImportGraph:
    """The modules of the ``rsb_mj`` package at ``root`` and their imports.

    Attributes:
        files: dotted module name -> file (a package is its ``__init__``).
    """

    def __init__(self, root: Path) -> None:
        self.files: dict[str, Path] = {}
        for path in sorted(root.rglob("*.py")):
            parts = path.relative_to(root.parent).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            self.files[".".join(parts)] = path
        self._trees: dict[str, ast.Module] = {}
        self._imports: dict[str, tuple[tuple[str, int], ...]] = {}

    def tree(self, module: str) -> ast.Module:
        if module not in self._trees:
            path = self.files[module]
            self._trees[module] = ast.parse(path.read_text(encoding="utf-8"), str(path))
        return self._trees[module]

    def is_package(self, module: str) -> bool:
        return self.files[module].name == "__init__.py"

    def reexports(self, package: str) -> dict[str, str]:
        """Name -> module of what ``package`` loads lazily or imports from elsewhere."""
        out: dict[str, str] = {}
        tables: dict[str, ast.Dict] = {}
        for node in self.tree(package).body:
            if isinstance(node, ast.Assign | ast.AnnAssign) and isinstance(node.value, ast.Dict):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                tables.update({t.id: node.value for t in targets if isinstance(t, ast.Name)})
        for node in ast.walk(self.tree(package)):
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "lazy_exports":
                table = node.args[1]
                table = tables.get(table.id) if isinstance(table, ast.Name) else table
                for key, value in zip(table.keys, table.values, strict=True):
                    out[key.value] = value.value
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module in self.files:
                for alias in node.names:
                    out.setdefault(alias.asname or alias.name, node.module)
        return out

    def resolve(self, base: str, name: str, depth: int = 0) -> str:
        """The module that ``from base import name`` imports."""
        if f"{base}.{name}" in self.files:
            return f"{base}.{name}"
        if self.is_package(base) and depth < 10:
            target = self.reexports(base).get(name)
            if target is not None and target != base:
                if self.is_package(target):
                    return self.resolve(target, name, depth + 1)
                return target
        return base

    def known(self, name: str) -> str | None:
        """The longest module that ``name`` starts with (None: not an rsb_mj module)."""
        while name and name not in self.files:
            name = name.rpartition(".")[0]
        return name or None

    def imports_of(self, module: str) -> tuple[tuple[str, int], ...]:
        """(imported module, line) of every rsb_mj import in ``module``, at any depth."""
        if module in self._imports:
            return self._imports[module]
        found = set()
        for node in ast.walk(self.tree(module)):
            if isinstance(node, ast.Import):
                targets = [self.known(alias.name) for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    parts = module.split(".")
                    here = parts if self.is_package(module) else parts[:-1]
                    parts = here[: len(here) - (node.level - 1)]
                    base = ".".join([*parts, node.module] if node.module else parts)
                else:
                    base = node.module or ""
                known = self.known(base)
                if known is None:
                    continue
                targets = [self.resolve(known, alias.name) for alias in node.names]
            else:
                continue
            found.update((t, node.lineno) for t in targets if t is not None and t != module)
        self._imports[module] = tuple(sorted(found))
        return self._imports[module]

    def upward_imports(self) -> list[str]:
        """``module:line -> imported (stage -> later stage)`` of each import against the flow."""
        out = []
        for module in self.files:
            if module == "rsb_mj":
                continue  # the facade of every stage
            for target, line in self.imports_of(module):
                if self.is_package(module) and target.startswith(module + "."):
                    continue  # a package re-exports what lies beneath it
                here, there = stage_of(module), stage_of(target)
                if STAGE_NAMES.index(there) > STAGE_NAMES.index(here):
                    out.append(f"{module}:{line} -> {target} ({here} -> {there})")
        return out

    def cycles(self) -> list[str]:
        """Each strongly connected component of more than one module, with its imports."""
        graph = {m: sorted({t for t, _ in self.imports_of(m)}) for m in self.files}
        index: dict[str, int] = {}
        low: dict[str, int] = {}
        stack: list[str] = []
        on_stack: set[str] = set()
        components = []

        def visit(v: str) -> None:  # Tarjan's algorithm
            index[v] = low[v] = len(index)
            stack.append(v)
            on_stack.add(v)
            for w in graph[v]:
                if w not in index:
                    visit(w)
                    low[v] = min(low[v], low[w])
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
            if low[v] == index[v]:
                component = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    component.append(w)
                    if w == v:
                        break
                if len(component) > 1:
                    components.append(sorted(component))

        for module in graph:
            if module not in index:
                visit(module)
        out = []
        for component in sorted(components):
            inside = set(component)
            edges = [
                f"{m}:{line} -> {t}"
                for m in component
                for t, line in self.imports_of(m)
                if t in inside
            ]
            out.append(" <-> ".join(component) + ": " + ", ".join(edges))
        return out


GRAPH = ImportGraph(PACKAGE)


# ---- the checks -------------------------------------------------------------------------


def test_every_module_has_a_stage():
    assert len(GRAPH.files) > 150
    for module in GRAPH.files:
        assert stage_of(module) in STAGE_NAMES


def test_no_import_cycle():
    cycles = GRAPH.cycles()
    assert cycles == [], "import cycles:\n" + "\n".join(cycles)


def test_no_module_imports_from_a_later_stage():
    found = GRAPH.upward_imports()
    assert found == [], "imports against the data flow:\n" + "\n".join(found)


def defined_names(tree: ast.Module) -> set[str]:
    """The names a module binds itself at top level (definitions, assignments, ``import x``;
    not ``from ... import`` and nothing under ``if TYPE_CHECKING``)."""
    out: set[str] = set()

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                out.add(node.name)
            elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    out.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
            elif isinstance(node, ast.Import):
                out.update((a.asname or a.name).split(".")[0] for a in node.names)
            elif isinstance(node, ast.If):
                if not (isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"):
                    visit(node.body)
                    visit(node.orelse)
            elif isinstance(node, ast.Try):
                visit(node.body)
                for handler in node.handlers:
                    visit(handler.body)
                visit(node.orelse)
                visit(node.finalbody)
            elif isinstance(node, ast.With):
                visit(node.body)

    visit(tree.body)
    return out


def re_exports(graph: ImportGraph) -> list[str]:
    """``module: name`` of each name a module that is not a package's ``__init__`` lists in
    ``__all__`` without defining it, or imports as ``from m import name as name``."""
    out = []
    for module in graph.files:
        if graph.is_package(module):
            continue
        tree = graph.tree(module)
        defined = defined_names(tree)
        for node in tree.body:
            if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
            ):
                names = [e.value for e in getattr(node.value, "elts", [])]
                out += [f"{module}: {name}" for name in names if name not in defined]
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                out += [
                    f"{module}: {a.name} as {a.asname}" for a in node.names if a.asname == a.name
                ]
    return out


def test_no_module_re_exports_a_name_it_does_not_define():
    """One name, one import path: only a package's ``__init__`` re-exports (its public API)."""
    found = re_exports(GRAPH)
    assert found == [], "re-exported outside a package's __init__:\n" + "\n".join(found)


# ---- the checker itself -------------------------------------------------------------------


def test_imports_inside_functions_and_lazy_names_are_seen():
    # rsb_mj.lang.formatter imports the parser inside format_text
    assert "rsb_mj.lang.parser" in {t for t, _ in GRAPH.imports_of("rsb_mj.lang.formatter")}
    # `from rsb_mj.lang import load_task` is an import of the linter (a lazy name) ...
    assert GRAPH.resolve("rsb_mj.lang", "load_task") == "rsb_mj.lang.linter"
    # ... and so is `from rsb_mj import load_task` (a lazy name of a lazy name)
    assert GRAPH.resolve("rsb_mj", "load_task") == "rsb_mj.lang.linter"
    # an eager re-export (from ... import in an __init__), a submodule
    assert GRAPH.resolve("rsb_mj.evaluation.pool", "WORKER_DIED") == "rsb_mj.evaluation.pool.base"
    assert GRAPH.resolve("rsb_mj.lang", "ast") == "rsb_mj.lang.ast"


def test_stages_follow_the_longest_prefix():
    assert stage_of("rsb_mj") == "base"
    assert stage_of("rsb_mj.lang.parser") == "lang"
    assert stage_of("rsb_mj.episodes.sources.gsm8k") == "sources"
    assert stage_of("rsb_mj.lang.rules.names") == "linter"
    assert stage_of("rsb_mj.episodes.sampler") == "episodes"
    assert stage_of("rsb_mj.lang.layout") == "lang"
    assert stage_of("rsb_mj.scene.compiler") == "scene"
    assert stage_of("rsb_mj.reporting.html.page") == "reporting"
    assert stage_of("rsb_mj.probing.capture") == "evaluation"  # the rollout keeps features
    assert stage_of("rsb_mj.probing.probe") == "reporting"
    assert stage_of("rsb_mj.cli.lint") == "cli"


def _package(root: Path, files: dict[str, str]) -> ImportGraph:
    for name, text in files.items():
        path = root / "rsb_mj" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return ImportGraph(root / "rsb_mj")


def test_a_lazy_upward_import_and_a_cycle_are_found(tmp_path):
    graph = _package(
        tmp_path,
        {
            "__init__.py": "",
            "lazy.py": "",
            "lang/__init__.py": "",
            "lang/ast.py": "def f():\n    from rsb_mj.scene import compile_scene\n",
            "lang/parser.py": "from rsb_mj.lang import ast\n",
            "lang/formatter.py": "from . import parser\nfrom .ast import f\n",
            "scene/__init__.py": (
                "from rsb_mj.lazy import lazy_exports\n"
                "__getattr__, __dir__ = lazy_exports(__name__, "
                "{'compile_scene': 'rsb_mj.scene.compiler'}, globals())\n"
            ),
            "scene/compiler.py": "import rsb_mj.lang.formatter\n",
        },
    )
    assert graph.imports_of("rsb_mj.lang.formatter") == (
        ("rsb_mj.lang.ast", 2),
        ("rsb_mj.lang.parser", 1),
    )
    assert graph.upward_imports() == ["rsb_mj.lang.ast:2 -> rsb_mj.scene.compiler (lang -> scene)"]
    assert graph.cycles() == [
        "rsb_mj.lang.ast <-> rsb_mj.lang.formatter <-> rsb_mj.lang.parser <-> "
        "rsb_mj.scene.compiler: rsb_mj.lang.ast:2 -> rsb_mj.scene.compiler, "
        "rsb_mj.lang.formatter:2 -> rsb_mj.lang.ast, "
        "rsb_mj.lang.formatter:1 -> rsb_mj.lang.parser, rsb_mj.lang.parser:1 -> rsb_mj.lang.ast, "
        "rsb_mj.scene.compiler:1 -> rsb_mj.lang.formatter"
    ]


def test_a_package_may_re_export_what_lies_beneath_it(tmp_path):
    graph = _package(
        tmp_path,
        {
            "__init__.py": "def f():\n    import rsb_mj.cli.lint\n",
            "lang/__init__.py": (
                "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                "    from rsb_mj.lang.linter import lint_file\n"
            ),
            "lang/linter.py": "",
            "cli/__init__.py": "",
            "cli/lint.py": "import rsb_mj\nfrom rsb_mj.lang import lint_file\n",
        },
    )
    assert graph.imports_of("rsb_mj.cli.lint") == (("rsb_mj", 1), ("rsb_mj.lang.linter", 2))
    assert graph.upward_imports() == []  # lang's __init__ -> linter, rsb_mj -> cli
    assert graph.cycles() == [
        "rsb_mj <-> rsb_mj.cli.lint: rsb_mj:2 -> rsb_mj.cli.lint, rsb_mj.cli.lint:1 -> rsb_mj"
    ]


def test_a_re_export_outside_an_init_is_found(tmp_path):
    graph = _package(
        tmp_path,
        {
            "__init__.py": "from rsb_mj.a import f\n__all__ = ['f']\n",
            "a.py": "import json\nX = 1\ndef f():\n    pass\n__all__ = ['X', 'f', 'json']\n",
            "b.py": "from rsb_mj.a import X, f\nfrom rsb_mj.a import f as f\n__all__ = ['X', 'g']\n"
            "def g():\n    pass\n",
        },
    )
    assert re_exports(graph) == ["rsb_mj.b: X", "rsb_mj.b: f as f"]
