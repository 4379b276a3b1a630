"""Image-and-property-based objects and composite objects: properties files, wildcards,
composite names and their properties, random image boards, and the engine on them."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from image_data import make_image_data, png

from referee.core.errors import ConfigError
from referee.games.gohr.board import generate_image_board, parse_board, piece_icon
from referee.games.gohr.composite import parse_composite
from referee.games.gohr.engine import Episode
from referee.games.gohr.images import ImageCatalog
from referee.games.gohr.ruleset import parse_ruleset
from referee.games.gohr.trials import boards_from_row, read_trial_list


@pytest.fixture
def data(tmp_path: Path) -> Path:
    return make_image_data(tmp_path)


def test_properties_come_from_the_folders_properties_file(data: Path) -> None:
    catalog = ImageCatalog(data / "shapes")
    assert catalog.properties("animals/cat.png") == {
        "name": "cat", "species": "cat", "color": "red", "color_indices": "1"}
    assert "color" not in catalog.properties("animals/owl.png")  # an empty cell: no property
    with pytest.raises(ConfigError, match=r"animals/fox.png: no image file"):
        catalog.properties("animals/fox.png")
    (data / "shapes" / "animals" / "fox.png").write_bytes(png())
    with pytest.raises(ConfigError, match=r"properties.csv has no line for fox.png"):
        catalog.properties("animals/fox.png")
    (data / "shapes" / "birds").mkdir()
    (data / "shapes" / "birds" / "jay.png").write_bytes(png())
    (data / "shapes" / "birds" / "properties.csv").write_text("name,image\njay,jay.png\n")
    with pytest.raises(ConfigError, match=r"first column must be named 'image', not 'name'"):
        catalog.properties("birds/jay.png")


def test_the_images_column_takes_wildcards_and_lists(data: Path) -> None:
    catalog = ImageCatalog(data / "shapes")
    assert catalog.expand("animals/*").keys == (
        "animals/cat.png", "animals/dog.png", "animals/owl.png")
    assert catalog.expand("animals/?o?.png;animals/cat.png").keys == (
        "animals/cat.png", "animals/dog.png")
    assert catalog.expand("**").keys == catalog.expand("animals/*.png").keys
    with pytest.raises(ConfigError, match="matches no image"):
        catalog.expand("animals/z*")
    with pytest.raises(ConfigError, match="cannot mix image files and composite objects"):
        catalog.expand("animals/*;/composite/h/rq/rq/rq")


def test_composite_names_and_their_properties() -> None:
    props = parse_composite("/composite/h/d=123/b=333/rt/bq/gc").properties()
    assert props == {
        "name": "/composite/h/d=123/b=333/rt/bq/gc", "orientation": "h", "d": "123",
        "d_order": "1", "b": "333", "b_order": "0", "s": "tqc", "c": "rbg",
        "sameshape": "0", "samecolor": "0", "occupied": "3",
        "opacity": "66", "trans_h": "0",  # 66.67 truncated, as the reference's (int)
        "trans_v": "1", "trans_asc": "1", "trans_desc": "1"}
    grid = parse_composite("/composite/g22/x/rq/x/rq").properties()
    assert (grid["orientation"], grid["occupied"], grid["trans_v"], grid["trans_h"]) == \
        ("g", "2", "1", "0")
    assert parse_composite("/composite/v2/d=31/bt^2").properties()["d_order"] == "-1"
    assert parse_composite("/composite/h1").properties()["c"] == "r"  # default red square
    for bad, reason in (("/composite/q/rq", "expected h, v, g"),
                        ("/composite/h/d=12/rq", "2 levels for 3 elements"),
                        ("/composite/h/rq/rq/rq/rq", "4 elements for 3 places"),
                        ("/composite/h/xq", "color x only goes with shape x"),
                        ("/composite/h/zq", "not a color")):
        with pytest.raises(ConfigError, match=reason):
            parse_composite(bad)


def test_allshapes_may_hold_the_blank() -> None:
    # the document's own example: x is the blank, drawn or defaulted like a shape, as the
    # reference's Composite(name) takes any letter there
    family = parse_composite("/composite/h/allShapes=qx/r?/r?")
    members = {m.name: m.properties() for m in family.members()}
    assert family.family_size() == len(members) == 4  # the third element: the default rq
    blank = members["/composite/h3/rx/rx/rq"]
    assert (blank["s"], blank["c"], blank["occupied"], blank["opacity"]) == ("xxq", "rrr",
                                                                              "1", "33")
    assert parse_composite("/composite/h2/allShapes=xq").properties()["occupied"] == "0"
    with pytest.raises(ConfigError, match="allShapes=qz: letters of qsctx"):
        parse_composite("/composite/h/allShapes=qz/rq")
    with pytest.raises(ConfigError, match="allColors=rx: letters of rgb"):
        parse_composite("/composite/h/allColors=rx/rq")


@settings(max_examples=60)
@given(seed=st.integers(0, 10_000))
def test_a_family_samples_its_members(seed: int) -> None:
    family = parse_composite("/composite/?2/d=?3/allColors=gb/??/gs")
    members = {m.name for m in family.members()}
    assert len(members) == family.family_size() == 2 * 3 * 2 * 4
    drawn = family.sample(random.Random(seed))
    assert drawn.name in members and not drawn.wild
    assert parse_composite(drawn.name).properties() == drawn.properties()


def test_image_boards_and_the_engine(data: Path) -> None:
    catalog = ImageCatalog(data / "shapes")
    rules = parse_ruleset((data / "rules" / "animals.txt").read_text(), "animals.txt")
    board = parse_board((data / "boards" / "zoo" / "one.json").read_text(), "one.json",
                        catalog.properties)
    episode = Episode(rules, board)
    assert episode.buckets() == {0: {0}, 1: {2}}  # the cat by color_indices, the owl by range
    assert [piece_icon(p) for p in board] == ["rc", " o"]
    pool = catalog.expand("animals/*")
    drawn = generate_image_board(5, 5, pool.draw, catalog.properties, random.Random(4))
    assert len(drawn) == 5 and all(p.image in pool.keys for p in drawn)
    assert all(p.props == catalog.properties(p.image or "") for p in drawn)


def test_trial_list_rows(data: Path) -> None:
    rows = read_trial_list(data / "trial-lists" / "zoo.csv")
    catalog = ImageCatalog(data / "shapes")
    random_images = boards_from_row(rows[0], data / "boards", random.Random(1), "row 1",
                                    catalog)
    assert random_images.pool is not None and random_images.params is None
    assert len(random_images.next_board()) == 3
    predefined = boards_from_row(rows[1], data / "boards", random.Random(1), "row 2", catalog)
    assert [p.props.get("species") for p in predefined.next_board()] == ["cat", "owl"]
    # initial_boards_order without initial_boards is ignored, as the Java CGS does
    order_only = boards_from_row(rows[3], data / "boards", random.Random(1), "row 4", catalog)
    assert order_only.params is not None and len(order_only.next_board()) == 4
