"""Time the README's install on a given Python, in a fresh venv with that Python's own pip.

    python tools/install_check.py --python /root/.pyenv/versions/3.10.13/bin/python
    python tools/install_check.py --python python3.12 --dry-run --timeout 900

A fresh Python 3.10.13 venv brings pip 23.0.1, whose resolver backtracked for over 15
minutes on ``pip install -e .`` until pyproject.toml bounded etils, robosuite and mink
(see the comments there). The tool copies the checkout's tracked files to a temporary
folder (so the install writes nothing here), makes ``python -m venv``, runs ``pip install
-e .`` there (``--dry-run``: resolve only) and, after a real install, ``python -c "import
rsb_mj"``. It prints one line per step and the pip version, and exits 0 when everything
finished within ``--timeout`` seconds, 1 when a step failed or ran out of time, 2 for a
Python that cannot be run.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _copy_checkout(dest: Path) -> None:
    """The tracked files of the checkout (``git ls-files``), or the whole folder without
    ``.git`` when it is no git checkout."""
    try:
        names = subprocess.run(
            ["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True, timeout=60
        ).stdout.split(b"\0")
    except (OSError, subprocess.SubprocessError):
        shutil.copytree(REPO, dest, ignore=shutil.ignore_patterns(".git"), dirs_exist_ok=True)
        return
    for raw in filter(None, names):
        src = REPO / raw.decode()
        if src.is_file():
            (dest / raw.decode()).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / raw.decode())


def _step(label: str, cmd: list[str], cwd: Path, deadline: float) -> bool:
    """Run one step; print ``label: ok|failed|timed out (seconds)``."""
    start = time.monotonic()
    try:
        done = subprocess.run(
            cmd, cwd=cwd, capture_output=True, text=True, timeout=max(1.0, deadline - start)
        )
    except subprocess.TimeoutExpired:
        print(f"{label}: timed out after {time.monotonic() - start:.0f} s")
        return False
    took = time.monotonic() - start
    if done.returncode:
        print(f"{label}: failed (exit {done.returncode}, {took:.0f} s)")
        print(done.stderr[-2000:], file=sys.stderr)
        return False
    print(f"{label}: ok ({took:.0f} s)")
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--python", required=True, help="the Python to make the venv with")
    parser.add_argument("--dry-run", action="store_true", help="resolve only (pip --dry-run)")
    parser.add_argument("--timeout", type=float, default=1800.0, help="seconds for all steps")
    args = parser.parse_args(argv)
    try:
        version = subprocess.run(
            [args.python, "-c", "import sys; print(sys.version.split()[0])"],
            capture_output=True, text=True, check=True, timeout=60,
        ).stdout.strip()  # fmt: skip
    except (OSError, subprocess.SubprocessError) as exc:
        print(f"install_check: cannot run --python {args.python}: {exc}", file=sys.stderr)
        return 2
    deadline = time.monotonic() + args.timeout
    with tempfile.TemporaryDirectory(prefix="rsb-install-") as tmp:
        src, venv = Path(tmp) / "src", Path(tmp) / "venv"
        src.mkdir()
        _copy_checkout(src)
        if not _step(
            f"venv (Python {version})", [args.python, "-m", "venv", str(venv)], src, deadline
        ):
            return 1
        py = str(venv / "bin" / "python")
        pip = subprocess.run(
            [py, "-m", "pip", "--version"], capture_output=True, text=True, timeout=60
        ).stdout.split()[:2]
        install = [py, "-m", "pip", "install", "-q", "-e", "."]
        if args.dry_run:
            install.insert(4, "--dry-run")
        if not _step(f"{' '.join(pip)}: pip install -e .", install, src, deadline):
            return 1
        if not args.dry_run and not _step(
            "import rsb_mj", [py, "-c", "import rsb_mj"], Path(tmp), deadline
        ):
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
