"""Session arguments of the captive server: every form of the reference's command line."""

from __future__ import annotations

from pathlib import Path

import pytest
from gohr_data import DATA as GOHR_DATA

from referee.core.errors import ConfigError
from referee.games.gohr.setup import build_setup, split_arguments

DATA = GOHR_DATA
pytestmark = pytest.mark.skipif(not DATA.is_dir(), reason=f"sample data {DATA} is absent")


def test_options_are_told_apart_from_positional_arguments() -> None:
    parsed = split_arguments(["seed=5", "-DinputDir=/x", "rules.txt", "3", "OUTPUT=full",
                              "log.nickname=Jo"])
    assert dict(parsed.options) == {"seed": "5", "inputDir": "/x", "output": "full",
                                    "log.nickname": "Jo"}
    assert parsed.positional == ("rules.txt", "3")
    with pytest.raises(ConfigError, match="unknown option 'colour'"):
        split_arguments(["colour=red"])


def test_a_board_file_starts_every_episode(tmp_path: Path) -> None:
    setup = build_setup([str(DATA / "rules" / "farthest.txt"),
                         str(DATA / "boards" / "four-corners.json")])
    assert setup.rule_name == "farthest" and setup.output == "full"  # the reference's default
    first, second = setup.next_board(), setup.next_board()
    assert first == second and len(first) == 4


@pytest.mark.parametrize(("spec", "pieces", "shapes", "colors"), [
    (["3"], {3}, None, None),
    (["2:4"], {2, 3, 4}, None, None),
    (["5", "2", "3"], {5}, {2}, {3}),
    (["5", "1:3", "3:4"], {5}, {1, 2, 3}, {3, 4}),
])
def test_random_boards_follow_the_counts_and_the_seed(
        spec: list[str], pieces: set[int], shapes: set[int] | None,
        colors: set[int] | None) -> None:
    args = [str(DATA / "rules" / "farthest.txt"), *spec, "seed=7"]
    one, two = build_setup(args), build_setup(args)
    boards = [one.next_board() for _ in range(30)]
    assert boards == [two.next_board() for _ in range(30)]
    assert {len(b) for b in boards} <= pieces
    if shapes is not None:
        assert {len({p.shape for p in b}) for b in boards} <= shapes
    if colors is not None:
        assert {len({p.color for p in b}) for b in boards} <= colors


def test_custom_colors_and_shapes() -> None:
    setup = build_setup([str(DATA / "rules" / "farthest.txt"), "4", "seed=1",
                         "colors=pink;teal", "shapes=moon;sun"])
    assert setup.colors == ("PINK", "TEAL") and setup.shapes == ("MOON", "SUN")
    board = setup.next_board()
    assert {p.color for p in board} <= {"PINK", "TEAL"}
    assert {p.shape.lower() for p in board} <= {"moon", "sun"}


def test_a_trial_list_row_names_rules_and_predefined_boards() -> None:
    setup = build_setup([str(DATA / "trial-lists" / "vm20201015" / "trial_1.csv"), "1",
                         f"inputDir={DATA}"])
    assert setup.rule_name == "TD-01"
    assert len(setup.next_board()) > 0


def test_r_form_with_a_modifier() -> None:
    setup = build_setup([f"inputDir={DATA}", "R:MLC/BMK/" + first_bmk_rule() + ":MLC/BMK/bmk.csv",
                         "seed=3"])
    board = setup.next_board()
    assert len(board) == 9
    assert len({p.color for p in board}) == 4 and len({p.shape for p in board}) == 4


def first_bmk_rule() -> str:
    """A rule set of the MLC benchmark folder."""
    return sorted(p.name for p in (DATA / "rules" / "MLC" / "BMK").glob("*.txt"))[0]


def test_conditions_and_output_options() -> None:
    cond = sorted((DATA / "cond" / "vm").glob("*.txt"))[0]
    setup = build_setup([str(DATA / "rules" / "farthest.txt"), "5", f"condTest={cond}",
                         "output=FULL"])
    assert setup.test_mode and setup.conditions is not None and setup.output == "full"
    with pytest.raises(ConfigError, match="not both"):
        build_setup([str(DATA / "rules" / "farthest.txt"), "5", f"condTest={cond}",
                     f"condTrain={cond}"])


def test_a_condition_file_that_cannot_be_read_is_named_as_one(tmp_path: Path) -> None:
    rules = str(DATA / "rules" / "farthest.txt")
    for key in ("condTrain", "condTest"):
        with pytest.raises(ConfigError) as info:
            build_setup([rules, "5", f"{key}=nope.txt"], cwd=tmp_path)
        assert str(info.value) == f"{tmp_path / 'nope.txt'}: no such condition file " \
            f"({key}=nope.txt)"
    (tmp_path / "latin1.txt").write_bytes(b"(pos:[1], shape:caf\xe9)\n")
    with pytest.raises(ConfigError, match=r"^latin1.txt:0:0: the condition file is not UTF-8"):
        build_setup([rules, "5", "condTrain=latin1.txt"], cwd=tmp_path)
    (tmp_path / "bad.txt").write_text("(pos:[1]\n")
    with pytest.raises(ConfigError, match=r"^bad.txt:1:9: expected"):
        build_setup([rules, "5", "condTest=bad.txt"], cwd=tmp_path)


@pytest.mark.parametrize(("args", "message"), [
    ([], "missing the rule set"),
    (["RULES"], "missing the board"),
    (["RULES", "x"], "x"),
    (["RULES", "3", "seed=abc"], "seed=abc: not an integer"),
    (["RULES", "3", "output=loud"], "expected brief, standard or full"),
    (["/no/such/rules.txt", "3"], "no/such/rules.txt"),
    (["TRIAL", "99"], "row 99 does not exist"),
    (["TRIAL"], "needs the row number"),
    (["R:only-one-part"], "expected R:ruleSet:modifier"),
])
def test_bad_arguments_are_named(args: list[str], message: str) -> None:
    swap = {"RULES": str(DATA / "rules" / "farthest.txt"),
            "TRIAL": str(DATA / "trial-lists" / "vm20201015" / "trial_1.csv")}
    with pytest.raises(ConfigError, match=message):
        build_setup([swap.get(a, a) for a in args] + [f"inputDir={DATA}"])


def test_a_data_root_confines_every_file(tmp_path: Path) -> None:
    setup = build_setup(["rules/farthest.txt", "boards/four-corners.json"], root=DATA)
    assert setup.rule_name == "farthest"
    for args in (["../../../etc/passwd", "3"], ["/etc/passwd", "3"],
                 ["rules/farthest.txt", "../../../../etc/hosts.json"],
                 ["inputDir=/", "R:etc/passwd:x"]):
        with pytest.raises(ConfigError, match="outside the server's data folder"):
            build_setup(args, root=DATA)


@pytest.mark.parametrize(("text", "version"), [(None, 7), ("7", 7), ("8", 8), ("8.060", 8)])
def test_the_version_option(text: str | None, version: int) -> None:
    extra = [] if text is None else [f"version={text}"]
    setup = build_setup([str(DATA / "rules" / "Rule-001.txt"), "3", *extra])
    assert setup.version == version


def test_an_unknown_version_is_refused() -> None:
    with pytest.raises(ConfigError, match=r"version=9: expected 7 .* or 8"):
        build_setup([str(DATA / "rules" / "Rule-001.txt"), "3", "version=9"])
