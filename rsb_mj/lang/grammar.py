"""The task language's one parser: ``grammar/rsb.lark`` compiled by Lark.

The grammar file is the only description of the syntax. It is found through
:func:`rsb_mj.resources.grammar_path` (so it works from a wheel too) and compiled with
``parser="lalr"``, ``lexer="contextual"`` and ``strict=True`` (grammar conflicts and terminal
collisions are errors, not silent choices). The AST builder
(:class:`~rsb_mj.lang.transformer.AstBuilder`) runs inside the LALR parser, so no parse tree
is built: each rule's callback gets its children and returns the AST node.

Building the LALR tables (and the ``strict`` collision checks) takes about half a second,
so Lark's own cache keeps them under the user cache folder (:func:`tables_path`); a later
process loads them in a few milliseconds. A cache that cannot be read or written (read-only
home, unwritable ``RSB_MJ_CACHE``, a damaged or half-written file) costs only time: Lark
then builds the tables in memory (and rewrites a damaged file).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rsb_mj.lang.transformer import AstBuilder
from rsb_mj.resources import cache_root, grammar_path

if TYPE_CHECKING:  # pragma: no cover
    from lark import Lark

#: Options of the LALR parser (part of the cache key).
OPTIONS: dict[str, Any] = {
    "parser": "lalr",
    "lexer": "contextual",
    "strict": True,
    "maybe_placeholders": False,
    "keep_all_tokens": True,
}


def _to_ast() -> Any:
    """An :class:`~rsb_mj.lang.transformer.AstBuilder` that Lark can run inside its parser."""
    # lark is imported on first parse: importing the parser or linter (rsb --help) loads none
    from lark import Transformer

    class ToAst(AstBuilder, Transformer):
        def __init__(self) -> None:
            Transformer.__init__(self, visit_tokens=False)

    return ToAst()


def tables_path(grammar_text: str) -> Path | None:
    """Where Lark caches the LALR tables of ``grammar_text`` (None: no cache folder).

    The name holds a hash of the grammar, the parser options and the Lark and Python
    versions, so two rsb_mj versions never overwrite each other's tables (Lark also checks
    its own hash of grammar and options inside the file before using it).
    """
    # lark is imported on first parse: importing the parser or linter (rsb --help) loads none
    import lark

    root = cache_root()
    if root is None:
        return None
    key = "\n".join([grammar_text, repr(sorted(OPTIONS.items())), lark.__version__, sys.version])
    digest = hashlib.sha256(key.encode("utf-8")).hexdigest()[:20]
    return root / "lang" / f"rsb-lalr-{digest}.cache"


@functools.cache
def grammar() -> Lark:
    """The compiled LALR parser with the AST builder inside (built once per process)."""
    # lark is imported on first parse: importing the parser or linter (rsb --help) loads none
    from lark import Lark

    text = grammar_path().read_text(encoding="utf-8")
    path = tables_path(text)
    if path is not None:
        with contextlib.suppress(OSError):  # no folder: Lark builds in memory and skips saving
            path.parent.mkdir(parents=True, exist_ok=True)
    cache = str(path) if path is not None else False
    return Lark(text, transformer=_to_ast(), cache=cache, **OPTIONS)
