"""The tile-table frames of a Riichi replay: a real game of built-in bots, replayed; each
frame shows the engine's table at its step (hands, drawn tile, melds, ponds, scores),
keeps every tile and point, and tells the wins as the game's own mjai log does."""

from __future__ import annotations

import gzip
import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from referee.core.adapter import GameTask
from referee.core.players import PlayerSpec, builtin_command
from referee.core.record import GameRecord
from referee.core.replay import split_pond, split_tiles
from referee.games.riichi.adapter import RiichiAdapter, record_rules, riichi_replay
from referee.games.riichi.frames import tile_code
from referee.games.riichi.match import BUILTIN_PLAYERS, apply_logged, may_pass, pass_all
from referee.games.riichi.rules import RiichiGame, action_from_mjai

LIVE_WALL = 70
"""Tiles a hand may draw after the deal (136 - 14 dead wall - 52 dealt)."""


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[GameRecord, Path]:
    """An east game of two greedy and two tsumogiri bots (real processes) and its log."""
    folder = tmp_path_factory.mktemp("riichi-frames")
    adapter = RiichiAdapter()
    settings = adapter.parse_settings({"game": "east"}, folder, "t.toml")
    bots = ["greedy", "tsumogiri", "greedy", "greedy"]
    seats = tuple(PlayerSpec(f"p{k}", builtin_command(BUILTIN_PLAYERS[bot]), True)
                  for k, bot in enumerate(bots))
    record = adapter.play(settings, GameTask("r1:g1:s0", seats, 11), folder)
    return record, folder / "mjai" / "r1_g1_s0.mjson.gz"


def codes(row: str) -> list[str]:
    return sorted(split_tiles(row))


def test_each_frame_is_the_engine_s_table_at_its_step(played: tuple[GameRecord, Path]) -> None:
    record, _ = played
    view = riichi_replay(record)
    assert view.renderer == "tiles" and len(view.frames) == len(record.moves) + 1
    assert view.frame_info["names"] == ["p0", "p1", "p2", "p3"]
    game = RiichiGame(record_rules(record), seed=record.seed)
    actions = [action_from_mjai(json.loads(m.move), m.seat) for m in record.moves]
    compared = 0
    for k, move in enumerate(record.moves, 1):
        kyoku = apply_logged(game, move.seat, actions[k - 1])
        if k < len(actions):  # the table as the next recorded move finds it
            while may_pass(game) and \
                    game.illegal_reason(record.moves[k].seat, actions[k]) is not None:
                pass_all(game)
        frame = view.frames[k]
        assert frame["a"] == move.seat
        for s, seat in enumerate(frame["s"]):
            hand = codes(seat[2] + seat[3])
            engine = sorted(tile_code(kyoku.names[t]) for t in kyoku.hands[s])
            won = kyoku.result is not None and s in kyoku.result.winners
            if won and len(hand) == len(engine) + 1:  # a ron: the winning tile is shown
                hand.remove(seat[3])
            assert hand == engine, (k, s)
            assert [c for c, _ in split_pond(seat[5])] == \
                [tile_code(kyoku.names[t]) for t in kyoku.rivers[s]], (k, s)
            assert seat[1] == kyoku.scores[s]
            assert [codes(m[1]) for m in seat[4]] == \
                [sorted(tile_code(kyoku.names[t]) for t in m.tiles) for m in kyoku.melds[s]]
            assert seat[6] == int(kyoku.riichi[s])
            assert seat[0] == "ESWN"[(s - kyoku.oya) % 4]
        assert frame["i"][1:] == [kyoku.honba, kyoku.kyotaku, kyoku.source.live_left()]
        assert split_tiles(frame["g"][0][1]) == [tile_code(kyoku.names[t]) for t in kyoku.dora]
        assert ("x" in frame) == (kyoku.result is not None)
        latest = [(s, code) for s, seat in enumerate(frame["s"])
                  for code, flags in split_pond(seat[5]) if "!" in flags]
        if kyoku.last_discard is None:
            assert latest == []
        else:
            seat, tile = kyoku.last_discard
            assert latest == [(seat, tile_code(kyoku.names[tile]))]
            assert split_pond(frame["s"][seat][5])[-1][1].endswith("!")
        if actions[k - 1].type == "dahai" and kyoku.result is None:
            assert latest == [(move.seat, tile_code(str(actions[k - 1].pai)))]
        compared += 1
    assert compared == len(record.moves) > 50


def test_frames_keep_every_tile_and_point(played: tuple[GameRecord, Path]) -> None:
    record, _ = played
    view = riichi_replay(record)
    start = record_rules(record).start_points * 4
    riichi_seen = False
    for k, frame in enumerate(view.frames):
        seats = frame["s"]
        assert sum(seat[1] for seat in seats) + 1000 * frame["i"][2] == start, k
        for seat in seats:
            pond = split_pond(seat[5])
            assert sum("*" in flags for _, flags in pond) <= 1
            if seat[6]:  # in riichi: its declaration tile lies turned in its pond
                riichi_seen = True
                assert sum("*" in flags for _, flags in pond) == 1
        if "x" in frame:
            continue
        shown = Counter[str]()
        for seat in seats:
            shown.update(split_tiles(seat[2] + seat[3]))
            for meld in seat[4]:
                shown.update(split_tiles(meld[1]))
            shown.update(code for code, flags in split_pond(seat[5]) if "^" not in flags)
        drawn = LIVE_WALL - frame["i"][3]
        assert sum(shown.values()) == 52 + drawn, k  # dealt + drawn, each tile once
        assert all(n <= 4 for n in shown.values())
        assert sum(shown[c] for c in shown if c.startswith("0")) <= 3
    assert riichi_seen


def test_results_are_those_of_the_game_s_log(played: tuple[GameRecord, Path]) -> None:
    record, log = played
    view = riichi_replay(record)
    with gzip.open(log, "rt", encoding="utf-8") as stream:
        events: list[dict[str, Any]] = [json.loads(line) for line in stream if line.strip()]
    starts = [e for e in events if e["type"] == "start_kyoku"]
    first = view.frames[0]["s"]
    dealer_draw = next(e for e in events if e["type"] == "tsumo")
    for s, seat in enumerate(first):
        dealt = [tile_code(n) for n in starts[0]["tehais"][s]]
        if s == dealer_draw["actor"]:
            assert seat[3] == tile_code(dealer_draw["pai"])
        assert codes(seat[2]) == sorted(dealt)
    ends = [f["x"] for f in view.frames if "x" in f]
    assert len(ends) == len(starts) == record.settings["hands"]
    text = "\n".join(line for x in ends for line in [x["h"], *x["l"]])
    for event in events:
        if event["type"] == "hora":
            for name, han in event["yakus"]:
                assert f"{name} {han} han" in text
            assert f"{event['fan']} han: {event['hora_points']} points" in text
    last = view.frames[-1]["x"]
    assert "Game over:" in last["l"]
    for name, points in zip(view.frame_info["names"], record.settings["points"], strict=True):
        assert any(line.startswith(f"{i}. {name}: {points} points") for i in range(1, 5)
                   for line in last["l"])


def test_moves_are_written_in_words(played: tuple[GameRecord, Path]) -> None:
    record, _ = played
    view = riichi_replay(record)
    words = re.compile(r"[ESWN][1-4] (discard \S+( \(drawn\))?|riichi|abortive draw|"
                       r"(chi|pon|kan) \S+ \(.+\) from .+|(closed|added) kan \S+( \(.+\))?|"
                       r"ron \S+ from .+|tsumo \S+)")
    assert all(words.fullmatch(step.text) for step in view.steps), [
        s.text for s in view.steps if not words.fullmatch(s.text)][:5]
    assert sum(s.text.endswith("(drawn)") for s in view.steps) > 10
    for step, move in zip(view.steps, record.moves, strict=True):
        data = json.loads(move.move)
        if data["type"] == "dahai":
            assert step.text.split()[2] == data["pai"]


def test_a_game_in_progress_replays_as_far_as_it_goes(played: tuple[GameRecord, Path]
                                                      ) -> None:
    """A record without its result (the live view's, of a game being played) replays its
    moves so far, each step as the finished game's, its move written as the adapter's
    ``move_text`` writes it (without the hand); a finished record that stops early is
    still refused."""
    record, _ = played
    whole = riichi_replay(record)
    adapter = RiichiAdapter()
    for count in (1, 37, len(record.moves) // 2):
        partial = GameRecord(record.game, record.players, dict(record.settings), record.seed,
                             moves=record.moves[:count])
        view = riichi_replay(partial)
        assert [s.text for s in view.steps] == [s.text for s in whole.steps[:count]]
        assert len(view.frames) == count + 1
        assert view.frames[:count] == whole.frames[:count]
        assert view.steps[-1].text.split(" ", 1)[1] == adapter.move_text(partial, count - 1)
    cut = GameRecord(record.game, record.players, dict(record.settings), record.seed,
                     moves=record.moves[:37], scores=record.scores, outcome=record.outcome)
    with pytest.raises(ValueError, match="moves end before the game does"):
        riichi_replay(cut)
