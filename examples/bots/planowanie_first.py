"""A minimal Planowanie player, to start your own from: it declares no tricks and plays
the first card it may (following the suit led when it can). Standard library only.

    referee match planowanie heuristic random random "python3 examples/bots/planowanie_first.py"

The referee sends one command a line; every answer is "=" (then a value, if any) and an
empty line. docs/planowanie.md has the protocol as the referee speaks it.
"""

import sys


def answer(value: str = "") -> None:
    """A success answer: "= value", then the empty line that ends it (flushed)."""
    sys.stdout.write(f"= {value}".rstrip() + "\n\n")
    sys.stdout.flush()


def main() -> None:
    """Follow the game from the commands and answer each one."""
    players = 4
    hand: list[str] = []
    trick: list[str] = []  # the cards of the trick being played, in order
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        command, args = words[0], words[1:]
        if command == "set_players":
            players = int(args[0])
            answer()
        elif command == "set_cards":
            hand = args[1:]
            trick = []
            answer()
        elif command == "gen_declare":
            answer("0")
        elif command == "play":
            card = args[1]
            if len(trick) == players:
                trick = []
            trick.append(card)
            if card in hand:
                hand.remove(card)
            answer()
        elif command == "gen_move":
            if len(trick) == players:
                trick = []
            led = [c for c in hand if trick and c[1] == trick[0][1]]
            answer((led or hand)[0])
        elif command == "name":
            answer("first-card")
        elif command == "quit":
            answer()
            return
        else:  # set_deck, set_game, time_left, declare: nothing to remember here
            answer()


if __name__ == "__main__":
    main()
