"""The GOHR rule-set parser, built-in orders and bucket-expression arithmetic."""

from __future__ import annotations

from pathlib import Path

import pytest
from gohr_data import DATA as GOHR_DATA
from hypothesis import given
from hypothesis import strategies as st

from referee.core.errors import ConfigError
from referee.games.gohr.expr import (
    ALL_BUCKETS,
    BinOp,
    Num,
    Range,
    RuleSyntaxError,
    SetLit,
    Str,
    Unary,
    Var,
    bucket_mod,
    evaluate,
    evaluate_buckets,
    evaluate_values,
    java_div,
    java_rem,
    parse_expression,
)
from referee.games.gohr.ruleset import (
    BUILTIN_ORDERS,
    PositionSet,
    parse_ruleset,
    read_ruleset,
)

RULES = GOHR_DATA / "rules"
RULE_FILES = sorted(RULES.rglob("*.txt")) if RULES.is_dir() else []


def needs_rules() -> None:
    if not RULES.is_dir():
        pytest.skip(f"sample rule folder {RULES} is absent")


# ------------------------------------------------------------------------------------------
# Every sample file parses


def test_sample_folder_has_files() -> None:
    needs_rules()
    assert len(RULE_FILES) > 10


@pytest.mark.parametrize("path", RULE_FILES, ids=lambda p: str(p.relative_to(RULES)))
def test_every_sample_rule_file_parses(path: Path) -> None:
    rules = read_ruleset(path)
    assert rules.rows
    assert rules.name == path.name[:-4]
    for row in rules.rows:
        assert row.atoms


# ------------------------------------------------------------------------------------------
# Specific files


def test_rule_003_structure() -> None:
    needs_rules()
    rules = read_ruleset(RULES / "Rule-003.txt")
    assert rules.name == "Rule-003"
    assert [row.count for row in rules.rows] == [None] * 4
    colors = [row.atoms[0].colors for row in rules.rows]
    assert colors == [frozenset({c}) for c in ("red", "blue", "black", "yellow")]
    for bucket, row in enumerate(rules.rows):
        (atom,) = row.atoms
        assert atom.count == 1
        assert atom.shapes is None
        assert atom.positions == ()
        assert atom.buckets == SetLit((Num(bucket),))
        assert not atom.property_based


def test_custom_order_file() -> None:
    needs_rules()
    rules = read_ruleset(RULES / "TD-01.txt")
    assert rules.custom_orders == ("Custom",)
    custom = rules.orders["Custom"]
    assert custom.groups == tuple(frozenset({c}) for c in range(36, 0, -1))
    assert any(PositionSet(frozenset(), ("Custom",)) in atom.positions
               for row in rules.rows for atom in row.atoms)


def test_farthest_file_overrides_builtin_with_same_groups() -> None:
    needs_rules()
    rules = read_ruleset(RULES / "farthest.txt")
    assert rules.orders["Farthest"] == BUILTIN_ORDERS["Farthest"]


def test_position_list_and_bare_bucket_expression() -> None:
    text = "# desc line\n#Display: Corners\n(*,*,*,[1,6,31,36],[Nearby])\n(*,*,*,[T,B], Nearby)\n"
    rules = parse_ruleset(text, "x/corners.txt")
    assert rules.name == "corners"
    assert rules.display == "Corners"
    assert rules.description == ("desc line",)
    first, second = (row.atoms[0] for row in rules.rows)
    assert first.positions == (PositionSet(frozenset({1, 6, 31, 36})),)
    assert first.buckets == SetLit((Var("Nearby"),))
    assert second.positions == (PositionSet(frozenset(), ("T", "B")),)
    assert second.buckets == Var("Nearby")


def test_global_counts_and_multiple_atoms() -> None:
    rules = parse_ruleset("2 (*,circle,*,L,[0]) (*,triangle,*,L,[1])\n* (1,*,*,*,*)\n0 ()\n")
    assert [row.count for row in rules.rows] == [2, None, 0]
    assert len(rules.rows[0].atoms) == 2
    assert rules.rows[1].atoms[0].buckets == ALL_BUCKETS
    assert rules.rows[0].atoms[1].shapes == frozenset({"triangle"})


def test_property_based_atom() -> None:
    text = ('(count:2, shape:[Square,"au/Kangaroo"], color:RED, pos:L1, pos:[3,T], postpos:B,'
            " bucket:[p+1], code:this.pos==last.pos+1, seq:(last.seq+1)%4, size:[0..30]) ()\n")
    rules = parse_ruleset(text)
    atom, anything = rules.rows[0].atoms
    assert atom.property_based
    assert atom.count == 2
    assert atom.shapes == frozenset({"square", "au/kangaroo"})
    assert atom.colors == frozenset({"red"})
    assert atom.positions == (PositionSet(frozenset(), ("L1",)),
                              PositionSet(frozenset({3}), ("T",)))
    assert atom.postpos == PositionSet(frozenset(), ("B",))
    assert atom.buckets == SetLit((BinOp("+", Var("p"), Num(1)),))
    assert atom.code == BinOp("==", Var("this.pos"), BinOp("+", Var("last.pos"), Num(1)))
    assert dict(atom.properties) == {
        "seq": BinOp("%", BinOp("+", Var("last.seq"), Num(1)), Num(4)),
        "size": Range(0, 30),
    }
    assert anything.property_based
    assert anything.count is None and anything.shapes is None and anything.positions == ()
    assert anything.buckets == ALL_BUCKETS and anything.code is None


def test_custom_order_with_ties_and_implicit_last_group() -> None:
    rules = parse_ruleset("order Corner=[1, [2,7], [3,8,13]]\n(*,*,*,Corner,*)\n")
    groups = rules.orders["Corner"].groups
    assert groups[:3] == (frozenset({1}), frozenset({2, 7}), frozenset({3, 8, 13}))
    assert groups[3] == frozenset(range(1, 37)) - {1, 2, 3, 7, 8, 13}
    assert len(groups) == 4


def test_comments_at_line_end_and_description_only_before_rows() -> None:
    rules = parse_ruleset("#a\n\n# b\n(1,*,*,*,[0,1]) # trailing\n# after\n")
    assert rules.description == ("a", "b")
    assert rules.rows[0].atoms[0].buckets == SetLit((Num(0), Num(1)))


# ------------------------------------------------------------------------------------------
# Built-in orders


def singles(*cells: int) -> tuple[frozenset[int], ...]:
    return tuple(frozenset({c}) for c in cells)


def test_reading_orders() -> None:
    assert BUILTIN_ORDERS["L1"].groups[:8] == singles(31, 32, 33, 34, 35, 36, 25, 26)
    assert BUILTIN_ORDERS["L1"].groups[-1] == frozenset({6})
    assert BUILTIN_ORDERS["L2"].groups[:7] == singles(36, 35, 34, 33, 32, 31, 30)
    assert BUILTIN_ORDERS["L3"].groups[:8] == singles(36, 30, 24, 18, 12, 6, 35, 29)
    assert BUILTIN_ORDERS["L3"].groups[-2:] == singles(7, 1)
    assert BUILTIN_ORDERS["L4"].groups[:7] == singles(31, 25, 19, 13, 7, 1, 32)
    assert BUILTIN_ORDERS["L4"].groups[-1] == frozenset({6})


def test_tied_orders() -> None:
    assert BUILTIN_ORDERS["T"].groups[0] == frozenset(range(31, 37))
    assert BUILTIN_ORDERS["T"].groups[-1] == frozenset(range(1, 7))
    assert BUILTIN_ORDERS["B"].groups == BUILTIN_ORDERS["T"].groups[::-1]
    assert BUILTIN_ORDERS["R"].groups[0] == frozenset({36, 30, 24, 18, 12, 6})
    assert BUILTIN_ORDERS["L"].groups[0] == frozenset({31, 25, 19, 13, 7, 1})
    assert BUILTIN_ORDERS["L"].groups == BUILTIN_ORDERS["R"].groups[::-1]


def test_farthest_and_nearest() -> None:
    expected = [[15, 16, 21, 22], [9, 10, 14, 17, 20, 23, 27, 28], [3, 4, 13, 18, 19, 24, 33, 34],
                [8, 11, 26, 29], [2, 5, 7, 12, 25, 30, 32, 35], [1, 6, 31, 36]]
    assert BUILTIN_ORDERS["Farthest"].groups == tuple(frozenset(g) for g in expected)
    assert BUILTIN_ORDERS["NearestObject"].groups == BUILTIN_ORDERS["Farthest"].groups[::-1]


@pytest.mark.parametrize("name", sorted(BUILTIN_ORDERS))
def test_builtin_orders_partition_the_board(name: str) -> None:
    groups = BUILTIN_ORDERS[name].groups
    cells = [c for g in groups for c in g]
    assert sorted(cells) == list(range(1, 37))


# ------------------------------------------------------------------------------------------
# Arithmetic


def ev(text: str, **env: set[int | str]) -> frozenset[int]:
    return evaluate(parse_expression(text), {k.replace("__", "."): v for k, v in env.items()})


def test_cross_products_from_the_spec() -> None:
    assert ev("[1,2,10]*[5,10]") == {5, 10, 20, 50, 100}
    assert ev("[0,1,2]+[0]") == {0, 1, 2}
    assert ev("[0,1,2]+[]") == set()
    assert ev("[[0, 2], [2, 3], 0]") == {0, 2, 3}
    assert ev("p-pc+ps-3", p={3}, pc={1}, ps={2}) == {1}


def test_java_division_and_remainder() -> None:
    assert ev("[2,5,10]/[3]") == {0, 1, 3}
    assert ev("[-4,4]%[3]") == {-1, 1}
    assert ev("-7/2") == {-3}
    assert ev("7/-2") == {-3}
    assert ev("-7%2") == {-1}
    assert ev("7%-2") == {1}
    assert ev("(0-5)%4") == {-1}


def test_division_by_zero_drops_the_pair() -> None:
    assert ev("[7]/[0,2]") == {3}
    assert ev("[0]/[0]") == set()
    assert ev("5%0") == set()


def test_equality_and_negation() -> None:
    assert ev("[0,2]==[1,3]") == set()
    assert ev("[0,2,3]==[3]") == {1}
    assert ev("[]==[]") == set()
    assert ev("!p") == {1}
    assert ev("!p", p={2}) == set()
    assert ev("!!p*[0,1]", p={0}) == {0, 1}
    assert ev("[!p*[0,1,2,3], !!p*(p-1)]") == {0, 1, 2, 3}
    assert ev("[!p*[0,1,2,3], !!p*(p-1)]", p={2}) == {1}


def test_gs5_comparisons_strings_and_objects() -> None:
    assert ev("3 < 4") == {1}
    assert ev("[1,5] >= 5") == {1}
    assert ev("2 != 2") == set()
    assert ev('last.color == "Red"', last__color={"red"}) == {1}
    assert ev("this.pos==last.pos+1", this__pos={8}, last__pos={7}) == {1}
    assert ev("(q.body.seq+[1,3])%4", q__body__seq={2}) == {3, 1}
    assert ev("!last") == {1}
    assert evaluate_values(parse_expression('["a", 1]'), {}) == {"a", 1}
    assert ev('"a" + 1') == set()


def test_ranges_and_undefined_variables() -> None:
    assert ev("[0..3]") == {0, 1, 2, 3}
    assert ev("[2..1]") == set()
    assert ev("p+1") == set()
    assert ev("Nearby", Nearby={3}) == {3}


def test_bucket_reduction() -> None:
    expr = parse_expression("[p+1, p-3, -5, 6]")
    assert evaluate_buckets(expr, {"p": {3}}) == {0, 3, 2}
    assert [bucket_mod(n) for n in (-5, -4, -1, 0, 3, 4, 9)] == [3, 0, 3, 0, 3, 0, 1]


def test_parser_precedence() -> None:
    assert parse_expression("2*3-1") == BinOp("-", BinOp("*", Num(2), Num(3)), Num(1))
    assert parse_expression("!!p") == Unary("!", Unary("!", Var("p")))
    assert parse_expression("p==Nearby*2") == BinOp("==", Var("p"),
                                                   BinOp("*", Var("Nearby"), Num(2)))
    assert parse_expression('"au/x"') == Str("au/x")


ints = st.integers(min_value=-10**6, max_value=10**6)


@given(ints, ints)
def test_sum_of_singletons_is_python_sum_mod_4(a: int, b: int) -> None:
    expr = parse_expression("a + b")
    assert evaluate_buckets(expr, {"a": {a}, "b": {b}}) == {(a + b) % 4}


@given(ints, ints.filter(lambda b: b != 0))
def test_java_division_truncates_toward_zero(a: int, b: int) -> None:
    assert java_div(a, b) == int(a / b)
    assert b * java_div(a, b) + java_rem(a, b) == a
    assert abs(java_rem(a, b)) < abs(b)
    assert java_rem(a, b) == 0 or (java_rem(a, b) > 0) == (a > 0)
    expr = parse_expression("a / b")
    assert evaluate(expr, {"a": {a}, "b": {b}}) == {java_div(a, b)}


# ------------------------------------------------------------------------------------------
# Errors


@pytest.mark.parametrize(("line", "message"), [
    ("(1,*,red,*,[0],2)", "Rule-003.txt:4:15: expected ')' to close the atom, found ','"),
    ("(1,*,red,*,[0]", "Rule-003.txt:4:15: expected ')' to close the atom, found end of line"),
    ("(*,*,*,*,(p+1", "Rule-003.txt:4:14: expected ')' to close the parenthesis, "
                      "found end of line"),
    ("(*,*,*,Foo,[0])", "Rule-003.txt:4:8: unknown order 'Foo' (expected a cell 1..36 or the "
                        "name of a built-in or defined order)"),
    ("(*,*,*,40,0)", "Rule-003.txt:4:8: expected a cell number 1..36, found 40"),
    ("(count:1,*,*,*,0)", "Rule-003.txt:4:10: expected 'key:value' (this atom is "
                          "property-based; positional fields cannot be mixed in), found '*'"),
    ("(1,shape:red,*,*,0)", "Rule-003.txt:4:4: expected a positional field, found 'key:value' "
                            "(an atom cannot mix positional and property-based fields)"),
    ("(x,*,*,*,0)", "Rule-003.txt:4:2: expected an atom count ('*' or a non-negative "
                    "integer), found 'x'"),
    ("(-1,*,*,*,0)", "Rule-003.txt:4:2: expected an atom count ('*' or a non-negative "
                     "integer), found '-'"),
    ("abc (*,*,*,*,0)", "Rule-003.txt:4:1: expected a rule count or '(' to start an atom, "
                        "found 'abc'"),
    ("(*,*,*,*,0) $", "Rule-003.txt:4:13: unexpected character '$'"),
    ("(1,*,*,*)", "Rule-003.txt:4:9: expected ',' before the buckets field (a positional atom "
                  "has five fields), found ')'"),
    ("(*,*,*,[T,*],0)", "Rule-003.txt:4:11: expected a position (a cell 1..36 or an order "
                        "name), found '*'"),
    ("(shape:a, shape:b)", "Rule-003.txt:4:11: key 'shape' appears twice in the atom"),
    # no '*' after 'key:', as the reference reads an expression there (Expression.
    # mkCounterOrAtom, then mkLongestE1, which takes no '*')
    ("(count:1,shape:square,color:red,pos:*,bucket:[0])",
     "Rule-003.txt:4:37: expected a value after 'pos:' ('*' is not one: leave the clause out "
     "to allow any), found '*'"),
    ("(count:*, shape:square)", "Rule-003.txt:4:8: expected a value after 'count:' ('*' is "
                                "not one: leave the clause out to allow any), found '*'"),
    ("(shape:square, bucket:*)", "Rule-003.txt:4:23: expected a value after 'bucket:' ('*' is "
                                 "not one: leave the clause out to allow any), found '*'"),
    ("(species:*)", "Rule-003.txt:4:10: expected a value after 'species:' ('*' is not one: "
                    "leave the clause out to allow any), found '*'"),
])
def test_error_messages(line: str, message: str) -> None:
    text = f"# one\n# two\n\n{line}\n"
    with pytest.raises(RuleSyntaxError) as info:
        parse_ruleset(text, "Rule-003.txt")
    assert str(info.value) == message
    assert isinstance(info.value, ConfigError)


def test_stars_stay_positional_fields() -> None:
    atom = parse_ruleset("(*,*,*,*,*)\n(shape:square)\n").rows[1].atoms[0]
    assert atom.count is None and atom.positions == () and atom.shapes == {"square"}


@pytest.mark.parametrize(("text", "message"), [
    ("Order X=[1,2,2]\n(*,*,*,X,0)\n", "r.txt:1:14: cell 2 appears twice in the order"),
    ("Order X=[1,[2,3],[4,1]]\n", "r.txt:1:21: cell 1 appears twice in the order"),
    ("Order X=[1,37]\n", "r.txt:1:12: expected a cell number 1..36, found 37"),
    ("Order X=[1,2\n", "r.txt:1:13: expected ',' or ']' to close the order, found end of line"),
    ("Order X=[1]\nOrder X=[2]\n", "r.txt:2:7: order 'X' is defined twice"),
    ("()\nOrder X=[1]\n", "r.txt:2:1: order definitions must come before the first rule row"),
    ("# only a comment\n", "r.txt:0:0: expected at least one rule row, found none"),
    ('(*,"abc,*,*,0)\n', "r.txt:1:4: unterminated string: expected a closing '\"'"),
])
def test_order_and_file_errors(text: str, message: str) -> None:
    with pytest.raises(RuleSyntaxError) as info:
        parse_ruleset(text, "r.txt")
    assert str(info.value) == message


def test_read_ruleset_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="nope.txt:0:0: cannot read the rule file") as info:
        read_ruleset(tmp_path / "nope.txt")
    assert str(info.value) == (f"{tmp_path / 'nope.txt'}:0:0: cannot read the rule file: "
                               "no such file")  # (the path as given: where it was looked for)
    with pytest.raises(ConfigError, match="cond.txt:0:0: cannot read the condition file"):
        read_ruleset(tmp_path / "cond.txt", "condition file")
    (tmp_path / "folder.txt").mkdir()
    with pytest.raises(ConfigError) as info:  # the reason in words, not [Errno 21] and a path
        read_ruleset(tmp_path / "folder.txt")
    assert str(info.value) == (f"{tmp_path / 'folder.txt'}:0:0: cannot read the rule file: "
                               "Is a directory")


def test_a_rule_nested_thousands_deep_is_a_syntax_error_not_a_crash() -> None:
    for inner in ("[" * 5000 + "1" + "]" * 5000, "-" * 5000 + "1"):
        with pytest.raises(RuleSyntaxError, match="deep.rules:2:1: a rule row nested too deeply"):
            parse_ruleset(f"# deep\n(*,*,*,*,[{inner}])\n", "deep.rules")
