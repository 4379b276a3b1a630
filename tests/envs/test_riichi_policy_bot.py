"""``referee bot riichi --policy module:callable``: the bot rebuilds, from the mjai events
its seat receives, exactly the observation and mask the Riichi environment gives that seat
at each decision; a policy plays real matches; its faults are the referee's to judge."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from riichi_play import best_discards

pytest.importorskip("pettingzoo")

from referee.core.outcome import Outcome
from referee.core.policy import PolicyError
from referee.core.record import GameRecord
from referee.envs import make
from referee.games.riichi.data import DATA
from referee.games.riichi.env import RIICHI, RiichiEnvEngine, RiichiEnvGame
from referee.games.riichi.kanachan.encoding import O_ANKAN, O_RON, O_SKIP, O_TSUMO
from referee.games.riichi.logrules import start_game_event
from referee.games.riichi.match import mask_event
from referee.games.riichi.policy_bot import PolicyBot, run
from referee.games.riichi.replay import chosen_rules, load_log, verify_log
from referee.games.riichi.rules import Action, Deal, RiichiGame, RiichiRules, ScriptedWall
from referee.games.riichi.rulesets import preset_rules
from referee.games.riichi.tiles import tile_of

POLICIES = Path(__file__).resolve().parents[1] / "policies"
DATA_DIR = Path(__file__).resolve().parents[1] / "data" / "riichi"
HONORS = "ESWNPFC"


def no_policy(observation: Any) -> int:
    raise AssertionError("the policy is not asked here")


class Seats:
    """Each seat's policy bot, told the events its seat receives, checked against the
    engine (the environment's view) after every chunk of events and at each decision."""

    def __init__(self, rules: RiichiRules) -> None:
        self.rules = rules
        self.bots = [PolicyBot(no_policy, RiichiRules()) for _ in range(4)]
        for seat, bot in enumerate(self.bots):
            bot.see({**start_game_event(["a", "b", "c", "d"], rules), "id": seat})
        self.told = 0
        self.decisions = 0

    def sync(self, engine: RiichiEnvEngine) -> None:
        """Tell every bot the new events, one at a time as the referee tells them: after
        each but the last no bot is asked anything; after the last each is asked exactly
        when the engine asks its seat."""
        events = engine.game.events
        if len(events) == self.told:
            return
        pending = engine.game.pending()
        for index in range(self.told, len(events)):
            last = index == len(events) - 1
            for seat, bot in enumerate(self.bots):
                bot.see(mask_event(events[index], seat))
                assert bot.asked() == (last and seat in pending), (
                    seat, pending, events[max(0, index - 3):index + 1])
        self.told = len(events)

    def check(self, env_game: RiichiEnvGame, engine: RiichiEnvEngine, seat: int) -> None:
        """The bot's observation and mask are the environment's for ``seat``."""
        mine = self.bots[seat].observation()
        assert np.array_equal(mine["action_mask"], env_game.asked_mask(engine, seat))
        assert np.array_equal(mine["observation"], env_game.observe(engine, seat))
        self.decisions += 1


def toward_winning(env_game: RiichiEnvGame, engine: RiichiEnvEngine, seat: int,
                   mask: np.ndarray[Any, Any], rng: random.Random) -> int:
    """A legal action number, mostly one that plays toward winning (wins, riichi, calls,
    discards lowering the shanten), to reach every kind of decision."""
    numbers = [int(n) for n in np.flatnonzero(mask)]
    wins = [n for n in numbers if n == O_TSUMO or (n >= O_RON and n != RIICHI)]
    if wins and rng.random() < 0.9:
        return wins[0]
    if RIICHI in numbers and rng.random() < 0.9:
        return RIICHI
    if O_SKIP in numbers and rng.random() < 0.5:
        return O_SKIP
    discards = [n for n in numbers if n < O_ANKAN]
    if not discards or rng.random() < 0.1:
        return rng.choice(numbers)
    return rng.choice(best_discards(env_game, engine, seat, discards))


@pytest.mark.parametrize(("room", "length", "seeds"), [
    ("tenhou", "east", range(0, 6)), ("mahjong_soul", "south", range(6, 9)),
    ("mjai_app", "east", range(9, 12))])
def test_the_bot_sees_what_the_environment_shows_at_every_decision(
        room: str, length: str, seeds: range) -> None:
    rules = preset_rules(room, length)
    env_game = RiichiEnvGame(rules)
    kinds: set[str] = set()
    for seed in seeds:
        engine = RiichiEnvEngine(RiichiGame(rules, seed=seed))
        seats = Seats(rules)
        rng = random.Random(seed)
        while (seat := engine.to_play()) is not None:
            seats.sync(engine)
            seats.check(env_game, engine, seat)
            mask = env_game.legal_mask(engine, seat)
            if seed % 3 == 0:
                number = rng.choice([int(n) for n in np.flatnonzero(mask)])
            else:
                number = toward_winning(env_game, engine, seat, mask, rng)
            action = env_game.action(engine, seat, number)
            kinds.add(action.type)
            engine.apply(seat, action)
        seats.sync(engine)
        assert all(bot.game is not None and bot.game.over for bot in seats.bots)
    assert {"dahai", "reach", "chi", "pon", "hora", "none"} <= kinds


def names(text: str) -> list[str]:
    """mjai names of a compact hand: ``123m0p77z`` (0 the red five, z 1..7 = E..C)."""
    out: list[str] = []
    digits = ""
    for ch in text.replace(" ", ""):
        if ch.isdigit():
            digits += ch
            continue
        for d in digits:
            out.append(HONORS[int(d) - 1] if ch == "z" else f"5{ch}r" if d == "0"
                       else f"{d}{ch}")
        digits = ""
    return out


def scripted(hands: list[str], draws: str, rinshan: str, dora: str) -> RiichiEnvEngine:
    """One hand of Tenhou's rules dealt ``hands`` (dealer seat 0) with scripted draws."""
    taken: set[int] = set()

    def ids(text: str) -> list[int]:
        out = []
        for name in names(text):
            out.append(tile_of(name, taken))
            taken.add(out[-1])
        return out

    tehais = tuple(tuple(ids(h)) for h in hands)
    markers = ids(dora)
    wall = ScriptedWall(ids(draws), ids(rinshan), markers, ids("9p"), live_total=70)
    game = RiichiGame(preset_rules("tenhou", "east"), seed=None)
    game.start_kyoku(Deal(tehais, markers[0]), wall)
    return RiichiEnvEngine(game)


def play_script(engine: RiichiEnvEngine, steps: list[tuple[int, Action]]) -> Seats:
    """Play ``steps`` (seats asked meanwhile pass), checking every seat's bot at every
    decision."""
    env_game = RiichiEnvGame(engine.game.rules)
    seats = Seats(engine.game.rules)

    def play(seat: int, action: Action) -> None:
        seats.sync(engine)
        seats.check(env_game, engine, seat)
        found = engine.game.find_legal(seat, action)
        assert found is not None, (action, engine.game.legal_actions(seat))
        engine.apply(seat, found)

    def question() -> bool:
        kyoku = engine.game.kyoku
        return kyoku is not None and kyoku.phase in ("respond", "chankan")

    for seat, action in steps:
        answer = action.type in ("none", "chi", "pon", "daiminkan") or (
            action.type == "hora" and action.target != seat)
        while question() and (not answer or seat not in engine.game.pending()):
            first = min(engine.game.pending())
            play(first, Action("none", first))  # the others asked pass
        play(seat, action)
    seats.sync(engine)
    return seats


def drawn(seat: int, pai: str) -> tuple[int, Action]:
    return seat, Action("dahai", seat, pai, tsumogiri=True)


CHANKAN = ["55s555666777z19p", "12345678p11122z", "46s123456789m33z", "112233s77s88s99p4z"]


def test_chankan_after_a_temporary_furiten_as_the_environment_has_it() -> None:
    """Seat 2 lets its winning 5s pass (furiten until its own discard), discards, then
    robs seat 0's added kan: the bot follows the furiten, the kan and the robbing."""
    engine = scripted(CHANKAN, "9s 9s 9s 5s 9s 1z 4z 0s", "", "8p 7p")
    seats = play_script(engine, [
        drawn(0, "9s"), drawn(1, "9s"), drawn(2, "9s"), drawn(3, "5s"),
        (2, Action("none", 2)), (0, Action("pon", 0, "5s", 3, ("5s", "5s"))),
        (0, Action("dahai", 0, "1p")), drawn(1, "9s"), drawn(2, "E"), drawn(3, "N"),
        (0, Action("kakan", 0, "5sr", None, ("5s", "5s", "5s"))),
        (2, Action("hora", 2, "5sr", 0))])
    assert engine.game.kyoku is not None and engine.game.kyoku.result is not None
    assert seats.decisions >= 12  # with the passes of the seats asked meanwhile


def test_a_winning_tile_let_go_is_temporary_furiten_for_the_bot() -> None:
    """Seat 2 lets its winning 5s pass; seat 0 then discards another 5s before seat 2's
    own discard: no ron for seat 2, which is not asked (its bot answers none)."""
    engine = scripted(CHANKAN, "9s 9s 9s 5s 9s 1z 4z", "", "8p 7p")
    play_script(engine, [
        drawn(0, "9s"), drawn(1, "9s"), drawn(2, "9s"), drawn(3, "5s"),
        (2, Action("none", 2)), (0, Action("none", 0)), (0, Action("dahai", 0, "5s")),
        drawn(1, "E")])
    kyoku = engine.game.kyoku
    assert kyoku is not None and kyoku.is_furiten(2) and kyoku.waits[2] >> 22 & 1


def test_an_ankan_robbed_by_kokushi_and_one_let_go() -> None:
    hands = ["111m666s222z333z5z", "234567p456m88s99s", "23m456p456p777s88s",
             "9m19p19s12345677z"]
    engine = scripted(hands, "1m", "9m", "8p 7p")
    play_script(engine, [(0, Action("ankan", 0, consumed=("1m",) * 4)),
                         (3, Action("hora", 3, "1m", 0))])
    engine = scripted(hands, "1m 2p 3p", "9m", "8p 7p")
    play_script(engine, [(0, Action("ankan", 0, consumed=("1m",) * 4)),
                         (3, Action("none", 3)), drawn(0, "9m"), drawn(1, "2p")])
    kyoku = engine.game.kyoku
    assert kyoku is not None and kyoku.is_furiten(3)


LOGS = sorted([*DATA_DIR.glob("*.mjlog"), *(DATA_DIR / "tenhou6").glob("*.json")])


@pytest.mark.parametrize("path", LOGS, ids=[p.name for p in LOGS])
def test_the_bot_follows_real_games_of_every_kind(path: Path) -> None:
    """Tenhou's games (chankan, four kans, rinshan, kakan after kakan, nine terminals,
    double ron, four riichi...), replayed: at each decision the bot of the seat deciding
    sees what the environment shows it, and each bot is asked when the engine asks."""
    loaded = load_log(path)
    seats: Seats | None = None
    engine: RiichiEnvEngine | None = None
    env_game: RiichiEnvGame | None = None

    def observer(game: RiichiGame, seat: int, action: Action) -> None:
        nonlocal seats, engine, env_game
        if engine is None or engine.game is not game:
            engine = RiichiEnvEngine(game)
            seats = Seats(game.rules)
            env_game = RiichiEnvGame(game.rules)
        assert seats is not None and env_game is not None
        engine.moves += 1
        seats.sync(engine)
        seats.check(env_game, engine, seat)

    verify_log(loaded.events, chosen_rules(loaded), observer=observer)
    assert seats is not None and seats.decisions > 0


def test_the_bot_takes_the_rules_from_start_game() -> None:
    bot = PolicyBot(no_policy, RiichiRules())
    bot.see({"type": "start_game", "names": ["a", "b", "c", "d"], "id": 2,
             "kyoku_first": 4, "aka_flag": True})
    assert bot.game is not None and bot.game.seat == 2
    assert bot.game.rules.game_length == "east"
    bot = PolicyBot(no_policy, RiichiRules())
    bot.see({**start_game_event(list("abcd"), preset_rules("mahjong_soul", "east")), "id": 0})
    assert bot.env_game is not None and bot.env_game.rules == preset_rules("mahjong_soul", "east")
    with pytest.raises(PolicyError, match="start_game gives no seat"):
        PolicyBot(no_policy, RiichiRules()).see({"type": "start_game", "names": list("abcd")})
    with pytest.raises(PolicyError, match="before start_game"):
        PolicyBot(no_policy, RiichiRules()).see({"type": "start_kyoku"})
    with pytest.raises(PolicyError, match="red fives"):
        PolicyBot(no_policy, RiichiRules()).see(
            {"type": "start_game", "id": 0, "aka_flag": False})


def test_batched_lines_and_the_answers_of_run() -> None:
    """mjai.app's batched style: one array a line, one answer per line; the policy is
    asked only at the seat's decisions, with the environment's observation."""
    env = make("riichi", game="east")
    env.reset(seed=3)
    engine = env.engine
    rules = engine.game.rules
    events = [{**start_game_event(list("abcd"), rules), "id": 0},
              *(mask_event(e, 0) for e in engine.game.events)]
    asked: list[Any] = []

    def policy(observation: dict[str, Any]) -> int:
        asked.append(observation)
        return int(np.flatnonzero(observation["action_mask"])[-1])

    lines = [json.dumps(events[:1]), json.dumps(events[1:]), json.dumps(
        [{"type": "end_game", "scores": [25000] * 4}])]
    out: list[str] = []

    class Sink:
        def write(self, text: str) -> None:
            out.append(text)

        def flush(self) -> None:
            pass

    assert run(policy, RiichiRules(), iter(lines), Sink()) == 0  # type: ignore[arg-type]
    assert len(out) == 3 and json.loads(out[0]) == {"type": "none"}
    assert len(asked) == 1
    expected = env.observe("player_0")
    assert np.array_equal(asked[0]["observation"], expected["observation"])
    assert np.array_equal(asked[0]["action_mask"], expected["action_mask"])
    answer = json.loads(out[1])
    number = int(np.flatnonzero(expected["action_mask"])[-1])
    assert answer == {**json.loads(engine.notation(env.game.action(engine, 0, number)))}
    assert json.loads(out[2]) == {"type": "none"}


# ------------------------------------------------------------------------------ matches


def bot(policy: str, module: str = "first_legal") -> str:
    return (f"{sys.executable} -m referee.cli bot riichi --policy {module}:{policy} "
            f"--path {POLICIES}")


def match(tmp_path: Path, *players: str, seed: int = 5) -> tuple[dict[str, Any], GameRecord]:
    run_ = subprocess.run([sys.executable, "-m", "referee.cli", "match", "riichi", *players,
                           "--game", "east", "--seed", str(seed), "--move-time", "20s",
                           "--out", str(tmp_path / "out"), "--json"],
                          capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert run_.returncode == 0, run_.stderr
    return dict(json.loads(run_.stdout)), GameRecord.read(tmp_path / "out" / "game-001.json")


def test_a_policy_plays_a_real_match_as_the_environment_sees_it(tmp_path: Path) -> None:
    """The first legal action every time: the dataset replay of the record (the
    environment's view of each decision) shows seat 0 took exactly that."""
    result, record = match(tmp_path, bot("policy"), "tsumogiri", "tsumogiri", "tsumogiri")
    assert result["games"][0]["outcome"] == "normal"
    assert "failures" not in record.settings and "forfeits" not in record.settings
    assert record.notes == [] and record.faults == []
    ours = [d for d in DATA.decisions(record) if d.seat == 0]
    assert len(ours) > 50
    assert all(d.action == int(np.flatnonzero(d.action_mask)[0]) for d in ours)


def test_a_policy_that_claims_everything_plays_a_clean_match(tmp_path: Path) -> None:
    """The highest legal number: riichi, wins, kans and calls whenever offered (the
    bot's options must be the engine's, or the referee counts unasked or illegal
    answers)."""
    players = [bot("policy", "riichi_policies"), "greedy", bot("policy", "riichi_policies"),
               "greedy"]
    result, record = match(tmp_path, *players, seed=11)
    assert result["games"][0]["outcome"] == "normal"
    assert "failures" not in record.settings and "forfeits" not in record.settings
    decisions = [d for d in DATA.decisions(record) if d.seat in (0, 2)]
    assert all(d.action == int(np.flatnonzero(d.action_mask)[-1]) for d in decisions)
    claims = {d.action for d in decisions if d.action >= O_ANKAN and d.action != O_SKIP}
    assert claims, "the bots never called, kanned, won or declared riichi"


@pytest.mark.parametrize(("policy", "said"), [
    ("raises", "the policy failed: ZeroDivisionError: my bug"),
    ("not_a_number", "the policy returned 'e5', not an action number"),
])
def test_a_policy_that_fails_crashes_its_bot(tmp_path: Path, policy: str, said: str) -> None:
    _, record = match(tmp_path, "tsumogiri", bot(policy), "tsumogiri", "tsumogiri")
    assert [f["seat"] for f in record.settings["forfeits"]] == [1]
    forfeit = record.settings["forfeits"][0]
    assert forfeit["reason"].startswith("crash") and said in forfeit["reason"]
    assert [(f.seat, Outcome(f.outcome)) for f in record.faults] == [(1, Outcome.CRASH)]
    seats = {d.seat for d in DATA.decisions(record)}  # the safe default's are not data
    assert seats == {0, 2, 3}


def test_an_illegal_action_is_judged_by_the_referee(tmp_path: Path) -> None:
    _, record = match(tmp_path, "tsumogiri", "tsumogiri", bot("illegal"), "tsumogiri")
    failures = record.settings["failures"]
    assert len(failures) == 5 and {f["seat"] for f in failures} == {2}
    assert all(f["kind"] == "illegal" for f in failures)
    assert [(f.seat, Outcome(f.outcome)) for f in record.faults] == [
        (2, Outcome.ILLEGAL_MOVE)]
    defaults = [m for m in record.moves if m.seat == 2 and m.info.get("default")]
    assert len(defaults) >= 5  # the safe default played its failed answers, then its seat
    decisions = list(DATA.decisions(record))  # the safe default's are not data
    assert all(d.action == 0 for d in decisions if d.seat == 2)
    assert {d.seat for d in decisions} >= {0, 1, 3}
