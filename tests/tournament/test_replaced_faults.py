"""A seat whose program faulted and was replaced for the rest of its game (ICGA Mahjong's
dummy AI, Riichi's safe default) loses that game in the standings and every pairwise result
in the ratings, whatever its replacement scored (a fork-bombing Riichi bot finished first
and was rated a winner); the others are compared as the game ended. A real tournament of
real programs, and the rule itself against the whole-game results."""

from __future__ import annotations

import io
import sys
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console

from referee.core.standings import game_result, pair_result
from referee.tournament.results import pairwise, standings
from referee.tournament.session import run_tournament
from referee.tournament.store import Store

RELAY = """\
import subprocess, sys
bot = subprocess.Popen([sys.executable, "-m", "referee.games.riichi.bots.tsumogiri"],
                       stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
answered = 0
for line in sys.stdin:
    bot.stdin.write(line)
    bot.stdin.flush()
    sys.stdout.write(bot.stdout.readline())
    sys.stdout.flush()
    answered += 1
    if answered == 40:  # past the player check: it dies in its game
        bot.kill()
        sys.exit(3)
"""


def test_a_replaced_seat_loses_its_game_and_every_pairwise_result(tmp_path: Path) -> None:
    relay = tmp_path / "dies.py"
    relay.write_text(RELAY)
    players = "".join(f'\n[[players]]\nname = "t{k}"\nbuiltin = "tsumogiri"\n'
                      for k in range(3))
    players += f'\n[[players]]\nname = "dies"\ncommand = [{sys.executable!r}, {str(relay)!r}]\n'
    path = tmp_path / "t.toml"
    path.write_text('name = "replaced"\ngame = "riichi"\nseed = 5\n'
                    '[schedule]\nkind = "itpw"\nrounds = 1\nrandom_rounds = 1\n'
                    '[settings]\ngame = "east"\n' + players)
    out = tmp_path / "out"
    run_tournament(path, Console(file=io.StringIO()), out_dir=out, concurrency=2)
    store = Store.open_existing(out)
    try:
        rows = store.games(status="done")
    finally:
        store.close()
    assert len(rows) == 4
    for row in rows:
        seat = row.seats.index("dies")
        assert row.offender is None and (seat, "crash") in row.faults, row  # played on
    results = list(pairwise(rows))
    against = [(a, b, r) for a, b, r in results if "dies" in (a, b)]
    assert len(against) == 12  # three a game, each lost
    assert all((r == 0.0) == (a == "dies") for a, b, r in against), against
    assert len(results) == 24  # the others still give theirs: six a game
    line = next(s for s in standings(rows, [f"t{k}" for k in range(3)] + ["dies"], True)
                if s.name == "dies")
    assert (line.wins, line.draws, line.losses) == (0, 0, 4)
    assert line.faults == {"crash": 4}


@given(st.lists(st.integers(-2, 2), min_size=2, max_size=4), st.sets(st.integers(0, 3)))
def test_the_whole_game_agrees_with_its_pairwise_results(scores: list[int],
                                                         faulted: set[int]) -> None:
    """A seat wins a game when it wins every pairwise result it has, draws when it loses
    none but does not win them all, loses otherwise; a replaced seat loses (also when every
    seat was replaced, and it has no result at all)."""
    faulty = {seat for seat in faulted if seat < len(scores)}
    for seat in range(len(scores)):
        pairs = [pair_result(scores, None, seat, other, faulty)
                 for other in range(len(scores)) if other != seat]
        counted = [p for p in pairs if p is not None]
        if seat in faulty:
            want = "loss"
            assert all(p == 0.0 for p in counted)
        else:
            want = ("win" if all(p == 1.0 for p in counted) else
                    "draw" if all(p >= 0.5 for p in counted) else "loss")
        assert game_result(scores, None, seat, faulty) == want
        for other in range(len(scores)):  # each pair once, the same both ways
            if other != seat:
                mine = pair_result(scores, None, seat, other, faulty)
                theirs = pair_result(scores, None, other, seat, faulty)
                assert (mine is None) == (theirs is None)
                if mine is not None and theirs is not None:
                    assert mine + theirs == 1.0
