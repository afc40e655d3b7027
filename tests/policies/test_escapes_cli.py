"""``rsb eval`` with user policies that cheat or escape, on the real environment.

One run of six policies (two episodes each, three steps, no cameras), started the way the
``rsb`` script starts (the current folder not on the Python path) from ``tests/``, so the
``policies.escapes`` module is found from the current folder. Then user policies given as a
file and as a module from a folder of their own.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from rsb_mj.policies.sandbox import available
from rsb_mj.tables.episode_source import load_episode

ROOT = Path(__file__).resolve().parents[2]
E = "policies.escapes"
#: ``rsb``'s console script: sys.path starts with the script's folder, not the current one.
RSB = [sys.executable, "-c", "import sys; sys.path.remove(''); from rsb_mj.cli import main; "
       "sys.exit(main())"]  # fmt: skip
POLICIES = [f"{E}:forks", f"{E}:interrupts", f"{E}:exits", f"{E}:huge", f"{E}:cheat",
            f"inprocess:{E}:cheat"]  # fmt: skip
ERRORS = {
    "forks": "act(): the policy forked a process that returned into rsb's policy loop; the "
    "copy was stopped, and the episode is its failure",
    "interrupts": "act() raised KeyboardInterrupt",
    "exits": "act(): its process exited with status 3 (the episode is its failure)",
    "huge": "act() returned non-physical values at (row, index) [(0, 3), (1, 3)]: 1e+30 at "
    "index 3, which allows -9.42474..9.42474 (its range widened by 1 range on each side); "
    "expected joint positions [rad] and grippers 0 (closed) .. 1 (open)",
}


def _rsb(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "MUJOCO_GL": os.environ.get("MUJOCO_GL", "egl")}
    return subprocess.run(
        [*RSB, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600
    )


@pytest.fixture(scope="module")
def escapes(tmp_path_factory):
    out = tmp_path_factory.mktemp("escapes") / "run"
    args = ["eval", "--suite", "RSB-Math-4", "--episodes", "2", "--max-steps", "3",
            "--workers", "1", "--no-progress", "--out", str(out)]  # fmt: skip
    for spec in POLICIES:
        args += ["--policy", spec]
    done = _rsb(args, ROOT / "tests")
    lines = (out / "episodes.jsonl").read_text().splitlines()
    return done, [json.loads(line) for line in lines]


def test_each_escape_is_a_failure_of_its_episode_and_the_run_goes_on(escapes):
    done, records = escapes
    assert done.returncode == 0, done.stderr  # the policies' own faults: scored, no error
    # one record per episode and policy, in plan order: nothing duplicated by the fork,
    # nothing stopped by the interrupt or the exit
    assert [(r["index"], r["policy"]) for r in records] == [
        (i, p) for i in (0, 1) for p in POLICIES
    ]
    for r in records:
        name = r["policy"].rpartition(":")[2]
        if name in ERRORS:
            assert (r["termination"], r["error_kind"], r["steps"], r["grasped"]) == (
                "policy_fault",
                "policy",
                0,
                False,
            )
            assert r["error"] == f"PolicyError: policy {r['policy']}: {ERRORS[name]}"
        else:
            assert (r["termination"], r["steps"], r["error"]) == ("step_limit", 3, None)


def test_the_final_summary_names_each_escape(escapes):
    done, _ = escapes
    causes = [
        f"  {E}:{name} on RSB-Math-4 eval 0 and 1 more: PolicyError: policy {E}:{name}: {error}"
        for name, error in ERRORS.items()
    ]
    assert done.stderr.splitlines() == [
        "rsb eval: 8 episodes ended in the policy's own faults, scored as failures (the "
        "faults column):",
        *causes,
    ]


def test_the_cheat_finds_the_answer_in_process_and_nothing_in_a_policy_process(escapes):
    done, records = escapes
    cheats = [r for r in records if r["policy"].endswith(":cheat")]
    targets = [load_episode("RSB-Math-4", "eval", i).target for i in (0, 1)]
    # in process the garbage collector finds the episode; the frames do not, since a policy
    # runs on a thread of its own (rsb_mj.evaluation.lockstep), not under the rollout's frames;
    # in the sandbox rsb's process is not even in sight (a PID namespace of its own)
    child = "no rsb process in sight" if available() is None else "refused (PermissionError)"
    assert [(r["index"], r["policy"], r["privileged"], r["text"]) for r in cheats] == [
        (0, f"{E}:cheat", False, f"frames=None; gc=None; memory={child}"),
        (0, f"inprocess:{E}:cheat", True, f"frames=None; gc={targets[0]}; "
         f"memory={cheats[1]['text'].rpartition('memory=')[2]}"),
        (1, f"{E}:cheat", False, f"frames=None; gc=None; memory={child}"),
        (1, f"inprocess:{E}:cheat", True, f"frames=None; gc={targets[1]}; "
         f"memory={cheats[3]['text'].rpartition('memory=')[2]}"),
    ]  # fmt: skip
    # the in-process run is marked wherever it is shown, and never ranked unmarked
    rows = [re.split(r"\s{2,}", line)[0] for line in done.stdout.splitlines()[2:8]]
    assert rows == [*POLICIES[:5], f"inprocess:{E}:cheat (privileged)"]


POLICY_FILE = """
import numpy as np
from helper import hold  # a module next to this file


class Hold:
    cameras = ()

    def act(self, obs):
        return hold(obs)


def make():
    return Hold()
"""


def test_file_and_module_policies_run_from_their_own_folder(tmp_path):
    (tmp_path / "helper.py").write_text("import numpy as np\n\n\ndef hold(obs):\n"
                                        "    return np.asarray(obs['state'])\n")  # fmt: skip
    (tmp_path / "examples").mkdir()
    (tmp_path / "examples" / "my_policy.py").write_text(POLICY_FILE.replace("helper", "near"))
    (tmp_path / "examples" / "near.py").write_text((tmp_path / "helper.py").read_text())
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "__init__.py").write_text("")
    (tmp_path / "mine" / "policy.py").write_text(POLICY_FILE)
    specs = ["examples/my_policy.py:make", "mine.policy:make", "inprocess:mine.policy:make"]
    out = tmp_path / "run"
    args = ["eval", "--suite", "RSB-Math-4", "--episodes", "1", "--max-steps", "2",
            "--workers", "1", "--no-progress", "--out", str(out)]  # fmt: skip
    for spec in specs:
        args += ["--policy", spec]
    done = _rsb(args, tmp_path)
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in (out / "episodes.jsonl").read_text().splitlines()]
    assert [(r["policy"], r["termination"], r["steps"], r["privileged"]) for r in records] == [
        ("examples/my_policy.py:make", "step_limit", 2, False),
        ("mine.policy:make", "step_limit", 2, False),
        ("inprocess:mine.policy:make", "step_limit", 2, True),
    ]
    missing = _rsb([*args[:-6], "--policy", "examples/nothere.py:make"], tmp_path)
    assert missing.returncode == 2
    assert missing.stderr.strip().endswith(
        f"policy 'examples/nothere.py:make': examples/nothere.py: no such file (relative to "
        f"{tmp_path})"
    )
