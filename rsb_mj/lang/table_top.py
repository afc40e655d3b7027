"""The table a task stands on: table-top fixture categories and the rsb table's size.

Lengths are metres in the table frame.
"""

from __future__ import annotations

from rsb_mj.workspace import TABLE_HALF_XY

__all__ = [
    "RSB_FIXTURE_CATEGORIES",
    "TABLE_CATEGORIES",
    "TABLE_HALF_SIZE",
]

#: Fixture categories an rsb task may declare.
RSB_FIXTURE_CATEGORIES = frozenset({"table"})
#: Fixture categories that are table tops (regions on them need ``:ranges``).
TABLE_CATEGORIES = frozenset(
    {
        "table",
        "main_table",
        "kitchen_table",
        "living_room_table",
        "study_table",
        "coffee_table",
        "counter",
        "floor",
    }
)
#: Half extents (x, y) [m] of the rsb table top, table frame; regions must stay inside (the
#: scene's table, :data:`rsb_mj.workspace.TABLE_HALF_XY`).
TABLE_HALF_SIZE = TABLE_HALF_XY
