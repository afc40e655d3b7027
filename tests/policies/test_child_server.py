"""The policy process's own end (rsb_mj.policies.child_server.main) when the policy's code
closes the process's socket to rsb: one line on stderr and exit status 1, not the
two-exception traceback it printed (issue 46 item 7)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

from rsb_mj.policies import frames
from rsb_mj.policies.child_server import PROTOCOL

ROOT = Path(__file__).resolve().parents[2]

CLOSER = '''
import os
import stat


class Closer:
    cameras = ()

    def act(self, obs):
        return obs["state"]


def make():
    """Closes every socket of its process (rsb's among them) while it is built."""
    for fd in os.listdir("/proc/self/fd"):
        try:
            if stat.S_ISSOCK(os.fstat(int(fd)).st_mode):
                os.close(int(fd))
        except OSError:
            pass
    return Closer()
'''


def test_a_policy_that_closes_its_socket_ends_its_process_with_one_line(tmp_path):
    (tmp_path / "closer.py").write_text(CLOSER)
    ours, theirs = socket.socketpair()
    escape_read, escape_write = os.pipe()
    boot = (
        "import sys; from rsb_mj.policies.child_server import main; "
        "main(int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), {})"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    argv = [sys.executable, "-c", boot, str(theirs.fileno()), str(escape_write), str(os.getpid())]
    proc = subprocess.Popen(argv, pass_fds=(theirs.fileno(), escape_write), env=env,
                            stderr=subprocess.PIPE, cwd=tmp_path)  # fmt: skip
    theirs.close()
    os.close(escape_write)
    try:
        frames.send(ours, {"type": "hello", "protocol": PROTOCOL,
                           "spec": f"{tmp_path / 'closer.py'}:make"})  # fmt: skip
        _, err = proc.communicate(timeout=120)
    finally:
        ours.close()
        os.close(escape_read)
    assert proc.returncode == 1
    assert err.decode() == (
        "rsb policy process: its socket to rsb failed (Bad file descriptor): the policy's code "
        "closed it; the episode is its failure\n"
    )
