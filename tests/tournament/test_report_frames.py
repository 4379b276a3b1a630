"""The markup of a replay with frames (report/frames_markup.py): the frames go in the page
as JSON that no text can break out of, with the viewer's script and stylesheet; a replay
without frames keeps its SVG board."""

from __future__ import annotations

import dataclasses
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from referee.core.adapter import GameTask
from referee.core.players import PlayerSpec, builtin_command
from referee.core.record import GameRecord
from referee.core.replay import ReplayStep, ReplayView
from referee.games.riichi.adapter import RiichiAdapter, riichi_replay
from referee.games.riichi.match import BUILTIN_PLAYERS
from referee.tournament.ratings import BayesEloParams
from referee.tournament.report import build_site
from referee.tournament.report.frames_markup import frames_board, frames_json
from referee.tournament.report.site import STATIC_FILES
from referee.tournament.schedule import ScheduledGame
from referee.tournament.store import Store

HOSTILE = "</script><script>alert(1)</script><!--"


class Scripts(HTMLParser):
    """The script elements of some markup: their attributes and text."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[dict[str, str | None], str]] = []
        self._open: dict[str, str | None] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "script":
            self._open = dict(attrs)
            self.found.append((self._open, ""))

    def handle_data(self, data: str) -> None:
        if self._open is not None:
            attrs, text = self.found[-1]
            self.found[-1] = (attrs, text + data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._open = None


@pytest.fixture(scope="module")
def record(tmp_path_factory: pytest.TempPathFactory) -> GameRecord:
    """An east game of the tsumogiri bot (real processes)."""
    folder = tmp_path_factory.mktemp("frames-markup")
    adapter = RiichiAdapter()
    settings = adapter.parse_settings({"game": "east"}, folder, "t.toml")
    seats = tuple(PlayerSpec(f"t{k}", builtin_command(BUILTIN_PLAYERS["tsumogiri"]), True)
                  for k in range(4))
    return adapter.play(settings, GameTask("r1:g1:s0", seats, 5), folder)


def test_a_hostile_player_name_stays_text(record: GameRecord) -> None:
    players = [dataclasses.replace(p, name=HOSTILE) if k == 1 else p
               for k, p in enumerate(record.players)]
    view = riichi_replay(dataclasses.replace(record, players=players))
    board = frames_board(view, "../")
    assert board is not None
    assert "alert(1)" in board and "</script><script>alert" not in board
    assert "<!--" not in board
    parser = Scripts()
    parser.feed(board)
    parser.close()
    [(data_attrs, data), (src_attrs, src_text)] = parser.found  # nothing else became a script
    assert data_attrs == {"type": "application/json", "class": "replay-frames"}
    assert src_attrs == {"src": "../static/tiles.js"} and src_text == ""
    payload = json.loads(data)
    assert payload["info"]["names"][1] == HOSTILE
    assert payload["renderer"] == "tiles" and len(payload["frames"]) == len(view.frames)
    assert payload["frames"] == json.loads(json.dumps(list(view.frames)))
    assert '<link rel="stylesheet" href="../static/tiles.css">' in board
    assert "<noscript><svg class=\"board\"" in board  # the final position without JS


def test_a_replay_without_frames_keeps_its_svg_board() -> None:
    view = ReplayView(10, 10, "<rect/>", (ReplayStep(0, "a1"),))
    assert frames_board(view, "../") is None
    unknown = dataclasses.replace(view, frames=({}, {}), renderer="cards")
    assert frames_board(unknown, "../") is None
    with pytest.raises(ValueError, match="one per step"):
        dataclasses.replace(view, frames=({},), renderer="tiles")


def test_the_viewer_is_a_file_of_the_site(record: GameRecord) -> None:
    assert {"tiles.js", "tiles.css"} <= set(STATIC_FILES)
    static = Path(__file__).resolve().parents[2] / "src/referee/tournament/report/static"
    script = (static / "tiles.js").read_text(encoding="utf-8")
    assert "http://" not in script.replace("http://www.w3.org/2000/svg", "")
    assert "https://" not in script and "innerHTML" not in script
    size = len(frames_json(riichi_replay(record)).encode())
    assert size < 400 * len(record.moves) + 2000  # compact: a few hundred bytes a step


def test_a_hostile_name_stays_text_on_the_site(record: GameRecord, tmp_path: Path) -> None:
    names = ("t0", HOSTILE, "t2", "t3")
    players = [dataclasses.replace(p, name=n) for p, n in zip(record.players, names,
                                                             strict=True)]
    store = Store(tmp_path / "store").open("fingerprint", "hostile")
    store.add_games([ScheduledGame("r1:g1:s0", 1, names, 5)])
    store.set_meta("tournament", json.dumps({
        "name": "hostile", "game": "riichi", "players": list(names), "schedule": "itpw",
        "rounds": 1, "total_games": 1, "seed": 5, "settings": {},
        "ratings": dataclasses.asdict(BayesEloParams.gomocup())}))
    store.commit("r1:g1:s0", dataclasses.replace(record, players=players))
    store.close()
    index = build_site(tmp_path / "store", tmp_path / "site")
    page = (index.parent / "games" / "g00001.html").read_text(encoding="utf-8")
    assert "</script><script>alert" not in page
    scripts = re.findall(r"<script\b[^>]*>", page)
    assert scripts == ['<script type="application/json" class="replay-frames">',
                       '<script src="../static/tiles.js">', '<script src="../static/replay.js">']
    [data] = re.findall(r'class="replay-frames">(.*?)</script>', page, flags=re.S)
    assert json.loads(data)["info"]["names"] == list(names)
    assert (index.parent / "static" / "tiles.js").is_file()
