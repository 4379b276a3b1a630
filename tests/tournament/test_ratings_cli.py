"""``referee ratings`` and ``referee report`` as real programs, on PGN files and stores."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from referee.tournament.pgn import format_game, read_pgn_results
from referee.tournament.ratings import BayesEloParams, ResultTable, rate

PGN = """\
[Event "elsewhere"]
[White "Alpha"]
[Black "Beta"]
[Result "1-0"]

1. e4 {a comment
over two lines} e5 (1... c5) 2. Nf3 1-0

[White "Beta"]
[Black "Alpha"]
[Result "1/2-1/2"]

1/2-1/2

[White "Alpha"]
[Black "Gamma"]
[Result "0-1"]
0-1
[White "Gamma"]
[Black "Beta"]
[Result "*"]
*
"""


def referee(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "referee.cli", *args], capture_output=True,
                          text=True, timeout=120, cwd=cwd)


def test_ratings_of_a_pgn_file_are_bayeselo_s_list(tmp_path: Path) -> None:
    pgn = tmp_path / "games.pgn"
    pgn.write_text(PGN)
    run = referee("ratings", str(pgn), "--offset", "1600", "--los")
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0].startswith("3 games, 3 players; advantage 32.8, drawelo 97.3, prior 2, "
                               "offset 1600")
    assert lines[1] == "Rank Name    Elo    +    - games score oppo. draws "
    expected = rate(ResultTable.from_results(read_pgn_results(pgn)),
                    BayesEloParams(offset=1600))
    assert expected.table() in run.stdout
    assert expected.los_table() in run.stdout
    exact = referee("ratings", str(pgn), "--offset", "1600", "--los", "--los-layout", "bayeselo")
    assert exact.stdout.endswith(expected.los_table(layout="bayeselo"))
    assert "|" not in expected.los_table(layout="bayeselo")
    gomocup = referee("ratings", str(pgn), "--preset", "gomocup")
    assert "advantage 0, drawelo 0.01" in gomocup.stdout


def test_ratings_write_pgn_and_combine_sources(tmp_path: Path) -> None:
    pgn = tmp_path / "games.pgn"
    pgn.write_text(PGN)
    other = tmp_path / "more.pgn"
    other.write_text(PGN)
    out = tmp_path / "all.pgn"
    run = referee("ratings", str(pgn), str(other), "--pgn", str(out))
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("6 games, 3 players")
    assert len(list(read_pgn_results(out))) == 6
    again = referee("ratings", str(pgn), str(pgn), cwd=tmp_path)  # one file: once
    assert again.returncode == 0, again.stderr
    assert again.stdout.startswith("3 games, 3 players")
    assert again.stderr == f"referee: warning: {pgn}: named already, read once\n"


@pytest.mark.parametrize(("args", "words"), [
    (["missing.pgn"], "missing.pgn: no such file or folder"),
    (["bad.pgn"], "bad.pgn:2: "),
    (["games.pgn", "self.pgn"], "self.pgn:11: White and Black are the same player ('A')"),
    (["empty.pgn"], "no results to rate"),
    (["games.pgn", "--drawelo", "0"], "drawelo must be > 0"),
    (["folder"], "folder: a folder without a tournament store"),
])
def test_bad_sources_give_one_clear_error(tmp_path: Path, args: list[str], words: str) -> None:
    (tmp_path / "games.pgn").write_text(PGN)
    (tmp_path / "bad.pgn").write_text('[White "A"]\n[Black "B" oops\n[Result "1-0"]\n')
    (tmp_path / "empty.pgn").write_text("")
    (tmp_path / "self.pgn").write_text(format_game("A", "B", 1) + format_game("A", "A", 0))
    (tmp_path / "folder").mkdir()
    run = referee("ratings", *args, cwd=tmp_path)
    assert run.returncode == 2
    assert words in run.stderr and "Traceback" not in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1


def test_ratings_and_report_of_a_store(tmp_path: Path) -> None:
    file = tmp_path / "t.toml"
    file.write_text('name = "t"\ngame = "gomoku"\n[settings]\nsize = 9\n'
                    '[ratings]\npreset = "bayeselo"\noffset = 1000\n'
                    '[[players]]\nname = "a"\nbuiltin = "random"\n'
                    '[[players]]\nname = "b"\nbuiltin = "threat"\n')
    played = referee("tournament", str(file), "--out", str(tmp_path / "out"))
    assert played.returncode == 0, played.stderr
    run = referee("ratings", str(tmp_path / "out"))
    assert run.returncode == 0, run.stderr
    assert "2 games, 2 players; advantage 32.8, drawelo 97.3, prior 2, offset 1000" in run.stdout
    site = referee("report", str(tmp_path / "out" / "tournament.sqlite"), "-o",
                   str(tmp_path / "site"))
    assert site.returncode == 0, site.stderr
    assert Path(site.stdout.strip()) == tmp_path / "site" / "index.html"
    assert len(list((tmp_path / "site" / "games").glob("*.html"))) == 2
    assert (tmp_path / "out" / "report" / "index.html").is_file()  # written by the run
    # the store's own results.pgn files beside it, and its file: each game once
    both = referee("ratings", "out", "out/results.pgn", "out/report/results.pgn",
                   "out/tournament.sqlite", cwd=tmp_path)
    assert both.returncode == 0, both.stderr
    assert both.stdout == run.stdout
    assert both.stderr.splitlines() == [
        "referee: warning: out/results.pgn: the results of the store out, which is rated "
        "too: counted once, from the store",
        "referee: warning: out/report/results.pgn: the results of the store out, which is "
        "rated too: counted once, from the store",
        "referee: warning: out/tournament.sqlite: named already, read once"]
    alone = referee("ratings", "out/results.pgn", "--preset", "bayeselo", "--offset", "1000",
                    cwd=tmp_path)  # without its store, the file is rated
    assert alone.stdout.startswith("2 games, 2 players")
    nothing = referee("report", str(tmp_path / "nothing"))
    assert nothing.returncode == 2 and "no tournament store" in nothing.stderr


def test_rating_pgn_files_imports_only_what_it_needs(tmp_path: Path) -> None:
    # the command's start-up is most of its time on small files: no game, no store, no
    # rich tables, no pydantic, no numpy.ma; and it says the same as without the check
    pgn = tmp_path / "games.pgn"
    pgn.write_text(PGN)
    check = ("import sys\nfrom referee.cli import main\n"
             "try:\n    main(['ratings', sys.argv[1]])\n"
             "except SystemExit as end:\n    code = end.code\n"
             "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('rich', 'pydantic',"
             " 'sqlite3', 'psutil', 'jinja2') or m.startswith(('referee.games.gomoku',"
             " 'referee.core.players', 'referee.core.sandbox', 'referee.tournament.store',"
             " 'numpy.ma.')) or m == 'numpy.ma')\n"
             "print('loaded:', heavy, code, file=sys.stderr)\n")
    run = subprocess.run([sys.executable, "-c", check, str(pgn)], capture_output=True,
                         text=True, timeout=120)
    assert "loaded: [] 0" in run.stderr, run.stderr
    assert run.stdout == referee("ratings", str(pgn)).stdout
    assert run.stdout.startswith("3 games, 3 players")


def as_reader(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """``referee ARGS`` as a user for whom files' modes count: this one, or, for root (who
    ignores them), root without the capabilities that override them."""
    command = [sys.executable, "-m", "referee.cli", *args]
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("this needs setpriv (util-linux) to run as root without overrides")
        caps = "-dac_override,-dac_read_search,-fowner"
        command = [setpriv, "--bounding-set", caps, "--inh-caps", caps, "--", *command]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=cwd)


def without_progress(stderr: str) -> str:
    """Standard error less the one progress line a slow machine may add before the error
    (``referee: reading t.toml`` when reading it takes over half a second)."""
    lines = stderr.splitlines(keepends=True)
    if lines and lines[0] == "referee: reading t.toml\n":
        lines = lines[1:]
    return "".join(lines)


def test_a_store_the_user_may_only_read_is_rated_and_reported(tmp_path: Path) -> None:
    (tmp_path / "t.toml").write_text('game = "gomoku"\n[settings]\nsize = 9\n'
                                     '[[players]]\nname = "a"\nbuiltin = "random"\n'
                                     '[[players]]\nname = "b"\nbuiltin = "threat"\n')
    played = referee("tournament", "t.toml", "--out", "out", cwd=tmp_path)
    assert played.returncode == 0, played.stderr
    expected = referee("ratings", "out", cwd=tmp_path).stdout
    store = tmp_path / "out"
    shut = [store, *store.rglob("*")]
    for path in sorted(shut, key=lambda p: -len(p.parts)):  # files first, then folders
        path.chmod(0o555 if path.is_dir() else 0o444)
    try:
        rated = as_reader(["ratings", "out"], tmp_path)
        assert rated.returncode == 0, rated.stderr
        assert rated.stdout == expected and rated.stdout.startswith("2 games, 2 players")
        site = as_reader(["report", "out", "-o", "site"], tmp_path)
        assert site.returncode == 0, site.stderr
        assert len(list((tmp_path / "site" / "games").glob("*.html"))) == 2
        # a tournament writes its folder and its store: told so, not to free disk space
        again = as_reader(["tournament", "t.toml", "--out", "out"], tmp_path)
        assert again.returncode == 2 and without_progress(again.stderr) == (
            f"referee: error: {store / 'tournament.sqlite'}: Permission denied; choose a "
            "folder you may write with --out\n")
        for path in shut:  # every file and folder writable again but the store's file
            path.chmod(0o755 if path.is_dir() else 0o644)
        (store / "tournament.sqlite").chmod(0o444)
        again = as_reader(["tournament", "t.toml", "--out", "out"], tmp_path)
        assert again.returncode == 2 and without_progress(again.stderr) == (
            f"referee: error: {store / 'tournament.sqlite'}: Permission denied; choose a "
            "folder you may write with --out\n")
        assert not list(store.glob("*-wal")) and not list(store.glob("*-shm"))
        for path in sorted(shut, key=lambda p: -len(p.parts)):
            path.chmod(0o555 if path.is_dir() else 0o444)
        # the site's own folder in the store cannot be written: the option to choose another
        inside = as_reader(["report", "out"], tmp_path)
        assert inside.returncode == 2 and "Permission denied" in inside.stderr, inside.stderr
        assert inside.stderr.endswith("; choose a folder you may write with -o\n")
        assert sorted(shut) == sorted([store, *store.rglob("*")])  # nothing added
    finally:
        for path in shut:
            path.chmod(0o755 if path.is_dir() else 0o644)
    assert not list(store.glob("*-wal")) and not list(store.glob("*-shm"))


def test_a_store_on_a_read_only_file_system_is_rated(tmp_path: Path) -> None:
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        pytest.skip("this needs bubblewrap (.ci/run installs it)")
    (tmp_path / "t.toml").write_text('game = "gomoku"\n[settings]\nsize = 9\n'
                                     '[[players]]\nname = "a"\nbuiltin = "random"\n'
                                     '[[players]]\nname = "b"\nbuiltin = "threat"\n')
    played = referee("tournament", "t.toml", "--out", "out", cwd=tmp_path)
    assert played.returncode == 0, played.stderr
    store = str(tmp_path / "out")
    mounted = [bwrap, "--dev-bind", "/", "/", "--ro-bind", store, store, "--",
               sys.executable, "-m", "referee.cli"]
    for args in (["ratings", "out"], ["report", "out", "-o", "site"]):
        run = subprocess.run([*mounted, *args], capture_output=True, text=True, timeout=120,
                             cwd=tmp_path)
        if run.returncode != 0 and "bwrap:" in run.stderr:
            pytest.skip(f"bubblewrap cannot mount here: {run.stderr.strip()}")
        assert run.returncode == 0, run.stderr
    assert (tmp_path / "site" / "index.html").is_file()
