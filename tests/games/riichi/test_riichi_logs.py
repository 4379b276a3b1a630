"""Riichi logs: the mjai event model, the Tenhou mjlog reader and the stored real games.

The structural checks here need no rules engine: hands tracked by name and by tile id, calls
consuming held tiles, no tile kind over four, every payment summing to the riichi sticks it
collects and the scores carried from kyoku to kyoku and to the final result.
"""

from __future__ import annotations

import gzip
import json
import random
import tracemalloc
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.games.riichi.melds import Meld, MeldType
from referee.games.riichi.mjai import (
    EVENT_TYPES,
    Ankan,
    Chi,
    Dahai,
    Daiminkan,
    Dora,
    EndGame,
    EndKyoku,
    Error,
    Event,
    Hora,
    Kakan,
    MjaiError,
    NoneEvent,
    Pon,
    Reach,
    ReachAccepted,
    Ryukyoku,
    StartGame,
    StartKyoku,
    Tsumo,
    canonical_lines,
    dump_lines,
    iter_events,
    parse_event,
    read_mjai,
    write_mjai,
    write_mjai_objects,
)
from referee.games.riichi.mjlog import (
    MjlogError,
    MjlogEvent,
    RoomRules,
    decode_meld,
    iter_mjlog,
    read_mjlog_events,
)
from referee.games.riichi.tiles import RED_FIVES, kind_name, kind_of, mjai_name, parse_mjai

DATA = Path(__file__).resolve().parents[2] / "data" / "riichi"
LOGS = sorted(DATA.glob("*.mjlog"))
NAMES = [kind_name(k) for k in range(34)] + ["5mr", "5pr", "5sr"]


def _kind(name: str) -> int:
    return parse_mjai(name)[0]


# --- the structural check ------------------------------------------------------------------

class StreamCheck:
    """Walks an mjai event stream and asserts what holds without a rules engine."""

    def __init__(self) -> None:
        self.scores: list[int] | None = None
        self.sticks = 0
        self.in_kyoku = False
        self.hands: list[Counter[str]] = []
        self.melds: list[int] = []
        self.pons: list[list[list[str]]] = []
        self.seen: Counter[str] = Counter()
        self.offer: tuple[int, str] | None = None
        self.drawn: tuple[int, str] | None = None
        self.hora_seen = False
        self.started = False
        self.ended = False
        self.pending_reach: set[int] = set()

    def see(self, name: str) -> None:
        self.seen[name] += 1
        kind = _kind(name)
        per_kind = sum(n for t, n in self.seen.items() if _kind(t) == kind)
        assert per_kind <= 4, f"{per_kind} tiles of kind {kind_name(kind)} in play"
        if name.endswith("r"):
            assert self.seen[name] <= 1, f"two red fives {name}"

    def size_ok(self, seat: int, total: int) -> None:
        size = sum(self.hands[seat].values()) + 3 * self.melds[seat]
        assert size == total, f"seat {seat} holds {size} tile-equivalents, expected {total}"

    def take(self, seat: int, names: Sequence[str]) -> None:
        for name in names:
            assert self.hands[seat][name] > 0, f"seat {seat} does not hold {name}"
            self.hands[seat][name] -= 1

    def apply_deltas(self, deltas: Sequence[int] | None, scores: Sequence[int] | None) -> None:
        assert deltas is not None, "a result without deltas"
        assert self.scores is not None
        self.scores = [s + d for s, d in zip(self.scores, deltas, strict=True)]
        if scores is not None:
            assert list(scores) == self.scores, f"recorded {scores}, computed {self.scores}"

    def event(self, ev: Event) -> None:
        assert not self.ended, f"{ev.type} after end_game"
        if isinstance(ev, StartGame):
            assert not self.started, "two start_game"
            self.started = True
            return
        assert self.started, f"{ev.type} before start_game"
        if isinstance(ev, StartKyoku):
            assert not self.in_kyoku, "start_kyoku inside a kyoku"
            if self.scores is not None:
                assert list(ev.scores) == self.scores, \
                    f"kyoku starts at {ev.scores}, the last ended at {self.scores}"
                assert ev.kyotaku == self.sticks, \
                    f"kyotaku {ev.kyotaku}, {self.sticks} sticks on the table"
            self.scores, self.sticks = list(ev.scores), ev.kyotaku
            self.in_kyoku, self.hora_seen = True, False
            self.hands = [Counter(h) for h in ev.tehais]
            assert all(len(h) == 13 for h in ev.tehais)
            self.melds, self.pons = [0] * 4, [[] for _ in range(4)]
            self.seen = Counter()
            for hand in ev.tehais:
                for name in hand:
                    self.see(name)
            self.see(ev.dora_marker)
            self.offer = self.drawn = None
            self.pending_reach = set()
            return
        if isinstance(ev, EndGame):
            assert not self.in_kyoku, "end_game inside a kyoku"
            self.ended = True
            return
        assert self.in_kyoku or isinstance(ev, StartKyoku), f"{ev.type} outside a kyoku"
        if isinstance(ev, Tsumo):
            self.size_ok(ev.actor, 13)
            self.hands[ev.actor][ev.pai] += 1
            self.see(ev.pai)
            self.drawn, self.offer = (ev.actor, ev.pai), None
        elif isinstance(ev, Dahai):
            self.take(ev.actor, [ev.pai])
            self.size_ok(ev.actor, 13)
            if ev.tsumogiri:
                assert self.drawn == (ev.actor, ev.pai), "tsumogiri of a tile not just drawn"
            self.offer, self.drawn = (ev.actor, ev.pai), None
        elif isinstance(ev, Chi | Pon | Daiminkan):
            assert self.offer == (ev.target, ev.pai), \
                f"{ev.type} of {ev.pai} from {ev.target}, last discard {self.offer}"
            assert ev.target != ev.actor
            self.take(ev.actor, ev.consumed)
            kinds = sorted(_kind(t) for t in (ev.pai, *ev.consumed))
            if isinstance(ev, Chi):
                assert ev.target == (ev.actor + 3) % 4, "chi not from the left"
                assert kinds[2] < 27 and kinds[0] // 9 == kinds[2] // 9
                assert kinds == [kinds[0], kinds[0] + 1, kinds[0] + 2], f"chi of {kinds}"
            else:
                assert len(set(kinds)) == 1, f"{ev.type} of {kinds}"
            if isinstance(ev, Pon):
                self.pons[ev.actor].append(sorted((ev.pai, *ev.consumed)))
            self.melds[ev.actor] += 1
            self.size_ok(ev.actor, 14 if not isinstance(ev, Daiminkan) else 13)
            self.offer = None
        elif isinstance(ev, Kakan):
            assert sorted(ev.consumed) in self.pons[ev.actor], \
                f"kakan on {ev.consumed}, pons {self.pons[ev.actor]}"
            assert _kind(ev.pai) == _kind(ev.consumed[0])
            self.pons[ev.actor].remove(sorted(ev.consumed))
            self.take(ev.actor, [ev.pai])
            self.size_ok(ev.actor, 13)
            self.offer, self.drawn = (ev.actor, ev.pai), None
        elif isinstance(ev, Ankan):
            assert len({_kind(t) for t in ev.consumed}) == 1
            self.take(ev.actor, ev.consumed)
            self.melds[ev.actor] += 1
            self.size_ok(ev.actor, 13)
            self.offer = self.drawn = None
        elif isinstance(ev, Dora):
            self.see(ev.dora_marker)
        elif isinstance(ev, Reach):
            self.pending_reach.add(ev.actor)
        elif isinstance(ev, ReachAccepted):
            assert ev.actor in self.pending_reach, "reach_accepted without reach"
            self.pending_reach.discard(ev.actor)
            assert ev.deltas == tuple(-1000 if i == ev.actor else 0 for i in range(4))
            self.apply_deltas(ev.deltas, ev.scores)
            self.sticks += 1
        elif isinstance(ev, Hora):
            if ev.is_tsumo:
                assert self.drawn == (ev.actor, ev.pai), f"tsumo on {ev.pai}, drew {self.drawn}"
            else:
                assert self.offer == (ev.target, ev.pai), \
                    f"ron on {ev.pai} from {ev.target}, offered {self.offer}"
            assert ev.deltas is not None
            collected = 0 if self.hora_seen else self.sticks
            assert sum(ev.deltas) == 1000 * collected, \
                f"hora deltas {ev.deltas} sum to {sum(ev.deltas)}, {collected} sticks"
            assert ev.deltas[ev.actor] > 0 and min(ev.deltas) < 0
            self.apply_deltas(ev.deltas, ev.scores)
            self.sticks -= collected
            self.hora_seen = True
            for name in ev.ura_markers or ():
                self.see(name)
        elif isinstance(ev, Ryukyoku):
            assert not self.hora_seen
            assert ev.deltas is not None and sum(ev.deltas) == 0, f"ryukyoku {ev.deltas}"
            self.apply_deltas(ev.deltas, ev.scores)
        elif isinstance(ev, EndKyoku):
            self.in_kyoku = False
        else:
            raise AssertionError(f"unexpected {ev.type} in a log")


def check_events(events: Sequence[Event]) -> StreamCheck:
    """Run the name-level structural check over a whole game."""
    check = StreamCheck()
    for number, ev in enumerate(events):
        try:
            check.event(ev)
        except AssertionError as exc:
            raise AssertionError(f"event {number} {ev.to_json()}: {exc}") from None
    assert check.ended, "the game has no end_game"
    return check


def check_tile_ids(records: Sequence[MjlogEvent]) -> None:
    """The same game followed by tile id: every id in one place, the recorded hands, melds
    and shown hands equal to the tracked ones, payments agreeing with the recorded points."""
    hands: list[set[int]] = []
    melds: list[list[Meld]] = []
    in_play: set[int] = set()
    offered: int | None = None
    sticks = honba = 0
    first = True

    def enter(tile: int) -> None:
        assert tile not in in_play, f"tile id {tile} twice in one kyoku"
        in_play.add(tile)

    for r in records:
        ev = r.event
        if isinstance(ev, StartKyoku):
            assert r.hands is not None and r.tile is not None
            hands = [set(h) for h in r.hands]
            melds = [[] for _ in range(4)]
            in_play = set()
            for h in r.hands:
                for t in h:
                    enter(t)
            enter(r.tile)
            assert ev.tehais == tuple(tuple(mjai_name(t) for t in h) for h in r.hands)
            sticks, honba, first = ev.kyotaku, ev.honba, True
        elif isinstance(ev, Tsumo):
            assert r.tile is not None
            enter(r.tile)
            hands[ev.actor].add(r.tile)
        elif isinstance(ev, Dahai):
            assert r.tile in hands[ev.actor], f"seat {ev.actor} discards {r.tile} not held"
            hands[ev.actor].remove(r.tile)
            offered = r.tile
        elif isinstance(ev, Dora):
            assert r.tile is not None
            enter(r.tile)
        elif isinstance(ev, ReachAccepted):
            sticks += 1
        elif isinstance(ev, Chi | Pon | Daiminkan):
            meld = r.meld
            assert meld is not None and meld.taken == offered, "call of a tile not discarded"
            own = set(meld.tiles) - {meld.taken}
            assert own <= hands[ev.actor], f"{ev.type} with tiles {own} not held"
            hands[ev.actor] -= own
            melds[ev.actor].append(meld)
            assert ev.pai == mjai_name(meld.taken)
            assert sorted(ev.consumed) == sorted(mjai_name(t) for t in own)
        elif isinstance(ev, Kakan):
            assert r.meld is not None and r.tile is not None
            assert r.tile in hands[ev.actor], "kakan with a tile not held"
            pon = [m for m in melds[ev.actor]
                   if m.type is MeldType.PON and set(m.tiles) == set(r.meld.tiles) - {r.tile}]
            assert len(pon) == 1, "kakan without its pon"
            hands[ev.actor].remove(r.tile)
            melds[ev.actor][melds[ev.actor].index(pon[0])] = r.meld
            offered = r.tile
        elif isinstance(ev, Ankan):
            assert r.meld is not None and set(r.meld.tiles) <= hands[ev.actor]
            hands[ev.actor] -= set(r.meld.tiles)
            melds[ev.actor].append(r.meld)
        elif isinstance(ev, Hora):
            a = r.agari
            assert a is not None
            for t in a.ura_markers:
                enter(t)
            closed = set(hands[a.who]) | ({a.machi} if not a.tsumo else set())
            assert set(a.hand) == closed, f"AGARI hand {sorted(a.hand)}, tracked {closed}"
            assert a.machi == (offered if not a.tsumo else a.machi)
            if a.tsumo:
                assert a.machi in hands[a.who]
            assert sorted(sorted(m.tiles) for m in a.melds) == \
                sorted(sorted(m.tiles) for m in melds[a.who])
            assert (a.honba, a.kyotaku) == ((honba, sticks) if first else (a.honba, 0))
            if a.pao is None:
                won = a.points + 300 * a.honba + 1000 * a.kyotaku
                assert a.deltas[a.who] == won, f"winner gets {a.deltas[a.who]}, not {won}"
                paid = -sum(d for i, d in enumerate(a.deltas) if i != a.who)
                assert paid == a.points + 300 * a.honba
            assert ev.fu == a.fu and ev.hora_points == a.points
            assert a.han > 0 or a.yakuman
            first = False
        elif isinstance(ev, Ryukyoku):
            rk = r.ryuukyoku
            assert rk is not None and (rk.honba, rk.kyotaku) == (honba, sticks)
            for seat, shown in enumerate(rk.hands):
                if shown is not None:
                    assert set(shown) == hands[seat], f"seat {seat} shows {shown}"


def final_check(check: StreamCheck, records: Sequence[MjlogEvent]) -> None:
    """The owari scores: the running scores, the sticks left going to the top."""
    owari = records[-1].owari
    assert owari is not None and check.scores is not None
    expected = list(check.scores)
    top = max(range(4), key=lambda i: (expected[i], -i))
    expected[top] += 1000 * check.sticks
    assert list(owari.scores) == expected, f"owari {owari.scores}, computed {expected}"


# --- the stored logs -----------------------------------------------------------------------

def test_the_data_is_there() -> None:
    assert len(LOGS) >= 3, f"expected stored logs in {DATA}"
    assert (DATA / "SOURCE.md").is_file()
    text = (DATA / "SOURCE.md").read_text(encoding="utf-8")
    for log in LOGS:
        assert log.name in text, f"{log.name} is not in SOURCE.md"


@pytest.mark.parametrize("path", LOGS, ids=[p.name for p in LOGS])
def test_stored_log_is_a_consistent_game(path: Path) -> None:
    records = list(iter_mjlog(path))
    assert isinstance(records[0].event, StartGame) and records[0].header is not None
    assert records[0].header.version == "2.3"
    assert records[0].header.rules == RoomRules.from_type(169, records[0].header.rules.lobby)
    assert isinstance(records[-1].event, EndGame)
    check = check_events([r.event for r in records])
    check_tile_ids(records)
    final_check(check, records)


def test_the_logs_cover_the_cases() -> None:
    kinds: Counter[str] = Counter()
    for path in LOGS:
        kyoku_wins = 0
        for r in iter_mjlog(path):
            ev = r.event
            kinds[ev.type] += 1
            if isinstance(ev, Hora):
                kinds["tsumo win" if ev.is_tsumo else "ron"] += 1
                kyoku_wins += 1
                if kyoku_wins == 2:
                    kinds["double ron"] += 1
                if r.agari and r.agari.yakuman:
                    kinds["yakuman"] += 1
            elif isinstance(ev, StartKyoku):
                kyoku_wins = 0
            elif isinstance(ev, Ryukyoku):
                kinds[f"draw {ev.reason}"] += 1
    for needed in ("ron", "tsumo win", "reach_accepted", "chi", "pon", "kakan", "ankan",
                   "dora", "double ron", "yakuman", "draw fanpai", "draw kyushukyuhai",
                   "draw sukaikan", "draw nagashimangan"):
        assert kinds[needed] > 0, f"no {needed} in the stored logs"


def test_checks_catch_a_broken_stream() -> None:
    records = list(iter_mjlog(LOGS[0]))
    events = [r.event for r in records]
    at = next(i for i, e in enumerate(events) if isinstance(e, Dahai))
    d = events[at]
    assert isinstance(d, Dahai)
    other = next(n for n in NAMES if n != d.pai and not n.endswith("r"))
    bad = [*events[:at], Dahai(actor=d.actor, pai=other, tsumogiri=False), *events[at + 1:]]
    with pytest.raises(AssertionError, match="does not hold"):
        check_events(bad)
    at = next(i for i, e in enumerate(events) if isinstance(e, Hora))
    h = events[at]
    assert isinstance(h, Hora) and h.deltas is not None
    moved = (h.deltas[0] + 100, *h.deltas[1:])
    bad = [*events[:at], Hora(actor=h.actor, target=h.target, pai=h.pai, deltas=moved),
           *events[at + 1:]]
    with pytest.raises(AssertionError, match="sum to"):
        check_events(bad)
    with pytest.raises(AssertionError, match="no end_game"):
        check_events(events[:-1])


def test_mjai_round_trip_of_the_logs(tmp_path: Path) -> None:
    for path in LOGS:
        events = list(read_mjlog_events(path))
        lines = list(dump_lines(events))
        assert list(iter_events(lines, strict=True)) == events
        for name in ("game.mjson", "game.mjson.gz"):
            out = tmp_path / name
            assert write_mjai(out, events) == len(events)
            assert list(read_mjai(out, strict=True)) == events
            raw = gzip.decompress(out.read_bytes()) if name.endswith(".gz") else out.read_bytes()
            assert raw.decode() == "".join(lines)


def test_objects_are_written_as_their_canonical_lines(tmp_path: Path) -> None:
    events = [e for path in LOGS for e in read_mjlog_events(path)]
    objects = [json.loads(e.to_json()) for e in events]
    # the same object in another key order (the engine's ryukyoku is one): the same line
    objects.append(dict(reversed(list(objects[1].items()))))
    events.append(events[1])
    for _ in range(2):  # the second time from the lines remembered
        assert list(canonical_lines(objects)) == list(dump_lines(events))
    out = tmp_path / "game.mjson.gz"
    assert write_mjai_objects(out, objects) == len(objects)
    assert list(read_mjai(out, strict=True)) == events
    # what is not an mjai event is refused however like one it looks
    discard = next(o for o in objects if o["type"] == "dahai")
    for bad in ({**discard, "actor": 7}, {**discard, "pai": "0m"}, {"type": "x"}):
        with pytest.raises(MjaiError):
            list(canonical_lines([discard, bad]))


def test_gzipped_mjlog_reads_the_same(tmp_path: Path) -> None:
    path = LOGS[0]
    packed = tmp_path / (path.name + ".gz")
    packed.write_bytes(gzip.compress(path.read_bytes()))
    assert [r.event for r in iter_mjlog(packed)] == [r.event for r in iter_mjlog(path)]
    assert list(read_mjlog_events(path.read_bytes())) == list(read_mjlog_events(path))
    assert list(read_mjlog_events(packed.read_bytes())) == list(read_mjlog_events(path))


def test_first_kyoku_of_the_first_log() -> None:
    records = list(iter_mjlog(DATA / "2010091009gm-00a9-0000-83af2648.mjlog"))
    head = records[0].header
    assert head is not None and head.players is not None
    assert [p.name for p in head.players][:3] == ["ワイルド", "ミラクルおじさん", "ASAPIN"]
    assert head.players[0].dan == 16 and head.players[2].rate == 2202.0
    assert head.rules.room == "houou" and head.rules.red_fives and head.rules.hanchan
    start = records[1].event
    assert isinstance(start, StartKyoku)
    assert (start.bakaze, start.kyoku, start.honba, start.kyotaku, start.oya) == \
        ("E", 1, 0, 0, 0)
    assert start.dora_marker == "3p" and start.scores == (25000,) * 4
    assert start.tehais[0][:3] == ("P", "5s", "3p")
    assert records[2].event == Tsumo(actor=0, pai="8s")
    assert records[3].event == Dahai(actor=0, pai="1s", tsumogiri=False)
    pon = next(r for r in records if isinstance(r.event, Pon))
    assert pon.event == Pon(actor=3, target=0, pai="P", consumed=("P", "P"))
    hora = next(r for r in records if isinstance(r.event, Hora))
    assert hora.event == Hora(actor=3, target=2, pai="3m", deltas=(0, 0, -5200, 5200), fu=40,
                              fan=3, hora_points=5200, scores=(25000, 25000, 19800, 30200),
                              yakus=(("seat wind north", 1), ("haku", 1), ("dora", 1)))
    assert hora.agari is not None
    assert hora.agari.yaku_names == ("seat wind north", "haku", "dora")
    assert hora.agari.limit_name == ""
    yakuman = next(r.agari for r in records if r.agari and r.agari.yakuman)
    assert yakuman.yaku_names == ("daisangen",) and yakuman.limit_name == "yakuman"
    assert records[-1].owari is not None
    assert records[-1].owari.results == (-14.0, 12.0, -74.0, 76.0)


# --- meld decoding -------------------------------------------------------------------------

@pytest.mark.parametrize(("m", "who", "meld"), [
    # pon of haku (kind 31), copy 0 left out, the first of copies 1-3 called, from seat 0
    (47625, 3, Meld(MeldType.PON, (125, 126, 127), 125, 0)),
    # pon of 2p (kind 10) without copy 2, the third (43) called, from the right... of seat 2
    (16459, 2, Meld(MeldType.PON, (40, 41, 43), 43, 1)),
    # chi 3s-4s-5s (run 16) copies 2, 3, 2, the middle called from the left
    (50551, 2, Meld(MeldType.CHI, (82, 87, 90), 87, 1)),
    # chi 6s-7s-8s (run 19) copies 2, 3, 3, 7s called
    (59895, 1, Meld(MeldType.CHI, (94, 99, 103), 99, 0)),
    # pon of 3m (kind 2) without copy 0, middle (10) called from across
    (3594, 0, Meld(MeldType.PON, (9, 10, 11), 10, 2)),
    # the same pon grown to a kan with copy 0 (bit 4 instead of bit 3)
    (3602, 0, Meld(MeldType.KAKAN, (8, 9, 10, 11), 10, 2)),
    # closed kan of South (tile 112 in bits 8-15, no seat)
    (28672, 1, Meld(MeldType.ANKAN, (112, 113, 114, 115))),
    # open kan of 8p: tile 66 called from three seats on (the left)
    ((66 << 8) | 3, 1, Meld(MeldType.DAIMINKAN, (64, 65, 66, 67), 66, 0)),
])
def test_decode_meld(m: int, who: int, meld: Meld) -> None:
    assert decode_meld(m, who) == meld


@pytest.mark.parametrize(("m", "problem"), [
    (0x20 | (120 << 8), "three-player North"),
    (0x4 | (3 << 10), "taken from the caller"),
    (0x8 | (110 << 9) | 1, "no tile kind"),
    (1 << 16, "out of range"),
])
def test_decode_meld_refuses(m: int, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        decode_meld(m, 0)


def test_every_call_in_the_logs_names_its_tiles() -> None:
    reds = 0
    for path in LOGS:
        for r in iter_mjlog(path):
            if r.meld is None:
                continue
            ev = r.event
            pai = getattr(ev, "pai", None)  # (an ankan has none)
            shown = [*getattr(ev, "consumed", ()), *([pai] if pai is not None else [])]
            assert sorted(shown) == sorted(mjai_name(t) for t in r.meld.tiles)
            reds += sum(t in RED_FIVES for t in r.meld.tiles)
    assert reds > 0, "no red five in any call"


# --- a small hand-made mjlog: conversion details -------------------------------------------

def _mjlog(go_type: int = 11, tail: str | None = None) -> bytes:
    """A hand-made (not real) log: a daiminkan, a chi, tsumogiri cases and a double ron."""
    hands = ("16,20,24,28,32,36,40,44,48,52,56,60,64", "4,65,66,67,68,72,76,80,84,88,92,96,0",
             "8,9,13,1,5,12,17,21,25,29,33,37,41", "2,6,10,14,18,22,26,30,34,38,42,46,50")
    chi = (3 << 10) | 0x4 | (0 << 3) | (1 << 5) | (1 << 7) | 3  # 2m-3m-4m, 2m from the left
    kan = (64 << 8) | 3  # 8p copy 0 from the left
    body = (
        f'<GO type="{go_type}" lobby="0"/>'
        '<UN n0="%41" n1="b" n2="c" n3="d" dan="0,0,0,0" rate="1500.00,1,2,3" sx="M,M,M,F"/>'
        '<TAIKYOKU oya="0"/><INIT seed="0,0,0,1,2,3" ten="250,250,250,250" oya="0" '
        + " ".join(f'hai{i}="{h}"' for i, h in enumerate(hands)) + "/>"
        '<T100/><D100/><U101/><E101/><V102/><F8/><W103/><G103/><T104/><D64/>'
        f'<N who="1" m="{kan}"/><U105/><DORA hai="110"/><E4/><N who="2" m="{chi}"/><F102/>'
        '<T107/><D107/>'
        '<AGARI ba="0,0" hai="1,5,107" machi="107" ten="30,1000,0" yaku="8,1" doraHai="3,110" '
        'who="2" fromWho="0" sc="250,-10,250,0,250,10,250,0"/>'
    )
    end = tail if tail is not None else (
        '<AGARI ba="0,0" hai="2,6,107" machi="107" ten="30,2000,0" yaku="8,1,52,1" '
        'doraHai="3,110" who="3" fromWho="0" sc="240,-20,250,0,260,0,250,20" '
        'owari="220,-30.0,250,5.0,260,15.0,270,10.0"/>')
    return f'<mjloggm ver="2.3">{body}{end}</mjloggm>'.encode()


def test_handmade_log_converts_as_documented() -> None:
    records = list(iter_mjlog(_mjlog(), name="hand.mjlog"))
    events = [r.event for r in records]
    assert [e.type for e in events] == [
        "start_game", "start_kyoku", "tsumo", "dahai", "tsumo", "dahai", "tsumo", "dahai",
        "tsumo", "dahai", "tsumo", "dahai", "daiminkan", "tsumo", "dora", "dahai", "chi",
        "dahai", "tsumo", "dahai", "hora", "hora", "end_kyoku", "end_game"]
    assert events[0] == StartGame(names=("A", "b", "c", "d"))
    start = events[1]
    assert isinstance(start, StartKyoku) and start.tehais[0][0] == "5m"  # no red fives here
    assert [e.tsumogiri for e in events if isinstance(e, Dahai)] == \
        [True, True, False, True, False, False, False, True]
    assert events[12] == Daiminkan(actor=1, target=0, pai="8p", consumed=("8p", "8p", "8p"))
    assert events[14] == Dora(dora_marker="E")
    assert events[16] == Chi(actor=2, target=1, pai="2m", consumed=("3m", "4m"))
    assert events[20] == Hora(actor=2, target=0, pai="9s", deltas=(-1000, 0, 1000, 0), fu=30,
                              fan=1, hora_points=1000, scores=(24000, 25000, 26000, 25000),
                              yakus=(("tanyao", 1),))
    assert events[21] == Hora(actor=3, target=0, pai="9s", deltas=(-2000, 0, 0, 2000), fu=30,
                              fan=2, hora_points=2000, scores=(22000, 25000, 26000, 27000),
                              yakus=(("tanyao", 1), ("dora", 1)))
    assert records[-1].owari is not None and records[-1].owari.scores == (22000, 25000,
                                                                          26000, 27000)
    rules = records[0].header.rules if records[0].header else None
    assert rules == RoomRules(code=11, online=True, red_fives=False, kuitan=True,
                              hanchan=True, sanma=False, fast=False, room="ippan", lobby=0)


def test_red_fives_follow_the_room() -> None:
    start = list(read_mjlog_events(_mjlog(go_type=9)))[1]
    assert isinstance(start, StartKyoku) and start.tehais[0][0] == "5mr"
    assert start.tehais[0].count("5pr") == 1


def test_a_log_may_stop_between_kyoku() -> None:
    cut = ('<AGARI ba="0,0" hai="2,6,107" machi="107" ten="30,2000,0" yaku="8,1" '
           'doraHai="3" who="3" fromWho="0" sc="240,-20,250,0,260,0,250,20"/>')
    types = [e.type for e in read_mjlog_events(_mjlog(tail=cut))]
    assert types[-3:] == ["hora", "hora", "end_kyoku"]


@pytest.mark.parametrize(("xml", "problem"), [
    (b'<mjloggm ver="2.3"><GO type="9"/><T1/></mjloggm>', "element 2 <T1>: outside a kyoku"),
    (b'<mjloggm><FOO/></mjloggm>', "element 1 <FOO>: unknown element"),
    (b'<mjloggm><GO type="25"/></mjloggm>', "three-player"),
    (b'<mjloggm><INIT seed="0,0,0,1,2,3" ten="250,250,250,250" oya="0"/></mjloggm>',
     "<INIT>: missing attribute 'hai0'"),
    (b'<mjloggm ver="2.3"><GO type="9"/>', "malformed XML"),
    (b'<mjlog><INIT/></mjlog>', "not <mjloggm>"),
])
def test_malformed_mjlog(xml: bytes, problem: str) -> None:
    with pytest.raises(MjlogError, match=problem) as info:
        list(iter_mjlog(xml, name="bad.mjlog"))
    assert str(info.value).startswith("bad.mjlog")


@pytest.mark.parametrize(("old", "new", "problem"), [
    ("<D64/>", "<D136/>", "element 14 <D136>: tile id 136 is not 0-135"),
    (f'm="{(64 << 8) | 3}"', f'm="{0x20 | (120 << 8)}"', "element 15 <N>: .*three-player North"),
    ('<N who="1"', '<N who="7"', "attribute 'who' is not a seat 0-3: 7"),
    ("<T107/>", '<REACH who="0" step="3"/>', "REACH step 3 is not 1 or 2"),
    ('ten="30,1000,0"', 'ten="30,1000"', "attribute 'ten' has 2 numbers, not 3"),
    ('sc="250,-10,', 'sc="250,x,', "attribute 'sc' is not a list of integers"),
    ("<D100/>", '<INIT seed="0,0,0,1,2,3"/>', "the kyoku before has no AGARI or RYUUKYOKU"),
])
def test_malformed_elements_inside_a_kyoku(old: str, new: str, problem: str) -> None:
    good = _mjlog().decode()
    assert old in good
    with pytest.raises(MjlogError, match=problem):
        list(iter_mjlog(good.replace(old, new, 1).encode(), name="bad.mjlog"))


def test_a_log_cut_inside_a_kyoku_stops_there() -> None:
    """A crashed or live game: the kyoku's events up to the cut, no end_kyoku (the replay
    checks them and says where the log ends)."""
    cut = _mjlog().decode().split("<AGARI")[0] + "</mjloggm>"
    types = [e.type for e in read_mjlog_events(cut.encode())]
    assert types[-3:] == ["dahai", "tsumo", "dahai"] and "end_kyoku" not in types


def test_truncated_gzip_mjlog(tmp_path: Path) -> None:
    packed = gzip.compress(LOGS[0].read_bytes())
    path = tmp_path / "cut.mjlog"
    path.write_bytes(packed[: len(packed) // 2])
    with pytest.raises(MjlogError, match="cannot read the file") as info:
        list(iter_mjlog(path))
    assert str(path) in str(info.value)


# --- mjai lines ----------------------------------------------------------------------------

LINES = [
    '{"type":"none"}',
    '{"type":"start_game","names":["A","B","C","D"],"id":2}',
    '{"type":"start_game","names":["A","B","C","D"],"seed":[7,9]}',
    '{"type":"start_kyoku","bakaze":"S","dora_marker":"5pr","kyoku":3,"honba":1,"kyotaku":2,'
    '"oya":2,"scores":[31000,-1200,25200,45000],"tehais":[' + ",".join(
        ['["1m","2m","3m","4p","5p","6p","7s","8s","9s","E","S","W","N"]']
        + ['["?","?","?","?","?","?","?","?","?","?","?","?","?"]'] * 3) + "]}",
    '{"type":"tsumo","actor":1,"pai":"?"}',
    '{"type":"tsumo","actor":0,"pai":"C"}',
    '{"type":"dahai","actor":0,"pai":"P","tsumogiri":false}',
    '{"type":"chi","actor":1,"target":0,"pai":"4s","consumed":["5sr","6s"]}',
    '{"type":"pon","actor":3,"target":1,"pai":"F","consumed":["F","F"]}',
    '{"type":"daiminkan","actor":2,"target":3,"pai":"5m","consumed":["5mr","5m","5m"]}',
    '{"type":"kakan","actor":3,"pai":"F","consumed":["F","F","F"]}',
    '{"type":"ankan","actor":1,"consumed":["9p","9p","9p","9p"]}',
    '{"type":"dora","dora_marker":"N"}',
    '{"type":"reach","actor":2}',
    '{"type":"reach_accepted","actor":2}',
    '{"type":"reach_accepted","actor":2,"deltas":[0,0,-1000,0],"scores":[1,2,3,4]}',
    '{"type":"hora","actor":1,"target":3,"deltas":[0,8300,0,-8300],"ura_markers":["1m"]}',
    '{"type":"hora","actor":0,"target":0,"pai":"2p","deltas":[3900,-1300,-1300,-1300],'
    '"uradora_markers":[],"hora_tehais":["2p","2p"],"yakus":[["reach",1],["dora",2]],'
    '"fu":30,"fan":3,"hora_points":3900,"scores":[28900,23700,23700,23700]}',
    '{"type":"ryukyoku"}',
    '{"type":"ryukyoku","reason":"fanpai","deltas":[1500,-1500,1500,-1500],"tenpais":'
    '[true,false,true,false]}',
    '{"type":"end_kyoku"}',
    '{"type":"end_game"}',
    '{"type":"error","message":"timeout"}',
    '{"type":"dahai","actor":3,"pai":"1s","tsumogiri":true,"meta":{"q_values":[0.5]}}',
]


@pytest.mark.parametrize("line", LINES)
def test_mjai_line_round_trip(line: str) -> None:
    event = parse_event(line)
    assert event.to_json() == line
    assert parse_event(event.to_json()) == event
    assert json.loads(event.to_json()) == json.loads(line)


def test_mjai_fields_are_typed() -> None:
    e = parse_event(LINES[7])
    assert isinstance(e, Chi) and e.consumed == ("5sr", "6s") and e.actor_seat == 1
    s = parse_event(LINES[3])
    assert isinstance(s, StartKyoku) and s.tehais[1][0] == "?" and s.scores[1] == -1200
    d = parse_event(LINES[-1])
    assert isinstance(d, Dahai) and d.extra == {"meta": {"q_values": [0.5]}}
    assert parse_event('{"pai":"1m","actor":0,"type":"tsumo"}').to_json() == \
        '{"type":"tsumo","actor":0,"pai":"1m"}'
    assert parse_event('{"type":"hora","actor":0,"target":0,"deltas":null}') == \
        Hora(actor=0, target=0)
    assert Hora(actor=1, target=1).is_tsumo and StartGame().actor_seat is None


@pytest.mark.parametrize(("text", "problem"), [
    ('{"type":"dahai","actor":0,"pai":"5m"', "malformed JSON"),
    ("[1,2]", "expected a JSON object, got list"),
    ('{"actor":0}', "missing field 'type'"),
    ('{"type":"kan"}', "unknown event type 'kan'"),
    ('{"type":"dahai","actor":0,"pai":"5m"}', "dahai: missing field 'tsumogiri'"),
    ('{"type":"dahai","actor":0,"pai":"0m","tsumogiri":true}', "'0m' is not an mjai tile"),
    ('{"type":"dahai","actor":0,"pai":"?","tsumogiri":true}', "'?' is not an mjai tile"),
    ('{"type":"dahai","actor":0,"pai":"5m","tsumogiri":1}', "expected true or false"),
    ('{"type":"reach","actor":4}', "expected a seat 0-3, got 4"),
    ('{"type":"reach","actor":true}', "expected an integer"),
    ('{"type":"reach","actor":1.0}', "expected an integer"),
    ('{"type":"chi","actor":1,"target":0,"pai":"4s","consumed":["5s"]}', "expected 2 items"),
    ('{"type":"pon","actor":1,"target":0,"pai":"4s","consumed":["4s","x"]}',
     "field 'consumed': item 1: 'x' is not"),
    ('{"type":"start_kyoku","bakaze":"P","dora_marker":"1m","kyoku":1,"honba":0,'
     '"kyotaku":0,"oya":0,"scores":[0,0,0,0],"tehais":[]}', "expected a wind"),
    ('{"type":"start_kyoku","bakaze":"E","dora_marker":"1m","kyoku":5,"honba":0,'
     '"kyotaku":0,"oya":0,"scores":[0,0,0,0],"tehais":[]}', "expected a kyoku 1-4"),
    ('{"type":"hora","actor":0,"target":1,"deltas":[1,2,3]}', "expected 4 items, got 3"),
    ('{"type":"hora","actor":0,"target":1,"fu":-30}', "non-negative"),
])
def test_malformed_mjai(text: str, problem: str) -> None:
    with pytest.raises(MjaiError, match=problem) as info:
        parse_event(text, source="game.json", line=7)
    assert str(info.value).startswith("game.json, line 7: ")
    assert isinstance(info.value, ValueError)


def test_strict_refuses_unknown_fields() -> None:
    with pytest.raises(MjaiError, match="unknown field 'meta'"):
        parse_event(LINES[-1], strict=True)


def test_log_errors_name_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.mjson"
    path.write_text(LINES[0] + "\n\n" + LINES[1] + "\n" + '{"type":"tsumo","actor":0}\n')
    events = read_mjai(path)
    assert next(events) == NoneEvent()
    with pytest.raises(MjaiError, match=r"bad\.mjson, line 4: tsumo: missing field 'pai'"):
        list(events)
    bad_utf8 = tmp_path / "latin.mjson"
    bad_utf8.write_bytes(b'{"type":"error","message":"\xe9"}\n')
    with pytest.raises(MjaiError, match="line 1: not UTF-8"):
        list(read_mjai(bad_utf8))


def test_truncated_gzip_mjai(tmp_path: Path) -> None:
    events = list(read_mjlog_events(LOGS[0]))
    whole = tmp_path / "game.mjson.gz"
    write_mjai(whole, events)
    packed = whole.read_bytes()
    cut = tmp_path / "cut.mjson.gz"
    cut.write_bytes(packed[: len(packed) - 40])
    read = []
    with pytest.raises(MjaiError, match=r"cut\.mjson\.gz, line \d+: cannot read the file"):
        read.extend(read_mjai(cut))
    assert read == events[: len(read)]
    garbage = tmp_path / "garbage.gz"
    garbage.write_bytes(b"\x1f\x8b" + b"\x00" * 30)
    with pytest.raises(MjaiError, match="cannot read the file"):
        list(read_mjai(garbage))


def test_readers_stream_in_flat_memory(tmp_path: Path) -> None:
    one = list(read_mjlog_events(LOGS[0]))
    path = tmp_path / "long.mjson.gz"
    write_mjai(path, (e for _ in range(15) for e in one))  # about 13,000 lines
    tracemalloc.start()
    try:
        count = sum(1 for _ in read_mjai(path))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert count == 15 * len(one)
    assert peak < 1_000_000, f"read_mjai peaked at {peak} bytes"  # a list would take 2.6 MB
    text = LOGS[1].read_text()
    head, rest = text.split("<INIT", 1)
    body = "<INIT" + rest.rsplit("</mjloggm>", 1)[0]
    body = body.replace(' owari="302,10.0,200,-20.0,330,43.0,168,-33.0"', "")
    long_log = tmp_path / "long.mjlog"
    long_log.write_text(head + body * 20 + "</mjloggm>")  # 30,000 elements
    tracemalloc.start()
    try:
        count = sum(1 for _ in iter_mjlog(long_log))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert count > 20 * 1400
    assert peak < 2_500_000, f"iter_mjlog peaked at {peak} bytes"  # the whole tree: 3.8 MB


# --- hypothesis: any valid event survives JSON -------------------------------------------

tiles = st.sampled_from(NAMES)
seats = st.integers(0, 3)
quads = st.tuples(*[st.integers(-200_000, 200_000)] * 4)
counts = st.integers(0, 20)


def _opt(strategy: st.SearchStrategy[object]) -> st.SearchStrategy[object]:
    return st.none() | strategy


def _tuples(strategy: st.SearchStrategy[object], n: int) -> st.SearchStrategy[object]:
    return st.lists(strategy, min_size=n, max_size=n).map(tuple)


extras = st.dictionaries(st.sampled_from(["meta", "note", "x_seq"]),
                         st.integers() | st.text(max_size=5) | st.lists(st.booleans()),
                         max_size=2)

EVENTS: st.SearchStrategy[Event] = st.one_of(
    st.builds(NoneEvent, extra=extras),
    st.builds(StartGame, names=_opt(_tuples(st.text(max_size=8), 4)), id=_opt(seats),
              seed=_opt(_tuples(st.integers(0, 2**63), 2)), uri=_opt(st.text(max_size=10)),
              kyoku_first=_opt(counts), aka_flag=_opt(st.booleans()), extra=extras),
    st.builds(StartKyoku, bakaze=st.sampled_from("ESWN"), dora_marker=tiles,
              kyoku=st.integers(1, 4), honba=counts, kyotaku=counts, oya=seats, scores=quads,
              tehais=_tuples(_tuples(tiles | st.just("?"), 13), 4)),
    st.builds(Tsumo, actor=seats, pai=tiles | st.just("?")),
    st.builds(Dahai, actor=seats, pai=tiles, tsumogiri=st.booleans(), extra=extras),
    st.builds(Chi, actor=seats, target=seats, pai=tiles, consumed=_tuples(tiles, 2)),
    st.builds(Pon, actor=seats, target=seats, pai=tiles, consumed=_tuples(tiles, 2)),
    st.builds(Daiminkan, actor=seats, target=seats, pai=tiles, consumed=_tuples(tiles, 3)),
    st.builds(Kakan, actor=seats, pai=tiles, consumed=_tuples(tiles, 3)),
    st.builds(Ankan, actor=seats, consumed=_tuples(tiles, 4)),
    st.builds(Dora, dora_marker=tiles),
    st.builds(Reach, actor=seats),
    st.builds(ReachAccepted, actor=seats, deltas=_opt(quads), scores=_opt(quads)),
    st.builds(Hora, actor=seats, target=seats, pai=_opt(tiles), deltas=_opt(quads),
              ura_markers=_opt(st.lists(tiles, max_size=4).map(tuple)),
              uradora_markers=_opt(st.lists(tiles, max_size=4).map(tuple)),
              hora_tehais=_opt(st.lists(tiles, max_size=14).map(tuple)),
              yakus=_opt(st.lists(st.tuples(st.text(max_size=6), st.integers(0, 13)),
                                  max_size=4).map(tuple)),
              fu=_opt(counts), fan=_opt(counts), hora_points=_opt(st.integers(0, 96000)),
              scores=_opt(quads), extra=extras),
    st.builds(Ryukyoku, reason=_opt(st.text(max_size=12)), deltas=_opt(quads),
              scores=_opt(quads),
              tehais=_opt(_tuples(st.lists(tiles | st.just("?"), max_size=14).map(tuple), 4)),
              tenpais=_opt(_tuples(st.booleans(), 4))),
    st.builds(EndKyoku), st.builds(EndGame), st.builds(Error, message=_opt(st.text())),
)


@settings(max_examples=300)
@given(EVENTS, st.randoms(use_true_random=False))
def test_any_event_round_trips(event: Event, rnd: random.Random) -> None:
    line = event.to_json()
    back = parse_event(line)
    assert back == event and type(back) is type(event)
    assert back.to_json() == line
    shuffled = list(event.to_dict().items())
    rnd.shuffle(shuffled)
    again = parse_event(json.dumps(dict(shuffled)))
    assert again == event and json.loads(again.to_json()) == json.loads(line)
    assert event.type in EVENT_TYPES
    if not event.extra:
        assert parse_event(line, strict=True) == event
        hash(event)


def test_every_event_type_has_a_line() -> None:
    assert {json.loads(line)["type"] for line in LINES} == set(EVENT_TYPES)


def test_tile_names_follow_tiles_module() -> None:
    for tile in range(136):
        kind, red = parse_mjai(mjai_name(tile))
        assert kind == kind_of(tile) and red == (tile in RED_FIVES)


# --- shared events and records ---------------------------------------------------------------

def test_a_line_met_again_gives_the_same_event(tmp_path: Path) -> None:
    line = '{"type":"tsumo","actor":2,"pai":"7s"}\n'
    first = tmp_path / "a.mjson"
    first.write_text(line + '{"type":"dahai","actor":2,"pai":"7s","tsumogiri":true}\n' + line)
    second = tmp_path / "b.mjson"
    second.write_text(line)
    a, _, b = read_mjai(first)
    (c,) = read_mjai(second)
    assert a is b and b is c and a == Tsumo(actor=2, pai="7s")


def test_a_long_line_is_not_remembered(tmp_path: Path) -> None:
    """The start of a hand (every hand's tiles) hardly ever repeats: thousands of them
    remembered would hold tens of MB for nothing."""
    hand = '["1m","2m","3m","4m","5m","6m","7m","8m","9m","1p","2p","3p","4p"]'
    line = ('{"type":"start_kyoku","bakaze":"E","kyoku":1,"honba":0,"kyotaku":0,"oya":0,'
            '"dora_marker":"1s","tehais":[' + ",".join([hand] * 4) + "]}\n")
    path = tmp_path / "start.mjson"
    path.write_text(line + line)
    a, b = read_mjai(path)
    assert a == b and a is not b


def test_a_line_with_extra_fields_is_parsed_again_for_strict_reading(tmp_path: Path) -> None:
    path = tmp_path / "meta.mjson"
    path.write_text('{"type":"tsumo","actor":1,"pai":"3p","meta":{"q":1}}\n')
    (event,) = read_mjai(path)
    assert event.extra == {"meta": {"q": 1}}
    with pytest.raises(MjaiError, match="unknown field 'meta'"):
        list(read_mjai(path, strict=True))


def test_mjlog_records_are_values(tmp_path: Path) -> None:
    one = list(iter_mjlog(LOGS[0]))
    two = list(iter_mjlog(LOGS[0]))
    assert one == two and one[5] is not two[5]
    assert hash(one[5]) == hash(two[5])
    assert one[5] != one[6]
    assert repr(one[5]).startswith("MjlogEvent(event=") and f"index={one[5].index}" in repr(
        one[5])
