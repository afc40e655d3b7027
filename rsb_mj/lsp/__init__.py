"""``rsb lsp``: a language server for task files (``*.bddl``) and instruction template files.

Over stdio (pygls): the linter's findings as diagnostics (with quick fixes and the rules'
documentation on hover), hover on predicates, block keywords, categories, sources and
regions, completion where the grammar allows it, formatting by ``rsb fmt``'s formatter, and
go to definition. Modules: :mod:`.server` (requests and the lint worker), :mod:`.analysis`,
:mod:`.diagnostics`, :mod:`.fixes`, :mod:`.hover`, :mod:`.completion`, :mod:`.definition`,
:mod:`.formatting`, :mod:`.reference` (texts from the registries), :mod:`.grammar` (what the
grammar allows), :mod:`.context` (the forms around the cursor), :mod:`.positions`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rsb_mj.lazy import lazy_exports

_EXPORTS = {
    "DEBOUNCE_S": "rsb_mj.lsp.server",
    "RsbLanguageServer": "rsb_mj.lsp.server",
    "create_server": "rsb_mj.lsp.server",
}

if TYPE_CHECKING:  # pragma: no cover
    from rsb_mj.lsp.server import DEBOUNCE_S, RsbLanguageServer, create_server

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())

__all__ = ["DEBOUNCE_S", "RsbLanguageServer", "create_server"]
