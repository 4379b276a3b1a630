"""A Gomocup brain for benchmarks: every move costs a fixed time, every game a fixed length.

Speaks the Gomocup protocol on stdin/stdout: START/RECTSTART/RESTART -> OK, INFO ignored,
BEGIN/TURN/BOARD...DONE -> a move, ABOUT -> ``name="slow", ...``, END -> exit; anything
else -> UNKNOWN. It imports nothing but the standard library, so that it starts fast.

Each move costs ``--think-ms`` (default 20) before the answer, either of busy CPU work
(``--mode cpu``, the default: the loop runs until this process has *used* that much CPU
time, so a move costs the same CPU however busy the machine is and cores are the limit) or
of ``time.sleep`` (``--mode sleep``: the brain waits and uses no CPU).

The moves are fixed, so that every game has the same known length. The colour to move is
black when the number of stones on the board is even. Both colours play the points of
their own class of the pattern ``(x + 2y) % 4 < 2`` (black) in rows 2 and below, in scan
order: that pattern never lines up five stones of one colour in any direction. Black's last
five moves are (0,0) .. (4,0) on row 0, where nobody else plays (rows 0 and 1 stay empty
otherwise, so these can join nothing else): black makes five with its ``--moves``-th move
(default 30) and the game ends after exactly ``2 * moves - 1`` moves, black winning. Needs a
board of at least 5 columns and enough rows below row 1 for ``moves - 5`` stones of each
colour (15x15 holds 97 of each).

Run: ``python benchmarks/brains/slow_brain.py [--mode cpu|sleep] [--think-ms 20]
[--moves 30]``
"""

from __future__ import annotations

import argparse
import sys
import time


def burn(seconds: float) -> None:
    """Busy CPU work until this process has used ``seconds`` more CPU time."""
    end = time.process_time() + seconds
    value = 0
    while time.process_time() < end:
        for i in range(500):
            value ^= i * i


class Game:
    """The brain's view of one game: the stones on the board and its fixed move lists."""

    def __init__(self, width: int, height: int, moves: int) -> None:
        self.taken: set[tuple[int, int]] = set()
        self.moves = moves
        self.black_moves = 0
        fill = [(x, y) for y in range(2, height) for x in range(width)]
        self.black_fill = [p for p in fill if (p[0] + 2 * p[1]) % 4 < 2]
        self.white_fill = [p for p in fill if (p[0] + 2 * p[1]) % 4 >= 2]
        self.black_five = [(x, 0) for x in range(5)]
        self.all_points = [(x, y) for y in range(height) for x in range(width)]

    def choose(self) -> tuple[int, int]:
        """The next move of the colour to move (see the module docstring)."""
        if len(self.taken) % 2 == 0:  # black
            self.black_moves += 1
            plan = self.black_fill if self.black_moves <= self.moves - 5 else self.black_five
        else:
            plan = self.white_fill
        for point in plan:
            if point not in self.taken:
                return point
        return next(p for p in self.all_points if p not in self.taken)  # off the plan


def main() -> None:
    """Answer the protocol until END or the end of input."""
    parser = argparse.ArgumentParser(description="Gomocup brain with fixed-cost moves.")
    parser.add_argument("--mode", choices=("cpu", "sleep"), default="cpu")
    parser.add_argument("--think-ms", type=float, default=20.0)
    parser.add_argument("--moves", type=int, default=30, help="black's moves in a game (>= 5)")
    args = parser.parse_args()
    think = args.think_ms / 1000
    wait = burn if args.mode == "cpu" else time.sleep
    out = sys.stdout
    size = (15, 15)
    game = Game(*size, args.moves)

    def say(text: str) -> None:
        out.write(text + "\n")
        out.flush()

    def move() -> None:
        point = game.choose()
        wait(think)
        game.taken.add(point)
        say(f"{point[0]},{point[1]}")

    lines = iter(sys.stdin.readline, "")
    for raw in lines:
        line = raw.strip()
        if not line:
            continue
        word, _, rest = line.partition(" ")
        word = word.upper()
        if word in ("START", "RECTSTART", "RESTART"):
            if word == "START":
                size = (int(rest), int(rest))
            elif word == "RECTSTART":
                width, height = rest.split(",")
                size = (int(width), int(height))
            game = Game(*size, args.moves)
            say("OK")
        elif word == "BEGIN":
            move()
        elif word == "TURN":
            x, y = rest.split(",")
            game.taken.add((int(x), int(y)))
            move()
        elif word == "BOARD":
            game = Game(*size, args.moves)
            for row in lines:
                row = row.strip()
                if row.upper() == "DONE":
                    break
                if row:
                    x, y, _field = row.split(",")
                    game.taken.add((int(x), int(y)))
            game.black_moves = len(game.taken) // 2  # black's moves so far
            move()
        elif word == "ABOUT":
            say('name="slow", version="1.0", author="benchmarks"')
        elif word == "END":
            return
        elif word == "INFO":
            continue
        else:
            say(f"UNKNOWN {word}")


if __name__ == "__main__":
    main()
