"""The report's header: the lines between its title and its first table.

They name the run directories, the protocol, every non-default setting of the rows
(:func:`settings_lines`: step limit, quality preset, control rate), the renderers that drew
the records, each suite's task digests, the error episodes (excluded from every rate) and,
when a row is privileged, that it reads the answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rsb_mj.evaluation.metrics import SETTING_DEFAULTS, SuiteMetrics
from rsb_mj.evaluation.records import EpisodeRecord
from rsb_mj.evaluation.tables import label_of
from rsb_mj.suites import A2A_SUITES, ALL_SUITES
from rsb_mj.tables.episode_source import is_task_file, step_limit

__all__ = ["header_lines", "settings_lines"]


def settings_lines(metrics: dict[str, list[SuiteMetrics]]) -> list[str]:
    """Header lines naming every non-default setting of the rows (none for a default run)."""
    lines = []
    for label, ms in metrics.items():
        for m in ms:
            settings = dict(m.settings)
            known = m.suite in ALL_SUITES or m.suite in A2A_SUITES or is_task_file(m.suite)
            default_steps = step_limit(m.suite) if known else None
            odd = [
                f"{k} {v}"
                for k, v in settings.items()
                if (k == "max_steps" and v != default_steps)
                or (k in SETTING_DEFAULTS and v is not None and v != SETTING_DEFAULTS[k])
            ]
            if odd:
                lines.append(f"- {label_of(m, label)} on {m.suite}: " + ", ".join(odd))
    return lines


def header_lines(
    dirs: Sequence[Path],
    runs: dict[str, list[EpisodeRecord]],
    metrics: dict[str, list[SuiteMetrics]],
    renderers: list[str],
    max_error_rate: float | None,
) -> list[str]:
    """The Markdown lines between the title and the first table."""
    labelled = [m for ms in metrics.values() for m in ms]
    errors = sum(m.errors for m in labelled)
    tasks: dict[str, list[str]] = {}  # suite -> its task digests (one per run at most)
    for recs in runs.values():
        for r in recs:
            if not r.is_error:
                held = tasks.setdefault(r.suite, [])
                digest = str((r.sim or {}).get("task_sha256", ""))[:16] or "unknown"
                if digest not in held:
                    held.append(digest)
    mujoco = sorted({str(dict(m.settings)["mujoco"]) for m in labelled})
    odd = settings_lines(metrics)
    lines = [
        "Runs: " + ", ".join(f"`{d}`" for d in dirs),
        "",
        "Protocol: one attempt per episode (the choice is the first candidate grasped; a "
        "wrong first grasp fails the episode). Rates in %, Wilson 95% intervals in brackets; "
        "selection = correct choice among grasping episodes; nSG only where GSR > 0.",
        "",
        f"Settings: mujoco {', '.join(mujoco)}; "
        + ("non-default:" if odd else "all defaults (suite step limits, fast quality, 20 Hz)"),
        *odd,
        "",
        *renderers,
        "",
        "Tasks: " + "; ".join(f"{t} (task sha256 {'; '.join(h)})" for t, h in tasks.items()),
        "",
        f"Error episodes (faults outside the policy, not results; excluded from every rate): "
        f"{errors}"
        + (
            f"; rows above {100 * max_error_rate:g}% errors are withheld"
            if max_error_rate is not None
            else ""
        ),
    ]
    faults = sum(m.policy_faults for m in labelled)
    if faults:
        lines += [
            "",
            "Policy faults (episodes the policy failed itself: it raised, sent a bad action, "
            f"hung, its server's reply was not an answer; scored as failures): {faults}",
        ]
    if any(m.privileged for m in labelled):
        lines += [
            "",
            "Rows marked (privileged) read the answer (the built-in expert): an upper-bound "
            "reference, not a policy to rank.",
        ]
    return lines
