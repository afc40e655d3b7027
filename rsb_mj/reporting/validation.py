"""Check episode records before a report pools them: each one consistent in itself and with
its suite, one scored record per episode, one task per row.

``rsb report`` reads records written by ``rsb eval``, but a run folder can be hand-edited,
concatenated or mixed from two versions of a task; a record that cannot be true would be
scored as it stands. :func:`record_problems` lists what is wrong with one record,
:func:`check_run` every problem of a run folder's records as ``path:line: message``:

* the suite is a known suite (``RSB-Math-4``, ``A2A-Color``, a level suite) or a task file
  (``*.bddl``), the split ``train`` or ``eval``, the choice count 2..10 and the suite's own;
* letters (``correct``, ``chosen_option``, ``text_choice``) are letters of that count;
* outcome flags agree with each other: ``success`` needs a grasp and the correct choice,
  ``correct_choice`` is "the choice is the target" (and "the chosen letter is the correct
  one"), ``grasped`` matches ``grasp_step`` (and, outside Act2Answer, the choice), the
  termination is one :class:`rsb_mj.evaluation.rollout.Rollout` writes and agrees with
  ``success``; steps lie within the step limit;
* an error record (``termination == "error"``) names its error and kind, a scored one has
  none;
* one episode (suite, split, index, policy, variant) has at most one scored record (a
  second, with the same or another outcome, is refused: the first would win silently);
* the scored records of one row (policy and suite) share one task digest
  (``sim.task_sha256``, :mod:`rsb_mj.lang.digest`): two versions of a task are two tasks;
* a goal task's record (:attr:`~rsb_mj.evaluation.records.EpisodeRecord.is_goal`) is a task
  file's, without question, choice or grasp, its termination one of
  :data:`GOAL_TERMINATIONS` agreeing with ``success``, its failure class one of
  :data:`~rsb_mj.evaluation.failure.GOAL_FAILURE_CLASSES`.
"""

from __future__ import annotations

from rsb_mj.choices import CHOICE_COUNTS, LETTERS
from rsb_mj.evaluation.failure import GOAL_FAILURE_CLASSES
from rsb_mj.evaluation.records import EpisodeRecord, RecordKey
from rsb_mj.evaluation.run_folder import RunFolder
from rsb_mj.splits import SPLITS
from rsb_mj.suites import A2A_SUITES, ALL_SUITES
from rsb_mj.tables.episode_source import is_task_file

#: Terminations of a scored record (an error record has ``"error"``; ``"policy_fault"``: an
#: episode ended by the policy's own fault, scored as a failure).
SCORED_TERMINATIONS = ("success", "wrong_choice", "step_limit", "policy_done", "policy_fault")
#: Terminations of a goal task's scored record (``no_layout``: no valid layout for the seed).
GOAL_TERMINATIONS = ("success", "step_limit", "policy_done", "no_layout", "policy_fault")
#: How many problems a refusal lists (then "... and N more").
SHOWN = 12


def _suite_choices(suite: str) -> int | None:
    """The choice count of a named suite (None for a task file, whose count it states)."""
    found = ALL_SUITES.get(suite) or A2A_SUITES.get(suite)
    return found.choices if found is not None else None


def _known_suite(suite: str) -> bool:
    return suite in ALL_SUITES or suite in A2A_SUITES or is_task_file(suite)


def record_problems(r: EpisodeRecord) -> list[str]:
    """What is inconsistent in record ``r`` (empty when nothing is)."""
    if not _known_suite(r.suite):
        return [
            f"unknown suite {r.suite!r}; valid choices: a task file (*.bddl) or one of "
            f"{len(ALL_SUITES) + len(A2A_SUITES)} suites (e.g. RSB-Math-4; see rsb eval --help)"
        ]
    out = []
    if r.split not in SPLITS:
        out.append(f"split {r.split!r}; valid choices: {', '.join(SPLITS)}")
    if r.is_goal:
        return out + _goal_problems(r)
    own = _suite_choices(r.suite)
    if r.choices not in CHOICE_COUNTS:
        out.append(f"choices {r.choices}; valid choices: 2..10")
        return out  # the letters cannot be checked
    if own is not None and r.choices != own:
        out.append(f"choices {r.choices}, but {r.suite} has {own}")
    letters = LETTERS[r.choices]
    for name in ("correct", "chosen_option", "text_choice"):
        value = getattr(r, name)
        if value is not None and value not in letters:
            out.append(f"{name} {value!r} is not one of the {r.choices} letters {''.join(letters)}")
    if r.index < 0:
        out.append(f"index {r.index} is negative")
    if r.max_steps < 1 or not 0 <= r.steps <= r.max_steps:
        out.append(f"steps {r.steps} is not within the step limit 0..{r.max_steps}")
    if r.is_error:
        if not r.error or not r.error_kind:
            out.append("an error record (termination 'error') needs its error and error_kind")
        return out
    return out + _outcome_problems(r)


def _outcome_problems(r: EpisodeRecord) -> list[str]:
    """Problems of a scored record's outcome fields."""
    out = []
    if r.termination not in SCORED_TERMINATIONS:
        out.append(
            f"termination {r.termination!r}; valid choices: "
            f"{', '.join((*SCORED_TERMINATIONS, 'error'))}"
        )
    if r.termination == "policy_fault":
        if r.success or r.error_kind != "policy" or not r.error:
            out.append("termination 'policy_fault' needs the policy's error and no success")
    elif r.error is not None or r.error_kind is not None:
        out.append(f"a scored record (termination {r.termination!r}) carries an error")
    hit = r.choice is not None and r.choice == r.target
    if r.correct_choice != hit:
        out.append(
            f"correct_choice is {str(r.correct_choice).lower()}, but the choice "
            f"{r.choice!r} {'is' if hit else 'is not'} the target {r.target!r}"
        )
    if r.chosen_option is not None and r.choice is None:
        out.append(f"chosen_option {r.chosen_option!r} without a choice")
    if r.chosen_option is not None and (r.chosen_option == r.correct) != hit:
        out.append(
            f"the chosen option {r.chosen_option!r} and the correct option {r.correct!r} "
            f"disagree with the choice {r.choice!r} and the target {r.target!r}"
        )
    if r.success and not (r.grasped and r.correct_choice):
        out.append("success is true without a grasp of the correct choice")
    if r.termination == "success" and not r.success:
        out.append("termination 'success' but success is false")
    if r.termination == "wrong_choice" and (r.success or r.correct_choice or r.choice is None):
        out.append("termination 'wrong_choice' needs a choice that is not the target")
    if r.grasped != (r.grasp_step is not None):
        out.append(f"grasped is {str(r.grasped).lower()} but grasp_step is {r.grasp_step}")
    for name in ("grasp_step", "success_step"):
        step = getattr(r, name)
        if step is not None and not 1 <= step <= r.steps:
            out.append(f"{name} {step} is not within the {r.steps} steps run")
    if r.success_step is not None and not r.success:
        out.append(f"success_step {r.success_step} but success is false")
    if r.item is None and r.grasped != (r.choice is not None):  # RSB: the choice is the grasp
        out.append(f"grasped is {str(r.grasped).lower()} but the choice is {r.choice!r}")
    if r.item is None and r.grasped and r.grasped_candidates[:1] != [r.choice]:
        out.append(
            f"the choice {r.choice!r} is not the first grasped candidate "
            f"({', '.join(r.grasped_candidates) or 'none'})"
        )
    return out


def _goal_problems(r: EpisodeRecord) -> list[str]:
    """Problems of a goal task's record (see the module docstring)."""
    out = []
    if not is_task_file(r.suite):
        out.append(f"a goal record's suite {r.suite!r} is not a task file (*.bddl)")
    if r.choices != 0 or r.choice is not None or r.grasped or r.correct_choice:
        out.append("a goal record has no question: choices 0, no choice, no grasp")
    if r.index < 0:
        out.append(f"index {r.index} is negative")
    if r.max_steps < 1 or not 0 <= r.steps <= r.max_steps:
        out.append(f"steps {r.steps} is not within the step limit 0..{r.max_steps}")
    if r.failure_class not in (*GOAL_FAILURE_CLASSES, ""):
        out.append(
            f"failure_class {r.failure_class!r}; valid choices: "
            f"{', '.join(GOAL_FAILURE_CLASSES)} or '' (a success)"
        )
    if r.is_error:
        if not r.error or not r.error_kind:
            out.append("an error record (termination 'error') needs its error and error_kind")
        return out
    if r.termination not in GOAL_TERMINATIONS:
        out.append(
            f"termination {r.termination!r}; valid choices for a goal task: "
            f"{', '.join((*GOAL_TERMINATIONS, 'error'))}"
        )
    if r.success != (r.termination == "success"):
        out.append(f"success is {str(r.success).lower()} but termination is {r.termination!r}")
    if r.success != (r.success_step is not None):
        out.append(f"success is {str(r.success).lower()} but success_step is {r.success_step}")
    if r.success_step is not None and not 1 <= r.success_step <= r.steps:
        out.append(f"success_step {r.success_step} is not within the {r.steps} steps run")
    if r.success == bool(r.failure_class):
        out.append(
            f"failure_class {r.failure_class!r} with success {str(r.success).lower()} "
            "(a success has none, a failure one)"
        )
    return out


def check_run(folder: RunFolder) -> tuple[list[EpisodeRecord], list[str]]:
    """The records of a run folder (as :meth:`~rsb_mj.evaluation.run_folder.RunFolder.records`
    chooses them) and every problem found in them, as ``path:line: message``.

    Raises:
        EvalError: for a line that is not a record at all (bad JSON, a wrong field type).
    """
    problems: list[str] = []
    chosen: dict[RecordKey, tuple[int, EpisodeRecord]] = {}
    tasks: dict[tuple[str, str], tuple[int, str]] = {}
    path = folder.records_file
    for line, r in folder.numbered_records():
        problems += [f"{path}:{line}: {p}" for p in record_problems(r)]
        held = chosen.get(r.key)
        if held is not None and not held[1].is_error and not r.is_error:
            same = (
                "the same outcome as"
                if _outcome(held[1]) == _outcome(r)
                else "another outcome than"
            )
            problems.append(
                f"{path}:{line}: a second scored record of {r.suite} {r.split} episode "
                f"{r.index} for {r.policy} ({r.variant}), with {same} line {held[0]}; keep one"
            )
            continue
        if held is None or held[1].is_error:
            chosen[r.key] = (line, r)
        digest = str((r.sim or {}).get("task_sha256") or "")
        if r.is_error or not digest:
            continue
        first = tasks.setdefault((r.policy, r.suite), (line, digest))
        if first[1] != digest:
            problems.append(
                f"{path}:{line}: {r.suite} was run with task sha256 {digest[:16]} here and "
                f"{first[1][:16]} at line {first[0]}: two versions of the task (its file or "
                "a file it names changed) cannot be pooled into one row; report them from "
                "separate run folders"
            )
    return [r for _, r in chosen.values()], problems


def _outcome(r: EpisodeRecord) -> tuple:
    return (r.choice, r.success, r.grasped, r.termination, r.in_zone)


def refusal(problems: list[str]) -> str:
    """The message refusing records with ``problems`` (the first :data:`SHOWN` listed)."""
    shown = problems[:SHOWN]
    more = len(problems) - len(shown)
    tail = [f"... and {more} more"] if more else []
    count = f"{len(problems)} invalid record{'s' if len(problems) != 1 else ''}"
    return "\n".join([f"{count}; nothing was reported:", *shown, *tail])
