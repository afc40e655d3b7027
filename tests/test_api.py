"""The flat public API resolves."""

import rsb_mj


def test_every_name_in_all_resolves():
    for name in rsb_mj.__all__:
        assert getattr(rsb_mj, name) is not None, name


def test_every_error_derives_from_the_root():
    for name in rsb_mj.__all__:
        obj = getattr(rsb_mj, name)
        if isinstance(obj, type) and issubclass(obj, Exception):
            assert issubclass(obj, rsb_mj.RsbError), name
