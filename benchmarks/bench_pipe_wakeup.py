"""What a pipe round trip to another process costs the caller, when the other process runs
on another CPU and when both share one (issue 25: the floor under every referee loop).

A child echoes what it reads; the parent writes a short line and reads the echo, ``--n``
times. Figures per round trip: wall time, the parent's CPU (user + system), and the time
of the ``os.write`` call alone (it wakes the child). First with the scheduler free to put
them anywhere (on a machine with two idle CPUs, on two), then with both pinned to CPU 0
(``os.sched_setaffinity``, set before the child is forked). Each also with the child
suspended between round trips as the referee suspends a bot off turn (``SIGSTOP`` after
its answer, ``SIGCONT`` before the next line): the floor of a suspended turn, with no
referee logic around it.

Last, what the two signals of suspension cost the caller (CPU, measured around the
``kill`` calls alone) when the child is asleep in its read, as a bot is by the time the
referee has read and checked its answer: ``SIGSTOP``, a pause of ``--pause`` µs (a spin,
not counted), ``SIGCONT``, a pause; against the same pair sent back to back (the child
woken by the first is still running when the second comes).

Run: ``.venv/bin/python benchmarks/bench_pipe_wakeup.py [--n 20000] [--json]``
"""

from __future__ import annotations

import argparse
import os
import signal
import time

from figures import machine, print_figures


def round_trips(count: int, suspend: bool = False) -> dict[str, float]:
    """Microseconds per round trip: wall, the parent's CPU, the write call; ``suspend``:
    the child stopped after each echo and continued before the next line."""
    to_child, child_in = os.pipe()
    child_out, from_child = os.pipe()
    pid = os.fork()
    if pid == 0:  # the echo
        os.close(child_in)
        os.close(child_out)
        while data := os.read(to_child, 4096):
            os.write(from_child, data)
        os._exit(0)
    os.close(to_child)
    os.close(from_child)
    writing = 0.0
    cpu, wall = time.process_time(), time.perf_counter()
    for _ in range(count):
        if suspend:
            os.kill(pid, signal.SIGCONT)
        began = time.perf_counter()
        os.write(child_in, b"x\n")
        writing += time.perf_counter() - began
        os.read(child_out, 4096)
        if suspend:
            os.kill(pid, signal.SIGSTOP)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    os.kill(pid, signal.SIGCONT)
    os.close(child_in)
    os.waitpid(pid, 0)
    os.close(child_out)
    return {"wall_us": round(wall / count * 1e6, 1), "cpu_us": round(cpu / count * 1e6, 1),
            "write_us": round(writing / count * 1e6, 1)}


def _spin(seconds: float) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def signal_pairs(count: int, pause: float) -> float:
    """Microseconds of the caller's CPU per ``SIGSTOP`` + ``SIGCONT`` pair to a child
    asleep in a read, the pair ``pause`` seconds apart (0: back to back)."""
    to_child, child_in = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(child_in)
        os.read(to_child, 1)
        os._exit(0)
    os.close(to_child)
    _spin(0.05)
    spent = 0.0
    for _ in range(count):
        began = time.thread_time()
        os.kill(pid, signal.SIGSTOP)
        spent += time.thread_time() - began
        _spin(pause)
        began = time.thread_time()
        os.kill(pid, signal.SIGCONT)
        spent += time.thread_time() - began
        _spin(pause)
    os.write(child_in, b"x")
    os.close(child_in)
    os.waitpid(pid, 0)
    return round(spent / count * 1e6, 1)


def main() -> None:
    """Time the round trips free, then on one CPU."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=20_000)
    parser.add_argument("--pause", type=float, default=50.0,
                        help="µs between the signals to a sleeping child")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result: dict[str, object] = {
        "machine": machine()}
    for place in ("free", "one_cpu"):
        if place == "one_cpu":
            os.sched_setaffinity(0, {0})
        for suspend in (False, True):
            label = f"{place}_suspended" if suspend else place
            for name, value in round_trips(args.n, suspend).items():
                result[f"{label}_{name}"] = value
        pairs = args.n // 4
        result[f"{place}_signal_pair_to_sleeping_cpu_us"] = signal_pairs(
            pairs, args.pause / 1e6)
        result[f"{place}_signal_pair_back_to_back_cpu_us"] = signal_pairs(pairs, 0.0)
    print_figures(result, args.json)


if __name__ == "__main__":
    main()
