"""Riichi games as kanachan annotations: hand-checked lines of real Tenhou games, the
format's invariants over every real log we have, pre-empted claims, and the commands
(`referee annotate riichi`, `referee selfplay riichi`) as real programs."""

from __future__ import annotations

import gzip
import subprocess
import sys
from pathlib import Path

import pytest

from referee.games.riichi.kanachan.annotate import (
    AnnotationError,
    Context,
    annotate_game,
    grade_of_dan,
)
from referee.games.riichi.kanachan.encoding import (
    Move,
    decode_option,
    decode_progression,
    decode_sparse,
    encode_progression,
)
from referee.games.riichi.kanachan.logs import Overrides, annotate_file, annotate_logs, game_ids
from referee.games.riichi.kanachan.selfplay import selfplay
from referee.games.riichi.match import POLICIES, self_play
from referee.games.riichi.replay import load_log, verify_log
from referee.games.riichi.rules import Action, RiichiGame, RiichiRules

DATA = Path(__file__).resolve().parents[2] / "data" / "riichi"
RANKED = DATA / "tenhou6" / "ranked_game.json"
HOUOU = DATA / "2010091009gm-00a9-0000-83af2648.mjlog"
WHOLE_GAMES = [HOUOU, DATA / "kan4.mjlog", DATA / "nm.mjlog", DATA / "yao9.mjlog", RANKED]


def annotate(path: Path, context: Context | None = None) -> list[str]:
    loaded = load_log(path)
    return annotate_game(loaded.events, path.stem, context or Context(), loaded.rules,
                         source=str(path), final_results=loaded.final_results)


def fields(line: str) -> list[list[int]]:
    parts = line.split("\t")
    assert len(parts) == 7
    return [[int(x) for x in part.split(",")] for part in parts[1:]]


@pytest.fixture(scope="module")
def ranked() -> list[str]:
    return annotate(RANKED)


# --- hand-checked lines of a real Tenhou game (tenhou.net/6 JSON, tokujou east-south) -----
#
# East 1, seat 0 (the dealer) holds 3m 7m 8m 1p 1p 2p 4p 5p 7s 8s 9s C C, draws East and
# discards 3m. Seat 3 wins East 1 with 7700 from seat 2; seat 0 ends the game third with
# 21100 points (final: seat 1 55000, seat 3 28800, seat 0 21100, seat 2 -4900).

def test_the_dealers_first_point_field_by_field(ranked: list[str]) -> None:
    line = ranked[0]
    assert line.split("\t")[0] == "ranked_game"
    sparse, numeric, progression, options, chosen, results = fields(line)
    assert sparse == [
        2, 6, 7, 11, 14,        # Gold room (default), half-length, seat 0, East, round 0
        18 + 4,                 # dora indicator 4m
        203 + 69,               # 69 tiles left after the dealer's first draw
        273 + 6, 289 + 0,       # seat 0: grade 6 (default), rank 0 (ties: nearer seat 0)
        293 + 6, 309 + 1, 313 + 6, 329 + 2, 333 + 6, 349 + 3,
        362, 377, 381,          # 3m, 7m, 8m (first copies)
        390, 391, 394, 402, 406,  # 1p 1p 2p 4p, plain 5p (its first black slot)
        449, 453, 457,          # 7s 8s 9s
        485, 486,               # two Red dragons (C)
        489 + 30,               # the drawn tile: East
    ]
    assert numeric == [0, 0, 25000, 25000, 25000, 25000]
    assert progression == [0]
    # every kind in the hand, and East: all from the hand (a=0), the drawn East too (30*4),
    # as kanachan writes the dealer's first discard (Mahjong Soul deals it 14 tiles)
    assert options == [12, 28, 32, 44, 48, 56, 60, 108, 112, 116, 120, 144]
    assert options[chosen[0]] == 3 * 4  # 3m from the hand
    # seat 3 (left) ronned seat 2 (across): 15; deltas 0 0 -7700 +7700 from seat 0 on;
    # ranks after East 1: seat0 2nd, seat1 3rd, seat2 4th, seat3 1st; game: 3rd, 21100;
    # grading: Gold room east-south, 3rd: (21100 - 25000) / 1000 - 5 uma + 0, rounded up
    assert results == [15, 0, 0, -7700, 7700, 1, 2, 3, 0, 2, 21100, -8]
    old = fields(annotate(RANKED, Context(kanachan_exact=False))[0])
    assert old[3] == [*options[:10], 122, 144]  # before: East tsumogiri (30*4+2)


def test_the_next_point_sees_the_first_discard(ranked: list[str]) -> None:
    sparse, _numeric, progression, options, chosen, results = fields(ranked[1])
    situation = decode_sparse(sparse)
    assert (situation.seat, situation.left, situation.drawn) == (1, 68, "P")
    assert progression == [0, 5 + 0 * 148 + 3 * 4]  # seat 0 discarded 3m from the hand
    assert decode_option(options[chosen[0]]) == Move("dahai", tile="9p")
    # seat 1 sees seat 0 (left, third after the hand) ... and ends the game first:
    # grading (55000 - 25000) / 1000 + 15 uma + 80 (Gold, east-south)
    assert results == [12, 0, -7700, 7700, 0, 2, 3, 0, 1, 0, 55000, 125]


def test_a_pon_point_after_three_draws_and_a_called_dragon(ranked: list[str]) -> None:
    """Seat 0 pons C from seat 2 (across) in East 1: its hand then is the deal less 3m,
    plus East (3s and 4m went out tsumogiri)."""
    line = next(x for x in ranked if decode_option(fields(x)[3][fields(x)[4][0]]).kind == "pon")
    sparse, _numeric, progression, options, chosen, _results = fields(line)
    situation = decode_sparse(sparse)
    assert situation.seat == 0 and situation.drawn is None
    assert sorted(situation.hand) == sorted(
        ["7m", "8m", "1p", "1p", "2p", "4p", "5p", "7s", "8s", "9s", "C", "C", "E"])
    assert situation.left == 70 - (len(progression) - 1)  # one draw before each discard
    assert options == [221, 312 + 1 * 40 + 39]  # skip, pon of C from across
    assert chosen == [1]
    # seat 0: 3m (3); seat 1: 9p (19) from the hand; seat 2: 1p (11) from the hand
    assert progression[1:4] == [5 + 3 * 4, 5 + 148 + 19 * 4, 5 + 2 * 148 + 11 * 4]
    assert decode_progression(progression[-1]) == Move("dahai", 2, "C")


def test_the_ron_and_the_tsumo_points(ranked: list[str]) -> None:
    ron = next(x for x in ranked if 545 in fields(x)[3])
    sparse, _numeric, _progression, options, chosen, results = fields(ron)
    assert decode_sparse(sparse).seat == 3
    assert options[chosen[0]] == 545  # ron on the left neighbour, seat 2
    assert results[:5] == [6, 7700, 0, 0, -7700]  # its own ron from the left
    tsumo = next(x for x in ranked if 219 in fields(x)[3])
    sparse, _numeric, _progression, options, chosen, results = fields(tsumo)
    situation = decode_sparse(sparse)
    assert (situation.seat, situation.drawn) == (1, "6p")
    assert options[chosen[0]] == 219
    assert results[:5] == [0, 11700, -3900, -3900, -3900]  # seat 1, the dealer of East 2


def test_room_and_grades_come_from_the_mjlog() -> None:
    """A houou game (Throne, 4) of players at 7 dan, 7 dan, 9 dan, 9 dan (16, 16, 18, 18:
    Master 3, Master 3, Saint 2, Saint 2)."""
    assert [grade_of_dan(d) for d in (16, 18, 20, 10, 9, 5, 0)] == [11, 13, 15, 5, 4, 0, 0]
    result = annotate_file((str(HOUOU), "houou", Overrides()))
    assert result.error is None
    sparse = fields(result.lines[0])[0]
    assert sparse[0] == 4
    assert sparse[7:15:2] == [273 + 11, 293 + 11, 313 + 13, 333 + 13]
    forced = annotate_file((str(HOUOU), "houou", Overrides(room=0, grades=(1, 2, 3, 4))))
    assert fields(forced.lines[0])[0][0] == 0
    assert fields(forced.lines[0])[0][7:15:2] == [274, 295, 316, 337]


# --- invariants over every whole real game ------------------------------------------------

@pytest.mark.parametrize("exact", [True, False], ids=["kanachan", "real-choices"])
@pytest.mark.parametrize("path", WHOLE_GAMES, ids=lambda p: p.name)
def test_every_line_is_in_range_and_its_choice_is_what_the_log_did(path: Path,
                                                                   exact: bool) -> None:
    lines = annotate(path, Context(kanachan_exact=exact))
    assert len(lines) > 150
    parsed = [fields(line) for line in lines]
    codes: dict[str, list[int]] = {}  # the result codes of a point (one line per winner)
    for line, f in zip(lines, parsed, strict=True):
        codes.setdefault(line.rsplit("\t", 1)[0], []).append(f[5][0])
    checked = pre_empted = 0
    for number, (sparse, numeric, progression, options, chosen, results) in enumerate(parsed):
        where = f"line {number + 1}"
        assert all(0 <= v < 526 for v in sparse) and len(sparse) <= 33, where
        decode_sparse(sparse)
        assert len(numeric) == 6 and len(results) == 12, where
        assert progression[0] == 0 and all(0 <= v < 2165 for v in progression), where
        assert all(0 <= v < 546 for v in options), where
        assert options == sorted(set(options)), where
        assert len(options) >= 2 or (exact and options[0] < 148), where  # kanachan: the
        assert 0 <= chosen[0] < len(options), where                      # discard of a call
        assert 0 <= results[0] <= 18 and sorted(results[5:9]) == [0, 1, 2, 3], where
        seat = decode_sparse(sparse).seat
        move = decode_option(options[chosen[0]])
        later = next((p[2] for p in parsed[number + 1:]
                      if p[2][:len(progression)] == progression
                      and len(p[2]) > len(progression)), None)
        following = decode_progression(later[len(progression)]) if later else None
        if move.kind in ("dahai", "chi", "pon", "daiminkan", "ankan", "kakan"):
            expected = Move(move.kind, seat, move.tile, move.consumed, move.tsumogiri,
                            move.riichi, move.rel)
            if following is None:  # the round ended on it (a ron, a draw, an abort)
                continue
            checked += 1
            assert encode_progression(following) == encode_progression(expected), where
        elif move.kind == "skip" and following is not None:
            checked += 1
            assert following.seat != seat or following.kind not in ("chi", "pon",
                                                                     "daiminkan"), where
            claimed = {"chi": 1, "pon": 2, "daiminkan": 2}.get(following.kind, 0)
            best = max({"chi": 1, "pon": 2, "daiminkan": 2, "ron": 3}.get(
                decode_option(o).kind, 0) for o in options)
            pre_empted += claimed > best and following.seat != seat
        elif move.kind == "tsumo":
            assert results[0] == 0, where
        elif move.kind == "ron":  # its own ron among the codes (a double ron: two lines)
            own = codes[lines[number].rsplit("\t", 1)[0]]
            assert 4 + move.rel in own, where  # type: ignore[operator]
        elif move.kind == "kyuushu":
            assert results[0] == 18, where
    assert checked > 0.9 * len(lines)
    assert pre_empted == 0 or exact  # only kanachan writes the pre-empted chances (skip)
    if exact and path in (HOUOU, DATA / "kan4.mjlog"):
        assert pre_empted > 0


class _Opportunities:
    """An independent count of the points a replay should give: every question with two
    or more answers (kanachan: a discard after a call also with one), less, unless
    kanachan's, the answers to a discard pre-empted by another's higher claim, and the
    riichi discard that is part of its declaration point; kanachan's points come once per
    winner of their round, and it writes no answers that an abortive draw then ends."""

    def __init__(self) -> None:
        self.rounds: dict[tuple[int, int], list[tuple[int, list[Action], Action]]] = {}
        self.own: list[tuple[int, int, int, bool]] = []
        """(round, events so far, kinds of answers, after a call) of own decisions."""
        self.game: RiichiGame | None = None

    def __call__(self, game: RiichiGame, seat: int, action: Action) -> None:
        self.game = game
        kyoku = game.kyoku
        assert kyoku is not None
        legal = game.legal_actions(seat)
        key = (len(game.results), len(game.events))
        if kyoku.phase in ("respond", "chankan"):
            self.rounds.setdefault(key, []).append((seat, legal, action))
        elif kyoku.phase != "reach":
            kinds = len({(a.type, a.pai, a.tsumogiri, a.consumed) for a in legal})
            self.own.append((*key, kinds, kyoku.phase == "call"))

    def last_in_round(self, r: int, events: int) -> bool:
        """Whether the answers after event ``events`` were round ``r``'s last decision."""
        return not any(k == r and e > events for k, e in self.rounds) \
            and not any(k == r and e > events for k, e, _, _ in self.own)

    def expected(self, exact: bool) -> int:
        assert self.game is not None
        results = self.game.results
        copies = [max(1, len(r.winners)) if exact else 1 for r in results]
        rank = {"hora": 3, "pon": 2, "daiminkan": 2, "chi": 1, "none": 0}
        count = sum(copies[r] for r, _, kinds, call in self.own
                    if kinds >= 2 or (exact and call and kinds == 1))
        for (r, events), answers in self.rounds.items():
            if exact and results[r].abortive and self.last_in_round(r, events):
                continue
            for seat, legal, action in answers:
                others = max((rank[a.type] for s, _, a in answers if s != seat), default=0)
                best = max(rank[a.type] for a in legal)
                if len(legal) >= 2 and (exact or action.type != "none" or best >= others):
                    count += copies[r]
        return count


@pytest.mark.parametrize("path", WHOLE_GAMES, ids=lambda p: p.name)
def test_points_are_the_real_choices_or_kanachan_s(path: Path) -> None:
    loaded = load_log(path)
    seen = _Opportunities()
    verify_log(loaded.events, loaded.rules, observer=seen)
    pre_empted = sum(
        1 for answers in seen.rounds.values() for seat, legal, action in answers
        if action.type == "none" and max({"hora": 3, "pon": 2, "daiminkan": 2, "chi": 1,
                                          "none": 0}[a.type] for a in legal)
        < max(({"hora": 3, "pon": 2, "daiminkan": 2, "chi": 1, "none": 0}[a.type]
               for s, _, a in answers if s != seat), default=0))
    kanachan = annotate(path)
    real = annotate(path, Context(kanachan_exact=False))
    assert len(kanachan) == seen.expected(True)
    assert len(real) == seen.expected(False)
    if path in (HOUOU, DATA / "kan4.mjlog"):
        assert pre_empted > 0  # the case is really exercised
        assert len(kanachan) > len(real)


def test_a_riichi_is_one_point_with_its_declaration_bit() -> None:
    lines = [fields(x) for x in annotate(DATA / "nm.mjlog") + annotate(HOUOU)]
    riichi = [f for f in lines if decode_option(f[3][f[4][0]]).riichi]
    assert riichi, "these games have riichi declarations"
    for sparse, _numeric, _progression, options, _chosen, _results in riichi:
        plain = {o & ~1 for o in options if o < 148 and o & 1}
        assert plain <= set(options)  # each riichi discard is also offered without it
        assert decode_sparse(sparse).drawn is not None


def test_games_that_cannot_be_annotated_say_why() -> None:
    loaded = load_log(DATA / "tenhou6" / "chankan.json")
    with pytest.raises(AnnotationError, match="does not end the game"):
        annotate_game(loaded.events, "x", Context(), loaded.rules)
    with pytest.raises(AnnotationError, match="tab"):
        annotate_game(loaded.events, "a\tb")
    plain = RiichiRules(red_fives=False, game_length="east")
    game = self_play([POLICIES["tsumogiri"]] * 4, plain, seed=4).game
    with pytest.raises(AnnotationError, match="without red fives"):
        annotate_game(game.events, "x", Context(), plain)


def test_game_ids_are_file_names_unless_they_clash(tmp_path: Path) -> None:
    paths = [Path("a/x.mjlog"), Path("b/x.mjlog.gz"), Path("c/y z.json.gz")]
    assert game_ids(paths) == ["a/x.mjlog", "b/x.mjlog.gz", "y_z"]


# --- the commands, as real programs -------------------------------------------------------

def referee(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "referee.cli", *args], capture_output=True,
                          text=True, timeout=300)


def test_annotate_command_writes_whole_games_and_names_skipped_files(tmp_path: Path) -> None:
    out = tmp_path / "bc.txt.gz"
    done = referee("annotate", "riichi", str(HOUOU), str(RANKED),
                   str(DATA / "tenhou6" / "chankan.json"), "-o", str(out), "-j", "2")
    assert done.returncode == 1, done.stderr
    assert "skipped" in done.stderr and "chankan.json" in done.stderr
    assert "does not end the game" in done.stderr
    assert "annotated 2 games" in done.stderr
    with gzip.open(out, "rt") as stream:
        lines = stream.read().splitlines()
    assert lines == annotate(HOUOU, Context(room=4, grades=(11, 11, 13, 13))) \
        + [x.replace("ranked_game", "ranked_game") for x in
           annotate(RANKED, Context(room=3))]
    ok = referee("annotate", "riichi", str(RANKED), "-o", str(tmp_path / "one.txt"),
                 "--ms-room", "jade", "--grade", "9")
    assert ok.returncode == 0, ok.stderr
    first = fields((tmp_path / "one.txt").read_text().splitlines()[0])[0]
    assert first[0] == 3 and first[7] == 273 + 9
    real = referee("annotate", "riichi", str(HOUOU), "-o", str(tmp_path / "real.txt"),
                   "--no-kanachan-exact")
    assert real.returncode == 0, real.stderr
    assert (tmp_path / "real.txt").read_text().splitlines() \
        == annotate(HOUOU, Context(room=4, grades=(11, 11, 13, 13), kanachan_exact=False))


def test_annotate_command_refuses_bad_options_clearly(tmp_path: Path) -> None:
    bad = referee("annotate", "riichi", str(RANKED), "-o", str(tmp_path / "x"),
                  "--grade", "1,2")
    assert bad.returncode == 2 and "--grade" in bad.stderr
    bad = referee("annotate", "riichi", str(RANKED), "-o", str(tmp_path / "x"),
                  "--ms-room", "palace")
    assert bad.returncode == 2 and "--ms-room" in bad.stderr
    assert not (tmp_path / "x").exists()


def test_annotate_logs_in_folders_and_in_parallel_give_the_same_file(tmp_path: Path) -> None:
    folder = tmp_path / "logs"
    folder.mkdir()
    for path in WHOLE_GAMES[:3]:
        (folder / path.name).write_bytes(path.read_bytes())
    one = annotate_logs([folder], tmp_path / "one.txt")
    two = annotate_logs([folder], tmp_path / "two.txt.bz2", jobs=2)
    assert one.games == two.games == 3 and not one.skipped
    import bz2
    assert bz2.decompress((tmp_path / "two.txt.bz2").read_bytes()).decode() \
        == (tmp_path / "one.txt").read_text()


def test_selfplay_is_deterministic_and_its_records_annotate_the_same(tmp_path: Path) -> None:
    first = selfplay(2, tmp_path / "a.txt", seed=11, players=["greedy", "tsumogiri"] * 2,
                     length="east", records=tmp_path / "recs")
    selfplay(2, tmp_path / "b.txt", seed=11, players=["greedy", "tsumogiri"] * 2,
                     length="east", jobs=2)
    assert first.games == 2 and first.points > 100 and not first.skipped
    assert (tmp_path / "a.txt").read_text() == (tmp_path / "b.txt").read_text()
    annotate_logs([tmp_path / "recs"], tmp_path / "c.txt")
    assert (tmp_path / "c.txt").read_text() == (tmp_path / "a.txt").read_text()


def test_selfplay_command(tmp_path: Path) -> None:
    done = referee("selfplay", "riichi", "--games", "2", "--seed", "3", "--game", "east",
                   "-o", str(tmp_path / "sp.txt.gz"), "-j", "2")
    assert done.returncode == 0, done.stderr
    assert "seeds 3..4" in done.stderr
    with gzip.open(tmp_path / "sp.txt.gz", "rt") as stream:
        ids = {line.split("\t")[0] for line in stream}
    assert ids == {"selfplay-3", "selfplay-4"}
    bad = referee("selfplay", "riichi", "--games", "1", "--players", "greedy,nobody",
                  "-o", str(tmp_path / "x"))
    assert bad.returncode == 2 and "four players" in bad.stderr


def test_hands_hold_the_tiles_a_point_can_have(ranked: list[str]) -> None:
    """13, 10, 7 ... tiles when answering another's discard; with the drawn tile (or
    after a call) 14, 11, 8 ... before one's own discard."""
    for line in ranked:
        sparse, _numeric, _progression, options, _chosen, _results = fields(line)
        situation = decode_sparse(sparse)
        if 221 in options:
            assert len(situation.hand) % 3 == 1 and situation.drawn is None
        else:
            assert (len(situation.hand) + (situation.drawn is not None)) % 3 == 2


def test_annotations_go_through_annotate4rl_shuffle_and_the_reader(tmp_path: Path) -> None:
    """The whole pipeline on real games, as programs: annotate, annotate4rl, shuffle;
    then the numpy reader over the results."""
    from referee.games.riichi.kanachan.dataset import iter_batches

    bc = tmp_path / "bc.txt.gz"
    assert referee("annotate", "riichi", str(HOUOU), str(RANKED), "-o", str(bc)).returncode == 0
    rl = tmp_path / "rl.txt.bz2"
    done = referee("annotate4rl", str(bc), "-o", str(rl))
    assert done.returncode == 0, done.stderr
    with gzip.open(bc, "rt") as stream:
        count = len(stream.read().splitlines())
    assert f"2 games, {count} decision points" in done.stderr
    assert f"{count - 8} (s, a, s') and 8 (s, a, o) lines" in done.stderr
    shuffled = tmp_path / "train.txt"
    done = referee("shuffle", str(bc), "-o", str(shuffled), "--seed", "1")
    assert done.returncode == 0, done.stderr
    rows = 0
    for batch in iter_batches([shuffled], 256):
        assert batch["sparse"].shape[1:] == (33,)
        assert (batch["sparse"] <= 526).all() and (batch["candidates"] <= 547).all()
        picked = batch["candidates"][range(len(batch["choice"])), batch["choice"]]
        assert (picked < 546).all()  # the choice points at a real candidate
        rows += len(batch["choice"])
    assert rows == count
    terminal = sum(int(batch["terminal"].sum()) for batch in iter_batches([rl], 100))
    assert terminal == 8
    wrong = referee("annotate4rl", str(shuffled), "-o", str(tmp_path / "bad.txt"))
    assert wrong.returncode == 2 and "appears again" in wrong.stderr
