"""An instant Gomocup brain: plays the first empty point in scan order. For tests/benchmarks.

Options (argv): ``--rect-unknown`` refuse RECTSTART with UNKNOWN, ``--no-restart`` answer
RESTART with UNKNOWN, ``--refuse N`` answer ERROR to START N, ``--order reverse`` scan from
the last point, ``--pattern`` play only points of its own colour class so that nobody ever
makes five (``(x + 2y) % 4 < 2`` for black): games fill the board and end drawn.
"""

import sys


def main() -> None:
    args = sys.argv[1:]
    refuse = {int(args[i + 1]) for i, a in enumerate(args) if a == "--refuse"}
    reverse = "--order" in args and args[args.index("--order") + 1] == "reverse"
    pattern = "--pattern" in args
    width = height = 0
    taken: set[tuple[int, int]] = set()
    order: list[tuple[int, int]] = []
    out = sys.stdout
    inp = sys.stdin

    def reset(w: int, h: int) -> None:
        nonlocal width, height, order
        width, height = w, h
        taken.clear()
        order = [(x, y) for y in range(h) for x in range(w)]
        if reverse:
            order.reverse()

    def play() -> None:
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
        line = inp.readline()
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
                row = inp.readline().strip()
                if row.upper() == "DONE" or not row:
                    break
                x, y, _f = (int(v) for v in row.split(","))
                taken.add((x, y))
            play()
        elif word == "ABOUT":
            out.write('name="instant", version="1.0", author="tests"\n')
            out.flush()
        elif word == "END":
            return
        elif word == "INFO":
            continue
        else:
            out.write(f"UNKNOWN {word}\n")
            out.flush()


if __name__ == "__main__":
    main()
