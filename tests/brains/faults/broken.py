"""Deliberately broken Gomocup brains for the fault tests: one misbehaviour per ``--mode``.

Every mode plays like a plain brain (the first empty point in scan order, answers on
``\\n``) except for the one thing its ``--mode`` breaks; ``MODES`` lists them. Move faults
happen at the first TURN (a BEGIN is answered normally), so the broken brain commits its
fault as black and as white alike.

For the tests to check what happened, the brain appends to files in its working
directory: ``pids.txt`` (``<pid> <what>`` for itself and every child it starts) and
``received.txt`` (every command line it reads, without its line end).

Runs with any Python 3 and nothing but the standard library.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

MODES = {
    "crash-start": "exits (code 3) on START, before answering it",
    "crash-mid": "plays 3 moves, then exits (code 4) when asked for the 4th",
    "hang": "never answers the first TURN",
    "slow": "answers the first TURN 2 s after the turn limit (INFO timeout_turn)",
    "garbage": "answers 'hello referee' to the first TURN",
    "long-line-eof": "answers the first TURN with 10 MB of digits, no line end, then silence",
    "long-line-eol": "answers the first TURN with a 10 MB line of digits and a line end",
    "bad-utf8": "answers the first TURN with bytes that are not UTF-8",
    "off-board": "answers the first TURN with the point just off the board (width,height)",
    "occupied": "answers the first TURN with the opponent's stone it was just told",
    "centre": "always plays the board centre (the renju test makes it a double three)",
    "ignore-end": "plays well, but on END ignores SIGTERM and keeps running for 30 s",
    "flood-stderr": "plays well, writing 10 MB to stderr before each of its first 5 moves",
    "memory": "at the first TURN allocates 300 MB (touched) and holds it without answering",
    "spawn-exit": "plays 2 moves, then starts 'sleep 300' children (one setsid) and exits",
    "unknown-turn": "answers 'UNKNOWN' to the first TURN",
    "error-turn": "answers 'ERROR' to the first TURN",
    "two-moves": "answers the first TURN with two points, the first two empty ones",
    "refuse-start": "answers 'ERROR unsupported size N' to START",
    "restart-unknown": "plays well, answers 'UNKNOWN' to RESTART",
    "chatty": "plays well, sending MESSAGE and DEBUG lines before every move",
    "suggest": "plays well through 'SUGGEST x,y' (then answers the manager's PLAY)",
    "eol-cr": "plays well, ending every line it writes with CR only",
    "eol-crlf": "plays well, ending every line it writes with CR LF",
}

MB = 2**20
EOL = {"eol-cr": b"\r", "eol-crlf": b"\r\n"}


def note(filename: str, text: str) -> None:
    """Append a line to a file in the working directory (flushed at once)."""
    with open(filename, "a", encoding="utf-8") as f:
        f.write(text + "\n")


class Broken:
    """The brain: plain play, with ``mode`` deciding what goes wrong."""

    def __init__(self, mode: str) -> None:
        self.mode = mode
        self.eol = EOL.get(mode, b"\n")
        self.out = sys.stdout.buffer
        self.width = self.height = 0
        self.taken: set[tuple[int, int]] = set()
        self.moves = 0  # moves answered so far (by this process)
        self.turn_limit_ms = 0
        self.turned = False  # whether a TURN came yet
        self.hoard: list[bytes] = []

    # -- output ---------------------------------------------------------------------
    def write(self, data: bytes) -> None:
        self.out.write(data)
        self.out.flush()

    def say(self, text: str) -> None:
        self.write(text.encode() + self.eol)

    def first_empty(self) -> tuple[int, int]:
        for y in range(self.height):
            for x in range(self.width):
                if (x, y) not in self.taken:
                    return x, y
        raise SystemExit("board full")

    # -- moves ----------------------------------------------------------------------
    def move(self, command: str, last: tuple[int, int] | None) -> None:
        """Answer BEGIN, TURN (``last`` is the opponent's move) or BOARD."""
        mode = self.mode
        first_turn = command == "TURN" and not self.turned
        if command == "TURN":
            self.turned = True
        if first_turn and self.fault_at_first_turn(last):
            return
        if mode == "crash-mid" and self.moves == 3:
            os._exit(4)
        if mode == "spawn-exit" and self.moves == 2:
            self.spawn_and_exit()
        if mode == "flood-stderr" and self.moves < 5:
            chunk = b"E" * (MB - 1) + b"\n"
            for _ in range(10):
                sys.stderr.buffer.write(chunk)
            sys.stderr.buffer.flush()
        point = (self.width // 2, self.height // 2) if mode == "centre" else self.first_empty()
        self.taken.add(point)
        self.moves += 1
        x, y = point
        if mode == "chatty":
            self.say(f"MESSAGE thinking about {x},{y}")
            self.say(f"DEBUG move {self.moves} depth 1")
        if mode == "suggest":
            self.say(f"SUGGEST {x},{y}")
            return  # the move is answered when PLAY comes
        self.say(f"{x},{y}")

    def fault_at_first_turn(self, last: tuple[int, int] | None) -> bool:
        """Commit this mode's fault at the first TURN; ``True`` if it did."""
        mode = self.mode
        if mode == "hang":
            time.sleep(3600)
        elif mode == "slow":
            time.sleep(self.turn_limit_ms / 1000 + 2.0)
            x, y = self.first_empty()
            self.say(f"{x},{y}")
        elif mode == "garbage":
            self.say("hello referee")
        elif mode in ("long-line-eof", "long-line-eol"):
            for _ in range(10):
                self.write(b"7" * MB)
            if mode == "long-line-eol":
                self.write(b"\n")
            time.sleep(3600)
        elif mode == "bad-utf8":
            self.write(b"\xff\xfe,\x80\xc3\n")
        elif mode == "off-board":
            self.say(f"{self.width},{self.height}")
        elif mode == "occupied":
            assert last is not None
            self.say(f"{last[0]},{last[1]}")
        elif mode == "memory":
            for _ in range(30):
                self.hoard.append(b"\x01" * (10 * MB))  # filled, so resident
            time.sleep(3600)
        elif mode == "unknown-turn":
            self.say("UNKNOWN")
        elif mode == "error-turn":
            self.say("ERROR cannot play now")
        elif mode == "two-moves":
            empty = [(x, y) for y in range(self.height) for x in range(self.width)
                     if (x, y) not in self.taken][:2]
            self.say(" ".join(f"{x},{y}" for x, y in empty))
        else:
            return False
        return True

    def spawn_and_exit(self) -> None:
        """Leave children behind: one in our session, one in a session of its own."""
        plain = subprocess.Popen(["sleep", "300"])
        note("pids.txt", f"{plain.pid} sleep")
        child = os.fork()
        if child == 0:  # the child leaves the session, then becomes 'sleep 300'
            os.setsid()
            os.execvp("sleep", ["sleep", "300"])
        note("pids.txt", f"{child} setsid-sleep")
        time.sleep(0.05)  # let the fork reach setsid before we go
        os._exit(5)

    # -- the command loop -----------------------------------------------------------
    def run(self) -> None:
        note("pids.txt", f"{os.getpid()} brain")
        stdin = sys.stdin.buffer
        while True:
            raw = stdin.readline()
            if not raw:
                return
            line = raw.decode().strip()
            if not line:
                continue
            note("received.txt", line)
            word, _, rest = line.partition(" ")
            word = word.upper()
            if word == "START":
                if self.mode == "crash-start":
                    os._exit(3)
                if self.mode == "refuse-start":
                    self.say(f"ERROR unsupported size {rest}")
                    continue
                self.width = self.height = int(rest)
                self.taken.clear()
                self.say("OK")
            elif word == "RESTART":
                if self.mode == "restart-unknown":
                    self.say("UNKNOWN")
                    continue
                self.taken.clear()
                self.say("OK")
            elif word == "ABOUT":
                self.say(f'name="broken-{self.mode}", version="1.0", author="tests"')
            elif word == "INFO":
                key, _, value = rest.partition(" ")
                if key == "timeout_turn":
                    self.turn_limit_ms = int(value)
            elif word == "BEGIN":
                self.move("BEGIN", None)
            elif word == "TURN":
                x, y = (int(v) for v in rest.split(","))
                self.taken.add((x, y))
                self.move("TURN", (x, y))
            elif word == "BOARD":
                self.taken.clear()
                while True:
                    row = stdin.readline().decode().strip()
                    note("received.txt", row)
                    if not row or row.upper() == "DONE":
                        break
                    x, y, _ = (int(v) for v in row.split(","))
                    self.taken.add((x, y))
                self.move("BOARD", None)
            elif word == "PLAY":
                x, y = (int(v) for v in rest.split(","))
                self.taken.add((x, y))
                self.say(f"{x},{y}")
            elif word == "END":
                if self.mode == "ignore-end":
                    signal.signal(signal.SIGTERM, signal.SIG_IGN)
                    note("pids.txt", f"{os.getpid()} ignoring-end")
                    time.sleep(30)
                return
            else:
                self.say(f"UNKNOWN {word}")


def main() -> None:
    args = sys.argv[1:]
    if len(args) != 2 or args[0] != "--mode" or args[1] not in MODES:
        width = max(len(m) for m in MODES)
        listing = "\n".join(f"  {m:<{width}}  {what}" for m, what in MODES.items())
        sys.exit(f"usage: broken.py --mode MODE\nmodes:\n{listing}")
    Broken(args[1]).run()


if __name__ == "__main__":
    main()
