"""Games with the doubling cube (docs/rules.md, The doubling cube; Match play): the cube actions of a ``Game``
and their checks, its points and the match score after it, and its record, in both implementations. Every
expected value here is worked by hand from the rules; the cubeless record is the one the package wrote
before games had a cube."""

from __future__ import annotations

import pytest

from nardy_fast import Cube, Game, Greedy, Match, NardyError
from nardy_fast.reference import Position as Reference

#: A game's method for each answer to a double.
_ANSWERS = {"take": Game.take, "pass": Game.drop, "beaver": Game.beaver}

#: A game of the package before the cube: Game("long", seed=7, game=3) with the last legal move each ply,
#: its record as the package wrote it then, byte for byte.
OLD_RECORD = (
    "# nardy_fast game seed=7 game=3 opening=fresh_roll | long w 12:-15,24:15\n1 w 5-4 24/19 19/15\n"
    "2 b 2-6 24/18 18/16\n3 w 4-2 15/11 11/9\n4 b 1-5 16/11 11/10\n5 w 6-3 24/21 9/3\n6 b 2-2 10/8 8/6 6/4 4/2\n"
    "7 w 1-4 21/17 3/2\n8 b 5-2 24/19 19/17\n"
)

#: White to move with 15 checkers far from home; Black, 14 off, bears off its last checker with any roll: if
#: the game goes on, Black wins a mars (White has none off, and none in Black's home: no koks).
BLACK_MARS = "short w 13:15,24:-1 off=0/14"
#: White bears off its last checker with any roll; Black has none off: a mars, and a koks with a Black
#: checker in White's home.
WHITE_MARS = "short w 1:1,19:-15 off=14/0"
WHITE_KOKS = "short w 1:1,2:-1,19:-14 off=14/0"


def _end(game: Game) -> None:
    while not game.is_over():
        game.play(game.legal_moves()[0])


def test_a_game_without_the_cube_keeps_its_record(Position: type[Reference]) -> None:
    game = Game("long", seed=7, game=3, position_class=Position)
    for _ in range(8):
        game.play(game.legal_moves()[-1])
    assert game.record() == OLD_RECORD
    assert not game.may_double()
    with pytest.raises(NardyError, match=r"^cube: this game is played without the cube"):
        game.double()


def test_the_worked_example_of_the_rules(Position: type[Reference]) -> None:
    # docs/rules.md, The doubling cube: White doubles to 2, Black takes, redoubles to 4, White takes; Black wins
    # a mars: 2 x 4 = 8 points; had White passed the redouble, Black would have scored 2
    for passes in (False, True):
        game = Game(Position.from_text(BLACK_MARS), seed=1, cube=Cube())
        assert game.may_double()
        game.double()
        game.take()
        assert game.cube == Cube(2, "black")
        with pytest.raises(NardyError, match=r"^cube.owner:"):
            game.double()  # not the doubler's cube any more (and not its turn's start)
        game.play(game.legal_moves()[0])
        assert game.may_double()
        game.double()
        if passes:
            game.drop()
            assert (game.winner(), game.points(), game.cube.value) == ("black", 2, 2)
        else:
            game.take()
            _end(game)
            assert (game.winner(), game.points(), game.cube) == ("black", 8, Cube(4, "white"))


def test_mars_and_koks_times_the_cube_and_jacoby(Position: type[Reference]) -> None:
    for text, multiple in ((WHITE_MARS, 2), (WHITE_KOKS, 3)):
        game = Game(Position.from_text(text), seed=1, cube=Cube(4, "white"))
        _end(game)
        assert (game.winner(), game.points()) == ("white", 4 * multiple)
        jacoby = Game(Position.from_text(text), seed=1, match=Match(jacoby=True))
        _end(jacoby)
        assert jacoby.points() == 1  # a centred cube: the mars counts single
        owned = Game(Position.from_text(text), seed=1, cube=Cube(2, "black"), match=Match(jacoby=True))
        _end(owned)
        assert owned.points() == 2 * multiple  # once turned, the Jacoby rule no longer applies


def test_points_are_capped_at_what_the_match_needs(Position: type[Reference]) -> None:
    # docs/rules.md, Match play: at 5-6 to 7, White wins a mars on the 1-cube: it scores 2, its full need
    game = Game(Position.from_text(WHITE_MARS), seed=1, match=Match(7, (5, 6), crawford=True))
    assert not game.may_double()
    with pytest.raises(NardyError, match=r"^match\.crawford: nobody doubles in the Crawford game"):
        game.double()
    _end(game)
    assert (game.points(), game.score(), game.next_match()) == (2, (7, 6), None)
    capped = Game(Position.from_text(WHITE_KOKS), seed=1, cube=Cube(2, "black"), match=Match(7, (3, 2)))
    _end(capped)
    assert (capped.points(), capped.score()) == (4, (7, 2))  # a koks on a 2-cube is 6: 4 are needed


def test_the_crawford_game_and_after(Position: type[Reference]) -> None:
    game = Game(Position.from_text(WHITE_MARS), seed=1, match=Match(7, (4, 0)))
    _end(game)
    assert game.next_match() == Match(7, (6, 0), crawford=True)  # White reached 1 away: the Crawford game next
    after = Game(Position.from_text(WHITE_MARS), seed=1, match=Match(7, (6, 0), crawford=True))
    _end(after)
    assert after.next_match() is None
    crawford_lost = Game(Position.from_text(BLACK_MARS), seed=1, match=Match(7, (6, 0), crawford=True))
    _end(crawford_lost)
    assert crawford_lost.next_match() == Match(7, (6, 2))  # post-Crawford: no second Crawford game


def test_the_free_drop_after_crawford(Position: type[Reference]) -> None:
    # post-Crawford at 6-5 to 7: the leader (1 away) has no use for the cube; the trailer doubles, and the
    # leader's pass costs it one point: double match point at 6-6, not the match
    leader = Game(Position.from_text(WHITE_MARS), seed=1, match=Match(7, (6, 5)))
    assert not leader.may_double()
    with pytest.raises(NardyError, match=r"^by: the leader after the Crawford game"):
        leader.double()
    trailer = Game(Position.from_text(BLACK_MARS.replace("short w", "short b")), seed=1, match=Match(7, (6, 5)))
    assert trailer.may_double()
    trailer.double()
    trailer.drop()
    assert (trailer.winner(), trailer.points(), trailer.score()) == ("black", 1, (6, 6))
    assert trailer.next_match() == Match(7, (6, 6))


def test_beavers_at_money_play_only(Position: type[Reference]) -> None:
    game = Game(Position.from_text(BLACK_MARS), seed=1, match=Match(beavers=True))
    game.double()
    game.beaver()
    assert game.cube == Cube(4, "black")
    plain = Game(Position.from_text(BLACK_MARS), seed=1, match=Match(7))
    plain.double()
    with pytest.raises(NardyError, match=r"^match\.beavers:"):
        plain.beaver()
    plain.take()
    assert plain.cube == Cube(2, "black")


def test_cube_actions_out_of_turn_are_refused(Position: type[Reference]) -> None:
    game = Game("short", seed=2, cube=Cube(), position_class=Position)
    with pytest.raises(NardyError, match=r"^cube: a side doubles at the start of its turn"):
        game.double()  # the opening roll is thrown: no double before the first move
    with pytest.raises(NardyError, match=r"^cube: no double awaits an answer"):
        game.take()
    game.play(game.legal_moves()[0])
    game.double()
    with pytest.raises(NardyError, match=r"^cube: a double awaits its answer"):
        game.play(game.legal_moves()[0])
    game.drop()
    with pytest.raises(NardyError, match=r"^cube: the game is over"):
        game.double()
    with pytest.raises(NardyError, match=r"^cube: must be a nardy_fast.Cube"):
        Game("short", cube=2)  # type: ignore[arg-type]


def test_records_with_the_cube_round_trip(Position: type[Reference]) -> None:
    greedy = Greedy("heuristic")
    for seed, match in ((3, Match(7, (2, 4))), (4, Match(beavers=True, jacoby=True)), (5, Match(5, (4, 3)))):
        game = Game("short", seed=seed, match=match, position_class=Position)
        while not game.is_over():
            if game.may_double() and greedy.cube_action(game.position, game.cube, game.match) == "double":
                game.double()
                _ANSWERS[
                    greedy.cube_response(game.position, game.cube, game.match)
                ](game)
                continue
            game.play(game.legal_moves()[0])
        text = game.record()
        assert text.splitlines()[0].split(" | ")[0].endswith(
            {3: "cube=1 match=7 score=2-4", 4: "cube=1 match=money jacoby=1 beavers=1", 5: "cube=1 match=5 score=4-3"}[
                seed]
        )
        assert text.splitlines()[-1].startswith(f"end {game.winner()[0]} {game.points()}")  # type: ignore[index]
        replay = Game.from_record(text, Position)
        assert replay.record() == text
        assert (replay.points(), replay.score(), replay.cube) == (game.points(), game.score(), game.cube)


def test_a_record_with_a_wrong_cube_line_is_refused(Position: type[Reference]) -> None:
    game = Game(Position.from_text(BLACK_MARS), seed=1, cube=Cube())
    game.double()
    game.take()
    text = game.record()
    assert text.splitlines()[1:] == ["cube w double", "cube b take"]
    with pytest.raises(NardyError, match=r"^record: has a cube action that does not follow"):
        Game.from_record(text.replace("cube b take", "cube w take"), Position)
    _end(game)
    with pytest.raises(NardyError, match=r"^record: ends otherwise"):
        Game.from_record(game.record().replace("end b 4", "end b 2"), Position)


def test_a_turned_cube_and_the_crawford_flag_round_trip(Position: type[Reference]) -> None:
    game = Game(Position.from_text(WHITE_KOKS), seed=1, cube=Cube(2, "black"), match=Match(7, (3, 6), crawford=True))
    _end(game)
    text = game.record()
    lines = text.splitlines()
    assert lines[0].split(" | ")[0].endswith("cube=2:b match=7 score=3-6 crawford=1")
    assert lines[-1] == "end w 4 score=7-6"  # a koks on a 2-cube is 6 points: 4 are needed
    replay = Game.from_record(text, Position)
    assert replay.record() == text and replay.cube == Cube(2, "black")
    with pytest.raises(NardyError, match=r"^match\.crawford:"):
        Game.from_record(text.replace("score=3-6", "score=3-5"), Position)  # no side 1 away: no Crawford game
