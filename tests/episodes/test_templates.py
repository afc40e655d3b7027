"""Instruction templates: shipped files, placeholders, ids, rendering, the linter."""

import pytest

from rsb_mj.episodes.templates import (
    load_templates,
    option_list,
    parse_templates,
    render,
    template_by_id,
    templates_dir,
)
from rsb_mj.errors import EpisodeError


@pytest.mark.parametrize(("set_name", "minimum"), [("seen", 20), ("unseen", 5)])
@pytest.mark.parametrize("choices", [4, 10])
def test_shipped_sets_are_large_enough_and_distinct(set_name, minimum, choices):
    templates = load_templates(set_name, choices)
    assert len(templates) >= minimum
    assert len({t.text for t in templates}) == len(templates)
    assert templates[3].id == f"{set_name}-{choices}-03"


@pytest.mark.parametrize("choices", [4, 10])
def test_seen_and_unseen_sets_do_not_share_a_template(choices):
    seen = {t.text for t in load_templates("seen", choices)}
    assert not seen & {t.text for t in load_templates("unseen", choices)}


def test_shipped_files_pass_the_task_language_linter():
    from rsb_mj.lang import lint_template

    for path in sorted(templates_dir().glob("*_*.txt")):
        choices = int(path.stem.split("_")[1])
        assert lint_template(path.read_text(), str(path), choices) == [], path


@pytest.mark.parametrize(
    ("line", "choices", "message"),
    [
        ("{Q} {MAPA} {MAPB} {MAPC}. go", 4, r"t.txt:2:1: placeholder \{MAPD\} appears 0 times"),
        ("{Q} {OPTIONS} {ANSWER}", 10, r"t.txt:2:1: unknown placeholder \{ANSWER\}"),
        ("  {Q} {Q} {OPTIONS}", 10, r"t.txt:2:3: placeholder \{Q\} appears 2 times"),
        ("{Q} {OPTIONS} }", 10, r"t.txt:2:1: unbalanced brace"),
    ],
)
def test_invalid_templates_name_file_line_and_column(line, choices, message):
    with pytest.raises(EpisodeError, match=message):
        parse_templates(f"# comment\n{line}\n", "t.txt", "seen", choices)


def test_render_is_a_single_pass():
    (template,) = parse_templates("{Q} / {OPTIONS}\n", "t.txt", "seen", 10)
    text = render(template, {"Q": "is {OPTIONS} literal?", "OPTIONS": "(A) 1 (B) 2"})
    assert text == "is {OPTIONS} literal? / (A) 1 (B) 2"


def test_option_list_and_lookup_by_id():
    assert option_list(("4", "10", "11", "14")) == "(A) 4 (B) 10 (C) 11 (D) 14"
    assert template_by_id("unseen-10-04").line == 7
    with pytest.raises(EpisodeError, match="unknown template id 'seen-4-99'"):
        template_by_id("seen-4-99")
    with pytest.raises(EpisodeError, match="unknown template set 'held'; valid choices"):
        load_templates("held", 4)


def test_render_drops_a_period_after_a_value_that_ends_a_sentence():
    (template,) = parse_templates("{Q} options: {OPTIONS}. go\n", "t.txt", "seen", 10)
    assert render(template, {"Q": "q?", "OPTIONS": "(A) yes. (B) no."}) == (
        "q? options: (A) yes. (B) no. go"
    )
    assert render(template, {"Q": "q?", "OPTIONS": "(A) 1 (B) 2"}) == "q? options: (A) 1 (B) 2. go"
