"""An instant Gomocup brain: plays the first empty point in scan order. For tests/benchmarks.

Options (argv): ``--rect-unknown`` refuse RECTSTART with UNKNOWN, ``--no-restart`` answer
RESTART with UNKNOWN, ``--refuse N`` answer ERROR to START N, ``--order reverse`` scan from
the last point, ``--pattern`` play only points of its own colour class so that nobody ever
makes five (``(x + 2y) % 4 < 2`` for black): games fill the board and end drawn.
``--log FILE`` appends every raw line received (with its line end, as Python repr) to FILE;
``--swap2 A,B`` answers SWAP2BOARD case 2 with A (``swap``, ``one`` or ``two``) and case 3
with B (``swap`` or ``one``); ``--info-error before|after`` answers every ``INFO time_left``
with ``ERROR Unknown command: TIME_LEFT``, at once (so before its move) or just after its
next move, as brains that do not know that INFO key do. ``--delay S`` waits S seconds
before each of its moves (``--delay-moves N``: before its first N moves only).
"""

import sys
import time


def main() -> None:
    args = sys.argv[1:]
    refuse = {int(args[i + 1]) for i, a in enumerate(args) if a == "--refuse"}
    reverse = "--order" in args and args[args.index("--order") + 1] == "reverse"
    pattern = "--pattern" in args
    log = open(args[args.index("--log") + 1], "ab") if "--log" in args else None  # noqa: SIM115
    swap2 = args[args.index("--swap2") + 1].split(",") if "--swap2" in args else ["one", "one"]
    info_error = args[args.index("--info-error") + 1] if "--info-error" in args else ""
    delay = float(args[args.index("--delay") + 1]) if "--delay" in args else 0.0
    delay_moves = int(args[args.index("--delay-moves") + 1]) if "--delay-moves" in args else -1
    played = 0
    pending_errors = 0
    raw_in = sys.stdin.buffer

    def readline() -> str:
        raw = raw_in.readline()
        if log is not None and raw:
            log.write(repr(raw).encode() + b"\n")
            log.flush()
        return raw.decode()
    width = height = 0
    taken: set[tuple[int, int]] = set()
    order: list[tuple[int, int]] = []
    out = sys.stdout

    def reset(w: int, h: int) -> None:
        nonlocal width, height, order
        width, height = w, h
        taken.clear()
        order = [(x, y) for y in range(h) for x in range(w)]
        if reverse:
            order.reverse()

    def play() -> None:
        nonlocal pending_errors, played
        if delay and (delay_moves < 0 or played < delay_moves):
            time.sleep(delay)
        played += 1
        move()
        for _ in range(pending_errors):
            out.write("ERROR Unknown command: TIME_LEFT\n")
        out.flush()
        pending_errors = 0

    def move() -> None:
        if pattern:
            black = len(taken) % 2 == 0
            for p in order:
                if p not in taken and ((p[0] + 2 * p[1]) % 4 < 2) == black:
                    taken.add(p)
                    out.write(f"{p[0]},{p[1]}\n")
                    out.flush()
                    return
        for p in order:
            if p not in taken:
                taken.add(p)
                out.write(f"{p[0]},{p[1]}\n")
                out.flush()
                return

    while True:
        line = readline()
        if not line:
            return
        cmd = line.strip()
        if not cmd:
            continue
        word, _, rest = cmd.partition(" ")
        word = word.upper()
        if word == "START":
            n = int(rest)
            if n in refuse:
                out.write(f"ERROR unsupported size {n}\n")
            else:
                reset(n, n)
                out.write("OK\n")
            out.flush()
        elif word == "RECTSTART":
            if "--rect-unknown" in args:
                out.write("UNKNOWN rectangular boards\n")
            else:
                w, h = (int(v) for v in rest.split(","))
                reset(w, h)
                out.write("OK\n")
            out.flush()
        elif word == "RESTART":
            if "--no-restart" in args:
                out.write("UNKNOWN\n")
            else:
                reset(width, height)
                out.write("OK\n")
            out.flush()
        elif word == "BEGIN":
            play()
        elif word == "TURN":
            x, y = (int(v) for v in rest.split(","))
            taken.add((x, y))
            play()
        elif word == "BOARD":
            taken.clear()
            while True:
                row = readline().strip()
                if row.upper() == "DONE" or not row:
                    break
                x, y, _f = (int(v) for v in row.split(","))
                taken.add((x, y))
            play()
        elif word == "SWAP2BOARD":
            stones = []
            while True:
                row = readline().strip()
                if row.upper() == "DONE" or not row:
                    break
                stones.append(row)
            cx, cy = width // 2, height // 2
            if not stones:
                answer = f"{cx},{cy} {cx + 1},{cy} {cx},{cy + 1}"
            else:
                choice = swap2[0] if len(stones) == 3 else swap2[1]
                answer = {"swap": "SWAP", "one": f"{cx - 1},{cy - 1}",
                          "two": f"{cx - 1},{cy - 1} {cx + 1},{cy + 1}"}[choice]
                if len(stones) == 5 and choice == "one":
                    answer = f"{cx - 2},{cy - 2}"
            out.write(answer + "\n")
            out.flush()
        elif word == "ABOUT":
            out.write('name="instant", version="1.0", author="tests"\n')
            out.flush()
        elif word == "END":
            return
        elif word == "INFO":
            if info_error and rest.split(None, 1)[:1] == ["time_left"]:
                if info_error == "before":
                    out.write("ERROR Unknown command: TIME_LEFT\n")
                    out.flush()
                else:
                    pending_errors += 1
            continue
        else:
            out.write(f"UNKNOWN {word}\n")
            out.flush()


if __name__ == "__main__":
    main()
