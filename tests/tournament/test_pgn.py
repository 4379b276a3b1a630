"""PGN results: round trip, messy real-world input, clear errors, streaming."""

from __future__ import annotations

import io
import types
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.tournament import pgn
from referee.tournament.pgn import (
    GameResult,
    PgnError,
    PgnReader,
    format_game,
    read_pgn_results,
    result_token,
    write_pgn_results,
)
from referee.tournament.ratings import ResultTable


def write(tmp_path: Path, text: str | bytes, name: str = "games.pgn") -> Path:
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8", newline="")
    return path


def test_round_trip(tmp_path: Path) -> None:
    results = [("Alpha", "Beta", 1.0), ('Quote "Q" \\ Bot', "Beta", 0.5), ("Beta", "Alpha", 0.0)]
    path = tmp_path / "out.pgn"
    assert write_pgn_results(path, iter(results), event="Test", date="2024.01.02") == 3
    text = path.read_text(encoding="utf-8")
    assert text.startswith('[Event "Test"]\n[Site "?"]\n[Date "2024.01.02"]\n[Round "1"]\n'
                           '[White "Alpha"]\n[Black "Beta"]\n[Result "1-0"]\n\n1-0\n\n')
    assert '[White "Quote \\"Q\\" \\\\ Bot"]' in text
    assert list(read_pgn_results(path)) == [GameResult(*r) for r in results]


def test_write_to_an_open_file_and_format() -> None:
    buffer = io.StringIO()
    write_pgn_results(buffer, [("a", "b", 0.5)], number_rounds=False)
    assert '[Round "?"]' in buffer.getvalue() and "\n\n1/2-1/2\n\n" in buffer.getvalue()
    assert format_game("a\nb", "c", 0).count("\n") == 10  # line breaks in names are folded
    assert [result_token(s) for s in (1, 0.5, 0)] == ["1-0", "1/2-1/2", "0-1"]
    with pytest.raises(ValueError):
        result_token(0.3)


MESSY = (
    "\ufeff[Event \"Real world\"]\r\n"
    "[White \"Engine A\"]\r\n"
    "[Black \"Engine B\"]\r\n"
    "[Result \"1-0\"]\r\n"
    "\r\n"
    "1. e4 {a comment with [White \"Fake\"] inside\r\n"
    "spanning lines} e5 ; rest of line [Black \"Fake\"]\r\n"
    "2. Nf3 (2. Bc4 {sideline} Nc6 (2... Nf6 3. d3) 3. Qh5) Nc6 $1 1-0\r\n"
    "% escaped line [White \"Nope\"]\r\n"
    "[Event \"no movetext\"][Site \"?\"]\r\n"
    "[White \"Engine B\"]\r\n[Black \"Engine C\"]\r\n[Result \"1/2-1/2\"]\r\n"
    "[Event \"unfinished\"]\r\n[White \"Engine C\"]\r\n[Black \"Engine A\"]\r\n"
    "[Result \"*\"]\r\n\r\n1. d4 *\r\n\r\n"
    "[Event \"last, no blank line before\"]\n[White \"Engine C\"]\n[Black \"Engine A\"]\n"
    "[Result \"0-1\"]\n1. d4 d5 0-1"
)


def test_messy_input(tmp_path: Path) -> None:
    path = write(tmp_path, MESSY)
    reader = PgnReader(path)
    assert list(reader) == [GameResult("Engine A", "Engine B", 1.0),
                            GameResult("Engine B", "Engine C", 0.5),
                            GameResult("Engine C", "Engine A", 0.0)]
    assert (reader.games, reader.skipped) == (3, 1)


def test_cr_only_latin1_and_games_without_blank_lines(tmp_path: Path) -> None:
    text = ('[White "Caf\xe9"]\r[Black "B"]\r[Result "0-1"]\r0-1\r'
            '[White "B"]\r[Black "Caf\xe9"]\r[Result "1-0"]\r').encode("latin-1")
    path = write(tmp_path, text)
    results = list(read_pgn_results(path))
    assert [r.score for r in results] == [0.0, 1.0]
    assert results[0].white.startswith("Caf") and results[0].black == "B"
    assert next(r.white for r in read_pgn_results(path, encoding="latin-1")) == "Caf\xe9"


@pytest.mark.parametrize(("text", "line", "message"), [
    ('[Event "x"]\n[Black "B"]\n[Result "1-0"]\n\n1-0\n', 1, "no White tag"),
    ('[White "A"]\n[Black "B"]\n[Result "1-0"]\n\n1-0\n\n[Event "y"]\n[White "A"]\n'
     '[Result "0-1"]\n\n0-1\n', 7, "no Black tag"),
    ('[White "A"]\n[Black "B"]\n\n1. e4 1-0\n', 1, "no Result tag"),
    ('[White "A"]\n[Black "B"]\n[Result "2-0"]\n', 1, "unknown result"),
    ('[White "A"]\n[Black "B"]\n[Result "1-0"]\n\n1-0\n\n[White "A"]\n[Black " A"]\n'
     '[Result "0-1"]\n\n0-1\n', 7, "White and Black are the same player"),
    ('[White "A"]\n[Black "B"]\n[Result "1-0"]\n1-0\n[White "A" [Black "B"]\n', 5,
     "unreadable tag pair"),
])
def test_errors_name_file_and_line(tmp_path: Path, text: str, line: int, message: str) -> None:
    path = write(tmp_path, text, name="bad.pgn")
    with pytest.raises(PgnError, match=message) as caught:
        list(read_pgn_results(path))
    assert str(caught.value).startswith(f"{path}:{line}: ")


def test_reading_streams(tmp_path: Path) -> None:
    path = tmp_path / "many.pgn"
    write_pgn_results(path, ((f"p{i % 7}", f"p{(i + 1) % 7}", (i % 3) / 2)
                             for i in range(5000)))
    results = read_pgn_results(path)
    assert isinstance(results, types.GeneratorType)
    assert next(results) == GameResult("p0", "p1", 0.0)
    table = ResultTable()
    table.add_results(results)  # consumed lazily, one game at a time
    assert table.games == 4999
    assert sum(1 for _ in PgnReader(path)) == 5000


def test_missing_file_raises_when_iterated(tmp_path: Path) -> None:
    results = read_pgn_results(tmp_path / "absent.pgn")
    with pytest.raises(FileNotFoundError):
        next(results)


def test_write_pgn_with_round_labels(tmp_path: Path) -> None:
    path = tmp_path / "r.pgn"
    write_pgn_results(path, [("a", "b", 1.0), ("b", "a", 0.5)], event="E", rounds=[3, 4])
    text = path.read_text(encoding="utf-8")
    assert '[Round "3"]' in text and '[Round "4"]' in text and '[Event "E"]' in text
    assert [r.score for r in read_pgn_results(path)] == [1.0, 0.5]


# -- the block reader of results-only files (``_plain_block``) against line by line -------
def line_by_line(path: Path) -> tuple[list[GameResult] | str, int, int]:
    """What the line-by-line reader alone makes of a file: its results (or its error) and
    its counts of games and skipped games."""
    reader = PgnReader(path)
    results: list[GameResult] = []
    try:
        with open(path, encoding="utf-8-sig", errors="replace") as handle:
            results.extend(reader._parse(handle))
    except PgnError as exc:
        return str(exc), reader.games, reader.skipped
    return results, reader.games, reader.skipped


def both_ways(path: Path) -> tuple[list[GameResult] | str, int, int]:
    """What ``PgnReader`` makes of a file (blocks first): results or error, and counts."""
    reader = PgnReader(path)
    results: list[GameResult] = []
    try:
        results.extend(reader)
    except PgnError as exc:
        return str(exc), reader.games, reader.skipped
    return results, reader.games, reader.skipped


VALUES = ["A", "B", " C ", "", "1-0", "0-1", "1/2-1/2", "*", "?", "1 - 0", "2-0", 'q\\"x']
TAGS = st.tuples(st.sampled_from(["Event", "Event", "Site", "White", "Black", "Result"]),
                 st.sampled_from(VALUES)).map(lambda tag: f'[{tag[0]} "{tag[1]}"]')
OTHER = st.sampled_from(["", "1. e4", "{note}", "% x", '[White "A"] [Black "B"]', "1-0 ", "  ",
                         '[Site  "x"]', "1-0"])
GAME = st.tuples(
    st.permutations(["White", "Black", "Result"]), st.lists(st.sampled_from(VALUES), min_size=3,
                                                            max_size=3),
    st.lists(TAGS, max_size=2), st.one_of(st.just([]), st.lists(OTHER, max_size=2)),
    st.sampled_from(["1-0", "0-1", "1/2-1/2", "*", ""])).map(
    lambda g: "\n".join([*(f'[{n} "{v}"]' for n, v in zip(g[0], g[1], strict=True)), *g[2],
                          "", *g[3], g[4]]))
PLAIN = [f'[Event "e"]\n[White "P{i % 5}"]\n[Black "P{i % 3}"]\n[Result "{r}"]\n\n{r}\n'
         for i, r in enumerate(["1-0", "0-1", "1/2-1/2", "*"])]


@settings(max_examples=300)
@given(st.lists(GAME, max_size=6), st.sampled_from([16, 64, 1 << 20]), st.booleans())
def test_blocks_read_as_line_by_line(tmp_path_factory: pytest.TempPathFactory,
                                     games: list[str], block: int, newline: bool) -> None:
    # games with the three tags in any order, other tags, values that are wrong or odd, other
    # lines, with or without a result line, after plain games, in blocks of every size: the
    # results, the error and the counts are the line-by-line reader's
    text = "\n".join(PLAIN + games + PLAIN)
    path = tmp_path_factory.mktemp("pgn") / "g.pgn"
    path.write_text(text + ("\n" if newline else ""), encoding="utf-8")
    with mock.patch.object(pgn, "_BLOCK", block):
        assert both_ways(path) == line_by_line(path)


def test_plain_files_are_read_in_blocks_with_the_same_lines_in_errors(tmp_path: Path) -> None:
    good = "".join(format_game(f"p{i % 7}", f"q{i % 5}", (i % 3) / 2, round_label=i)
                   for i in range(300))
    bad = '[White "x"]\n[Result "1-0"]\n\n1-0\n\n'  # no Black tag
    path = write(tmp_path, good + bad + good)
    with mock.patch.object(pgn, "_BLOCK", 1000), \
            mock.patch.object(PgnReader, "_parse", autospec=True,
                              side_effect=PgnReader._parse) as parse:
        with pytest.raises(PgnError, match="game has no Black tag") as caught:
            list(read_pgn_results(path))
        # the plain blocks before the bad game were read without the line-by-line reader
        assert parse.call_count == 1 and parse.call_args.args[2] > 1000
    assert str(caught.value) == f"{path}:{300 * 10 + 1}: game has no Black tag"
    path = write(tmp_path, good + "1. e4 {a move} 1-0\n" + good)
    assert both_ways(path) == line_by_line(path)
    results = both_ways(path)[0]
    assert isinstance(results, list) and len(results) == 600
    assert results[:3] == [GameResult("p0", "q0", 0.0), GameResult("p1", "q1", 0.5),
                           GameResult("p2", "q2", 1.0)]
