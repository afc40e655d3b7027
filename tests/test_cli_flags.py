"""One vocabulary of flags (issue 36): the table in docs/cli.md is what every subcommand's
parser accepts; old spellings parse but are hidden; a wrong flag shows its command's usage;
``rsb --version``."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import mujoco
import pytest

from rsb_mj.cli import build_parser, main, subcommand_parsers
from rsb_mj.cli._flags import VOCABULARY
from rsb_mj.version import rsb_mj_version

DOC = Path(__file__).resolve().parents[1] / "docs" / "cli.md"


def _doc_table() -> dict[tuple[str, ...], tuple[str, set[str]]]:
    """(flags) -> (meaning, commands) of the "One vocabulary of flags" table."""
    text = DOC.read_text().split("## One vocabulary of flags", 1)[1]
    rows = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[0].startswith("`-"):
            flags = tuple(re.findall(r"`(-[-\w]+)`", cells[0]))
            rows[flags] = (cells[1], {c.strip() for c in cells[2].split(",")})
    return rows


def _visible(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    """Option string -> action of the options ``--help`` shows."""
    return {
        flag: a for a in parser._actions if a.help != argparse.SUPPRESS for flag in a.option_strings
    }


def test_the_docs_table_is_the_vocabulary_every_parser_follows():
    table = _doc_table()
    assert {flags: meaning for flags, (meaning, _) in table.items()} == {
        (short, long): meaning for long, (short, meaning) in VOCABULARY.items()
    }
    parsers = {k: p for k, p in subcommand_parsers(build_parser()).items() if k}
    for (short, long), (_, commands) in table.items():
        having = {name for name, p in parsers.items() if {short, long} & set(_visible(p))}
        assert having == commands, (long, having ^ commands)
        for name in having:
            action = _visible(parsers[name])[long]
            assert sorted(action.option_strings) == sorted([short, long]), (name, long)
            assert action.help.split(" (default")[0], (name, long)
    # a short flag of the table means nothing else anywhere
    for name, p in parsers.items():
        for long, (short, _) in VOCABULARY.items():
            if short in _visible(p):
                assert long in _visible(p)[short].option_strings, (name, short)


@pytest.mark.parametrize(
    ("argv", "dest", "value"),
    [
        (["eval", "--policy", "expert", "--out", "x", "--workers", "3"], "jobs", 3),
        (["eval", "--policy", "expert", "-o", "x", "-j", "3"], "jobs", 3),
        (["eval", "--policy", "expert", "-o", "x", "-n", "4"], "episodes", 4),
        (["render", "RSB-Math-4", "--output", "a.png"], "output", Path("a.png")),
        (["render", "RSB-Math-4", "--out", "a.png"], "output", Path("a.png")),
        (["demos", "RSB-Math-4", "--episodes", "7", "--out", "d"], "n", 7),
        (["episodes", "build", "-j", "2"], "jobs", 2),
    ],
)
def test_old_and_shared_spellings_parse(argv, dest, value):
    assert getattr(build_parser().parse_args(argv), dest) == value


def test_old_spellings_are_hidden_from_help():
    text = subcommand_parsers(build_parser())["eval"].format_help()
    assert "--workers" not in text and "-j N, --jobs N" in text
    assert "--output" not in subcommand_parsers(build_parser())["render"].format_help()


def test_a_wrong_flag_shows_the_usage_of_its_command(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["episodes", "build", "--bogus"])
    err = capsys.readouterr().err
    assert exc.value.code == 2
    assert err.startswith("usage: rsb episodes build [-h]")
    assert err.endswith("rsb episodes build: error: unrecognized arguments: --bogus\n")


def test_episodes_0_names_the_one_bad_flag(capsys):
    with pytest.raises(SystemExit):
        main(["eval", "--suite", "RSB-Math-4", "--policy", "expert", "-o", "x", "--episodes", "0"])
    err = capsys.readouterr().err
    assert err.startswith("usage: rsb eval ")
    assert err.endswith("rsb eval: error: argument -n/--episodes: 0: must be at least 1\n")


def test_version(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.startswith(
        f"rsb_mj {rsb_mj_version()} (mujoco {mujoco.__version__}, Python 3."
    )


def test_the_docs_name_every_command_policy_form_and_eval_flag():
    from rsb_mj.cli import command_modules
    from rsb_mj.policies.spec import PREFIXES

    text = DOC.read_text()
    for module in command_modules():
        assert f"`rsb {module.replace('_', '-')}" in text, module
    for form in PREFIXES.values():
        assert f"`{form.usage}`" in text or f"`{form.usage.split(',')[0]}" in text, form.usage
    for flag in ("--batch", "--name", "--forget", "-j/--jobs"):
        assert flag in text, flag
