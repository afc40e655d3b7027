"""Object sources: the shipped stand-ins, or the user's own LIBERO / VLA-Arena asset folder.

rsb_mj ships stand-ins (:mod:`rsb_mj.scene.categories.standins`) for every object and fixture
LIBERO's and VLA-Arena's table-top task files use; their original meshes cannot ship (HOPE,
TurboSquid and unattributed licences). A user who has the originals may opt in:

* ``--assets DIR`` (``rsb eval``, ``rsb demos``), else the environment variable
  :data:`ASSETS_ENV` (``RSB_MJ_ASSETS``), else the ``assets/`` folder of an installed
  ``libero`` or ``vla_arena`` package; with none of them, the stand-ins.
* DIR is LIBERO's ``libero/libero/assets`` or VLA-Arena's ``vla_arena/vla_arena/assets``:
  an object ``C`` is ``articulated_objects/C.xml`` or ``<family>/C/C.xml``
  (``stable_scanned_objects``, ``stable_hope_objects``, ``turbosquid_objects``).
  A category the folder lacks keeps its stand-in.

:class:`OriginalCategory` builds an original MJCF object into the scene's MjSpec (attached
under the object's body, names prefixed ``{obj}/``), with the fix-ups robosuite's merge makes:
``inertiagrouprange`` set to ``0 5`` (LIBERO's microwave declares ``4 4``: a massless door)
and a texture declared twice dropped (``flat_stove``); file paths are made absolute so nothing
is written into the user's folder. Region sites of the original (``contain_region``,
``top_side``, ...) are added as ``{obj}_{region}`` like the stand-ins'. Each file is read once
per process (cached by path and content hash).

What the folder holds is checked before it is used, and each refusal is a
:class:`~rsb_mj.errors.SceneError` naming the file: an object's MJCF that is not a regular
file (a FIFO, a folder) or cannot be reached (a symbolic-link loop, a broken link), one over
:data:`MAX_OBJECT_XML_BYTES` (refused by its size, unread), one with a DTD or an
``<include>``; a file it names (mesh, texture) outside the asset folder, missing, not a
regular file or over :data:`MAX_OBJECT_FILE_BYTES`; and an object MuJoCo cannot build (a
text ``.obj``, ...). :func:`check_objects` builds the originals a run's goal tasks use, so
that a run refuses such a folder before its first episode: every way of running goal tasks
calls it while it plans (``rsb eval``, :func:`rsb_mj.evaluate` and
:func:`~rsb_mj.evaluation.runner.run_eval` through the evaluation stage's run planning,
``rsb demos``, and the vla-eval benchmark's constructor).

Records name the source of their objects (:attr:`ObjectSource.label`: ``standins`` or
``assets:<fingerprint>``, the sha256 over every file the run's originals used), so that runs
on different objects are never pooled.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import stat
import xml.etree.ElementTree as ET
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

import mujoco
import numpy as np

from rsb_mj.errors import SceneError
from rsb_mj.file_kind import file_kind
from rsb_mj.scene.categories import CATEGORIES, get_category
from rsb_mj.scene.categories.base import (
    BuiltObject,
    Category,
    RegionSpec,
    add_region_site,
    bounding_half_extents,
)

if TYPE_CHECKING:
    from rsb_mj.lang.task import Task

__all__ = [
    "ASSETS_ENV",
    "FAMILIES",
    "MAX_OBJECT_FILE_BYTES",
    "MAX_OBJECT_XML_BYTES",
    "STANDINS_SOURCE",
    "ObjectSource",
    "OriginalCategory",
    "check_objects",
    "find_object_xml",
    "resolve_object_source",
]

#: Environment variable naming the user's LIBERO / VLA-Arena asset folder.
ASSETS_ENV = "RSB_MJ_ASSETS"
#: Sub-folders of an asset folder that hold one object per folder ``<family>/C/C.xml``.
FAMILIES = ("stable_scanned_objects", "stable_hope_objects", "turbosquid_objects")
#: Sites every LIBERO object carries that are not task regions.
_NOT_REGIONS = ("bottom_site", "top_site", "horizontal_radius_site")
#: The largest object MJCF read [bytes]: LIBERO's and VLA-Arena's are a few KiB; a larger
#: file is refused by its size, unread.
MAX_OBJECT_XML_BYTES = 16 * 2**20
#: The largest file an object's MJCF may name (a mesh, a texture) [bytes].
MAX_OBJECT_FILE_BYTES = 512 * 2**20
#: Elements whose ``file`` attribute names a file (made absolute).
_FILE_TAGS = {"mesh": "meshdir", "texture": "texturedir", "hfield": "meshdir", "skin": "meshdir"}


@dataclass(frozen=True)
class ObjectSource:
    """Where a run's objects come from.

    Attributes:
        root: the asset folder, or None for the shipped stand-ins.
        origin: how it was chosen: ``"--assets"``, the environment variable's name,
            ``"package:libero"`` / ``"package:vla_arena"``, or ``"standins"``.
    """

    root: Path | None = None
    origin: str = "standins"
    _used: dict[str, str] = field(default_factory=dict, compare=False, repr=False)

    @property
    def label(self) -> str:
        """``standins``, or ``assets:<first 16 hex digits of the fingerprint>``."""
        if self.root is None:
            return "standins"
        return f"assets:{self.fingerprint[:16]}"

    @property
    def fingerprint(self) -> str:
        """sha256 (hex) over the files of every original built so far (their paths
        relative to the root and their bytes); "" for the stand-ins."""
        if self.root is None:
            return ""
        digest = hashlib.sha256()
        for rel, sha in sorted(self._used.items()):
            digest.update(f"{rel}\0{sha}\n".encode())
        return digest.hexdigest()

    def category(self, name: str) -> Category:
        """The category ``name`` from this source for a goal scene: the original where the
        folder has it, else the stand-in (or rsb model; ``milk`` is the goal stand-in)."""
        if self.root is not None:
            xml = find_object_xml(self.root, name)
            if xml is not None:
                original = OriginalCategory(
                    name, xml, fixture=_is_fixture(name, xml), root=self.root
                )
                for path in original.files:
                    self._used[path.relative_to(self.root).as_posix()] = _sha256(path)
                return original
        return get_category(name, goal=True)

    def check(self, categories: Iterable[str]) -> None:
        """Build the original of every category in ``categories`` the folder has (each is
        read once per process), so that a folder a run cannot use stops it before its first
        episode; nothing for the stand-ins.

        Raises:
            SceneError: naming the file of the first object that cannot be read or built.
        """
        if self.root is None:
            return
        for name in dict.fromkeys(categories):
            if find_object_xml(self.root, name) is not None:
                self.category(name)


#: The shipped stand-ins.
STANDINS_SOURCE = ObjectSource()


def resolve_object_source(assets: str | Path | None = None) -> ObjectSource:
    """The object source of a run: ``assets`` (``--assets``), else ``$RSB_MJ_ASSETS``, else an
    installed ``libero`` / ``vla_arena`` package's ``assets/``, else the stand-ins.

    Raises:
        SceneError: for a folder that does not exist or holds no LIBERO / VLA-Arena objects
            (naming where it came from and the sub-folders looked for).
    """
    if assets is not None and str(assets) != "":
        return _checked(Path(assets), "--assets")
    env = os.environ.get(ASSETS_ENV, "")
    if env:
        return _checked(Path(env), ASSETS_ENV)
    for package in ("libero", "vla_arena"):
        root = _package_assets(package)
        if root is not None:
            return ObjectSource(root.resolve(), f"package:{package}")
    return STANDINS_SOURCE


def check_objects(assets: str | Path | None, tasks: Iterable[Task]) -> ObjectSource:
    """The object source of a run of the goal tasks ``tasks`` (:func:`resolve_object_source`
    of ``assets``), once the original of every object and fixture category they use that
    its folder has is built (:meth:`ObjectSource.check`): the one check, before the first
    episode, of a folder every episode would fail on.

    Raises:
        SceneError: for a folder that is not an asset folder, or naming the file of the
            first original that cannot be read or built (one line, with the fix).
    """
    objects = resolve_object_source(assets)
    objects.check(c for task in tasks for c in (*task.objects.values(), *task.fixtures.values()))
    return objects


def _checked(root: Path, origin: str) -> ObjectSource:
    if not root.is_dir():
        raise SceneError(f"{origin}: {root} is not a folder (a LIBERO / VLA-Arena assets/ folder)")
    if not any((root / sub).is_dir() for sub in ("articulated_objects", *FAMILIES)):
        raise SceneError(
            f"{origin}: {root} holds no LIBERO / VLA-Arena objects; expected one of the "
            f"sub-folders articulated_objects, {', '.join(FAMILIES)} "
            "(LIBERO: libero/libero/assets, VLA-Arena: vla_arena/vla_arena/assets)"
        )
    return ObjectSource(root.resolve(), origin)


def _package_assets(package: str) -> Path | None:
    """The ``assets/`` folder of an installed package (not imported), or None."""
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    for location in spec.submodule_search_locations or ():
        for candidate in (Path(location) / "assets", Path(location) / package / "assets"):
            if candidate.is_dir():
                return candidate
    return None


def find_object_xml(root: Path, category: str) -> Path | None:
    """The original MJCF of ``category`` in asset folder ``root``, or None.

    Raises:
        SceneError: for a candidate that is there but is not a regular file (a FIFO, a
            folder), cannot be reached (a symbolic-link loop of the file or of its category
            folder, a broken link), or is over :data:`MAX_OBJECT_XML_BYTES`: never a silent
            fallback to the stand-in.
    """
    candidates = [root / "articulated_objects" / f"{category}.xml"]
    candidates += [root / family / category / f"{category}.xml" for family in FAMILIES]
    for path in candidates:
        if _regular_file(path, MAX_OBJECT_XML_BYTES, "an object's MJCF"):
            return path
    return None


def _regular_file(path: Path, limit: int, what: str) -> bool:
    """True when ``path`` is a regular file of at most ``limit`` bytes, False when there is
    nothing at ``path`` (not even a link).

    Raises:
        SceneError: for anything else at ``path``, naming it and the fix.
    """
    fix = f"make it a regular file of at most {limit} bytes"
    fix += ", or remove it to use the stand-in" if limit == MAX_OBJECT_XML_BYTES else ""
    try:
        info = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        if not os.path.lexists(path):
            return False
        raise SceneError(f"{path}: a broken symbolic link; {fix}") from None
    except OSError as exc:  # ELOOP: a link loop, of the file or a folder above it
        raise SceneError(f"{path}: cannot be read ({exc.strerror or exc}); {fix}") from None
    if not stat.S_ISREG(info.st_mode):
        raise SceneError(f"{path}: {what} is {file_kind(info.st_mode)}, not a regular file; {fix}")
    if info.st_size > limit:
        raise SceneError(
            f"{path}: {what} of {info.st_size} bytes is over the limit of {limit} bytes "
            "(not read); LIBERO's and VLA-Arena's are far smaller"
        )
    return True


def _is_fixture(name: str, xml: Path) -> bool:
    known = CATEGORIES.get(name)
    if known is not None:
        return known.fixture
    return xml.parent.name == "articulated_objects"


def _sha256(path: Path) -> str:
    """sha256 (hex) of the file's bytes, read in chunks."""
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as fh:
            while chunk := fh.read(2**20):
                digest.update(chunk)
    except OSError as exc:
        raise SceneError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    return digest.hexdigest()


def _one_line(text: str) -> str:
    """MuJoCo's multi-line message on one line."""
    return "; ".join(line.strip() for line in str(text).splitlines() if line.strip())


@dataclass(frozen=True)
class _Original:
    """An original object read, fixed up and measured once."""

    xml: str
    files: tuple[Path, ...]
    regions: tuple[RegionSpec, ...]
    rest_height: float
    half_extents: tuple[float, float, float]


def _fixed_xml(path: Path, folder: Path) -> tuple[str, tuple[Path, ...]]:
    """The MJCF text with absolute file paths and the fix-ups; the files it names (each a
    regular file inside the asset folder ``folder``).

    Raises:
        SceneError: naming ``path`` (and the file it names) for what it cannot use.
    """
    _regular_file(path, MAX_OBJECT_XML_BYTES, "an object's MJCF")
    try:
        raw = path.read_bytes()
        if b"<!DOCTYPE" in raw or b"<!doctype" in raw:
            raise SceneError(
                f"{path}: a DTD (<!DOCTYPE ...>) in an object's MJCF is not read (entities "
                "can expand without bound); remove it"
            )
        root = ET.fromstring(raw)
    except (ET.ParseError, OSError) as exc:
        raise SceneError(f"{path}: cannot read this MJCF file: {exc}") from None
    include = next(root.iter("include"), None)
    if include is not None:
        raise SceneError(
            f"{path}: <include file={include.get('file', '')!r}/>: an object's MJCF is read "
            "as one file; copy the included elements into it"
        )
    compiler = root.find("compiler")
    dirs = {"meshdir": "", "texturedir": ""}
    if compiler is not None:
        for key in dirs:
            dirs[key] = compiler.attrib.pop(key, "")
        if "assetdir" in compiler.attrib:
            base = compiler.attrib.pop("assetdir")
            dirs = {k: v or base for k, v in dirs.items()}
        compiler.set("inertiagrouprange", "0 5")  # robosuite's merge does the same
    else:
        compiler = ET.SubElement(root, "compiler")
        compiler.set("inertiagrouprange", "0 5")
    files: list[Path] = [path]
    seen_textures: set[str] = set()
    for parent in root.iter():
        for child in list(parent):
            if child.tag == "texture" and child.get("name"):
                if child.get("name") in seen_textures:  # declared twice (flat_stove)
                    parent.remove(child)
                    continue
                seen_textures.add(child.get("name", ""))
            if child.tag in _FILE_TAGS and child.get("file"):
                named = child.get("file", "")
                target = Path(os.path.normpath(path.parent / dirs[_FILE_TAGS[child.tag]] / named))
                if not target.is_relative_to(folder):
                    raise SceneError(
                        f"{path}: {child.tag} file {named!r} is {target}, outside the asset "
                        f"folder {folder}; copy it into the folder and name it relative to "
                        "the object's MJCF"
                    )
                if not _regular_file(target, MAX_OBJECT_FILE_BYTES, f"its {child.tag} file"):
                    raise SceneError(f"{path}: {child.tag} file {named!r} not found ({target})")
                child.set("file", str(target))
                files.append(target)
    return ET.tostring(root, encoding="unicode"), tuple(dict.fromkeys(files))


@cache
def _original(path: Path, sha: str, folder: Path) -> _Original:
    text, files = _fixed_xml(path, folder)
    try:
        spec = mujoco.MjSpec.from_string(text)
        model = spec.compile()
    except ValueError as exc:
        raise SceneError(f"{path}: MuJoCo cannot build this object: {_one_line(exc)}") from None
    if spec.worldbody.first_body() is None:
        raise SceneError(f"{path}: the MJCF has no body; an object is a <body> in <worldbody>")
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    half = bounding_half_extents(model, data)
    lowest = np.inf
    signs = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)])
    for g in range(model.ngeom):
        if model.geom_type[g] == mujoco.mjtGeom.mjGEOM_MESH:
            adr = model.mesh_vertadr[model.geom_dataid[g]]
            local = model.mesh_vert[adr : adr + model.mesh_vertnum[model.geom_dataid[g]]]
        else:
            local = model.geom_aabb[g, :3] + signs * model.geom_aabb[g, 3:]
        world = local @ data.geom_xmat[g].reshape(3, 3).T + data.geom_xpos[g]
        lowest = min(lowest, float(world[:, 2].min()))
    regions = []
    for s in range(model.nsite):
        name = model.site(s).name
        if not name or name in _NOT_REGIONS:
            continue
        quat = np.zeros(4)
        mujoco.mju_mat2Quat(quat, data.site_xmat[s])
        regions.append(
            RegionSpec(
                name,
                tuple(round(float(v), 6) for v in data.site_xpos[s]),  # type: ignore[arg-type]
                tuple(round(float(v), 6) for v in model.site_size[s]),  # type: ignore[arg-type]
                tuple(round(float(v), 6) for v in quat),  # type: ignore[arg-type]
            )
        )
    rest = -lowest if np.isfinite(lowest) else 0.0
    return _Original(text, files, tuple(regions), round(rest, 6) + 0.0, half)


class OriginalCategory(Category):
    """A category built from the user's original MJCF (see the module docstring).

    Args:
        name: the category.
        xml: its MJCF file.
        fixture: a fixture (never moved, never grasped).
        root: the asset folder every file the MJCF names must be in (default: the MJCF's
            own folder).

    Raises:
        SceneError: naming the file that cannot be read or built.
    """

    def __init__(
        self, name: str, xml: Path, *, fixture: bool = False, root: Path | None = None
    ) -> None:
        self.name = name
        self.xml = xml
        self.fixture = fixture
        self.grasp = "none" if fixture else CATEGORIES[name].grasp if name in CATEGORIES else "top"
        path = Path(os.path.abspath(xml))
        folder = Path(os.path.abspath(root)) if root is not None else path.parent
        _regular_file(path, MAX_OBJECT_XML_BYTES, "an object's MJCF")
        self._original = _original(path, _sha256(path), folder)
        self.regions = self._original.regions
        self.rest_height = self._original.rest_height

    def __repr__(self) -> str:
        return f"OriginalCategory({self.name!r}, {str(self.xml)!r})"

    @property
    def files(self) -> tuple[Path, ...]:
        """The MJCF and every file it names (absolute paths)."""
        return self._original.files

    @property
    def half_extents(self) -> tuple[float, float, float]:
        """Half extents (x, y, z) [m] of the box, centred on the body origin, that bounds the
        original (its origin need not be its centre: LIBERO's sit on their bottom)."""
        return self._original.half_extents

    def build(self, spec: mujoco.MjSpec, body: mujoco.MjsBody, obj: str) -> BuiltObject:
        child = mujoco.MjSpec.from_string(self._original.xml)
        first = child.worldbody.first_body()
        if first is None:  # refused by _original already
            raise SceneError(f"{self.xml}: the MJCF has no body")
        body.add_frame().attach_body(first, f"{obj}/", "")
        sites = [
            add_region_site(body, f"{obj}_{r.name}", r.half_size, r.center, r.quat)
            for r in self.regions
        ]
        x, y, _ = self.half_extents
        return BuiltObject((), (), grip_width=2 * min(x, y), sites=tuple(sites))
