"""A Gomocup brain that says on stderr what it does, for the stderr-log tests.

It plays the first empty point in scan order. A token of its own (random, one per
process) starts every line it writes on stderr, and its ABOUT answer gives it
(``token="..."``), so a test finds in a game's record which process played each seat:
``TOKEN start`` when it starts (then ``--noise N`` bytes of filler lines), ``TOKEN move
X,Y`` before each move it answers, ``TOKEN restart`` on RESTART (``TOKEN refuse`` and an
UNKNOWN answer with ``--no-restart``), ``TOKEN end`` on END. With ``--crash-at N`` it writes
``TOKEN dying`` and exits (code 4) when asked for its ``N``-th move (of all its games);
with ``--delay S`` it waits S seconds before each move; with ``--linger S`` it stays S
seconds after its input ends (a program that outlives its referee).
Everything a game made it write is thus known from the record: ``expected_stderr`` in the
tests.
"""

import secrets
import sys
import time


def main() -> int:
    args = sys.argv[1:]
    crash_at = int(args[args.index("--crash-at") + 1]) if "--crash-at" in args else 0
    noise = int(args[args.index("--noise") + 1]) if "--noise" in args else 0
    restarts = "--no-restart" not in args
    delay = float(args[args.index("--delay") + 1]) if "--delay" in args else 0.0
    linger = float(args[args.index("--linger") + 1]) if "--linger" in args else 0.0
    token = secrets.token_hex(8)
    err = sys.stderr

    def say(text: str) -> None:
        err.write(f"{token} {text}\n")
        err.flush()

    say("start")
    line = "x" * 99 + "\n"
    err.write((line * (noise // len(line) + 1))[:noise])
    err.flush()
    size = 0
    taken: set[tuple[int, int]] = set()
    moves = 0

    def answer(text: str) -> None:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()

    def play() -> bool:
        nonlocal moves
        moves += 1
        if moves == crash_at:
            say("dying")
            return False
        point = next((x, y) for y in range(size) for x in range(size) if (x, y) not in taken)
        taken.add(point)
        if delay:
            time.sleep(delay)
        say(f"move {point[0]},{point[1]}")
        answer(f"{point[0]},{point[1]}")
        return True

    for raw in sys.stdin:
        word, _, rest = raw.strip().partition(" ")
        word = word.upper()
        if word == "RESTART" and not restarts:
            say("refuse")
            answer("UNKNOWN no RESTART here")
        elif word in ("START", "RESTART"):
            if word == "RESTART":
                say("restart")
            size = int(rest) if word == "START" else size
            taken.clear()
            answer("OK")
        elif word == "ABOUT":
            answer(f'name="chatty", version="1", token="{token}"')
        elif word in ("BEGIN", "TURN"):
            if word == "TURN":
                x, y = (int(v) for v in rest.split(","))
                taken.add((x, y))
            if not play():
                return 4
        elif word == "END":
            say("end")
            return 0
        elif word != "INFO" and word:
            answer(f"UNKNOWN {word}")
    time.sleep(linger)
    return 0


if __name__ == "__main__":
    sys.exit(main())
