"""A minimal mjai bot for Riichi mahjong, to start your own from: it discards every tile
it draws and never calls or wins. Standard library only.

    referee match riichi greedy tsumogiri tsumogiri "python3 examples/bots/mjai_tsumogiri.py"

The referee sends one mjai event a line (JSON; the other seats' draws masked as "?"); the
bot answers every line with one action line: its discard after its own draw, else
{"type":"none"}. docs/riichi.md has the protocol as the referee speaks it.
"""

import json
import sys


def main() -> None:
    """Answer every event line until the end of the game or of the input."""
    seat = -1
    for line in sys.stdin:
        if not line.strip():
            continue
        event = json.loads(line)
        answer: dict[str, object] = {"type": "none"}
        if event["type"] == "start_game":
            seat = event["id"]
        elif event["type"] == "tsumo" and event["actor"] == seat:
            answer = {"type": "dahai", "actor": seat, "pai": event["pai"], "tsumogiri": True}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
        if event["type"] == "end_game":
            return


if __name__ == "__main__":
    main()
