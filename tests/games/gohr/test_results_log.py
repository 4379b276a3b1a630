"""The captive server's results file, byte for byte in both formats."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from referee.core.errors import ConfigError
from referee.games.gohr.results_log import EpisodeResult, ResultsLog, java_double


def test_compact_format_as_the_manual_shows_it(tmp_path: Path) -> None:
    path = tmp_path / "results.csv"
    log = ResultsLog(path, nickname="RandomTest", rule_name="alternateShape2Bucket_color2Bucket",
                     run=0)
    log.add(EpisodeResult(pieces=9, attempts=47, accepted=9, cleared=True))
    log.add(EpisodeResult(pieces=9, attempts=36, accepted=9, cleared=True))
    log.close()
    log = ResultsLog(path, nickname="RandomTest", rule_name="alternateShape2Bucket_color2Bucket",
                     run=1)
    log.add(EpisodeResult(pieces=9, attempts=31, accepted=9, cleared=True))
    log.close()
    assert path.read_text() == (
        "#.nickname,rule_name,trial_id\n"
        "#number_of_moves,number_of_errors,if_clear\n"
        ".RandomTest,alternateShape2Bucket_color2Bucket,0\n"
        "47,38,1\n"
        "36,27,1\n"
        ".RandomTest,alternateShape2Bucket_color2Bucket,1\n"
        "31,22,1\n")


def test_long_format_as_the_manual_shows_it(tmp_path: Path) -> None:
    path = tmp_path / "sample.csv"
    log = ResultsLog(path, nickname="JohnDoe", rule_name="colOrd_nearby", run=1, fmt="long")
    for attempts, accepted, cleared in ((0, 0, False), (9, 9, True), (2, 1, False),
                                        (29, 9, True)):
        log.add(EpisodeResult(9, attempts, accepted, cleared))
    log.close()
    assert path.read_text().splitlines() == [
        "#nickname,rule_name,trial_id,board_id,number_of_pieces,number_of_moves,move_acc,"
        "if_clear",
        "JohnDoe,colOrd_nearby,1,0,9,0,0.0,0",
        "JohnDoe,colOrd_nearby,1,1,9,9,1.0,1",
        "JohnDoe,colOrd_nearby,1,2,9,2,0.5,0",
        "JohnDoe,colOrd_nearby,1,3,9,29,0.3103448275862069,1",
    ]


def test_starting_afresh_replaces_the_file_and_a_session_without_episodes_writes_no_run(
        tmp_path: Path) -> None:
    path = tmp_path / "r.csv"
    path.write_text("old\n")
    ResultsLog(path, nickname="n", rule_name="r", run=0, append=False).close()
    assert path.read_text() == ("#.nickname,rule_name,trial_id\n"
                                "#number_of_moves,number_of_errors,if_clear\n")


def test_lines_are_on_disk_at_once(tmp_path: Path) -> None:
    path = tmp_path / "r.csv"
    log = ResultsLog(path, nickname="n", rule_name="r", run=2)
    log.add(EpisodeResult(3, 5, 3, True))
    assert path.read_text().splitlines()[-2:] == [".n,r,2", "5,2,1"]  # before close
    log.close()


def test_an_unwritable_file_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "dir").mkdir()
    with pytest.raises(ConfigError, match="cannot write the results file"):
        ResultsLog(tmp_path / "dir", nickname="n", rule_name="r", run=0)


@pytest.mark.parametrize(("value", "text"), [
    (1.0, "1.0"), (0.0, "0.0"), (0.5, "0.5"), (9 / 29, "0.3103448275862069"),
    (0.001, "0.001"), (0.0005, "5.0E-4"), (1 / 1024, "9.765625E-4"), (5e-5, "5.0E-5"),
    (1e7, "1.0E7"), (12345678.9, "1.23456789E7"), (-0.25, "-0.25"), (-0.0005, "-5.0E-4"),
    (123.0, "123.0"),
])
def test_doubles_are_written_as_java_writes_them(value: float, text: str) -> None:
    assert java_double(value) == text


@given(st.integers(1, 10**6), st.integers(0, 10**6))
def test_accuracies_read_back_exactly(attempts: int, accepted: int) -> None:
    value = min(accepted, attempts) / attempts
    assert float(java_double(value)) == value
