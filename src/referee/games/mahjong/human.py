"""A person at the table: the console client of ``referee mahjong connect --human``.

It follows the referee's lines with an ``AIState`` (a fresh one every hand), tells the
person what happens in words (tile names and their ids), and on every ``/ask`` shows the
hand, the melds and the discard in question, lists the legal answers numbered, and reads
the choice: a number, or an instruction typed out (``/throw 150``). Anything else is
explained and asked again; only an answer the hand allows is sent.

The choice is read by ``reader`` (a line editor on a terminal; standard input else), which
may be cut short when the server speaks meanwhile (``Interrupted``): a bare ``/exit`` in
the middle of a hand is the server's early termination, and the person is told that its
dummy AI plays the seat, and why (no answer within the time the server gives a person,
:meth:`HumanConsole.seat_terms`), rather than "hand over".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TextIO

from referee.core.errors import RefereeError
from referee.games.mahjong import rules
from referee.games.mahjong.bots.player import AIState
from referee.games.mahjong.melds import Meld
from referee.games.mahjong.protocol import WireError, parse_action
from referee.games.mahjong.tiles import kind_of, tid_name

__all__ = ["HumanConsole", "HumanLeft", "Reader", "describe", "tile_text", "tiles_text"]

Reader = Callable[[str], "str | None"]
"""Reads the person's next line after a prompt (``None`` at the end of the input); it may
raise the caller's own exception to cut the question short."""


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
    input ends; whatever ``reader`` raises to cut a question short goes through."""

    def __init__(self, stdin: TextIO, stdout: TextIO, reader: Reader | None = None) -> None:
        self.stdin = stdin
        self.out = stdout
        self.reader = reader
        self.state = AIState()
        self.hands = 0
        self.in_hand = False
        """A hand's session is open (``/start`` came, its ``/exit`` not yet)."""
        self.choices: list[rules.Action] = []
        """The answers of the question being asked (empty when none is)."""
        self.move_time: float | None = None
        """The seconds the server gives this seat per answer, when it says."""
        self.takeover: str | None = None
        """How long the server's dummy AI keeps a seat it takes (``hand``, ``game``)."""

    def seat_terms(self, move_time: float | None, takeover: str | None) -> None:
        """What the server told at the login: the seconds per answer and how long its
        dummy AI keeps a seat it takes; said to the person."""
        self.move_time, self.takeover = move_time, takeover
        if move_time is not None:
            self.say(f"You have {move_time:g} s for each answer; past it the server's dummy "
                     f"AI plays your seat for the rest of the {takeover or 'hand'}.")

    def completions(self, before: str) -> list[str]:
        """For a line editor's Tab: the words that may complete the last one typed
        (``before`` the cursor) into an answer of the question being asked, a number or an
        instruction (``/thr`` -> ``/throw``, ``/throw 1`` -> ``150``...)."""
        words = before.split()
        done = words if not before or before[-1].isspace() else words[:-1]
        typed = "" if len(done) == len(words) else words[-1]
        answers = [[str(n)] for n in range(1, len(self.choices) + 1)]
        answers += [rules.notation(action).split() for action in self.choices]
        offers = {answer[len(done)] for answer in answers if len(answer) > len(done)
                  and answer[:len(done)] == done and answer[len(done)].startswith(typed)}
        return sorted(offers, key=lambda word: (not word.isdecimal(), len(word), word))

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
            self.in_hand = True
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
            self._exit(args)

    def _exit(self, scores: list[str]) -> None:
        """``/exit``: the hand's end with its scores, or (bare, mid-hand) the server's
        early termination: its dummy AI plays the seat."""
        asked, self.choices = bool(self.choices), []
        if scores or not self.in_hand:
            self.in_hand = False
            self.say(f"Hand over. Scores of seats 1-4 this hand: {' '.join(scores) or '-'}")
            return
        self.in_hand = False
        time = f" within the {self.move_time:g} s it gives you" if self.move_time else \
            " in time"
        why = (f"no answer of yours reached it{time}" if asked else
               f"your last answer did not reach it{time}")
        until = {"game": "to the end of the game", "hand": "for the rest of this hand"}.get(
            self.takeover or "", "for the rest of this hand (or of the game, as the "
            "server's --takeover says)")
        after = (" You play again from the next hand." if self.takeover != "game" else "")
        self.say(f"*** The server's dummy AI has taken your seat {until}: {why}.{after}")

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
        self.choices = choices
        while True:
            text = self._read(f"Your choice (1-{len(choices)} or an instruction): ")
            if text is None:
                raise HumanLeft("the input ended")
            answer, problem = self._answer(text.strip(), ask, choices)
            if answer is not None:
                self.choices = []
                return answer
            self.say(problem)

    def _read(self, prompt: str) -> str | None:
        """The person's next line after ``prompt`` (``None`` at the end of the input)."""
        if self.reader is not None:
            return self.reader(prompt)
        self.out.write(prompt)
        self.out.flush()
        return self.stdin.readline() or None

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
