"""RSB418: a LIBERO ``:language`` text must say what the file name says.

LIBERO builds the prompt a policy sees from the task file's name, so a ``:language`` that
disagrees with it describes a task the policy is never asked to do.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from rsb_mj.lang.rules.base import Context, rule

_SUFFIX = re.compile(r"(_\d+)+$")
#: LIBERO-90/10 file names start with a scene, e.g. ``KITCHEN_SCENE3_turn_on_the_stove``;
#: LIBERO drops it when it builds the prompt.
_SCENE = re.compile(r"^[A-Z][A-Z_]*SCENE\d+_")


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


@rule(
    "RSB418",
    "language-mismatch",
    "warning",
    bad="; put_the_bowl_on_the_plate.bddl\n(:language Put the bowl on the stove)",
    good="; put_the_bowl_on_the_plate.bddl\n(:language Put the bowl on the plate)",
)
def language_mismatch(ctx: Context) -> None:
    """``:language`` text that disagrees with the file name. LIBERO builds the prompt a policy
    sees from the file name, not from ``:language``, so the two must say the same thing
    (case, underscores, a leading ``KITCHEN_SCENE3_`` scene and a trailing ``_N`` index are
    ignored). Not checked for rsb tasks,
    whose instructions come from the template files."""
    language = ctx.problem.language
    if language is None or ctx.is_rsb or ctx.path.startswith("<"):
        return
    stem = os.path.splitext(os.path.basename(ctx.path))[0]  # Path.stem, without Path
    stem = _SCENE.sub("", _SUFFIX.sub("", stem))
    from_name = _words(stem.replace("_", " "))
    if not from_name or from_name == _words(language):
        return
    ctx.report(
        "RSB418",
        f":language {language!r} disagrees with the file name {Path(ctx.path).name!r} "
        f"({' '.join(from_name)!r}); LIBERO prompts come from the file name",
        ctx.block_span("language"),
    )
