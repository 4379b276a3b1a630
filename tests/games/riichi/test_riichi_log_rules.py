"""The rules a log was played under (:mod:`referee.games.riichi.logrules`,
:mod:`referee.games.riichi.rulesets`): recorded in our own logs and read back, guessed for
foreign logs, named on the command line by a preset or a rules file."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.games.riichi.kanachan.logs import annotate_logs
from referee.games.riichi.kanachan.selfplay import selfplay
from referee.games.riichi.logrules import guess_game_length, recorded_rules, start_game_event
from referee.games.riichi.match import POLICIES, self_play
from referee.games.riichi.mjai import MjaiError
from referee.games.riichi.replay import load_log, verify_log
from referee.games.riichi.rules import RiichiRules
from referee.games.riichi.rulesets import (
    RulesError,
    load_rules_file,
    resolve_rules,
    rules_from_dict,
    rules_to_dict,
)

BUST_IN_EAST = 270
"""A seed whose south game of four greedy bots ends in East 4, 3 honba, by a bust, after
the dealer won East 4 as first (an east game would have ended there)."""


def referee(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "referee.cli", *args], capture_output=True,
                          text=True, timeout=300)


@pytest.fixture(scope="module")
def bust_record(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The self-play annotations and the mjai record of the game :data:`BUST_IN_EAST`."""
    folder = tmp_path_factory.mktemp("bust")
    summary = selfplay(1, folder / "sp.txt", seed=BUST_IN_EAST, records=folder / "recs")
    assert summary.games == 1 and not summary.skipped
    return folder / "sp.txt", folder / "recs" / f"selfplay-{BUST_IN_EAST}.mjson"


def read_events(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


# --- item 9: our logs record their rules; the guess for foreign logs -----------------------

def test_the_bust_record_ends_in_east_by_a_bust(bust_record: tuple[Path, Path]) -> None:
    events = read_events(bust_record[1])
    last = [e for e in events if e["type"] == "start_kyoku"][-1]
    assert (last["bakaze"], last["kyoku"], last["honba"]) == ("E", 4, 3)
    assert min(events[-1]["scores"]) < 0


def test_our_logs_record_the_rules_and_read_them_back(bust_record: tuple[Path, Path]) -> None:
    start = read_events(bust_record[1])[0]
    assert start["kyoku_first"] == 0 and start["aka_flag"] is True
    assert start["rules"] == rules_to_dict(RiichiRules())
    assert recorded_rules(start) == RiichiRules()
    assert load_log(bust_record[1]).rules == RiichiRules()


def test_a_south_game_that_busts_in_east_replays_and_annotates_as_played(
        bust_record: tuple[Path, Path], tmp_path: Path) -> None:
    lines, record = bust_record
    done = referee("replay", "riichi", str(record))
    assert done.returncode == 0, done.stdout
    assert done.stdout.startswith("OK") and "10 kyoku" in done.stdout
    summary = annotate_logs([record], tmp_path / "again.txt")
    assert summary.games == 1 and not summary.skipped
    assert (tmp_path / "again.txt").read_text() == lines.read_text()  # half-length (6) too


def test_a_foreign_log_that_busts_in_east_is_guessed_a_south_game(
        bust_record: tuple[Path, Path]) -> None:
    events = read_events(bust_record[1])
    events[0] = {"type": "start_game", "names": events[0]["names"]}  # as Mortal writes it
    assert guess_game_length(events, None) == "south"
    report = verify_log(events)
    assert report.ended and report.rules.game_length == "south"
    busted = [e for e in events if e["type"] != "end_game"]
    assert guess_game_length(busted, None) == "south"  # a log that stops: south as before


def test_the_guess_for_games_without_a_bust() -> None:
    def log(*kyoku: tuple[str, int, list[int]], deltas: list[int] | None = None
            ) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = [{"type": "start_game"}]
        for wind, number, scores in kyoku:
            out.append({"type": "start_kyoku", "bakaze": wind, "kyoku": number,
                        "scores": scores})
            out.append({"type": "ryukyoku", "deltas": deltas or [0, 0, 0, 0]})
        return [*out, {"type": "end_game"}]

    flat = [25000] * 4
    top = [32000, 24000, 22000, 22000]
    cases = [  # (the last kyoku and its scores, deltas, kyoku_first): the guess
        (("E", 4, flat), None, None, "east"),
        (("S", 2, flat), None, None, "east"),  # an east game's extension
        (("S", 4, top), None, None, "south"),  # either length ends here: the usual one
        # nobody at 30,000 after South 4: a south game would go on into West
        (("S", 4, flat), None, None, "east"),
        (("S", 4, [29900, 30000, 20100, 20000]), [0, -100, 0, 100], None, "east"),
        (("S", 4, [29900, 29900, 20100, 20100]), [0, 100, 0, -100], None, "south"),
        (("W", 1, flat), None, None, "south"),
        (("E", 2, flat), [-26000, 26000, 0, 0], None, "south"),  # a bust: no length shown
        (("S", 4, flat), [-26000, 26000, 0, 0], None, "south"),
        (("E", 4, flat), None, 0, "south"),  # kyoku_first says it
        (("S", 4, top), None, 4, "east"),
    ]
    for kyoku, deltas, first, length in cases:
        assert guess_game_length(log(kyoku, deltas=deltas), first) == length, kyoku
    assert guess_game_length(log(("S", 4, [34000, 22000, 22000, 22000])), None,
                             target=35000) == "east"


def _bare(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A log of ours as another writer's: no rules, no length in ``start_game``."""
    return [{"type": "start_game", "names": e["names"]} if e["type"] == "start_game" else e
            for e in events]


def test_an_east_game_that_ends_in_south_4_with_nobody_at_30000_is_guessed_east() -> None:
    """Four tsumogiri bots draw every hand: the east game's extension runs to South 4 and
    ends there with everybody at 25,000 (a south game would have gone on into West)."""
    rules = RiichiRules(game_length="east")
    game = self_play([POLICIES["tsumogiri"]] * 4, rules, seed=0).game
    events = _bare([start_game_event(["a", "b", "c", "d"], rules), *game.events])
    last = [e for e in events if e["type"] == "start_kyoku"][-1]
    assert (last["bakaze"], last["kyoku"], game.results[-1].scores) == \
        ("S", 4, (25000,) * 4)
    report = verify_log(events)
    assert report.rules.game_length == "east" and report.ended


@settings(max_examples=12, deadline=10_000, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), length=st.sampled_from(["east", "south"]),
       players=st.lists(st.sampled_from(["tsumogiri", "greedy"]), min_size=4, max_size=4))
def test_a_foreign_log_replays_under_the_guessed_length(seed: int, length: str,
                                                        players: list[str]) -> None:
    """Whatever length a whole game was played at, the length guessed from its log (no
    rules recorded) is one under which the engine ends the game where the log does."""
    rules = RiichiRules(game_length=length)
    game = self_play([POLICIES[p] for p in players], rules, seed=seed).game
    report = verify_log(_bare([start_game_event(players, rules), *game.events]))
    assert report.ended and report.final is not None


def test_a_bad_recorded_rule_set_is_named(bust_record: tuple[Path, Path]) -> None:
    events = read_events(bust_record[1])
    events[0]["rules"]["uma"] = [1, 2]
    with pytest.raises(MjaiError, match="start_game: .*uma must be four integers"):
        verify_log(events)


# --- item 10: other writers' logs ----------------------------------------------------------

DATA = Path(__file__).resolve().parents[2] / "data" / "riichi"
TENHOU6 = DATA / "tenhou6"


def mjai_of(path: Path) -> list[dict[str, Any]]:
    return [e.to_dict() for e in load_log(path).events]


def write_lines(path: Path, objects: list[Any]) -> Path:
    path.write_text("".join(json.dumps(o, ensure_ascii=False) + "\n" for o in objects),
                    encoding="utf-8")
    return path


def test_tenhou_json_with_one_kyoku_a_line(tmp_path: Path) -> None:
    """A whole game written as one log object per kyoku (``sc`` only on the last), then as
    bare kyoku lists: the same events as the one-object file."""
    game = json.loads((TENHOU6 / "ranked_game.json").read_text(encoding="utf-8"))
    head = {k: v for k, v in game.items() if k not in ("log", "sc")}
    parts = [{**head, "log": [kyoku]} for kyoku in game["log"]]
    parts[-1]["sc"] = game["sc"]
    per_line = write_lines(tmp_path / "per-line.json", parts)
    whole = load_log(TENHOU6 / "ranked_game.json")
    loaded = load_log(per_line)
    assert loaded.format == "tenhou-json" and len(game["log"]) == 3
    assert loaded.events == whole.events and loaded.final_results == whole.final_results
    assert verify_log(loaded.events, loaded.rules, final_results=loaded.final_results).ended
    bare = write_lines(tmp_path / "bare.json", game["log"])
    assert load_log(bare).events[1:] == whole.events[1:-1]  # no names, rules or end
    broken = write_lines(tmp_path / "broken.json", [*parts[:2], {"title": "x"}])
    with pytest.raises(MjaiError, match=r"line 3: neither a log object"):
        load_log(broken)


def original_mjai(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Events as the original mjai server (gimite/mjai) writes them: ``start_kyoku``
    without scores, ``uradora_markers``, no ``kyoku_first`` nor ``aka_flag``."""
    out = []
    for event in events:
        event = dict(event)
        if event["type"] == "start_kyoku":
            del event["scores"]
        elif event["type"] == "start_game":
            event = {"type": "start_game", "names": event["names"]}
        elif event["type"] == "hora" and "ura_markers" in event:
            event["uradora_markers"] = event.pop("ura_markers")
        out.append(event)
    return out


def test_start_kyoku_without_scores_as_the_original_mjai_server_writes(
        tmp_path: Path) -> None:
    events = original_mjai(mjai_of(DATA / "nm.mjlog"))
    assert all("scores" not in e for e in events if e["type"] == "start_kyoku")
    path = write_lines(tmp_path / "mjai.json", events)
    report = verify_log(load_log(path).events, RiichiRules())
    assert report.ended and report.kyoku > 8
    later = next(i for i, e in enumerate(events) if e["type"] == "start_kyoku" and i > 1)
    with pytest.raises(MjaiError, match="start_kyoku has no scores: a log that starts after"):
        verify_log(events[later:], RiichiRules())


@pytest.mark.parametrize(("path", "names"), [
    (DATA / "kan4.mjlog", {"fanpai": "exhaustive_draw", "sukaikan": "suukansansen"}),
    (DATA / "yao9.mjlog", {"fanpai": "exhaustive_draw", "kyushukyuhai": "kyushu_kyuhai"}),
    (TENHOU6 / "four_reach.json", {"suchareach": "suucha_riichi"}),
    (DATA / "nm.mjlog", {"nagashimangan": "nagashi_mangan", "fanpai": "exhaustive_draw"}),
], ids=lambda v: v.name if isinstance(v, Path) else "")
def test_other_writers_draw_reasons(path: Path, names: dict[str, str]) -> None:
    events = mjai_of(path)
    renamed = 0
    for event in events:
        if event["type"] == "ryukyoku" and event.get("reason") in names:
            event["reason"] = names[event["reason"]]
            renamed += 1
    assert renamed
    verify_log(events, load_log(path).rules)
    wrong = next(e for e in events if e["type"] == "ryukyoku")
    wrong["reason"] = "sanchaho"
    with pytest.raises(MjaiError, match="ryukyoku: reason"):
        verify_log(events, load_log(path).rules)


def test_ankan_naming_a_tile(tmp_path: Path) -> None:
    """kan4 holds three closed kans: written with a ``pai`` among the four."""
    events = mjai_of(DATA / "kan4.mjlog")
    kans = [e for e in events if e["type"] == "ankan"]
    assert len(kans) == 3
    for kan in kans:
        kan["pai"] = kan["consumed"][-1]
    path = write_lines(tmp_path / "ankan.json", events)
    assert verify_log(load_log(path).events, load_log(DATA / "kan4.mjlog").rules).ended
    kans[0]["pai"] = "C" if kans[0]["consumed"][0] != "C" else "1m"
    with pytest.raises(MjaiError, match="ankan: pai .* is not one of the consumed tiles"):
        verify_log(events, load_log(DATA / "kan4.mjlog").rules)


# --- item 10: naming the rules of a log ----------------------------------------------------

def test_rule_sets_and_rules_files(tmp_path: Path) -> None:
    mjai_app = resolve_rules("mjai_app")
    assert not mjai_app.abort_suucha_riichi and not mjai_app.triple_ron_abort
    assert resolve_rules("mahjong_soul", "east").game_length == "east"
    toml = tmp_path / "rules.toml"
    toml.write_text('preset = "mahjong_soul"\ngame_length = "east"\nbusting = false\n'
                    'uma = [20, 10, -10, -20]\n')
    rules = load_rules_file(toml)
    assert (rules.game_length, rules.busting, rules.uma, rules.double_yakuman) \
        == ("east", False, (20, 10, -10, -20), True)
    as_json = tmp_path / "rules.json"
    as_json.write_text(json.dumps(rules_to_dict(rules)))
    assert resolve_rules(str(as_json)) == rules
    assert rules_from_dict(rules_to_dict(mjai_app)) == mjai_app
    for text, problem in (("busting = 1", "busting must be true or false"),
                          ("colour = true", "unknown setting 'colour'"),
                          ('game_length = "west"', "game_length must be 'east' or 'south'"),
                          ('preset = "x"', "preset 'x' is not one of"),
                          ("busting = ", "not a valid rules file")):
        toml.write_text(text + "\n")
        with pytest.raises(RulesError, match=problem):
            resolve_rules(str(toml))
    with pytest.raises(RulesError, match="neither a rule set"):
        resolve_rules("palace")


def test_the_rules_of_a_foreign_log_named_on_the_command_line(
        bust_record: tuple[Path, Path], tmp_path: Path) -> None:
    """A game played without busting (a rules file says so) and logged without its rules
    replays and annotates only under those rules; a preset changes the replay too."""
    rules = tmp_path / "no-bust.toml"
    rules.write_text("busting = false\n")
    played = selfplay(1, tmp_path / "sp.txt", seed=BUST_IN_EAST, room=str(rules),
                      records=tmp_path / "recs")
    assert played.games == 1
    record = tmp_path / "recs" / f"selfplay-{BUST_IN_EAST}.mjson"
    events = read_events(record)
    assert events[0]["rules"]["busting"] is False
    events[0] = {"type": "start_game", "names": events[0]["names"]}
    foreign = write_lines(tmp_path / "foreign.mjson", events)
    assert referee("replay", "riichi", str(foreign)).returncode == 1
    done = referee("replay", "riichi", "--room", str(rules), str(foreign))
    assert done.returncode == 0, done.stdout
    out = tmp_path / "bc.txt"
    done = referee("annotate", "riichi", str(foreign), "-o", str(out), "--room", str(rules))
    assert done.returncode == 0, done.stderr
    assert out.read_text().replace("foreign", "selfplay-270") \
        == (tmp_path / "sp.txt").read_text()
    skipped = referee("annotate", "riichi", str(foreign), "-o", str(tmp_path / "x.txt"))
    assert skipped.returncode == 1 and "skipped" in skipped.stderr
    four = TENHOU6 / "four_reach.json"
    assert referee("replay", "riichi", str(four)).returncode == 0
    assert referee("replay", "riichi", "--room", "mjai_app", str(four)).returncode == 1
    bad = referee("annotate", "riichi", str(four), "-o", str(tmp_path / "y"),
                  "--room", str(tmp_path / "none.toml"))
    assert bad.returncode == 2 and "--room" in bad.stderr and "Traceback" not in bad.stderr
