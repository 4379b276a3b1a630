"""A Gomocup brain that speaks the protocol correctly and does one hostile thing.

``hostile_gomoku.py [--mode MODE ARG...]``: the modes are in ``hostility.py`` beside it;
what the brain learns it reports as ``MESSAGE`` lines (the referee records them as notes).
It plays next to the last stone played, else the first empty point.
"""

from __future__ import annotations

import sys

from hostility import Hostility


def main() -> None:
    """The protocol loop."""
    out = sys.stdout

    def say(text: str) -> None:
        out.write(text + "\n")
        out.flush()

    hostile = Hostility(sys.argv[1:], lambda text: say(f"MESSAGE {text}"))
    width = height = 0
    taken: set[tuple[int, int]] = set()
    last: tuple[int, int] | None = None

    def reset(w: int, h: int) -> None:
        nonlocal width, height, last
        width, height, last = w, h, None
        taken.clear()

    def play() -> None:
        hostile.turn()
        point = next((p for p in _near(last, width, height) if p not in taken), None)
        if point is None:
            point = next((x, y) for y in range(height) for x in range(width)
                         if (x, y) not in taken)
        taken.add(point)
        say(f"{point[0]},{point[1]}")
        hostile.turn_over()

    for line in sys.stdin:
        word, _, rest = line.strip().partition(" ")
        word = word.upper()
        if not word:
            continue
        if word == "START":
            reset(int(rest), int(rest))
            hostile.started()
            say("OK")
        elif word == "RECTSTART":
            w, h = (int(v) for v in rest.split(","))
            reset(w, h)
            hostile.started()
            say("OK")
        elif word == "RESTART":
            reset(width, height)
            say("OK")
        elif word == "BEGIN":
            play()
        elif word == "TURN":
            x, y = (int(v) for v in rest.split(","))
            taken.add((x, y))
            last = (x, y)
            play()
        elif word == "BOARD":
            taken.clear()
            for row in sys.stdin:
                if row.strip().upper() == "DONE":
                    break
                x, y, _who = (int(v) for v in row.split(","))
                taken.add((x, y))
                last = (x, y)
            play()
        elif word == "INFO":
            continue
        elif word == "ABOUT":
            say('name="hostile", version="1.0", author="tests"')
        elif word == "END":
            break
        else:
            say(f"UNKNOWN {word}")
    hostile.finished()


def _near(last: tuple[int, int] | None, width: int, height: int) -> list[tuple[int, int]]:
    """The points around ``last`` on the board."""
    if last is None:
        return []
    x, y = last
    return [(x + dx, y + dy) for dy in (-1, 0, 1) for dx in (-1, 0, 1)
            if (dx or dy) and 0 <= x + dx < width and 0 <= y + dy < height]


if __name__ == "__main__":
    main()
