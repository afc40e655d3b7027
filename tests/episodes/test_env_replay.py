"""An eval row replayed through the environment is the episode the row says."""

import numpy as np
import pytest

from rsb_mj.suites import get_suite
from rsb_mj.tables.families import load_table

env_module = pytest.importorskip("rsb_mj.env.rsb_env", reason="needs the scene stage's RsbEnv")


def materials_of(model, body: str) -> list[str]:
    """Names of the materials on the geoms of ``body`` and the bodies below it."""
    root = model.body(body).id
    return [
        model.mat(model.geom_matid[g]).name
        for g in range(model.ngeom)
        if root in (model.geom_bodyid[g], model.body_rootid[model.geom_bodyid[g]])
        and model.geom_matid[g] >= 0
    ]


@pytest.mark.parametrize("name", ["RSB-Math-4", "RSB-General-10"])
def test_eval_rows_replay_with_their_instruction_mapping_and_layout(name):
    env = env_module.RsbEnv(get_suite(name).path, suite=name, cameras=())
    try:
        for row in load_table(name, "eval")[:3]:
            _, info = env.reset(options={"episode": row.to_dict()})
            assert info["instruction"] == row.instruction
            assert env.unwrapped.episode == row
            assert env.unwrapped.episode.mapping == row.mapping
            assert env.unwrapped.episode.target == row.mapping[row.correct]
            for obj, pose in row.layout.items():
                want = env.unwrapped.scene.table_to_world(pose.x, pose.y)[:2]
                np.testing.assert_allclose(env.unwrapped.data.body(obj).xpos[:2], want, atol=1e-6)
            for letter, obj in row.mapping.items():  # each block shows its letter and color
                assert materials_of(env.unwrapped.model, obj) == [
                    f"letter_{letter}_{row.colors[obj]}"
                ]
    finally:
        env.close()
