"""A minimal Gomocup brain, to start your own from: it plays the free point nearest the
centre of the board. Standard library only.

    referee match gomoku "python3 examples/bots/gomoku_center.py" random --games 2

The referee (the manager) sends one command a line; the brain answers some of them with
one line: START/RECTSTART and RESTART with OK, BEGIN/TURN/BOARD with its move "x,y",
ABOUT with its name. docs/gomoku.md has the protocol as the referee speaks it.
"""

import sys

width = height = 15
stones: dict[tuple[int, int], int] = {}  # (x, y) -> 1 mine, 2 the opponent's


def say(line: str) -> None:
    """One line to the manager (flushed: it waits for it)."""
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def move() -> str:
    """Play the free point nearest the centre and say it."""
    cx, cy = (width - 1) / 2, (height - 1) / 2
    free = [(x, y) for x in range(width) for y in range(height) if (x, y) not in stones]
    x, y = min(free, key=lambda p: ((p[0] - cx) ** 2 + (p[1] - cy) ** 2, p))
    stones[(x, y)] = 1
    return f"{x},{y}"


def main() -> None:
    """Answer the manager's commands until END or the end of the input."""
    global width, height
    for line in sys.stdin:
        words = line.replace(",", " ").split()
        if not words:
            continue
        command = words[0].upper()
        if command in ("START", "RECTSTART"):
            width = int(words[1])
            height = int(words[2]) if command == "RECTSTART" else width
            stones.clear()
            say("OK")
        elif command == "RESTART":
            stones.clear()
            say("OK")
        elif command == "BEGIN":
            say(move())
        elif command == "TURN":
            stones[(int(words[1]), int(words[2]))] = 2
            say(move())
        elif command == "BOARD":
            stones.clear()
            for row in sys.stdin:
                if row.strip().upper() == "DONE":
                    break
                x, y, who = (int(v) for v in row.split(","))
                stones[(x, y)] = 1 if who == 1 else 2
            say(move())
        elif command == "ABOUT":
            say('name="center", version="1.0", author="referee examples"')
        elif command == "END":
            return
        elif command != "INFO":  # INFO (time limits...) needs no answer
            say(f"UNKNOWN {command}")


if __name__ == "__main__":
    main()
