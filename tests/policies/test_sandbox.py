"""The sandbox of policy processes (rsb_mj/policies/sandbox.py): the bwrap command it
builds, its settings' round trip, the warning of an unsandboxed ordinary run and the
refusal of an unsandboxed sealed one, and a real sandbox's view of the machine."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from rsb_mj.errors import PolicyError
from rsb_mj.policies import sandbox
from rsb_mj.policies.sandbox import Sandbox, available, check, command


def _after(args: list[str], flag: str) -> list[tuple[str, ...]]:
    """Every occurrence of ``flag`` with its operands (2 for binds, 1 for tmpfs)."""
    width = {"--tmpfs": 1, "--remount-ro": 1}.get(flag, 2)
    return [tuple(args[i + 1 : i + 1 + width]) for i, a in enumerate(args) if a == flag]


def test_the_command_hides_the_private_paths_inside_what_it_binds(tmp_path, monkeypatch):
    code, tables, out = tmp_path / "code", tmp_path / "tables", tmp_path / "run"
    for folder in (code, tables, out):
        folder.mkdir()
    secret = tmp_path / "secret.txt"
    secret.write_text("s")
    monkeypatch.chdir(code)
    settings = Sandbox(hide=(str(tables), str(out), str(secret), "/nowhere"),
                       binds=(str(tmp_path),))  # fmt: skip
    args = command(settings, ["python", "-c", "pass"], reads=[str(code)])
    assert args[:11] == [
        "bwrap", "--unshare-all", "--unshare-user", "--uid", "65534", "--gid", "65534",
        "--cap-drop", "ALL", "--die-with-parent", "--new-session",
    ]  # fmt: skip
    assert "--share-net" not in args and args[-4:] == ["--", "python", "-c", "pass"]
    assert (str(tmp_path), str(tmp_path)) in _after(args, "--ro-bind")
    # the binds come after the private /tmp (a folder in rsb's /tmp stays seen), the covers
    # after the binds (so they lie on top)
    tmp_at = args.index("/tmp", args.index("--tmpfs"))
    assert all(args.index(p) > tmp_at for p in (str(code), str(tmp_path)))
    assert _after(args, "--tmpfs")[1:] == [(str(tables),), (str(out),)]
    assert ("/dev/null", str(secret)) in _after(args, "--ro-bind")
    assert "/nowhere" not in args  # outside every bind: nothing to cover
    assert args.index(str(tables), tmp_at + 2) > args.index(str(tmp_path))
    # the environment: cleared, then rsb's but the settings (an ordinary run) or only the
    # documented variables (a sealed run)
    assert "--clearenv" in args and sandbox.ENV_VAR not in args
    sealed = command(Sandbox(sealed=True), ["true"], reads=[])
    assert _after(sealed, "--setenv") == list(sandbox.BASE_ENV.items())
    gpu = command(Sandbox(gpu=True, network=True), ["true"], reads=[])
    assert "--share-net" in gpu and ("/sys", "/sys") in _after(gpu, "--ro-bind")


def test_limits_and_settings_round_trip():
    settings = Sandbox(sealed=True, hide=("/a",), binds=("/b",), memory_bytes=1 << 30)
    assert Sandbox.from_json(settings.to_json()) == settings
    limits = settings.limits()
    assert limits["RLIMIT_AS"] == 1 << 30 and limits["RLIMIT_FSIZE"] == 1 << 30
    assert limits["RLIMIT_NPROC"] == sandbox.default_processes()  # as root: the policy is nobody
    # an ordinary run as root: the policy is root on the host, whose count is the machine's
    assert ("RLIMIT_NPROC" in Sandbox().limits()) == (os.geteuid() != 0)
    assert "RLIMIT_AS" not in Sandbox(gpu=True).limits()  # CUDA reserves address space


def test_without_a_sandbox_an_ordinary_run_warns_once_and_a_sealed_one_refuses(monkeypatch):
    monkeypatch.setattr(sandbox, "_warned", False)
    with pytest.warns(RuntimeWarning, match=r"runs without a sandbox: it is turned off"):
        assert check(Sandbox(enabled=False), "p.py:make") is False
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert check(Sandbox(enabled=False), "p.py:make") is False  # once
    with pytest.raises(PolicyError) as err:
        check(Sandbox(enabled=False, sealed=True), "p.py:make")
    assert str(err.value) == (
        "policy p.py:make: a sealed run runs policy code only in the sandbox, and it is turned "
        "off (--no-sandbox); install bubblewrap, or serve the policy from its own machine or "
        "container and evaluate it as a policy server (--policy openpi:HOST:PORT)"
    )


def test_a_missing_bwrap_is_named(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    available.cache_clear()
    try:
        assert available() == (
            "bubblewrap (bwrap) is not installed (Debian/Ubuntu: apt-get install bubblewrap)"
        )
    finally:
        available.cache_clear()


@pytest.mark.skipif(available() is not None, reason=f"no sandbox here: {available()}")
def test_inside_the_sandbox_no_capability_no_network_no_outside_process(tmp_path):
    probe = (
        "import os, socket\n"
        "caps = [l for l in open('/proc/self/status') if l.startswith('CapEff')][0].split()[1]\n"
        "pids = [p for p in os.listdir('/proc') if p.isdigit()]\n"
        "nets = sorted(os.listdir('/sys/class/net')) if os.path.isdir('/sys/class/net') "
        "else []\n"
        "try:\n"
        "    socket.create_connection(('1.1.1.1', 53), timeout=2); net = 'reached'\n"
        "except OSError as exc:\n"
        "    net = type(exc).__name__\n"
        "print(caps, len(pids) <= 3, net, os.path.exists(os.path.expanduser('~/.bashrc')))\n"
    )
    args = command(Sandbox(), [sys.executable, "-c", probe], reads=[])
    done = subprocess.run(args, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    caps, few, net, home = done.stdout.split()
    assert (caps, few, home) == ("0000000000000000", "True", "False")
    assert net in ("OSError", "TimeoutError")  # no route: a loopback of its own only


@pytest.mark.skipif(available() is not None, reason=f"no sandbox here: {available()}")
def test_an_ordinary_user_builds_the_sandbox_too():
    if os.geteuid() != 0:
        pytest.skip("not root: the tests above ran as an ordinary user")
    if shutil.which("setpriv") is None:
        pytest.skip("setpriv (util-linux) is not installed")
    # the sandbox's namespaces, limits and system folders (rsb's Python lies under /root)
    box = command(Sandbox(), ["/bin/sh", "-c", "id -u; ls /proc | grep -c '^[0-9]'"], reads=[])
    keep, i = [], 0
    while i < len(box):
        if box[i] == "--ro-bind" and not box[i + 1].startswith(("/usr", "/etc")):
            i += 3  # a folder of rsb's (its Python, the current folder): not nobody's
            continue
        keep.append("/" if box[i - 1 : i] == ["--chdir"] else box[i])
        i += 1
    args = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", *keep]
    done = subprocess.run(args, capture_output=True, text=True, timeout=60, check=False,
                          cwd="/")  # fmt: skip
    assert done.returncode == 0, done.stderr
    uid, processes = done.stdout.split()
    assert uid == "65534" and int(processes) <= 4  # bwrap, sh, ls, grep of its own


@pytest.mark.skipif(available() is not None, reason=f"no sandbox here: {available()}")
def test_as_root_a_sealed_policy_is_nobody_so_its_folder_must_be_readable(tmp_path):
    """Issue 45: as root a sealed run's policy turns into user nobody; the start-up check
    names a folder of its code that nobody cannot read, instead of every episode failing."""
    if os.geteuid() != 0:
        pytest.skip("not root: the policy is already an ordinary user's")
    code = tmp_path / "code"
    code.mkdir()
    code.chmod(0o700)
    assert sandbox.probe(Sandbox(sealed=True), [str(code)]) == (
        f"the policy runs as user nobody (rsb runs as root) and cannot read {code} (make it "
        "and the folders above it readable by others, e.g. chmod o+rX, or run rsb as an "
        "ordinary user)"
    )
    code.chmod(0o755)
    assert sandbox.probe(Sandbox(sealed=True), [str(code)]) is None
    assert Sandbox(sealed=True).isolation()["user"] == "nobody (65534) on the host"


#: What a sandboxed process prints of the checkpoint: its user, then the model file's bytes.
_READ_MODEL = (
    "import sys, json; sys.path[:] = json.loads(sys.argv[1]); "
    "from rsb_mj.policies.child_server import enter_sandbox; "
    "enter_sandbox(**json.loads(sys.argv[2])); import os; "
    "print(os.getuid(), open(sys.argv[3] + '/model.safetensors').read())"
)


@pytest.mark.skipif(available() is not None, reason=f"no sandbox here: {available()}")
def test_as_root_a_sealed_policy_reads_a_checkpoint_only_root_may_read(tmp_path):
    """Issue 45: lerobot-train writes ``model.safetensors`` with mode 0600, under pytest's
    (or any) 0700 folder, and names it through ``checkpoints/last``, a link to ``000002``. As
    root a sealed run's policy is user nobody; it reads the checkpoint under the name it was
    given (the link recreated in the sandbox) and a readable copy of each file only root may
    read (the operator's files unchanged, the copies removed with the run), with nothing of
    the folders around it in sight. It was a policy fault per episode: the name through the
    link did not exist in the sandbox, and the model file could not be opened."""
    if os.geteuid() != 0:
        pytest.skip("not root: the policy is already an ordinary user's")
    from rsb_mj.policies.child import spec_code, spec_named

    run = tmp_path / "run"  # a private folder (as pytest's own tmp folders are)
    run.mkdir()
    run.chmod(0o700)
    (run / "other_run").mkdir()
    (run / "other_run" / "episodes.jsonl").write_text("answers\n")
    real = run / "train" / "checkpoints" / "000002" / "pretrained_model"
    real.mkdir(parents=True)
    (real / "config.json").write_text("{}")
    model = real / "model.safetensors"
    model.write_text("weights")
    model.chmod(0o600)
    (real.parent.parent / "last").symlink_to("000002")
    given = run / "train" / "checkpoints" / "last" / "pretrained_model"
    reads, named = spec_code(f"lerobot:{given}"), spec_named(f"lerobot:{given}")
    with sandbox.staging(Sandbox(sealed=True)) as settings:
        stage = settings.stage
        assert os.listdir(stage) == [] and os.stat(stage).st_mode & 0o777 == 0o700
        assert sandbox.probe(settings, reads, named) is None
        (copy,) = os.listdir(stage)
        assert os.stat(os.path.join(stage, copy)).st_mode & 0o777 == 0o444
        path = [os.path.abspath(p) if p else os.getcwd() for p in sys.path]
        entry = {"limits": settings.limits(), "user": sandbox.NOBODY}
        argv = [sys.executable, "-c", _READ_MODEL, json.dumps(path), json.dumps(entry)]
        seen = {}
        for name in (given, real):
            started = sandbox.launch(settings, [*argv, str(name)], reads=reads, path=path,
                                     named=named)  # fmt: skip
            try:
                done = subprocess.run(started.argv, env=started.env, capture_output=True,
                                      pass_fds=(started.args_fd,), text=True, timeout=60,
                                      check=False)  # fmt: skip
            finally:
                started.close()
            assert done.returncode == 0, done.stderr
            seen[name] = done.stdout
        assert seen == {given: "65534 weights\n", real: "65534 weights\n"}
        args = command(settings, ["true"], reads=reads, named=named)
        assert ("000002", str(real.parent.parent / "last")) in _after(args, "--symlink")
        assert str(run / "other_run") not in args and str(run) not in _bound(args)
    assert not os.path.exists(stage)  # the copies end with the run
    assert model.stat().st_mode & 0o777 == 0o600 and model.read_text() == "weights"


def _bound(args: list[str]) -> list[str]:
    """The sources of the read-only binds of a bwrap command."""
    return [s for s, _ in _after(args, "--ro-bind")]


@pytest.mark.skipif(available() is not None, reason=f"no sandbox here: {available()}")
def test_the_start_up_check_names_what_the_policy_cannot_read_of_what_its_spec_names(tmp_path):
    """A folder inside a checkpoint that the policy's user cannot enter (as root: nobody; a
    mode 0700 folder) is named before the first episode, not met by the policy in each; a
    private folder beside a policy file is not the policy's business (nor copied for it)."""
    if os.geteuid() != 0:
        pytest.skip("not root: the policy is the user that owns its code")
    from rsb_mj.policies.child import spec_code, spec_named

    ckpt = tmp_path / "ckpt"
    (ckpt / "sub").mkdir(parents=True)
    (ckpt / "sub").chmod(0o700)
    spec = f"lerobot:{ckpt}"
    assert sandbox.probe(Sandbox(sealed=True), spec_code(spec), spec_named(spec)) == (
        f"the policy runs as user nobody (rsb runs as root) and cannot read {ckpt / 'sub'} "
        "(make it and the folders above it readable by others, e.g. chmod o+rX, or run rsb as "
        "an ordinary user)"
    )
    (ckpt / "sub").chmod(0o755)
    assert sandbox.probe(Sandbox(sealed=True), spec_code(spec), spec_named(spec)) is None
    code = tmp_path / "code"
    (code / "private").mkdir(parents=True)
    (code / "private" / "key").write_text("k")
    (code / "private" / "key").chmod(0o600)
    (code / "policy.py").write_text("")
    spec = f"{code / 'policy.py'}:make"
    assert spec_named(spec) == [str(code / "policy.py")]
    with sandbox.staging(Sandbox(sealed=True)) as settings:
        assert sandbox.probe(settings, spec_code(spec), spec_named(spec)) is None
        assert os.listdir(settings.stage) == []


def test_a_copy_that_fails_is_named_before_the_first_episode(tmp_path, monkeypatch):
    """A full disk (simulated: the copy raises ENOSPC) under a file only root may read: the
    start-up check names the file, the folder and the fixes; no half copy stays."""
    if os.geteuid() != 0:
        pytest.skip("not root: nothing is copied for an ordinary user's policy")
    if available() is not None:
        pytest.skip(f"no sandbox here: {available()}")
    import errno

    ckpt = tmp_path / "ckpt"
    ckpt.mkdir()
    (ckpt / "model.safetensors").write_text("weights")
    (ckpt / "model.safetensors").chmod(0o600)

    def full(src, dst):
        Path(dst).write_text("")  # the half-written copy a full disk leaves
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(sandbox.shutil, "copyfile", full)
    with sandbox.staging(Sandbox(sealed=True)) as settings:
        assert sandbox.probe(settings, [str(ckpt)], [str(ckpt)]) == (
            f"the policy runs as user nobody (rsb runs as root) and cannot read "
            f"{ckpt / 'model.safetensors'} (mode 0600); its copy for the sandbox in "
            f"{settings.stage} failed (No space left on device): free space there or point "
            "TMPDIR elsewhere, or make the file readable by others (chmod o+r)"
        )
        assert os.listdir(settings.stage) == []
