"""A Planowanie player that breaks the protocol one way per ``--mode`` (fault tests).

Plays like the built-in random player (seed 0) except for what its mode breaks. Appends
every line it reads to ``received.txt`` in its working folder, so tests can check exactly
what the referee sent (golden transcripts) and that a killed program read nothing more.
"""

from __future__ import annotations

import os
import sys
import time

from referee.games.planowanie.bots.player import CommandError, PlayerLoop
from referee.games.planowanie.bots.random_player import RandomStrategy
from referee.games.planowanie.rules import cards_of

MODES = {
    "ok": "plays legally at random",
    "bad-declare": "declares 99 tricks",
    "word-declare": "answers gen_declare with '= lots'",
    "not-a-card": "answers the first gen_move with '= ZZ'",
    "not-in-hand": "answers the first gen_move with a card it does not hold",
    "no-follow": "plays another suit while holding the led suit, the first time it can",
    "garbage": "answers the first gen_move with 'hello referee'",
    "question-play": "answers '? no' to the first play",
    "question-time": "answers '? unknown command' to every time_left (allowed)",
    "no-blank": "leaves out the empty line after its answers, from the first gen_move on",
    "extra-blank": "ends every answer with three empty lines (allowed)",
    "crlf": "ends every line with CR LF (allowed)",
    "crash": "exits (code 5) when asked for its third card",
    "hang": "never answers the first gen_move",
    "slow": "takes 0.3 s over every gen_move",
    "refuse-setup": "answers '? unsupported deck' to set_deck",
    "one-game": "plays one game: answers '? one game only' to a second set_deck",
    "crash-start": "exits (code 3) before reading anything",
}


def main() -> int:
    """Run the player in the mode given as the first argument."""
    mode = sys.argv[1] if len(sys.argv) > 1 else "ok"
    if mode not in MODES:
        print(f"unknown mode {mode}", file=sys.stderr)
        return 2
    if mode == "crash-start":
        return 3
    loop = PlayerLoop(RandomStrategy(0), "faulty", mode)
    out = sys.stdout
    eol = "\r\n" if mode == "crlf" else "\n"
    blank = True
    moves = 0
    plays = 0
    decks = 0
    log = open("received.txt", "a", encoding="utf-8")  # noqa: SIM115
    for line in sys.stdin:
        log.write(line)
        log.flush()
        words = line.split()
        if not words:
            continue
        command = words[0]
        answer: str | None = None
        if command == "gen_move":
            moves += 1
            view = loop.view
            assert view is not None
            if mode == "slow":
                time.sleep(0.3)
            if moves == 1 and mode == "hang":
                time.sleep(3600)
            if moves == 3 and mode == "crash":
                os._exit(5)
            if moves == 1 and mode == "not-a-card":
                answer = "= ZZ"
            if moves == 1 and mode == "garbage":
                answer = "hello referee"
            if moves == 1 and mode == "not-in-hand":
                held = view.hand | view.table.played
                missing = next(c for c in range(view.rules.deck.size) if not held >> c & 1)
                answer = "= " + view.rules.deck.name(missing)
            if mode == "no-follow" and view.table.trick:
                legal = view.legal_cards()
                others = [c for c in cards_of(view.hand) if c not in legal]
                if others and legal != cards_of(view.hand):
                    answer = "= " + view.rules.deck.name(others[0])
            if mode == "no-blank":
                blank = False
        elif command == "gen_declare" and mode == "bad-declare":
            answer = "= 99"
        elif command == "gen_declare" and mode == "word-declare":
            answer = "= lots"
        elif command == "play" and mode == "question-play":
            plays += 1
            if plays == 1:
                answer = "? no"
        elif command == "time_left" and mode == "question-time":
            answer = "? unknown command"
        elif command == "set_deck" and mode == "refuse-setup":
            answer = "? unsupported deck"
        elif command == "set_deck" and mode == "one-game":
            decks += 1
            if decks > 1:
                answer = "? one game only"
        if answer is None:
            try:
                text = loop.handle(words)
                answer = f"= {text}" if text else "="
            except CommandError as exc:
                answer = f"? {exc}"
        ending = eol if not blank else eol + eol
        if mode == "extra-blank":
            ending = eol * 4
        out.write(answer + ending)
        out.flush()
        if command == "quit":
            break
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
