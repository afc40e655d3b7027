"""The vocabulary facade: every name it re-exports is the object of one vocabulary module."""

from rsb_mj.lang import (
    block_values,
    categories,
    known_categories,
    predicates,
    table_top,
    vocabulary,
)


def test_the_vocabulary_re_exports_its_modules_names():
    modules = (block_values, categories, known_categories, predicates, table_top)
    assert "PREDICATES" in vocabulary.__all__ and "RSB_CATEGORIES" in vocabulary.__all__
    for name in vocabulary.__all__:
        owners = [m for m in modules if name in m.__all__]
        assert len(owners) == 1, name
        assert getattr(vocabulary, name) is getattr(owners[0], name)
    assert sorted(vocabulary.__all__) == sorted(n for m in modules for n in m.__all__)
