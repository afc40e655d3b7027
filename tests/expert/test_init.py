from __future__ import annotations

import rsb_mj.expert


def test_every_public_name_resolves():
    assert rsb_mj.expert.__all__ == sorted(rsb_mj.expert.__all__)
    for name in rsb_mj.expert.__all__:
        assert getattr(rsb_mj.expert, name) is not None
