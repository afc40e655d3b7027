"""One document as the linter sees it: its text, problem and findings.

:func:`analyze` is ``rsb lint`` on an editor's buffer: :func:`rsb_mj.lang.linter.lint_source`
with the file's own path, so relative ``(:file ...)`` references resolve as they do on disk
and the findings are the ones ``rsb lint PATH`` prints for the same text.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rsb_mj.lang.ast import Problem
from rsb_mj.lang.diagnostics import Diagnostic
from rsb_mj.lang.files import is_template_file
from rsb_mj.lang.linter import lint_source


@dataclass(frozen=True)
class Analysis:
    """The linter's view of one version of a document.

    Attributes:
        path: the file (what findings name; relative references resolve against its folder).
        text: the text linted.
        version: the editor's version of the text (None when unknown).
        problem: the parsed task (None for a template file or a task that does not parse).
        diagnostics: the findings, in the linter's order.
    """

    path: Path
    text: str
    version: int | None
    problem: Problem | None
    diagnostics: tuple[Diagnostic, ...]

    @property
    def is_template(self) -> bool:
        """True for an instruction template file (``templates/**/*.txt``)."""
        return is_template_file(self.path)


def analyze(text: str, path: Path, version: int | None = None) -> Analysis:
    """Lint ``text`` as the contents of ``path``."""
    problem, diagnostics = lint_source(text, path)
    return Analysis(path, text, version, problem, tuple(diagnostics))
