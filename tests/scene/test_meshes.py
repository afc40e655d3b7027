"""Mesh preprocessing on robosuite-models' real Aloha meshes."""

from pathlib import Path

import numpy as np
import robosuite_models

from rsb_mj.scene.meshes import SHAPE_TOLERANCE, TriMesh, decimate, read_stl, weld

GRIPPER_MESHES = Path(robosuite_models.__file__).parent / "assets/grippers/meshes/aloha_gripper"


def test_weld_merges_vertices_closer_than_the_tolerance_and_drops_collapsed_faces():
    verts = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 0.00001], [1, 1, 0]], float)
    mesh = TriMesh(verts, np.array([[0, 1, 2], [3, 1, 4], [0, 3, 1]], np.int32))
    out = weld(mesh, 1e-4)
    assert len(out.vertices) == 4
    assert out.faces.tolist() == [[0, 2, 1], [0, 2, 3]]


def test_decimation_of_the_d405_camera_keeps_its_box_and_drops_most_triangles():
    mesh = read_stl(GRIPPER_MESHES / "d405_solid.stl")
    out = decimate(mesh)
    assert len(mesh.faces) == 24844
    assert len(out.faces) < 0.15 * len(mesh.faces)
    for a, b in (
        (out.vertices.min(0), mesh.vertices.min(0)),
        (out.vertices.max(0), mesh.vertices.max(0)),
    ):
        assert np.abs(a - b).max() <= SHAPE_TOLERANCE
