"""A trained policy as an ICGA Mahjong AI: ``referee bot mahjong --policy module:callable``.

An ICGA AI plays one hand per run (``/start`` .. ``/exit``). The AI keeps a mirror of the
hand as its seat hears it (``WireHand``): a ``MahjongHand`` holding its own tiles and
melds, every event the wire tells (throws, melds, kongs, wins, its own draws and
questions), the discard open to claims, whose turn it is and its last draw. The others'
concealed tiles, draws and questions and the wall are not told, and the mirror leaves
them empty: the environment's observation and mask of a seat read none of them (tested:
the bot's view equals the environment's at every question of whole games). A draw by
another seat is not told either, but it is known to have happened when that seat acts
on its own after a discard nobody took; the mirror notes it there, as the engine's events
have it.

On ``/ask`` the policy is called with the environment's observation of the seat
(``MahjongEnvGame.observe`` and ``legal_mask`` over ``EnvMahjongGame.around`` the
mirror), and its action number becomes the answer the environment would play
(``MahjongEnvGame.action``), in the client's words. An action the mask forbids is sent
as it is, for the referee to judge (an illegal answer: the dummy AI takes the seat over,
a fault of the player in the record).

The observation also counts the hands still to play (at most 4), which the wire does not
say: the AI is told the game's number of hands (``--hands``), and ``/initGame`` names the
hand by its round wind and its place in the round, so the hand's number modulo 16. A game
of more than 16 hands needs more: the AI keeps the number of the last hand it played in a
small file of its working folder (``HAND_FILE``), which lasts from hand to hand; the next
hand is that one plus one when the wire agrees, else the first hand the wire names.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any, TextIO

from referee.core.policy import Policy, ask
from referee.games.mahjong.actions import Ask, notation
from referee.games.mahjong.engine import SEATS, Event, MahjongHand, Question, Rules
from referee.games.mahjong.env import ACTIONS, EnvMahjongGame, MahjongEnvGame
from referee.games.mahjong.melds import Meld, MeldKind
from referee.games.mahjong.tiles import KIND_TABLE, WINDS

__all__ = ["HAND_FILE", "PolicyAI", "WireHand", "hand_number", "run_policy_ai"]

HAND_FILE = ".referee-bot-mahjong-hand"
"""The file, in the AI's working folder, that holds the number of the last hand it played
(only in games of more than 16 hands)."""
CYCLE = 16
"""Hands the wire tells apart: four round winds of four hands."""


def hand_number(told: int, hands: int, memory: Path | None) -> int:
    """The number (from 0) of the hand ``/initGame`` names as ``told`` (modulo 16) in a
    game of ``hands`` hands, the hand before it read from ``memory`` (and the number
    written there) when the game is longer than 16 hands."""
    if hands <= CYCLE or memory is None:
        return told
    number = told
    with contextlib.suppress(OSError, ValueError):
        following = int(memory.read_text(encoding="ascii").strip()) + 1
        if following % CYCLE == told and following < hands:
            number = following
    with contextlib.suppress(OSError):
        memory.write_text(f"{number}\n", encoding="ascii")
    return number


def _blank_hand(rules: Rules, dealer: int, round_wind: int) -> MahjongHand:
    """A hand with no tile anywhere yet, to be filled from the wire. Its wall says one
    tile is left to draw: the engine asks for a kong only when one is, and the mask reads
    nothing else of the wall."""
    hand = MahjongHand.__new__(MahjongHand)
    hand.rules, hand.dealer, hand.round_wind = rules, dealer, round_wind
    hand.wall, hand.front, hand.back = [], 0, rules.reserve + 1
    hand.hands = [[] for _ in range(SEATS)]
    hand.melds = [[] for _ in range(SEATS)]
    hand.flowers = [[] for _ in range(SEATS)]
    hand.discards = [[] for _ in range(SEATS)]
    hand.events, hand.result, hand.question = [], None, None
    hand.turn, hand.drawn, hand.discard = dealer, None, None
    return hand


class WireHand:
    """One hand as seat ``seat`` hears it, in a ``MahjongHand`` (see the module)."""

    def __init__(self, rules: Rules, seat: int, number: int, dealer: int,
                 round_wind: int) -> None:
        self.seat = seat
        self.hand = _blank_hand(rules, dealer, round_wind)
        self.engine = EnvMahjongGame.around(self.hand, number, rules)

    def hear(self, command: str, numbers: list[int]) -> None:
        """Note one line of the wire (its command and its numbers)."""
        hand, seat = self.hand, self.seat
        if command == "/initCard":
            hand.hands[seat] = sorted(numbers)
            if seat == hand.dealer and numbers:  # the dealer's 17th tile counts as drawn
                hand.drawn = max(numbers)
        elif command == "/mo" and numbers:
            self._event(Event("draw", seat, (numbers[0],)))
            hand.hands[seat].append(numbers[0])
            hand.drawn = numbers[0]
        elif command == "/throw" and len(numbers) == 2:
            self._throw(numbers[0] - 1, numbers[1])
        elif command in ("/eat", "/pong") and len(numbers) == 4:
            kind = MeldKind.CHOW if command == "/eat" else MeldKind.PUNG
            self._claim(numbers[0] - 1, kind, numbers[1:])
        elif command == "/gong" and len(numbers) >= 2:
            self._kong(numbers[0] - 1, numbers[1], numbers[2:])
        elif command == "/hu" and len(numbers) >= 2:
            who, tile = numbers[0] - 1, numbers[1]
            if hand.discard is not None and hand.discard[1] != tile:
                self._event(Event("draw", who))  # a self-drawn win
            hand.events.append(Event("hu", who, tuple(sorted(numbers[1:])), claimed=tile))
            hand.discard = None

    def ask(self, question: Ask) -> None:
        """This seat is asked ``question``."""
        self.hand.question = Question(self.seat, question)
        self.hand.events.append(Event("ask", self.seat, ask=question))

    def _event(self, event: Event) -> None:
        """A draw (or the act of a seat after its draw): the discard is closed, the turn
        is the seat's."""
        hand = self.hand
        if event.kind == "draw" or hand.discard is not None:
            if event.kind != "draw":
                hand.events.append(Event("draw", event.seat))
            hand.discard = None
        if hand.turn != event.seat:
            hand.drawn = None
        hand.turn = event.seat
        hand.events.append(event)

    def _throw(self, who: int, tile: int) -> None:
        hand = self.hand
        self._event(Event("throw", who, (tile,)))
        if who == self.seat and tile in hand.hands[who]:
            hand.hands[who].remove(tile)
        hand.discards[who].append(tile)
        hand.discard = (who, tile)
        hand.drawn = None

    def _claim(self, who: int, kind: MeldKind, tiles: list[int]) -> None:
        """A chow, pung or melded kong of the open discard."""
        hand = self.hand
        source, claimed = hand.discard if hand.discard is not None else (None, None)
        ordered = tuple(sorted(tiles, key=lambda t: (KIND_TABLE[t], t)))
        words = {MeldKind.CHOW: "eat", MeldKind.PUNG: "pong", MeldKind.KONG: "gong"}
        hand.events.append(Event(words[kind], who, ordered, claimed=claimed,
                                 kong=4 if kind is MeldKind.KONG else None))
        if source is not None:
            hand.discards[source].pop()
        hand.discard = None
        hand.turn, hand.drawn = who, None
        if who == self.seat:
            for tile in tiles:
                if tile != claimed and tile in hand.hands[who]:
                    hand.hands[who].remove(tile)
            hand.melds[who].append(Meld(kind, tuple(sorted(tiles)), claimed, source))

    def _kong(self, who: int, kong: int, tiles: list[int]) -> None:
        hand = self.hand
        if kong == 4:
            self._claim(who, MeldKind.KONG, tiles)
            return
        self._event(Event("gong", who, tuple(sorted(tiles)), kong=kong))
        if who != self.seat:
            return
        held = hand.hands[who]
        for tile in tiles:
            if tile in held:
                held.remove(tile)
        melds = hand.melds[who]
        if kong == 0:
            melds.append(Meld(MeldKind.CONCEALED_KONG, tuple(sorted(tiles))))
        elif tiles:
            tile = tiles[0]
            hand.melds[who] = [
                Meld(MeldKind.PROMOTED_KONG, tuple(sorted([*m.tiles, tile])), m.claimed,
                     m.source) if m.kind is MeldKind.PUNG and m.base == KIND_TABLE[tile]
                else m for m in melds]


class PolicyAI:
    """An ICGA AI answering every ``/ask`` with ``policy`` (see the module): ``hear`` each
    line of one session; the answer to send when the line asks."""

    def __init__(self, policy: Policy, rules: Rules, memory: Path | None = None) -> None:
        self.policy = policy
        self.rules = rules
        self.memory = memory
        self.game = MahjongEnvGame(rules)
        self.seat = 0
        self.wire: WireHand | None = None
        self.over = False

    def hear(self, line: str) -> str | None:
        """Note one line from the referee; the answer when it is an ``/ask`` (else None).
        ``PolicyError`` if the policy fails."""
        words = line.split()
        if not words:
            return None
        command, args = words[0], words[1:]
        if command == "/start" and len(args) >= 2:
            self.seat = int(args[1]) - 1
        elif command == "/initGame" and len(args) >= 4:
            told = WINDS.index(args[0]) * 4 + WINDS.index(args[1])
            number = hand_number(told, self.rules.hands, self.memory)
            self.wire = WireHand(self.rules, self.seat, number, int(args[3]) - 1,
                                 WINDS.index(args[0]))
        elif command == "/exit":
            self.over = True
        elif self.wire is not None:
            if command == "/ask" and args:
                self.wire.ask(Ask(args[0]))
                return self.answer()
            self.wire.hear(command, [int(a) for a in args if a.isdecimal()])
        return None

    def observation(self) -> dict[str, Any]:
        """What the environment shows this seat now."""
        assert self.wire is not None
        engine = self.wire.engine
        return {"observation": self.game.observe(engine, self.seat),
                "action_mask": self.game.legal_mask(engine, self.seat)}

    def answer(self) -> str:
        """The policy's answer to the question just asked, in the client's words."""
        assert self.wire is not None
        index = ask(self.policy, self.observation(), ACTIONS)
        return notation(self.game.action(self.wire.engine, self.seat, index))


def run_policy_ai(policy: Policy, rules: Rules, lines: Iterable[str] = sys.stdin,
                  out: TextIO = sys.stdout, memory: Path | None = None) -> int:
    """Play one session (one hand) until ``/exit``, every ``/ask`` answered by
    ``policy``; ``PolicyError`` if the policy fails."""
    ai = PolicyAI(policy, rules, memory)
    for line in lines:
        answer = ai.hear(line)
        if answer is not None:
            out.write(answer + "\n")
            out.flush()
        if ai.over:
            break
    return 0
