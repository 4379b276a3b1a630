"""An mjai bot in mjai.app's style: its seat is its first argument (``riichi_seat.py 2``).

It plays like the tsumogiri bot, one mjai line or a JSON array of events at a time, and
exits with status 3 (a crash) when ``start_game`` gives it another seat (``id``) than its
argument says; it writes ``seat.txt`` (argument and id) in its working folder.

With ``--arrays`` it reads JSON arrays only, as mjai.app's own bots do (the batched style):
a line that is one plain mjai event holds no event it follows, and it answers
``{"type":"none"}`` to it, even to its own draw. It then writes ``batches.txt``: the
number of events of each line it read (``plain`` for a line that was no array).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from referee.games.riichi.bots.player import View, decide
from referee.games.riichi.bots.tsumogiri import policy


def main() -> int:
    """Play a game as the seat of the first argument."""
    seat = int(sys.argv[1])
    arrays = "--arrays" in sys.argv[2:]
    view = View()
    sizes: list[str] = []
    for line in sys.stdin:
        data = json.loads(line)
        events = data if isinstance(data, list) else [] if arrays else [data]
        if arrays:
            sizes.append(str(len(data)) if isinstance(data, list) else "plain")
            Path("batches.txt").write_text(" ".join(sizes) + "\n")
        for event in events:
            if event.get("type") == "start_game":
                Path("seat.txt").write_text(f"{seat} {event.get('id')}\n")
                if event.get("id") != seat:
                    return 3
            view.update(event)
        answer = decide(view, policy) if events else {"type": "none"}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
        if any(e.get("type") == "end_game" for e in events):
            return 0
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
