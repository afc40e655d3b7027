"""The categories rsb builds: nouns, letters and footprint radii."""

from rsb_mj.lang.categories import RSB_CATEGORIES, footprint_radius


def test_rsb_categories_of_the_contract():
    assert {
        "letter_block",
        "can",
        "milk",
        "bread",
        "cereal",
        "lemon",
        "bottle",
        "toy_car",
        "playing_card",
    } <= set(RSB_CATEGORIES)
    block = RSB_CATEGORIES["letter_block"]
    assert block.noun == "block" and block.letters is True
    assert 0.02 <= block.footprint_radius <= 0.04
    assert footprint_radius("letter_block") == block.footprint_radius
    assert footprint_radius("basin_faucet") == 0.05  # the default (no model)
    assert footprint_radius("akita_black_bowl") == 0.077  # its stand-in: 10.7 cm across
