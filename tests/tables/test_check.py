"""rsb episodes check of the RSB tables: drifted rows, bad checksums, template lint findings."""

import json
import shutil

from rsb_mj.tables.check import check_tables
from rsb_mj.tables.files import episodes_dir


def test_check_names_the_drifted_row_and_the_bad_checksum(tmp_path):
    for name in ("RSB-Math-4.eval.jsonl", "manifest.json"):
        shutil.copy(episodes_dir() / name, tmp_path / name)
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    manifest["tables"] = {"RSB-Math-4.eval.jsonl": manifest["tables"]["RSB-Math-4.eval.jsonl"]}
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    assert check_tables(["RSB-Math-4"], tmp_path) == ["RSB-Math-4.train.jsonl: not in the manifest"]
    lines = (tmp_path / "RSB-Math-4.eval.jsonl").read_text().splitlines()
    row = json.loads(lines[6])
    row["layout"]["block_a"][0] += 0.01
    row["instruction"] = row["instruction"].replace("gray", "grey")
    lines[6] = json.dumps(row, ensure_ascii=False)
    (tmp_path / "RSB-Math-4.eval.jsonl").write_text("\n".join(lines) + "\n")
    problems = check_tables(["RSB-Math-4"], tmp_path)
    assert problems[1].startswith("RSB-Math-4.eval.jsonl: sha256 ")
    assert problems[2] == (
        "RSB-Math-4.eval.jsonl:7: RSB-Math-4 eval row 6 drifted in layout, instruction"
    )


def test_check_reports_template_lint_findings(monkeypatch, tmp_path):
    import rsb_mj.episodes.templates as templates
    import rsb_mj.tables.check as check

    for path in templates.templates_dir().glob("*.txt"):
        (tmp_path / path.name).write_text(path.read_text())
    with (tmp_path / "unseen_10.txt").open("a") as handle:
        handle.write("{Q} {OPTIONS} {ANSWER}\n")
    monkeypatch.setattr(templates, "templates_dir", lambda: tmp_path)
    monkeypatch.setattr(check, "templates_dir", lambda: tmp_path)

    (finding,) = check.lint_templates()
    assert finding.startswith(f"{tmp_path / 'unseen_10.txt'}:8:15: RSB431")
