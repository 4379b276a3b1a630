"""The ICGA Mahjong wire: engine events to the lines each client gets, client lines to
actions. Translation only (the rules are in ``rules``).

Client ids on the wire are seats + 1. Per hand (the spec's "game") a client gets
``/start MJ <id> <path>``, ``/initGame <wind> <game> <open> <dealer> 0``, ``/initCard``
(its own tiles), then ``/mo`` for its own draws, ``/ask ...`` for its own questions, and
everyone's ``/throw``, ``/eat``, ``/pong``, ``/gong`` (a concealed kong's tiles only to its
owner) and ``/hu``; the hand ends with ``/exit <score1> .. <score4>`` (the hand's
payments). Flowers are never sent: they are set aside and replaced before a tile reaches
a client.
"""

from __future__ import annotations

from referee.core.errors import BotFault
from referee.core.outcome import Outcome
from referee.core.text import clip
from referee.games.mahjong import rules
from referee.games.mahjong.tiles import WINDS, kind_of, parse_tid

__all__ = ["WireError", "event_lines", "hand_start_lines", "parse_action"]


class WireError(BotFault):
    """A client line that is no valid instruction (a protocol error of that client)."""

    def __init__(self, reason: str) -> None:
        super().__init__(Outcome.PROTOCOL_ERROR, reason)


def hand_start_lines(seat: int, path: str, round_wind: int, game: int, opener: int,
                     dealer: int) -> list[str]:
    """``/start`` and ``/initGame`` for ``seat`` (0-based seats; ids on the wire)."""
    return [f"/start MJ {seat + 1} {path}",
            f"/initGame {WINDS[round_wind]} {WINDS[game]} {opener + 1} {dealer + 1} 0"]


def event_lines(event: rules.Event, seat: int) -> list[str]:
    """What client ``seat`` is told of ``event`` (nothing of others' draws, asks, flowers)."""
    kind, who = event.kind, event.seat + 1
    mine = event.seat == seat
    if kind == "deal":
        return [f"/initCard {' '.join(map(str, sorted(event.tiles)))}"] if mine else []
    if kind == "draw":
        return [f"/mo {event.tiles[0]}"] if mine else []
    if kind == "ask":
        assert event.ask is not None
        return [f"/ask {event.ask.value}"] if mine else []
    if kind == "throw":
        return [f"/throw {who} {event.tiles[0]}"]
    if kind == "eat":
        claimed = event.claimed
        others = sorted((t for t in event.tiles if t != claimed), key=kind_of)
        return [f"/eat {who} {others[0]} {claimed} {others[1]}"]
    if kind == "pong":
        return [f"/pong {who} {' '.join(map(str, sorted(event.tiles)))}"]
    if kind == "gong":
        tiles = " ".join(map(str, sorted(event.tiles)))
        if event.kong == 0 and not mine:
            return [f"/gong {who} 0"]
        return [f"/gong {who} {event.kong} {tiles}"]
    if kind == "hu":
        assert event.claimed is not None
        rest = list(event.tiles)
        rest.remove(event.claimed)
        return [f"/hu {who} {event.claimed} {' '.join(map(str, rest))}".rstrip()]
    if kind == "end":
        return [f"/exit {' '.join(map(str, event.scores))}"]
    return []  # flowers are not told


def parse_action(line: str, ask: rules.Ask) -> rules.Action:
    """A client's answer to ``/ask <ask>`` as an action; ``WireError`` names what is
    wrong (the engine then checks it against the hand)."""
    words = line.split()
    if not words or not words[0].startswith("/"):
        raise WireError(f"expected an instruction such as /throw or /pass, got {clip(line)!r}")
    command, args = words[0].lower(), words[1:]
    expected = {"/throw": 1, "/eat": 2, "/pong": 2, "/hu": 0, "/pass": 0, "/gong": -1}
    if command not in expected:
        raise WireError(f"unknown instruction {clip(command, 20)!r} (expected /throw, /eat, "
                        "/pong, /gong, /hu or /pass)")
    kong_type: int | None = None
    if command == "/gong":
        if args and args[0] in ("0", "1", "4"):
            kong_type, args = int(args[0]), args[1:]
        elif len(args) == 3:
            kong_type = 4  # the spec's own example leaves the 4 out
        if kong_type is None or len(args) != {4: 3, 0: 4, 1: 1}[kong_type]:
            raise WireError("expected /gong 4 a b c, /gong 0 a b c d or /gong 1 a, got "
                            f"{clip(line)!r}")
    try:
        tiles = [parse_tid(a) for a in args]
    except ValueError as exc:
        raise WireError(f"{clip(line)!r}: {exc}") from None
    if kong_type == 4:
        return rules.Kong(*tiles)
    if kong_type == 0:
        return rules.ConcealedKong(*tiles)
    if kong_type == 1:
        return rules.PromotedKong(tiles[0])
    if len(tiles) != expected[command]:
        raise WireError(f"{command} takes {expected[command]} tile(s), got {clip(line)!r}")
    if command == "/throw":
        return rules.Throw(tiles[0])
    if command == "/eat":
        return rules.Eat(tiles[0], tiles[1])
    if command == "/pong":
        return rules.Pong(tiles[0], tiles[1])
    return rules.Hu() if command == "/hu" else rules.Pass()
