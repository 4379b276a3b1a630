"""mjai.app's reference bot (``mjai.bot.riichibot.RiichiBot`` of the ``mjai`` package, which
follows the game with Mortal's libriichi) as a program: ``python mjai_app_bot.py SEAT``.
It speaks mjai.app's batched style (a JSON array of events a line, one answer a line)."""

import sys

from mjai.bot.riichibot import RiichiBot  # type: ignore[import-not-found]

bot = RiichiBot(player_id=int(sys.argv[1]))
while line := sys.stdin.readline():
    sys.stdout.write(bot.react(line.strip()) + "\n")
    sys.stdout.flush()
