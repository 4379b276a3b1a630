"""A person at the table: the console client of ``referee mahjong connect --human``.

It follows the referee's lines with an ``AIState`` (a fresh one every hand), tells the
person what happens in words (tile names and their ids), and on every ``/ask`` shows the
hand, the melds and the discard in question, lists the legal answers numbered, and reads
the choice: a number, or an instruction typed out (``/throw 150``). Anything else is
explained and asked again; only an answer the hand allows is sent.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TextIO

from referee.core.errors import RefereeError
from referee.games.mahjong import rules
from referee.games.mahjong.bots.player import AIState
from referee.games.mahjong.melds import Meld
from referee.games.mahjong.protocol import WireError, parse_action
from referee.games.mahjong.tiles import kind_of, tid_name

__all__ = ["HumanConsole", "HumanLeft", "describe", "tile_text", "tiles_text"]


class HumanLeft(RefereeError):
    """The person's input ended: nobody answers for this seat any more."""


def tile_text(tid: int) -> str:
    """A tile for a person: its name and its id (``5-Wan[150]``)."""
    return f"{tid_name(tid)}[{tid}]"


def tiles_text(tids: Sequence[int]) -> str:
    """Tiles in words, in id order."""
    return " ".join(tile_text(t) for t in sorted(tids)) or "-"


_WORDS: dict[type, str] = {  # each answer in words, its tiles and the discard taken
    rules.Throw: "throw {tiles}", rules.Eat: "chow {taken}with {tiles}",
    rules.Pong: "pung {taken}with {tiles}", rules.Kong: "kong {taken}with {tiles}",
    rules.ConcealedKong: "concealed kong of {tiles}",
    rules.PromotedKong: "add {tiles} to your pung", rules.Hu: "win (hu)", rules.Pass: "pass",
}


def describe(action: rules.Action, discard: int | None = None) -> str:
    """An answer in words (``chow 3-Wan[130] with 1-Wan[110] 2-Wan[120]``)."""
    taken = f"{tile_text(discard)} " if discard is not None else ""
    return _WORDS[type(action)].format(taken=taken, tiles=tiles_text(rules.tiles_of(action)))


def _meld_text(meld: Meld) -> str:
    return f"{meld.kind.value} {tiles_text(meld.tiles)}"


def _signature(action: rules.Action) -> tuple[str, tuple[int, ...]]:
    """An answer up to the copies of its tiles: a typed answer is legal when it matches
    a listed one this way and its tiles are in the hand."""
    return type(action).__name__, tuple(sorted(kind_of(t) for t in rules.tiles_of(action)))


class HumanConsole:
    """The console for one person: ``hear`` each referee line; it returns the line to
    send back (the answer to an ``/ask``) or ``None``. ``HumanLeft`` when the person's
    input ends."""

    def __init__(self, stdin: TextIO, stdout: TextIO) -> None:
        self.stdin = stdin
        self.out = stdout
        self.state = AIState()
        self.hands = 0

    def say(self, text: str) -> None:
        """One line to the person."""
        self.out.write(text + "\n")
        self.out.flush()

    def _who(self, word: str) -> str:
        return "You" if word == str(self.state.seat + 1) else f"Seat {word}"

    def hear(self, line: str) -> str | None:
        """Follow one referee line; the answer to send if it asked something."""
        words = line.split()
        if not words:
            return None
        command, args = words[0], words[1:]
        if command == "/start":
            self.state = AIState()
            self.hands += 1
        try:
            ask = self.state.hear(line)
        except (ValueError, IndexError) as exc:  # a line the state cannot follow
            self.say(f"(cannot follow {line!r}: {exc})")
            return None
        self._tell(command, args)
        if ask is None:
            return None
        return self._choose(ask)

    def _tell(self, command: str, args: list[str]) -> None:
        """The news of one line, in words."""
        numbers = [int(a) for a in args if a.isdecimal()]
        state = self.state
        if command == "/start" and len(args) >= 2:
            self.say(f"=== Hand {self.hands}: you are seat {args[1]} ===")
        elif command == "/initGame" and len(args) >= 4:
            self.say(f"Round wind {args[0]}, game {args[1]}, the wall opens at seat "
                     f"{args[2]}, the dealer is seat {args[3]}")
        elif command == "/initCard":
            self.say(f"Your hand: {tiles_text(state.hand)}")
        elif command == "/mo" and numbers:
            self.say(f"You drew {tile_text(numbers[0])}")
        elif command == "/throw" and len(args) == 2 and len(numbers) == 2:
            self.say(f"{self._who(args[0])} threw {tile_text(numbers[1])}")
        elif command in ("/eat", "/pong") and len(args) == 4 and len(numbers) == 4:
            verb = "chowed" if command == "/eat" else "punged"
            self.say(f"{self._who(args[0])} {verb} {tiles_text(numbers[1:])}")
        elif command == "/gong" and len(args) >= 2 and len(numbers) >= 2:
            kind = {"0": "a concealed kong", "1": "a promoted kong"}.get(args[1], "a kong")
            shown = f": {tiles_text(numbers[2:])}" if numbers[2:] else ""
            self.say(f"{self._who(args[0])} declared {kind}{shown}")
        elif command == "/hu" and len(args) >= 2 and len(numbers) >= 2:
            self.say(f"{self._who(args[0])} won with {tile_text(numbers[1])}; hand "
                     f"{tiles_text(numbers[2:])}")
        elif command == "/exit":
            scores = args or ["-"]
            self.say(f"Hand over. Scores of seats 1-4 this hand: {' '.join(scores)}")

    def _choose(self, ask: rules.Ask) -> str:
        """Show the seat and the answers; read until a valid choice."""
        view = self.state.view(ask)
        choices = view.options()
        self.say(f"--- /ask {ask.value} ---")
        self.say(f"Hand:  {tiles_text(view.hand)}"
                 + (f"   (drew {tile_text(view.drawn)})" if view.drawn is not None else ""))
        if view.melds:
            self.say("Melds: " + "; ".join(_meld_text(m) for m in view.melds))
        if view.discard is not None:
            self.say(f"The discard in question: {tile_text(view.discard)}")
        for number, action in enumerate(choices, 1):
            words = rules.notation(action)
            self.say(f"  {number:2d}. {words:<24} {describe(action, view.discard)}")
        while True:
            self.out.write(f"Your choice (1-{len(choices)} or an instruction): ")
            self.out.flush()
            text = self.stdin.readline()
            if not text:
                raise HumanLeft("the input ended")
            answer, problem = self._answer(text.strip(), ask, choices)
            if answer is not None:
                return answer
            self.say(problem)

    def _answer(self, text: str, ask: rules.Ask,
                choices: list[rules.Action]) -> tuple[str | None, str]:
        """The line to send for what the person typed, or ``None`` and why not."""
        if text.isascii() and text.isdecimal():
            number = int(text)
            if 1 <= number <= len(choices):
                return rules.notation(choices[number - 1]), ""
            return None, f"There is no answer {number}: choose 1 to {len(choices)}."
        if text.startswith("/"):
            try:
                action = parse_action(text, ask)
            except WireError as exc:
                return None, f"Not an instruction: {exc.reason}"
            if action in choices:
                return rules.notation(action), ""
            if _signature(action) not in {_signature(c) for c in choices}:
                return None, (f"{rules.notation(action)} is not an answer to /ask {ask.value} "
                              "here: choose one of the list.")
            hand = list(self.state.hand)
            for tile in rules.tiles_of(action):
                if tile not in hand:
                    return None, f"{tile_text(tile)} is not in your hand."
                hand.remove(tile)
            return rules.notation(action), ""
        example = rules.notation(choices[0]) if choices else rules.notation(rules.Pass())
        return None, f"Type a number 1 to {len(choices)}, or an instruction such as {example}."
