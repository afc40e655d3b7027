"""Tests of rsb_mj.scene.assets: the opt-in loader of the user's LIBERO / VLA-Arena objects.

The asset folder here, ``tests/data/libero_assets``, is written by the project in LIBERO's
layout (never LIBERO's files): a basket with a mesh, and a microwave and a stove with the
two defects LIBERO's own files have (``inertiagrouprange="4 4"``, a texture declared twice).
Hostile copies of it (a FIFO, link loops, a 2 GiB sparse file, includes, a DTD, files outside
the folder) are refused by name, and ``rsb eval`` / ``rsb demos`` refuse them before the
first episode (exit 2, one line).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import mujoco
import numpy as np
import pytest

from rsb_mj.cli import main
from rsb_mj.errors import SceneError
from rsb_mj.lang.parser import parse_file
from rsb_mj.lang.task import task_of
from rsb_mj.scene import aloha
from rsb_mj.scene.assets import (
    ASSETS_ENV,
    STANDINS_SOURCE,
    OriginalCategory,
    find_object_xml,
    resolve_object_source,
)
from rsb_mj.scene.categories.parts import StandinCategory
from rsb_mj.scene.compiler import compile_scene

DATA = Path(__file__).resolve().parents[1] / "data"
ASSETS = DATA / "libero_assets"
BASKET_TASK = (
    DATA
    / "bddl_suites/libero/libero_90"
    / "LIVING_ROOM_SCENE2_pick_up_the_butter_and_put_it_in_the_basket.bddl"
)


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_the_source_is_the_flag_then_the_variable_then_a_package_then_the_standins(
    monkeypatch, tmp_path
):
    monkeypatch.delenv(ASSETS_ENV, raising=False)
    assert resolve_object_source(None) is STANDINS_SOURCE
    assert STANDINS_SOURCE.label == "standins" and STANDINS_SOURCE.fingerprint == ""
    monkeypatch.setenv(ASSETS_ENV, str(ASSETS))
    env = resolve_object_source(None)
    assert (env.root, env.origin) == (ASSETS.resolve(), ASSETS_ENV)
    flag = resolve_object_source(ASSETS / "articulated_objects" / "..")
    assert (flag.root, flag.origin) == (ASSETS.resolve(), "--assets")
    # An installed package's assets/ (found without importing it).
    monkeypatch.delenv(ASSETS_ENV)
    package = tmp_path / "site" / "libero" / "libero"
    (package / "assets" / "articulated_objects").mkdir(parents=True)
    (package.parent / "__init__.py").write_text("raise RuntimeError('imported')\n")
    (package / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    found = resolve_object_source(None)
    assert (found.root, found.origin) == ((package / "assets").resolve(), "package:libero")


def test_a_folder_that_is_not_an_asset_folder_is_refused(tmp_path, monkeypatch):
    with pytest.raises(SceneError, match=r"^--assets: .*/nowhere is not a folder"):
        resolve_object_source(tmp_path / "nowhere")
    monkeypatch.setenv(ASSETS_ENV, str(tmp_path))
    with pytest.raises(
        SceneError,
        match=r"^RSB_MJ_ASSETS: .* holds no LIBERO / VLA-Arena objects; expected one of the "
        r"sub-folders articulated_objects, stable_scanned_objects, stable_hope_objects, "
        r"turbosquid_objects \(LIBERO: libero/libero/assets",
    ):
        resolve_object_source(None)


def test_objects_are_found_in_libero_layout():
    assert find_object_xml(ASSETS, "basket") == ASSETS / "stable_scanned_objects/basket/basket.xml"
    assert find_object_xml(ASSETS, "microwave") == ASSETS / "articulated_objects/microwave.xml"
    assert find_object_xml(ASSETS, "tomato") is None


def test_the_originals_need_the_fixups_and_get_them():
    with pytest.raises(ValueError, match="mass and inertia of moving bodies"):
        mujoco.MjSpec.from_file(str(ASSETS / "articulated_objects/microwave.xml")).compile()
    with pytest.raises(ValueError, match="repeated name 'tex-stove_knob' in texture"):
        mujoco.MjSpec.from_file(str(ASSETS / "articulated_objects/flat_stove.xml"))
    source = resolve_object_source(ASSETS)
    microwave, stove = source.category("microwave"), source.category("flat_stove")
    assert isinstance(microwave, OriginalCategory) and microwave.fixture
    assert isinstance(stove, OriginalCategory) and stove.fixture
    assert [(r.name, r.center, r.half_size) for r in stove.regions] == [
        ("cook_region", (0.0, 0.0, 0.04), (0.075, 0.075, 0.0025))
    ]
    assert {r.name for r in microwave.regions} == {"top_side", "heating_region"}
    assert microwave.half_extents == (0.15, 0.105, 0.18)


def test_an_original_builds_into_the_aloha_scene_with_its_region_sites():
    before = _tree(ASSETS)
    source = resolve_object_source(ASSETS)
    basket = source.category("basket")
    assert isinstance(basket, OriginalCategory) and not basket.fixture
    assert basket.rest_height == 0.0 and basket.half_extents == (0.08, 0.06, 0.08)
    assert isinstance(source.category("tomato"), StandinCategory)  # not in the folder
    spec = aloha.aloha_spec("fast")
    body = spec.worldbody.add_body(name="basket_1", pos=[0.0, 0.1, 0.75 + basket.rest_height])
    body.add_freejoint()
    built = basket.build(spec, body, "basket_1")
    model = spec.compile()
    assert built.sites == ("basket_1_contain_region",)
    site = model.site("basket_1_contain_region")
    assert site.bodyid[0] == model.body("basket_1").id
    assert np.allclose(model.site_size[site.id], (0.07, 0.05, 0.04))
    assert model.body("basket_1/object").parentid[0] != 0  # attached under the object's body
    assert model.mesh("basket_1/basket_floor").id >= 0
    assert _tree(ASSETS) == before  # nothing written into the user's folder


def test_the_fingerprint_covers_every_file_used_and_changes_with_their_bytes(tmp_path):
    one = resolve_object_source(ASSETS)
    assert one.label == "assets:" + "e3b0c44298fc1c14"  # nothing built yet: sha256("")
    one.category("basket")
    two = resolve_object_source(ASSETS)
    two.category("basket")
    assert one.label == two.label != "assets:e3b0c44298fc1c14"
    assert one.label == f"assets:{one.fingerprint[:16]}" and len(one.fingerprint) == 64
    copy = tmp_path / "assets"
    shutil.copytree(ASSETS, copy)
    same = resolve_object_source(copy)
    same.category("basket")
    assert same.fingerprint == one.fingerprint  # relative paths and bytes, not the location
    mesh = copy / "stable_scanned_objects/basket/box.obj"
    mesh.write_text(mesh.read_text().replace("v 0.5 0.5 0.5", "v 0.5 0.5 0.6"))
    changed = resolve_object_source(copy)
    changed.category("basket")
    assert changed.fingerprint != one.fingerprint


def test_a_goal_scene_takes_its_objects_from_the_source():
    task = task_of(parse_file(BASKET_TASK), expect="goal")
    source = resolve_object_source(ASSETS)
    scene = compile_scene(task, objects=source).layout
    assert scene.sources["basket_1"] == source.label
    assert scene.sources["butter_1"] == "standins"
    assert scene.model.site("basket_1_contain_region").id >= 0
    data = mujoco.MjData(scene.model)
    scene.reset(data, 0)
    assert scene.check(data) is None
    shipped = compile_scene(task).layout
    assert shipped.sources["basket_1"] == "standins"


# ---- hostile asset folders: refused by name before the first episode (issue 46, items 3-4) --

BASKET = "stable_scanned_objects/basket"


def _fifo(folder: Path) -> None:
    (folder / BASKET / "basket.xml").unlink()
    os.mkfifo(folder / BASKET / "basket.xml")  # opening it would block until a writer came


def _category_loop(folder: Path) -> None:
    shutil.rmtree(folder / BASKET)
    (folder / BASKET).symlink_to("basket")


def _huge(folder: Path) -> None:
    with open(folder / BASKET / "basket.xml", "r+b") as fh:
        fh.truncate(2 * 2**30)  # sparse: 2 GiB on paper, nothing on disk


def _mesh_loop(folder: Path) -> None:
    (folder / BASKET / "box.obj").unlink()
    (folder / BASKET / "box.obj").symlink_to("box.obj")


def _edit(old: str, new: str):
    def edit(folder: Path) -> None:
        xml = folder / BASKET / "basket.xml"
        text = xml.read_text()
        assert old in text
        xml.write_text(text.replace(old, new, 1))

    return edit


def _mesh_fifo(folder: Path) -> None:
    (folder / BASKET / "box.obj").unlink()
    os.mkfifo(folder / BASKET / "box.obj")


def _no_body(folder: Path) -> None:
    xml = folder / BASKET / "basket.xml"
    head = xml.read_text().partition("<worldbody>")[0]
    xml.write_text(head + '<worldbody><site name="s" size="0.01"/></worldbody></mujoco>\n')


def _text_obj(folder: Path) -> None:
    (folder / BASKET / "box.obj").write_text("this is not a mesh\n")


_CHECKER = 'builtin="checker" width="8" height="8" rgb1="0.6 0.4 0.2" rgb2="0.5 0.3 0.1"'
_LAUGHS = (
    '<!DOCTYPE m [<!ENTITY a "aaaaaaaaaa">'
    + "".join(f'<!ENTITY {chr(98 + i)} "{("&" + chr(97 + i) + ";") * 10}">' for i in range(9))
    + ']><mujoco model="&j;">'
)
_FIX = "make it a regular file of at most {} bytes"
HOSTILE = {
    "fifo": (
        _fifo,
        "{A}/basket.xml: an object's MJCF is a FIFO, not a regular file; "
        + _FIX.format(16777216)
        + ", or remove it to use the stand-in",
    ),
    "category-loop": (
        _category_loop,
        "{A}/basket.xml: cannot be read (Too many levels of symbolic links); "
        + _FIX.format(16777216)
        + ", or remove it to use the stand-in",
    ),
    "huge": (
        _huge,
        "{A}/basket.xml: an object's MJCF of 2147483648 bytes is over the limit of 16777216 "
        "bytes (not read); LIBERO's and VLA-Arena's are far smaller",
    ),
    "mesh-loop": (
        _mesh_loop,
        "{A}/box.obj: cannot be read (Too many levels of symbolic links); "
        + _FIX.format(536870912),
    ),
    "texture-outside": (
        _edit(_CHECKER, 'file="/etc/hostname"'),
        "{A}/basket.xml: texture file '/etc/hostname' is /etc/hostname, outside the asset "
        "folder {F}; copy it into the folder and name it relative to the object's MJCF",
    ),
    "include-passwd": (
        _edit("<worldbody>", '<include file="/etc/passwd"/><worldbody>'),
        "{A}/basket.xml: <include file='/etc/passwd'/>: an object's MJCF is read as one "
        "file; copy the included elements into it",
    ),
    "include-itself": (
        _edit("<worldbody>", '<include file="basket.xml"/><worldbody>'),
        "{A}/basket.xml: <include file='basket.xml'/>: an object's MJCF is read as one "
        "file; copy the included elements into it",
    ),
    "billion-laughs": (
        _edit('<mujoco model="basket">', _LAUGHS),
        "{A}/basket.xml: a DTD (<!DOCTYPE ...>) in an object's MJCF is not read (entities "
        "can expand without bound); remove it",
    ),
    "text-obj": (
        _text_obj,
        "{A}/basket.xml: MuJoCo cannot build this object: Error: at least 4 vertices "
        "required; Element name 'basket_floor', id 0, line 4",
    ),
    "mesh-fifo": (
        _mesh_fifo,
        "{A}/box.obj: its mesh file is a FIFO, not a regular file; " + _FIX.format(536870912),
    ),
    "no-body": (
        _no_body,
        "{A}/basket.xml: the MJCF has no body; an object is a <body> in <worldbody>",
    ),
    "meshdir-etc": (
        _edit('meshdir="."', 'meshdir="/etc"'),
        "{A}/basket.xml: mesh file 'box.obj' is /etc/box.obj, outside the asset folder {F}; "
        "copy it into the folder and name it relative to the object's MJCF",
    ),
}


def _hostile(tmp_path: Path, case: str) -> tuple[Path, str]:
    folder = tmp_path / "assets"
    shutil.copytree(ASSETS, folder)
    make, message = HOSTILE[case]
    make(folder)
    return folder, message.format(A=folder / BASKET, F=folder)


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_a_hostile_asset_folder_is_a_scene_error_naming_the_file(tmp_path, case):
    folder, message = _hostile(tmp_path, case)
    source = resolve_object_source(folder)
    with pytest.raises(SceneError) as raised:
        source.category("basket")
    assert str(raised.value) == message
    assert source.label == "assets:e3b0c44298fc1c14"  # nothing built, nothing claimed


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_eval_refuses_a_hostile_asset_folder_before_the_first_episode(tmp_path, capsys, case):
    folder, message = _hostile(tmp_path, case)
    out = tmp_path / "run"
    argv = ["eval", str(BASKET_TASK), "--policy", "noop", "-n", "2", "--max-steps", "3",
            "--assets", str(folder), "--out", str(out), "--no-progress"]  # fmt: skip
    assert main(argv) == 2
    assert capsys.readouterr().err == f"rsb eval: error: {message}\n"
    assert not out.exists()  # no episode, no error record


def test_demos_refuses_a_hostile_asset_folder_before_the_first_episode(tmp_path, capsys):
    folder, message = _hostile(tmp_path, "fifo")
    out = tmp_path / "demos"
    argv = ["demos", str(BASKET_TASK), "-n", "1", "--assets", str(folder), "--out", str(out),
            "--no-progress"]  # fmt: skip
    assert main(argv) == 2
    assert capsys.readouterr().err == f"rsb demos: error: {message}\n"
    assert not out.exists()


def test_a_symlinked_category_folder_inside_or_outside_the_folder_still_builds(tmp_path):
    elsewhere = tmp_path / "disk" / "basket"
    shutil.copytree(ASSETS / BASKET, elsewhere)
    folder = tmp_path / "assets"
    shutil.copytree(ASSETS, folder)
    shutil.rmtree(folder / BASKET)
    (folder / BASKET).symlink_to(elsewhere)  # a user's objects on another disk
    source = resolve_object_source(folder)
    assert isinstance(source.category("basket"), OriginalCategory)
    plain = resolve_object_source(ASSETS)
    plain.category("basket")
    assert source.fingerprint == plain.fingerprint  # relative paths and bytes
