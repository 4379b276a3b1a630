"""The server's collector settled once it is up: what it holds frozen, young objects
collected less often, cycles still collected."""

from __future__ import annotations

import subprocess
import sys
import textwrap


def test_settling_freezes_what_is_held_and_cycles_are_still_collected() -> None:
    done = subprocess.run([sys.executable, "-c", textwrap.dedent("""
        import gc, weakref
        from referee.web.collector import YOUNG_THRESHOLD, settle_collector
        assert gc.get_freeze_count() == 0
        settle_collector()
        assert gc.get_freeze_count() > 1000, gc.get_freeze_count()
        assert gc.get_threshold()[0] == YOUNG_THRESHOLD
        class Node: pass
        a, b = Node(), Node()
        a.other, b.other = b, a
        gone = weakref.ref(a)
        del a, b
        for _ in range(3 * YOUNG_THRESHOLD):  # allocations enough for a young collection
            x = Node(); x.me = x
        print("collected" if gone() is None else "kept")
    """)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "collected"
