"""Hover, completion, go to definition and formatting over stdio, on shipped task files.

Hover texts are checked against the registries they are read from (vocabulary, scoring
predicates, scene categories, question sources and parameters, the grammar file);
completions against the vocabulary's and the grammar's sets at each position; definitions
against the declarations' positions; formatting against ``rsb fmt``'s formatter.
"""

from __future__ import annotations

import inspect
import shutil
from pathlib import Path

import pytest
from lsprotocol import types

from rsb_mj.episodes.sources.params import MMLU_PRO_GROUPS, SOURCE_PARAMS
from rsb_mj.lang.a2a import A2A_SOURCES
from rsb_mj.lang.block_values import GENERIC_BLOCKS, KNOWN_BLOCKS, REGION_PROPERTIES, SOURCE_CHOICES
from rsb_mj.lang.categories import RSB_CATEGORIES
from rsb_mj.lang.formatter import format_text
from rsb_mj.lang.predicates import PREDICATES, RSB_PLACEMENT, RSB_SCOREABLE, predicates_of
from rsb_mj.resources import grammar_path
from rsb_mj.scoring.predicates import In

from .conftest import ROOT, TASKS, change_doc, open_doc, position_of, published

pytestmark = pytest.mark.asyncio(loop_scope="module")

MATH_4 = (TASKS / "rsb_math_4.bddl").read_text(encoding="utf-8")
CURSOR = "|"


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("lsp_features")
    (root / "math_4.bddl").write_text(MATH_4, encoding="utf-8")
    shutil.copy(TASKS / "examples" / "geography_6.bddl", root / "geography_6.bddl")
    shutil.copy(TASKS / "examples" / "geography.jsonl", root / "geography.jsonl")
    return root


_versions: dict[str, int] = {}


async def _edit(client, path: Path, text: str) -> str:
    """Open ``path`` with its file's text (it parses), then change it to ``text``."""
    uri = path.resolve().as_uri()
    if uri not in _versions:
        open_doc(client, path)
        await published(client, uri, 1)
        _versions[uri] = 1
    _versions[uri] += 1
    change_doc(client, uri, text, _versions[uri])
    await published(client, uri, _versions[uri])
    return uri


async def complete(client, folder: Path, old: str, new: str) -> list[str]:
    """Labels offered at ``|`` in ``new``, written over ``old`` in rsb_math_4.bddl."""
    assert old in MATH_4 and new.count(CURSOR) == 1
    edited = MATH_4.replace(old, new, 1)
    uri = await _edit(client, folder / "math_4.bddl", edited.replace(CURSOR, ""))
    found = await client.text_document_completion_async(
        types.CompletionParams(types.TextDocumentIdentifier(uri), position_of(edited, CURSOR))
    )
    return [item.label for item in found.items]


async def test_completion_of_block_keywords(client, folder):
    labels = await complete(client, folder, "  (:answer_zone", "  (|)\n  (:answer_zone")
    expected = {":" + b for b in KNOWN_BLOCKS | GENERIC_BLOCKS} | {":answer_zone"}
    assert sorted(labels) == sorted(expected)
    assert await complete(client, folder, "  (:answer_zone", "  (:o|)\n  (:answer_zone") == [
        ":obj_of_interest",
        ":objects",
        ":options",
    ]


async def test_completion_of_predicates_by_block(client, folder):
    init = await complete(client, folder, "    (On block_d", "    (|)\n    (On block_d")
    assert sorted(init) == sorted(["And", "Not", "Or", *RSB_PLACEMENT])
    goal = await complete(client, folder, "(Released ?answer)", "(Released ?answer) (|)")
    assert sorted(goal) == sorted(["And", "Not", "Or", *RSB_SCOREABLE])


async def test_completion_of_arguments_by_kind(client, folder):
    # (In object place): the first argument an object or a variable, the second a place
    first = await complete(client, folder, "(In ?answer table_answer_zone)", "(In |)")
    assert first == [
        "table",
        "block_a",
        "block_b",
        "block_c",
        "block_d",
        "?answer",
        "?c - candidate",
    ]
    second = await complete(
        client, folder, "(In ?answer table_answer_zone)", "(In ?answer table_|)"
    )
    assert second == ["table_candidates", "table_answer_zone"]
    zone = await complete(client, folder, "(:answer_zone table_answer_zone)", "(:answer_zone |)")
    assert zone == ["table_candidates", "table_answer_zone"]
    target = await complete(client, folder, "(:target table)", "(:target |)")
    assert target == ["table", "block_a", "block_b", "block_c", "block_d"]


async def test_completion_of_categories(client, folder):
    labels = await complete(client, folder, "- letter_block", "- |")
    assert labels == sorted(RSB_CATEGORIES)
    assert await complete(client, folder, "- letter_block", "- lett|") == ["letter_block"]


async def test_completion_of_sources_and_parameters(client, folder):
    props = await complete(client, folder, "(:question (:source", "(:question (|) (:source")
    assert props == [":choices", ":source"]
    sources = await complete(client, folder, "(:source arithmetic)", "(:source |)")
    assert sources == ["arithmetic", "gsm8k", "mmlu_pro", "mmlu", *A2A_SOURCES.values()]
    assert len(sources) == len(set(sources)) == len(SOURCE_CHOICES)
    params = await complete(client, folder, "(:source arithmetic)", "(:source (mmlu_pro (|)))")
    assert params == [f":{p.name}" for p in SOURCE_PARAMS["mmlu_pro"]]
    groups = await complete(
        client, folder, "(:source arithmetic)", "(:source (mmlu_pro (:group |)))"
    )
    assert groups == sorted(MMLU_PRO_GROUPS)
    inner = await complete(client, folder, "(:source arithmetic)", "(:source (|))")
    assert inner == [":file", "arithmetic", "gsm8k", "mmlu_pro", "mmlu", *A2A_SOURCES.values()]


async def test_completion_of_region_properties_and_nothing_in_comments(client, folder):
    props = await complete(
        client,
        folder,
        "(:target table)\n      (:ranges ((-0.25",
        "(:target table)\n      (|) (:ranges ((-0.25",
    )
    assert props == [f":{p}" for p in sorted(REGION_PROPERTIES)]
    assert await complete(client, folder, "; The robot", "; The (|robot") == []


async def hover(client, folder: Path, needle: str, at: int = 0, name: str = "math_4.bddl") -> str:
    path = folder / name
    uri = await _edit(client, path, path.read_text(encoding="utf-8"))
    text = path.read_text(encoding="utf-8")
    found = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), position_of(text, needle, at))
    )
    assert found is not None, needle
    return found.contents.value


async def test_hover_on_a_predicate_reads_the_vocabulary_and_the_scorer(client, folder):
    text = await hover(client, folder, "(In ?answer", 1)
    info = PREDICATES["in"]
    assert text.startswith("**(In object place)** predicate, arity 2\n\n" + info.doc)
    assert "Registries: libero, vla_arena, rsb" in text
    assert "**Scoring**: The object is inside the answer zone, resting." in text
    module = inspect.getmodule(In)
    assert inspect.cleandoc(module.__doc__).replace("``", "`") in text


async def test_hover_on_a_block_keyword_shows_its_grammar_rules(client, folder):
    text = await hover(client, folder, "(:question", 2)
    grammar = grammar_path().read_text(encoding="utf-8")
    for rule in ("question: ", "?question_prop: ", "source_param: ", "choices: "):
        line = next(ln for ln in grammar.splitlines() if ln.startswith(rule))
        assert line in text
    init = await hover(client, folder, "(:init", 2)
    assert init.endswith("Predicates placed by the rsb layout sampler here: On")


async def test_hover_on_a_category_reads_the_scene_registry(client, folder):
    text = await hover(client, folder, "letter_block", 2)
    info = RSB_CATEGORIES["letter_block"]
    assert (
        f'instructions call it "{info.noun}"; footprint radius {info.footprint_radius:g} m' in text
    )
    assert "shows an option letter" in text


async def test_hover_on_a_source_lists_its_parameters(client, folder):
    text = await hover(client, folder, "arithmetic)", 2)
    assert text.startswith("**arithmetic** question source\n\nGenerated arithmetic questions")
    for param in SOURCE_PARAMS["arithmetic"]:
        assert f"`:{param.name}`" in text and param.doc in text


async def test_hover_on_a_region_and_an_object(client, folder):
    text = await hover(client, folder, "(In ?answer table_answer_zone)", 14)
    assert text.startswith("**table_answer_zone** region `answer_zone`\nof `table`")
    assert "- x -0.06 .. 0.06, y 0.1 .. 0.22 m (table frame): 0.12 x 0.12 m" in text
    assert "The answer zone" in text
    block = await hover(client, folder, "(:candidates block_a", 14)
    assert block.startswith("**block_a** object - `letter_block`")


async def definition(client, folder: Path, needle: str, at: int, name: str = "math_4.bddl"):
    path = folder / name
    uri = await _edit(client, path, path.read_text(encoding="utf-8"))
    text = path.read_text(encoding="utf-8")
    return (
        await client.text_document_definition_async(
            types.DefinitionParams(types.TextDocumentIdentifier(uri), position_of(text, needle, at))
        ),
        uri,
        text,
    )


async def test_definition_of_objects_regions_and_files(client, folder):
    found, uri, text = await definition(client, folder, "(On block_c", 5)
    assert found.uri == uri
    assert found.range.start == position_of(text, "block_c block_d - letter_block")
    found, uri, text = await definition(client, folder, "(In ?answer table_answer_zone)", 20)
    assert found.range.start == position_of(text, "answer_zone\n")
    found, uri, text = await definition(client, folder, "(:target table)", 10)
    assert found.range.start == position_of(text, "table - table")
    found, uri, text = await definition(client, folder, '"geography.jsonl"', 3, "geography_6.bddl")
    assert found.uri == (folder / "geography.jsonl").resolve().as_uri()


async def test_formatting_is_rsb_fmt(client, folder):
    messy = MATH_4.replace("\n    (On", " (On").replace("(:domain rsb)", "(:domain   rsb)  ; mine")
    assert messy != MATH_4
    uri = await _edit(client, folder / "math_4.bddl", messy)
    edits = await client.text_document_formatting_async(
        types.DocumentFormattingParams(
            types.TextDocumentIdentifier(uri), types.FormattingOptions(2, True)
        )
    )
    (edit,) = edits
    assert edit.range.start == types.Position(0, 0)
    assert edit.range.end == position_of(messy + "|", "|")
    assert edit.new_text == format_text(messy, str(folder / "math_4.bddl"))
    assert "(:domain rsb)  ; mine" in edit.new_text
    broken = MATH_4.replace("(:init", "(:init (")
    uri = await _edit(client, folder / "math_4.bddl", broken)
    none = await client.text_document_formatting_async(
        types.DocumentFormattingParams(
            types.TextDocumentIdentifier(uri), types.FormattingOptions(2, True)
        )
    )
    assert none is None


async def test_completion_of_template_placeholders(client, folder):
    from rsb_mj.lang.templates import PLACEHOLDERS

    (folder / "templates").mkdir(exist_ok=True)
    path = folder / "templates" / "mine_4.txt"
    path.write_text("{Q} {MAPA}, {MAPB}, {MAPC}, {MAPD}. put it in the zone\n", encoding="utf-8")
    for typed, expected in (
        ("{", ["{" + p + "}" for p in PLACEHOLDERS[4]]),
        ("{MA", ["{MAPA}", "{MAPB}", "{MAPC}", "{MAPD}"]),
    ):
        text = path.read_text(encoding="utf-8") + "answer " + typed
        uri = await _edit(client, path, text)
        found = await client.text_document_completion_async(
            types.CompletionParams(
                types.TextDocumentIdentifier(uri), types.Position(1, len("answer " + typed))
            )
        )
        assert [i.label for i in found.items] == expected
        assert found.items[0].text_edit.range.start == types.Position(1, len("answer "))


async def test_completion_in_a_libero_file_offers_libero_and_vla_arena_predicates(client, folder):
    source = ROOT / "tests/data/bddl_suites/libero/libero_10"
    source = source / "KITCHEN_SCENE3_turn_on_the_stove_and_put_the_moka_pot_on_it.bddl"
    path = folder / "libero.bddl"
    shutil.copy(source, path)
    text = path.read_text(encoding="utf-8")
    edited = text.replace("(:init", "(:init\n    (|)", 1)
    uri = await _edit(client, path, edited.replace(CURSOR, ""))
    found = await client.text_document_completion_async(
        types.CompletionParams(types.TextDocumentIdentifier(uri), position_of(edited, CURSOR))
    )
    libero = predicates_of(("libero", "vla_arena"))
    assert sorted(i.label for i in found.items) == sorted(
        ["And", "Not", "Or", *(p.name for p in libero.values())]
    )


async def test_a_rsb_domain_file_without_a_question_is_a_question_task_to_the_server(
    client, folder
):
    # the family rule of rsb lint and the pipeline (rsb_mj.lang.task.task_family): rsb's
    # vocabulary is offered, and the missing :question is published as RSB401
    source = TASKS / "libero/libero_goal/push_the_plate_to_the_front_of_the_stove.bddl"
    text = source.read_text(encoding="utf-8").replace("(:domain robosuite)", "(:domain rsb)")
    path = folder / "rsb_goal.bddl"
    path.write_text(text, encoding="utf-8")
    uri = open_doc(client, path)
    messages = [(d.code, d.message) for d in await published(client, uri, 1)]
    assert ("RSB401", "missing-block: missing block ':question' for an rsb task") in messages
    edited = text.replace("(:init", "(:init\n    (|)", 1)
    change_doc(client, uri, edited.replace(CURSOR, ""), 2)
    await published(client, uri, 2)
    found = await client.text_document_completion_async(
        types.CompletionParams(types.TextDocumentIdentifier(uri), position_of(edited, CURSOR))
    )
    assert sorted(i.label for i in found.items) == sorted(["And", "Not", "Or", *RSB_PLACEMENT])
