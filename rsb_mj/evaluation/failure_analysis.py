"""The RSB paper's Table 5 from episode records: why grasping episodes failed (the choice was
right and the placement failed, or the choice was wrong; and whether the policy's own text
named the right option: "correct CoT, wrong target")."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from rsb_mj.evaluation.metrics import Rate
from rsb_mj.evaluation.records import EpisodeRecord


@dataclass(frozen=True)
class FailureAnalysis:
    """The RSB paper's Table 5 for one policy on one suite: why grasping episodes failed.

    Over scored ``original`` episodes that grasped but did not succeed (``failures``):

    Attributes:
        suite, policy: names.
        failures: grasp-success / task-failure episodes.
        not_placed: the choice was correct, the placement failed.
        wrong_target: the choice (first grasp) was a wrong candidate.
        wrong_text_wrong_target: a wrong choice whose text named a wrong option ("incorrect
            CoT, wrong target").
        right_text_wrong_target: a wrong choice whose text named the correct option ("correct
            CoT, wrong target": the reasoning-following failure).
        following: among grasping episodes whose text names an option, the choice is that
            option (the reasoning-following rate); n = 0 for policies that write no text.
        privileged: the policy read the answer (an oracle reference: its rows are marked).
    """

    suite: str
    policy: str
    failures: int
    not_placed: Rate
    wrong_target: Rate
    wrong_text_wrong_target: Rate
    right_text_wrong_target: Rate
    following: Rate
    privileged: bool = False


def failure_analysis(records: Iterable[EpisodeRecord]) -> list[FailureAnalysis]:
    """Table 5 per (policy, suite) over scored ``original`` records, in order of first
    appearance."""
    groups: dict[tuple[str, str], list[EpisodeRecord]] = {}
    for rec in records:
        if not rec.is_error and rec.variant == "original":
            groups.setdefault((rec.policy, rec.suite), []).append(rec)
    out = []
    for (policy, suite), recs in groups.items():
        failed = [r for r in recs if r.grasped and not r.success]
        wrong = [r for r in failed if not r.correct_choice]
        texted = [r for r in recs if r.grasped and r.text_choice is not None]
        n = len(failed)
        out.append(
            FailureAnalysis(
                suite=suite,
                policy=policy,
                failures=n,
                not_placed=Rate(sum(r.correct_choice for r in failed), n),
                wrong_target=Rate(len(wrong), n),
                wrong_text_wrong_target=Rate(
                    sum(r.text_choice not in (None, r.correct) for r in wrong), n
                ),
                right_text_wrong_target=Rate(sum(r.text_choice == r.correct for r in wrong), n),
                following=Rate(sum(r.chosen_option == r.text_choice for r in texted), len(texted)),
                privileged=any(r.privileged for r in recs),
            )
        )
    return out
