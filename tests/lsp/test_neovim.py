"""A real editor: headless Neovim (Debian's package) configured with the Lua block of
docs/editors.md opens a broken task file and reads back the diagnostics rsb lsp sends."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from rsb_mj.lang.linter import lint_source

from .conftest import ROOT, TASKS, server_env

NVIM = shutil.which("nvim")

#: Lua run after the task file is open: wait for diagnostics, write them as JSON, quit.
DUMP = """
function rsb_dump(out)
  local ok = vim.wait(60000, function() return #vim.diagnostic.get(0) > 0 end, 50)
  local found = {}
  for _, d in ipairs(vim.diagnostic.get(0)) do
    local lsp = (d.user_data or {}).lsp or {}
    table.insert(found, { lnum = d.lnum, col = d.col, end_lnum = d.end_lnum,
      end_col = d.end_col, severity = d.severity, message = d.message,
      source = d.source, code = d.code or lsp.code })
  end
  local file = io.open(out, "w")
  file:write(vim.fn.json_encode({ ok = ok, diagnostics = found }))
  file:close()
  vim.cmd("qa!")
end
"""


def editors_lua() -> str:
    """The Neovim configuration block of docs/editors.md."""
    text = (ROOT / "docs" / "editors.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```lua\n(.*?)```", text, re.S)
    assert len(blocks) == 1, "docs/editors.md has one Lua block"
    return blocks[0]


@pytest.mark.skipif(
    NVIM is None, reason="Neovim is not installed (apt-get install neovim; .ci/run does)"
)
def test_neovim_reads_the_diagnostics(tmp_path: Path) -> None:
    task = tmp_path / "broken.bddl"
    text = (TASKS / "rsb_math_4.bddl").read_text(encoding="utf-8").replace("(:goal", "(:goall")
    task.write_text(text, encoding="utf-8")
    init = tmp_path / "init.lua"
    init.write_text(editors_lua() + DUMP, encoding="utf-8")
    out = tmp_path / "diagnostics.json"
    env = server_env()
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env["XDG_STATE_HOME"] = env["XDG_DATA_HOME"] = str(tmp_path / "nvim")
    run = subprocess.run(
        [
            NVIM,
            "--headless",
            "-n",
            "-i",
            "NONE",
            "-u",
            str(init),
            str(task),
            "-c",
            f"lua rsb_dump('{out}')",
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    got = json.loads(out.read_text(encoding="utf-8"))
    assert got["ok"] is True
    expected = lint_source(text, task)[1]
    assert [d["code"] for d in got["diagnostics"]] == [d.code for d in expected]
    by_code = {d["code"]: d for d in got["diagnostics"]}
    block = by_code["RSB201"]
    assert (block["lnum"], block["col"], block["end_lnum"]) == (26, 2, 26)
    assert block["severity"] == 1  # vim.diagnostic.severity.ERROR
    assert block["source"] == "rsb"
    assert block["message"].startswith(
        "unknown-block: unknown block ':goall'; did you mean ':goal'?"
    )
