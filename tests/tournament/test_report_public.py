"""The results site publishes no folder of the organiser's: a real tournament of a program
under a temporary folder (run by the venv's interpreter, writing its own path, its working
folder and its interpreter on stderr and in a message) and a built-in; nothing under
report/ names the temporary folder, the Python environment or the home folder (the pages,
the files, and the records and logs embedded in the pages as ``data:`` URLs), while the
store still has the full commands."""

from __future__ import annotations

import base64
import gzip
import json
import re
import sys
from pathlib import Path

import pytest

from referee.core.record import GameRecord
from referee.tournament.report import build_site
from referee.tournament.report.public import SYSTEM_PREFIXES, Public
from referee.tournament.report.site import Paths
from referee.tournament.store import Store
from tournament_runs import run_quietly

ROOT = Path(__file__).resolve().parents[2]

TOURNAMENT = """
name = "public"
game = "gomoku"
seed = 3
output = "out"

[schedule]
kind = "round-robin"

[settings]
size = 9
timeout_turn = 2000

[[players]]
name = "center"
command = ["PYTHON", "bots/center.py"]

[[players]]
name = "random"
builtin = "random"
"""

TELL = '''
import os
sys.stderr.write(f"{__file__} in {os.getcwd()} by {sys.executable}\\n")
sys.stderr.flush()
say(f"MESSAGE started from {os.path.dirname(os.path.abspath(__file__))}")
'''


SYSTEM = sys.prefix in SYSTEM_PREFIXES
"""Whether the tests run in the system's Python rather than a virtual environment."""


def private(folder: Path) -> list[str]:
    """The organiser's folders a site must not name (a system's Python says nothing of
    the organiser: its paths may show)."""
    return [str(folder), str(folder.resolve()), str(Path.home()),
            *([] if SYSTEM else [sys.prefix])]


def published(site: Path) -> dict[str, bytes]:
    """Every file of the site, and every file its pages embed (``data:`` URLs, gzip
    members opened), by where it is."""
    found: dict[str, bytes] = {}
    for path in sorted(p for p in site.rglob("*") if p.is_file()):
        data = path.read_bytes()
        found[str(path)] = data
        for k, url in enumerate(re.findall(rb'data:[^;,"]*;base64,([A-Za-z0-9+/=]+)', data)):
            embedded = base64.b64decode(url)
            found[f"{path} #{k}"] = (gzip.decompress(embedded)
                                     if embedded[:2] == b"\x1f\x8b" else embedded)
        if data[:2] == b"\x1f\x8b":
            found[f"{path} (gzip)"] = gzip.decompress(data)
    return found


@pytest.fixture(scope="module")
def tournament(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("public")
    folder.chmod(0o755)  # (the sandboxed bots' users read the program there)
    (folder / "bots").mkdir(mode=0o755)
    brain = (ROOT / "examples" / "bots" / "gomoku_center.py").read_text(encoding="utf-8")
    told = brain.replace("\ndef main() -> None:", f"{TELL}\n\ndef main() -> None:", 1)
    assert told != brain
    (folder / "bots" / "center.py").write_text(told, encoding="utf-8")
    out = run_quietly(folder, TOURNAMENT.replace("PYTHON", sys.executable))
    return folder, out


def test_the_site_names_no_folder_of_the_organiser(tournament: tuple[Path, Path]) -> None:
    folder, out = tournament
    site = out / "report"  # as the tournament built it
    files = published(site)
    assert len(files) > 20 and any("#" in name for name in files)
    for name, data in files.items():
        for secret in private(folder):
            assert secret.encode() not in data, (name, secret)
    store = Store.open_existing(out)
    try:
        rows = store.games(status="done")
        record = store.record(rows[0].key)
    finally:
        store.close()
    # the store keeps the full commands: the venv's interpreter, the program's path
    center = next(p for p in record.players if p.name == "center")
    assert center.command == [sys.executable, str((folder / "bots" / "center.py").resolve())]
    # what the site shows instead: the program by its name, its command from the folder
    player = (site / Paths(["center", "random"]).player("center")).read_text(encoding="utf-8")
    program = re.search(r"<dt>Program</dt><dd>(.*?)</dd>", player)
    assert program is not None and program.group(1) == f"{Path(sys.executable).name} bots/center.py"
    other = (site / Paths(["center", "random"]).player("random")).read_text(encoding="utf-8")
    assert "<dt>Program</dt><dd>built-in random</dd>" in other
    # the record offered is the same game, with that command and its texts relative
    page = (site / Paths.game(rows[0])).read_text(encoding="utf-8")
    url = re.search(r'href="data:application/json;base64,([^"]+)" download="g\d+\.json"', page)
    assert url is not None
    shown = GameRecord.from_dict(json.loads(base64.b64decode(url.group(1))))
    assert [m.move for m in shown.moves] == [m.move for m in record.moves]
    assert shown.scores == record.scores and shown.result_text() == record.result_text()
    mine = next(p for p in shown.players if p.name == "center")
    assert mine.command == [Path(sys.executable).name, "bots/center.py"]
    [note] = [n.text for n in shown.notes if n.seat == shown.players.index(mine)]
    assert note == "started from bots"
    # the logs say where the program ran, from the tournament's folder
    log = next(data for name, data in files.items() if name.endswith("1.stderr.log")
               and "center" in name)
    python = re.escape(sys.executable if SYSTEM else
                       f"{Path(sys.prefix).name}{sys.executable.removeprefix(sys.prefix)}")
    assert re.fullmatch(rf"(bots/center\.py in out/slots/\d+/work/center by {python}\n)+"
                        .encode(), log), log


def test_a_site_built_again_elsewhere_names_none_either(tournament: tuple[Path, Path],
                                                        tmp_path: Path) -> None:
    folder, out = tournament
    site = build_site(out, tmp_path / "site").parent
    for name, data in published(site).items():
        for secret in private(folder):
            assert secret.encode() not in data, (name, secret)


def test_folders_in_texts() -> None:
    public = Public("/home/me/t", Path("/home/me/t/out"),
                    {"greedy": "referee.games.riichi.bots.greedy"})
    text = public.text
    assert text("cannot start /home/me/t/bots/x.py: gone") == "cannot start bots/x.py: gone"
    assert text("/home/me/t") == "." and text("at /home/me/t.") == "at .."
    assert text("/home/me/tx/y") == "/home/me/tx/y"  # another folder
    assert text("/home/me/t/out/slots/1/work/a") == "out/slots/1/work/a"
    assert public.command(["/opt/x/bin/python3", "/home/me/t/a b.py", "--book=/home/me/t/b"]
                          ) == ["python3", "a b.py", "--book=b"]
    assert public.program(["/x/python3", "-m", "referee.games.riichi.bots.greedy"]) == (
        "built-in greedy")
    assert public.program(["/srv/bots/my bot", "-v"]) == "'my bot' -v"
    earlier = Public("", Path("/srv/t/out"))  # a store of an earlier release: no folder
    assert earlier.command(["/usr/bin/python3", "/srv/t/bots/x.py"]) == ["python3", "x.py"]
    assert earlier.text("/srv/t/out/slots/2/logs") == "slots/2/logs"
