"""Log replay (:mod:`referee.games.riichi.replay`) and the Tenhou JSON reader
(:mod:`referee.games.riichi.tenhou_json`): every stored real game (Tenhou mjlog and Tenhou
JSON) converted to mjai, written as a gzipped mjai log, read back and replayed through the
engine; the converter against hand-written events; logs of other mjai dialects; broken logs;
games of our own engine."""

from __future__ import annotations

import copy
import gzip
import json
import re
import shutil
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from referee.core.record import GameRecord
from referee.games.riichi.match import POLICIES, self_play
from referee.games.riichi.mjai import Event, MjaiError, read_mjai, write_mjai
from referee.games.riichi.replay import (
    LoadedLog,
    ReplayError,
    check_logs,
    detect_format,
    load_log,
    verify_file,
    verify_log,
)
from referee.games.riichi.rules import RiichiRules
from referee.games.riichi.tenhou_json import (
    TenhouJsonError,
    TenhouRule,
    code_name,
    parse_tenhou_json,
    read_tenhou_json,
)

DATA = Path(__file__).resolve().parents[2] / "data" / "riichi"
MJLOGS = sorted(DATA.glob("*.mjlog"))
TENHOU = sorted((DATA / "tenhou6").glob("*.json"))
REAL = MJLOGS + TENHOU

Log = list[dict[str, Any]]


@pytest.fixture(scope="module")
def mjai_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, LoadedLog]]:
    """Every stored real log read as mjai events and written as an mjai ``.json.gz``."""
    folder = tmp_path_factory.mktemp("mjai")
    out = {}
    for path in REAL:
        loaded = load_log(path)
        target = folder / f"{path.stem}.json.gz"
        assert write_mjai(target, loaded.events) == len(loaded.events)
        out[path.name] = (target, loaded)
    return out


def dicts(path: Path) -> Log:
    """The mjai events of a stored log as dicts (to tamper with)."""
    return [e.to_dict() for e in load_log(path).events]


def rules_of(path: Path) -> RiichiRules | None:
    return load_log(path).rules


def index_of(log: Log, test: Callable[[dict[str, Any]], bool], nth: int = 0) -> int:
    """The 0-based index of the ``nth`` event passing ``test``."""
    return [i for i, e in enumerate(log) if test(e)][nth]


# ------------------------------------------------------------------------------ stored data


def test_the_stored_tenhou_json_logs_are_documented() -> None:
    assert len(TENHOU) >= 10 and len(MJLOGS) >= 4
    text = (DATA / "tenhou6" / "SOURCE.md").read_text(encoding="utf-8")
    assert "Equim-chan/mjai-reviewer" in text and "Apache" in text
    for path in TENHOU:
        assert f"`{path.name}`" in text, path.name
    assert (DATA / "tenhou6" / "LICENSE-Apache-2.0.txt").is_file()


# ------------------------------------------------------------------------------ real games


@pytest.mark.parametrize("name", [p.name for p in REAL])
def test_every_real_log_replays_from_a_written_mjai_file(
        mjai_files: dict[str, tuple[Path, LoadedLog]], name: str) -> None:
    """Converted to mjai, written gzipped, read back: the very events, and a replay that
    matches them all, with the positions between kyoku and the recorded final results."""
    target, loaded = mjai_files[name]
    assert target.read_bytes()[:2] == b"\x1f\x8b"
    events = list(read_mjai(target))
    assert events == loaded.events
    report = verify_log(events, loaded.rules, source=str(target),
                        final_results=loaded.final_results, strict=True)
    kinds = [e.type for e in events]
    assert report.events == len(events)
    assert report.kyoku == kinds.count("start_kyoku") >= 1
    assert report.wins == kinds.count("hora")
    assert report.draws == kinds.count("ryukyoku")
    assert report.ended == ("end_game" in kinds)
    last = [e for e in events if e.type in ("hora", "ryukyoku")][-1]
    if report.ended:
        assert report.final is not None and loaded.final_results is not None
        assert [f.score for f in report.final] == list(loaded.final_results)
        assert list(report.scores) == events[-1].extra["scores"]
    elif report.final is None:  # neither the log nor the engine ended the game
        assert list(report.scores) == last.to_dict()["scores"]


@pytest.mark.parametrize("name", [p.name for p in REAL])
def test_a_written_mjai_file_verifies_alone(
        mjai_files: dict[str, tuple[Path, LoadedLog]], name: str) -> None:
    """Without the rules of the original format: red fives and the game length come from the
    mjai log itself."""
    target, loaded = mjai_files[name]
    assert detect_format(target) == "mjai"
    report = verify_file(target)
    assert loaded.rules is not None
    assert report.rules.red_fives == loaded.rules.red_fives
    if report.ended:
        assert report.rules.game_length == loaded.rules.game_length
    (line,) = [v.line() for v in check_logs([target])]
    assert line.startswith(f"OK {target} (mjai): {report.kyoku} kyoku")


def test_the_formats_are_told_by_content(tmp_path: Path) -> None:
    json_copy = tmp_path / "game.txt"
    json_copy.write_bytes((DATA / "tenhou6" / "ranked_game.json").read_bytes())
    xml_gz = tmp_path / "game.xml.gz"
    xml_gz.write_bytes(gzip.compress((DATA / "nm.mjlog").read_bytes()))
    pretty = tmp_path / "pretty.json"
    pretty.write_text(json.dumps(json.loads(json_copy.read_text(encoding="utf-8")), indent=2),
                      encoding="utf-8")
    assert [detect_format(p) for p in (json_copy, xml_gz, pretty)] == \
        ["tenhou-json", "mjlog", "tenhou-json"]
    lines = [v.line() for v in check_logs([json_copy, xml_gz, pretty])]
    assert [line.split()[0] for line in lines] == ["OK", "OK", "OK"]
    assert "3 kyoku (3 wins, 0 draws), game over" in lines[0]
    assert "(mjlog): 10 kyoku (7 wins, 3 draws), game over" in lines[1]


def test_a_log_may_start_and_stop_at_any_kyoku() -> None:
    """Kyoku 4 to 7 of a whole game, without start_game or end_game."""
    log = dicts(DATA / "kan4.mjlog")
    starts = [i for i, e in enumerate(log) if e["type"] == "start_kyoku"]
    excerpt = log[starts[3]:starts[7]]
    report = verify_log(excerpt, rules_of(DATA / "kan4.mjlog"))
    assert (report.kyoku, report.ended, report.final) == (4, False, None)
    assert list(report.scores) == log[starts[7]]["scores"]


# ------------------------------------------------------------------------------ Tenhou JSON

GOLDEN = """{"title":["",""],"name":["A","B","C","D"],"rule":{"disp":"般南喰赤","aka":1},
"log":[[[0,0,0],[25000,25000,25000,25000],[41],[35],
[11,12,13,51,24,25,26,37,38,39,32,32,29],[44,16],[60,"r29"],
[14,15,19,21,22,27,28,33,34,35,41,42,43],[47,17],[43,60],
[11,11,18,18,23,23,31,31,36,36,44,45,46],[],[],
[43,43,19,19,21,24,27,33,34,45,46,47,42],["43p4343"],[42],
["和了",[12600,-11600,0,0],[0,1,0,"30符4飜11600点","立直(1飜)","一発(1飜)","平和(1飜)",
"赤ドラ(1飜)","裏ドラ(0飜)"]]]]}"""
"""A hand made for the test: the dealer draws North and throws it (tsumogiri), seat 1
throws West from its hand, seat 3 pons it from across and throws South, the dealer declares
riichi with 9p and wins on seat 1's next tile, 7m (riichi, ippatsu, pinfu, the red 5m)."""

GOLDEN_EVENTS: Log = [
    {"type": "start_game", "names": ["A", "B", "C", "D"], "kyoku_first": 0, "aka_flag": True},
    {"type": "start_kyoku", "bakaze": "E", "dora_marker": "E", "kyoku": 1, "honba": 0,
     "kyotaku": 0, "oya": 0, "scores": [25000, 25000, 25000, 25000],
     "tehais": [["1m", "2m", "3m", "5mr", "4p", "5p", "6p", "7s", "8s", "9s", "2s", "2s", "9p"],
                ["4m", "5m", "9m", "1p", "2p", "7p", "8p", "3s", "4s", "5s", "E", "S", "W"],
                ["1m", "1m", "8m", "8m", "3p", "3p", "1s", "1s", "6s", "6s", "N", "P", "F"],
                ["W", "W", "9m", "9m", "1p", "4p", "7p", "3s", "4s", "P", "F", "C", "S"]]},
    {"type": "tsumo", "actor": 0, "pai": "N"},
    {"type": "dahai", "actor": 0, "pai": "N", "tsumogiri": True},
    {"type": "tsumo", "actor": 1, "pai": "C"},
    {"type": "dahai", "actor": 1, "pai": "W", "tsumogiri": False},
    {"type": "pon", "actor": 3, "target": 1, "pai": "W", "consumed": ["W", "W"]},
    {"type": "dahai", "actor": 3, "pai": "S", "tsumogiri": False},
    {"type": "tsumo", "actor": 0, "pai": "6m"},
    {"type": "reach", "actor": 0},
    {"type": "dahai", "actor": 0, "pai": "9p", "tsumogiri": False},
    {"type": "reach_accepted", "actor": 0, "deltas": [-1000, 0, 0, 0],
     "scores": [24000, 25000, 25000, 25000]},
    {"type": "tsumo", "actor": 1, "pai": "7m"},
    {"type": "dahai", "actor": 1, "pai": "7m", "tsumogiri": True},
    {"type": "hora", "actor": 0, "target": 1, "pai": "7m", "deltas": [12600, -11600, 0, 0],
     "ura_markers": ["5s"], "yakus": [["立直", 1], ["一発", 1], ["平和", 1], ["赤ドラ", 1],
                                      ["裏ドラ", 0]],
     "fu": 30, "fan": 4, "hora_points": 11600, "scores": [36600, 13400, 25000, 25000]},
    {"type": "end_kyoku"},
]


def test_the_tenhou_json_converter_gives_the_hand_written_events() -> None:
    log = parse_tenhou_json(GOLDEN, source="golden")
    assert log.names == ("A", "B", "C", "D") and log.final_scores is None
    assert log.rule.riichi_rules() == RiichiRules()
    assert [e.to_dict() for e in log.events()] == GOLDEN_EVENTS
    report = verify_log(log.events(), strict=True)
    assert (report.kyoku, report.wins, report.scores) == (1, 1, (36600, 13400, 25000, 25000))


def test_tenhou_json_rules_tiles_and_final_scores() -> None:
    assert [code_name(c) for c in (11, 19, 25, 39, 41, 47, 51, 52, 53)] == \
        ["1m", "9m", "5p", "9s", "E", "C", "5mr", "5pr", "5sr"]
    for bad in (0, 10, 20, 48, 54, 60):
        with pytest.raises(ValueError):
            code_name(bad)
    game = read_tenhou_json(DATA / "tenhou6" / "suukantsu_1.json")
    assert (game.rule.hanchan, game.rule.red_fives, game.rule.open_tanyao) == (False, True, True)
    assert game.final_scores == (38000, 29000, -24000, 57000)
    assert game.final_results == (18.0, -11.0, -74.0, 67.0)
    assert game.events()[-1].to_dict() == {"type": "end_game",
                                           "scores": [38000, 29000, -24000, 57000]}
    assert parse_tenhou_json('{"log": [], "rule": {"disp": "般東", "aka": 0}}').rule == \
        TenhouRule(disp="般東", red_fives=False, hanchan=False, open_tanyao=False)
    hundreds = json.loads(GOLDEN)
    hundreds["sc"] = [366, 56.6, 134, -36.6, 250, 5, 250, -25]
    assert parse_tenhou_json(hundreds).final_scores == (36600, 13400, 25000, 25000)


def test_kan_dora_in_tenhou_order() -> None:
    """Closed kan: its dora at once; open and added kans: before the next discard, or when
    the next kan stands (suukantsu_0: open kan, added kan, closed kan, added kan)."""
    events = [e.to_dict() for e in read_tenhou_json(DATA / "tenhou6" / "suukantsu_0.json")
              .events()]
    around = [(events[i - 1]["type"], events[i + 1]["type"])
              for i, e in enumerate(events) if e["type"] == "dora"]
    assert around == [("kakan", "tsumo"), ("tsumo", "ankan"), ("ankan", "tsumo"),
                      ("tsumo", "dahai")]


@pytest.mark.parametrize(("change", "problem"), [
    (lambda k: k[5].__setitem__(0, "c9999"), "the takes of seat 0, item 0: 99 is not a tile"),
    (lambda k: k[5].__setitem__(0, "x12"), "'x12' is not a call"),
    (lambda k: k[4].pop(), "the hand of seat 0 has 12 tiles"),
    (lambda k: k[6].pop(), "the takes and discards do not make a game"),
    (lambda k: k[9].__setitem__(0, 42), "the takes and discards do not make a game"),
    (lambda k: k[6].__setitem__(0, 47), "seat 0 gives out C, which it does not hold"),
    (lambda k: k[14].__setitem__(0, "43p4444"), "'43p4444' mixes tile kinds"),
    (lambda k: k[16].__setitem__(0, "ドロー"), "unknown result 'ドロー'"),
    (lambda k: k[16][2].__setitem__(1, 2), "seat 2 did not give out the last tile"),
    (lambda k: k[2].clear(), "no dora indicator"),
])
def test_broken_tenhou_json_names_the_file_and_the_kyoku(
        tmp_path: Path, change: Callable[[list[Any]], None], problem: str) -> None:
    data = json.loads(GOLDEN)
    change(data["log"][0])
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    with pytest.raises(TenhouJsonError) as info:
        read_tenhou_json(path).events()
    assert str(info.value).startswith(f"{path}, log[0] (E1-0): ")
    assert problem in str(info.value)
    assert info.value.kyoku == 0


def test_a_file_that_is_not_tenhou_json(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_text('{"log": [1, 2', encoding="utf-8")
    with pytest.raises(TenhouJsonError, match="malformed JSON"):
        read_tenhou_json(path)
    with pytest.raises(TenhouJsonError, match="no 'log' list"):
        parse_tenhou_json("{}")


# ------------------------------------------------------------------------------ dialects


def mortal_like(log: Log) -> Log:
    """The fields Mortal's and mjai-reviewer's logs leave out taken away (hora without pai,
    fu, fan and scores; ryukyoku without reason; reach_accepted bare), and each kan's dora
    moved after the next discard, where mjai-reviewer puts it."""
    out: Log = []
    held: list[dict[str, Any]] = []
    for event in copy.deepcopy(log):
        kind = event["type"]
        if kind == "dora":
            held.append(event)
            continue
        if kind == "end_kyoku":
            out.extend(held)
            held = []
        for key in ("pai", "fu", "fan", "scores") if kind == "hora" else \
                ("reason", "scores") if kind == "ryukyoku" else \
                ("deltas", "scores") if kind == "reach_accepted" else ():
            event.pop(key, None)
        out.append(event)
        if kind in ("dahai", "ankan"):
            out.extend(held)
            held = []
    return out


@pytest.mark.parametrize("name", ["suukantsu_0.json", "suukantsu_1.json", "rinshan.json",
                                  "double_ron.json", "kyushukyuhai.json", "four_reach.json"])
def test_other_mjai_dialects_verify(name: str) -> None:
    path = DATA / "tenhou6" / name
    original = dicts(path)
    log = mortal_like(original)
    assert len(log) == len(original) and log != original
    report = verify_log(log, rules_of(path))
    assert report == verify_log(original, rules_of(path))
    if any(e["type"] == "dora" for e in log):
        with pytest.raises(ReplayError, match="the engine first reveals a dora indicator"):
            verify_log(log, rules_of(path), strict=True)


# ------------------------------------------------------------------------------ broken logs


def test_a_tampered_delta_is_named() -> None:
    path = DATA / "tenhou6" / "double_ron.json"
    log = dicts(path)
    second = index_of(log, lambda e: e["type"] == "hora", 1)
    log[second]["deltas"] = [0, 0, 3000, -3000]
    with pytest.raises(ReplayError) as info:
        verify_log(log, rules_of(path), source="tampered")
    error = info.value
    assert error.index == second + 1
    assert str(error).startswith(f"tampered, event {second + 1}: hora: deltas is "
                                 "[0,0,3000,-3000] in the log, [0,0,2000,-2000] in the engine")
    assert error.logged == log[second] and error.engine["deltas"] == [0, 0, 2000, -2000]


def test_a_tampered_score_and_position_are_named() -> None:
    path = DATA / "nm.mjlog"
    log = dicts(path)
    third = index_of(log, lambda e: e["type"] == "start_kyoku", 2)
    changed = copy.deepcopy(log)
    changed[third]["honba"] += 1
    with pytest.raises(ReplayError, match=f"event {third + 1}: start_kyoku: honba is"):
        verify_log(changed, rules_of(path))
    changed = copy.deepcopy(log)
    accepted = index_of(log, lambda e: e["type"] == "reach_accepted")
    changed[accepted]["scores"][0] += 100
    with pytest.raises(ReplayError, match=f"event {accepted + 1}: reach_accepted: scores"):
        verify_log(changed, rules_of(path))
    changed = copy.deepcopy(log)
    changed[-1]["scores"][0] += 100
    with pytest.raises(ReplayError, match=f"event {len(log)}: end_game: the final points"):
        verify_log(changed, rules_of(path))
    with pytest.raises(ReplayError, match="end_game: the final results are"):
        verify_log(log, rules_of(path), final_results=[0.0, 0.0, 0.0, 0.0])


def test_an_illegal_action_is_named_with_the_legal_ones() -> None:
    path = DATA / "tenhou6" / "ranked_game.json"
    log = dicts(path)
    first = index_of(log, lambda e: e["type"] == "dahai" and not e["tsumogiri"])
    actor = log[first]["actor"]
    held = log[1]["tehais"][actor] + [e["pai"] for e in log[:first]
                                      if e["type"] == "tsumo" and e["actor"] == actor]
    missing = next(n for n in ("1m", "9p", "E", "C", "7s") if n not in held)
    changed = copy.deepcopy(log)
    changed[first]["pai"] = missing
    with pytest.raises(ReplayError) as info:
        verify_log(changed, rules_of(path))
    assert info.value.index == first + 1
    assert f"illegal dahai of seat {log[first]['actor']}: {missing} is not in the hand" \
        in str(info.value)
    assert {"type": "dahai", "actor": log[first]["actor"], "pai": log[first]["pai"],
            "tsumogiri": False} in info.value.engine["legal"]
    # a ron nobody could make: seat 1 claims seat 0's first discard
    changed = copy.deepcopy(log)
    discard = index_of(log, lambda e: e["type"] == "dahai")
    changed.insert(discard + 1, {"type": "hora", "actor": 1, "target": 0,
                                 "pai": log[discard]["pai"]})
    with pytest.raises(ReplayError, match=f"event {discard + 2}: illegal hora of seat 1"):
        verify_log(changed, rules_of(path))
    # an action out of turn
    changed = copy.deepcopy(log)
    tsumo = index_of(log, lambda e: e["type"] == "tsumo" and log[log.index(e) + 1]["type"]
                     == "dahai", 3)
    changed[tsumo + 1]["actor"] = (changed[tsumo + 1]["actor"] + 1) % 4
    with pytest.raises(ReplayError, match=f"event {tsumo + 2}: the engine waits for seat"):
        verify_log(changed, rules_of(path))


def test_missing_and_extra_events_are_named() -> None:
    path = DATA / "tenhou6" / "rinshan.json"
    log = dicts(path)
    accepted = index_of(log, lambda e: e["type"] == "reach_accepted")
    with pytest.raises(ReplayError, match=f"event {accepted + 1}: the log has tsumo, the "
                                          "engine reach_accepted"):
        verify_log(log[:accepted] + log[accepted + 1:], rules_of(path))
    dora = index_of(log, lambda e: e["type"] == "dora")
    ankan = index_of(log, lambda e: e["type"] == "ankan")
    with pytest.raises(ReplayError, match=f"event {ankan + 1}: the log lacks a tile the "
                                          "engine needs here"):
        verify_log(log[:dora] + log[dora + 1:], rules_of(path))
    extra = copy.deepcopy(log)
    extra.insert(3, {"type": "dora", "dora_marker": "1m"})
    with pytest.raises(ReplayError, match="event 4: a dora indicator with no kan before it"):
        verify_log(extra, rules_of(path))
    extra = copy.deepcopy(log)
    extra.append({"type": "tsumo", "actor": 0, "pai": "1m"})
    with pytest.raises(ReplayError, match=f"event {len(log) + 1}: the engine's kyoku"):
        verify_log(extra, rules_of(path))


def test_wrong_tile_names_and_tiles() -> None:
    path = DATA / "tenhou6" / "chankan.json"
    log = dicts(path)
    changed = copy.deepcopy(log)
    changed[2]["pai"] = "0m"
    with pytest.raises(ReplayError, match="event 3: tsumo: field 'pai': '0m' is not an mjai"):
        verify_log(changed, rules_of(path))
    changed[2]["pai"] = "?"
    with pytest.raises(ReplayError, match="event 3: a hidden tile"):
        verify_log(changed, rules_of(path))
    changed = copy.deepcopy(log)
    changed[1]["tehais"][1][:5] = ["C"] * 5
    with pytest.raises(ReplayError, match="event 2: one C too many in this kyoku"):
        verify_log(changed, rules_of(path))
    changed[1]["tehais"][1][:5] = ["5m"] * 4 + ["1m"]
    with pytest.raises(ReplayError, match=r"event 2: one 5m too many in this kyoku: four "
                                          r"of a kind is all there is \(three plain ones"):
        verify_log(changed, rules_of(path))
    plain = replace(rules_of(path) or RiichiRules(), red_fives=False)
    for event in changed:  # the same game without red fives: a fifth 5m
        for key in ("tehais", "pai", "dora_marker"):
            if key == "tehais" and key in event:
                event[key] = [[n.rstrip("r") for n in hand] for hand in event[key]]
            elif isinstance(event.get(key), str):
                event[key] = event[key].rstrip("r")
        if "consumed" in event:
            event["consumed"] = [n.rstrip("r") for n in event["consumed"]]
    changed[1]["tehais"][1][:5] = ["5m"] * 5
    with pytest.raises(ReplayError, match="event 2: a fifth 5m in this kyoku"):
        verify_log(changed, plain)


def test_broken_files(tmp_path: Path, mjai_files: dict[str, tuple[Path, LoadedLog]]) -> None:
    good, _ = mjai_files["ranked_game.json"]
    lines = gzip.decompress(good.read_bytes()).decode("utf-8").splitlines()
    wrong = tmp_path / "wrong_tile.json"
    lines_wrong = list(lines)
    lines_wrong[4] = lines_wrong[4].replace('"pai":"', '"pai":"x', 1)
    wrong.write_text("\n".join(lines_wrong) + "\n", encoding="utf-8")
    with pytest.raises(MjaiError, match=f"{wrong}, line 5: .* is not an mjai tile name"):
        verify_file(wrong)
    truncated = tmp_path / "truncated.json.gz"
    data = good.read_bytes()
    truncated.write_bytes(data[: len(data) // 2])
    with pytest.raises(MjaiError, match=rf"{truncated}, line \d+: cannot read the file"):
        verify_file(truncated)
    cut = tmp_path / "cut.json"
    cut.write_text("\n".join(lines[:40]) + "\n", encoding="utf-8")
    assert verify_file(cut).cut == ("inside E1, 0 honba, after event 40 (dahai): the "
                                    "engine's next tile is not in the log")
    paths = [good, wrong, truncated, cut, tmp_path / "absent.json"]
    report = [v.line() for v in check_logs(paths)]
    assert [line.split()[0] for line in report] == ["OK", "FAIL", "FAIL", "OK", "FAIL"]
    assert "the log ends inside E1, 0 honba, after event 40 (dahai)" in report[3]


def _cut_mjlog(tmp_path: Path, name: str, element: int, change: tuple[str, str] | None = None
               ) -> Path:
    """A real mjlog cut after its ``element``-th element (from 0, inside a kyoku) and
    closed there, as a crashed or live game's log is, ``change`` made in what is left."""
    text = (DATA / name).read_text(encoding="utf-8")
    tags = [i for i in range(len(text)) if text.startswith("/>", i)]
    kept = text[:tags[element] + 2]
    if change is not None:
        assert kept.count(change[0]) == 1, change
        kept = kept.replace(*change)
    path = tmp_path / f"cut-{element}.mjlog"
    path.write_text(kept + "</mjloggm>", encoding="utf-8")
    return path


def test_a_log_cut_inside_a_kyoku_is_replayed_up_to_the_cut(tmp_path: Path) -> None:
    """A log that ends inside a kyoku (a crashed or live game) is checked up to the cut:
    the first illegal event is named (it was hidden behind "the log ends inside a kyoku"),
    else the verdict says where it ends."""
    log = dicts(DATA / "nm.mjlog")
    starts = [i for i, e in enumerate(log) if e["type"] == "start_kyoku"]
    inside = next(i for i in range(starts[2] + 20, starts[3]) if log[i]["type"] == "dahai")
    report = verify_log(log[:inside + 1], rules_of(DATA / "nm.mjlog"))
    assert report.kyoku == 3 and not report.ended and report.final is None
    assert report.cut is not None and report.cut.startswith(
        f"inside {log[starts[2]]['bakaze']}{log[starts[2]]['kyoku']}, "
        f"{log[starts[2]]['honba']} honba, after event {inside + 1} (dahai)")
    assert f"the log ends {report.cut}" in report.summary()
    # a kyoku without its end that the next kyoku follows is no cut
    ends = [i for i in range(starts[2], starts[3]) if log[i]["type"] in ("hora", "ryukyoku")]
    with pytest.raises(ReplayError, match=f"event {starts[3] + 1 - len(ends) - 1}: the kyoku "
                                          "has no end .* before the log's start_kyoku"):
        verify_log([e for i, e in enumerate(log) if i not in ends and i != starts[3] - 1],
                   rules_of(DATA / "nm.mjlog"))
    # the same on a real mjlog file cut inside its first kyoku, legal and with a discard
    # of a tile the seat does not hold
    text = (DATA / "nm.mjlog").read_text(encoding="utf-8")
    first = text.index("<INIT")
    discards = [m for m in re.finditer(r"<([DEFG])(\d+)/>", text) if m.start() > first]
    element = text[:discards[6].end()].count("/>") - 1  # cut after the 7th discard
    legal = _cut_mjlog(tmp_path, "nm.mjlog", element)
    verdict = check_logs([legal])[0].line()
    assert verdict.startswith(f"OK {legal} (mjlog): 1 kyoku (0 wins, 0 draws), the log ends "
                              "inside E1, 0 honba, after event "), verdict
    wrong = discards[3]  # the 4th discard: a tile of a kind its seat does not hold
    seat = "DEFG".index(wrong.group(1))
    dealt = re.search(rf'hai{seat}="([\d,]+)"', text[first:])
    assert dealt is not None
    held = {int(t) // 4 for t in dealt.group(1).split(",")}
    other = next(t for t in range(136) if t // 4 not in held and t % 4 == 3)
    bad = _cut_mjlog(tmp_path, "nm.mjlog", element,
                     (wrong.group(0), f"<{wrong.group(1)}{other}/>"))
    number = [i for i, e in enumerate(load_log(bad).events, 1) if e.type == "dahai"][3]
    verdict = check_logs([bad])[0].line()
    assert verdict.startswith(f"FAIL {bad}: {bad}, event {number}: illegal dahai of seat "
                              f"{seat}: "), verdict
    assert "not in the hand" in verdict and "ends inside" not in verdict


# ------------------------------------------------------------------------------ our games


@pytest.mark.parametrize("rules", [
    RiichiRules(), RiichiRules(game_length="east"), RiichiRules(red_fives=False),
    RiichiRules.mahjong_soul()], ids=["tenhou", "east", "no-red", "mahjong-soul"])
def test_games_of_our_engine_verify(tmp_path: Path, rules: RiichiRules) -> None:
    policies = [POLICIES["greedy"], POLICIES["tsumogiri"], POLICIES["greedy"],
                POLICIES["greedy"]]
    game = self_play(policies, rules, seed=7).game
    report = verify_log(game.events, rules, strict=True)
    assert report.ended and report.final == tuple(game.final_scores())
    assert report.kyoku == len(game.results)
    path = tmp_path / "own.json.gz"
    write_mjai(path, [_event(e) for e in game.events])
    assert verify_file(path, rules).final == report.final
    if rules in (RiichiRules(), RiichiRules(red_fives=False)):  # the rules guessed
        assert verify_file(path).final == report.final


def _event(obj: dict[str, Any]) -> Event:
    from referee.games.riichi.mjai import event_from_dict

    return event_from_dict(obj)


def test_a_game_of_our_engine_with_an_event_left_out_fails() -> None:
    rules = RiichiRules()
    game = self_play([POLICIES["greedy"]] * 4, rules, seed=3).game
    i = index_of(game.events, lambda e: e["type"] == "dahai", 30)
    log = game.events[:i] + game.events[i + 1:]
    with pytest.raises(ReplayError, match=f"event {i + 1}: the engine waits for seat "
                                          f"{game.events[i]['actor']} to act"):
        verify_log(log, rules)


def test_the_replay_command_checks_files_and_fails_on_a_broken_one(tmp_path: Path) -> None:
    import subprocess
    import sys

    events = dicts(DATA / "nm.mjlog")
    hora = next(i for i, e in enumerate(events) if e["type"] == "hora")
    events[hora]["deltas"] = [d + (100 if s == 0 else -100 if s == 1 else 0)
                              for s, d in enumerate(events[hora]["deltas"])]
    broken = tmp_path / "broken.json"
    broken.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    referee = [sys.executable, "-m", "referee.cli", "replay", "riichi"]
    good = subprocess.run([*referee, str(DATA / "nm.mjlog")], capture_output=True, text=True,
                          timeout=60)
    assert good.returncode == 0 and good.stdout.startswith("OK ") and "game over" in good.stdout
    run = subprocess.run([*referee, str(DATA / "yao9.mjlog"), str(broken)],
                         capture_output=True, text=True, timeout=60)
    lines = run.stdout.splitlines()
    assert run.returncode == 1 and lines[0].startswith("OK ")
    assert lines[1].startswith(f"FAIL {broken}") and f"event {hora + 1}" in lines[1]
    east = subprocess.run([*referee, "--game", "east", str(DATA / "nm.mjlog")],
                          capture_output=True, text=True, timeout=60)
    assert east.returncode == 1 and east.stdout.startswith("FAIL")  # a south game, as east
    bad = subprocess.run([*referee, "--room", "palace", str(DATA / "nm.mjlog")],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "--room" in bad.stderr and "palace" in bad.stderr
    assert "Traceback" not in bad.stderr


def test_materialized_events_follow_their_objects_not_their_ids() -> None:
    """Events made on the fly are freed as they go, so ids come back: each dict must still
    be its own event's, while one event object met twice gives one dict."""
    from referee.games.riichi.mjai import Tsumo
    from referee.games.riichi.replay import _materialize

    names = ["1m", "2p", "3s", "E", "5mr", "9p"]
    made = _materialize((Tsumo(actor=i % 4, pai=names[i % 6]) for i in range(500)), None)
    assert made == [{"type": "tsumo", "actor": i % 4, "pai": names[i % 6]}
                    for i in range(500)]
    shared = Tsumo(actor=1, pai="C")
    twice = _materialize([shared, shared], None)
    assert twice[0] is twice[1] and twice[0] == {"type": "tsumo", "actor": 1, "pai": "C"}


def test_a_dealers_first_discard_is_accepted_without_its_tsumogiri_flag() -> None:
    """Mahjong Soul deals the dealer 14 tiles, so its first discard is never marked
    tsumogiri: every kyoku's first discard written so (as converters of its logs do)."""
    events = dicts(DATA / "yao9.mjlog")
    starts = [i for i, e in enumerate(events) if e["type"] == "start_kyoku"]
    unflagged = 0
    for i in starts:
        first = next(j for j in range(i, len(events)) if events[j]["type"] == "dahai")
        if events[first]["tsumogiri"]:
            events[first]["tsumogiri"] = False
            unflagged += 1
    assert unflagged == 2
    assert verify_log(events, rules_of(DATA / "yao9.mjlog")).ended
    later = next(j for j in range(starts[3], len(events)) if events[j]["type"] == "dahai"
                 and events[j]["tsumogiri"] and j > starts[3] + 4)
    events[later]["tsumogiri"] = False
    with pytest.raises(ReplayError, match="tsumogiri"):
        verify_log(events, rules_of(DATA / "yao9.mjlog"))


# --- the value and the yaku of each win ---------------------------------------------------

def test_every_win_of_the_real_logs_carries_its_points_and_yaku() -> None:
    wins = [e for path in REAL for e in dicts(path) if e["type"] == "hora"]
    assert len(wins) > 40
    assert all(isinstance(e.get("hora_points"), int) and e["hora_points"] > 0 for e in wins)
    assert all(e.get("yakus") for e in wins)


@pytest.mark.parametrize("name", ["nm.mjlog", "double_ron.json"])
def test_a_tampered_point_value_is_named(name: str) -> None:
    path = next(p for p in REAL if p.name == name)
    events = dicts(path)
    hora = index_of(events, lambda e: e["type"] == "hora")
    events[hora]["hora_points"] += 100
    with pytest.raises(ReplayError, match=f"event {hora + 1}: hora: hora_points is"):
        verify_log(events, rules_of(path))


def test_a_tampered_yaku_is_named() -> None:
    """The yaku are compared by identity: a riichi renamed tanyao (same han) fails."""
    path = DATA / "nm.mjlog"
    events = dicts(path)
    hora = index_of(events, lambda e: e["type"] == "hora"
                    and any(name == "riichi" for name, _ in e.get("yakus", [])))
    yakus = events[hora]["yakus"]
    assert not any(name == "tanyao" for name, _ in yakus)
    events[hora]["yakus"] = [["tanyao" if n == "riichi" else n, h] for n, h in yakus]
    with pytest.raises(ReplayError, match=f"event {hora + 1}: hora: the yaku are"):
        verify_log(events, rules_of(path))


def test_yaku_named_as_the_original_mjai_names_them() -> None:
    """gimite/mjai's names: one ``sangenpai`` for the dragons, ``jikaze`` / ``bakaze`` for
    the winds, ``dora`` counts ignored."""
    from referee.games.riichi.yaku import same_yaku, tenhou_detail, yaku_key

    engine = [["Riichi", 1], ["Menzen Tsumo", 1], ["Yakuhai (haku)", 1],
              ["Yakuhai (seat wind east)", 1], ["Dora", 2]]
    assert same_yaku([["reach", 1], ["menzenchin_tsumoho", 1], ["sangenpai", 1],
                      ["jikaze", 1]], engine)
    assert same_yaku([["立直", 1], ["門前清自摸和", 1], ["役牌 白", 1], ["自風 東", 1],
                      ["ドラ", 2]], engine)
    assert not same_yaku([["立直", 1], ["門前清自摸和", 1], ["役牌 中", 1], ["自風 東", 1]],
                         engine)
    assert not same_yaku([["reach", 1], ["menzenchin_tsumoho", 1], ["sangenpai", 1]], engine)
    assert not same_yaku([["reach", 1], ["a yaku nobody knows", 1]], [["Riichi", 1]])
    assert yaku_key("suanko") == "suanko" and yaku_key("Suu Ankou Tanki") == 41
    assert tenhou_detail(["30符4飜3900点∀", "立直(1飜)", "ドラ(3飜)"]) \
        == (30, 4, 11700, [("立直", 1), ("ドラ", 3)])
    assert tenhou_detail(["満貫2000-4000点", "四槓子(役満)"])[1:3] == (13, 8000)


def test_the_referees_own_match_record_is_checked_through_its_mjai_log(
        tmp_path: Path) -> None:
    import subprocess
    import sys

    out = tmp_path / "out"
    played = subprocess.run(
        [sys.executable, "-m", "referee.cli", "match", "riichi", "tsumogiri", "tsumogiri",
         "tsumogiri", "tsumogiri", "--game", "east", "--seed", "4", "--out", str(out)],
        capture_output=True, text=True, timeout=120)
    assert played.returncode == 0, played.stderr
    record = out / "game-001.json"
    (verdict,) = check_logs([record])
    assert verdict.ok, verdict.line()
    assert verdict.line().startswith(
        f"OK {record} (match record, its mjai log game-001.mjson.gz): ")
    compact = tmp_path / "compact.json"  # one line, as a tournament's site offers it
    compact.write_text(GameRecord.read(record).to_compact_json(), encoding="utf-8")
    shutil.copy(out / "game-001.mjson.gz", tmp_path / "compact.mjson.gz")
    (verdict,) = check_logs([compact])
    assert verdict.line().startswith(
        f"OK {compact} (match record, its mjai log compact.mjson.gz): "), verdict.line()
    alone = tmp_path / "alone.json"  # a record without its log: said so, not "malformed"
    alone.write_bytes(record.read_bytes())
    (verdict,) = check_logs([alone])
    assert not verdict.ok
    assert "the referee's match record, not a game log" in verdict.line()
