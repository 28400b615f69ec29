"""The standings' tie-breaks on small events worked out by hand (domain/tournament/standings.py
defines each one): byes as a virtual opponent, shared wins, shared places, and names that never
decide."""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from domain.tournament.decisions import Correct, Enter, Withdraw
from domain.tournament.plan import PlayedRound
from domain.tournament.rounds import Round, Table
from domain.tournament.standings import (
    DEFAULT_TIEBREAKS,
    TIEBREAKS,
    GameResult,
    Standing,
    places,
    standings,
    tiebreak_values,
)

ALL = TIEBREAKS


def event_a() -> list[PlayedRound]:
    """Five players, two rounds, a bye each round, a shared win.

    R1: 0 beats 1; 2 and 3 share the win; 4 has the bye.
    R2: 2 beats 0; 4 beats 1; 3 has the bye.
    Points: 0: 1, 1: 0, 2: 3/2, 3: 3/2 (1/2 + the bye), 4: 2 (the bye + a win)."""
    return [
        PlayedRound(Round((Table((0, 1)), Table((2, 3))), (4,)), ((0,), (0, 1))),
        PlayedRound(Round((Table((0, 2)), Table((1, 4))), (3,)), ((1,), (1,))),
    ]


def table_of(
    played: list[PlayedRound], tiebreaks: tuple[str, ...] = DEFAULT_TIEBREAKS, **kwargs: object
) -> list[Standing]:
    names = [f"p{n}" for n in range(1 + max(p for r in played for p in _players(r)))]
    results = [r for n, p in enumerate(played, start=1) for r in p.results(n)]
    byes = [b for p in played for b in p.round.byes]
    return standings(names, results, byes, tiebreaks=tiebreaks, **kwargs)  # type: ignore[arg-type]


def _players(played: PlayedRound) -> list[int]:
    return [p for t in played.round.tables for p in t.players] + list(played.round.byes)


def test_every_tiebreak_of_an_event_with_byes_and_a_shared_win() -> None:
    rows = {s.player: s for s in table_of(event_a(), ALL)}
    values = {p: tiebreak_values(s, ALL) for p, s in rows.items()}
    assert {p: s.points for p, s in rows.items()} == {0: 1, 1: 0, 2: F(3, 2), 3: F(3, 2), 4: 2}
    # Contributions: 0: [0 (player 1), 3/2 (player 2)]; 1: [1, 2]; 2: [3/2, 1];
    # 3: [3/2 (player 2), 3/2 (the bye: 3's own points)]; 4: [2 (the bye: its own), 0].
    assert {p: v["buchholz"] for p, v in values.items()} == {
        0: F(3, 2),
        1: 3,
        2: F(5, 2),
        3: 3,
        4: 2,
    }
    assert {p: v["buchholz_cut1"] for p, v in values.items()} == {
        0: F(3, 2),
        1: 2,
        2: F(3, 2),
        3: F(3, 2),
        4: 2,
    }
    # Two contributions each: the median Buchholz cuts only the lowest (= cut 1).
    assert all(v["median_buchholz"] == v["buchholz_cut1"] for v in values.values())
    # 2: 1/2 × 3/2 (3) + 1 × 1 (0); 3: 1/2 × 3/2 (2) + the bye, 1 × 3/2; 4: the bye, 1 × 2.
    assert {p: v["sonneborn_berger"] for p, v in values.items()} == {
        0: 0,
        1: 0,
        2: F(7, 4),
        3: F(9, 4),
        4: 2,
    }
    # A shared win is a win; a bye is not.
    assert {p: v["wins"] for p, v in values.items()} == {0: 1, 1: 0, 2: 2, 3: 1, 4: 1}
    assert {p: s.buchholz for p, s in rows.items()} == {p: v["buchholz"] for p, v in values.items()}


def test_the_default_order_places_and_tiebreak_values() -> None:
    table = table_of(event_a())
    # 2 and 3 are equal on points and Buchholz cut 1: Sonneborn-Berger puts 3 ahead.
    assert [(s.player, s.place) for s in table] == [
        (4, "1"),
        (3, "2"),
        (2, "3"),
        (0, "4"),
        (1, "5"),
    ]
    assert table[1].tiebreaks == (F(3, 2), F(9, 4), F(0), F(1))  # cut 1, SB, direct encounter, wins
    assert table[2].tiebreaks == (F(3, 2), F(7, 4), F(0), F(2))


def event_h() -> list[PlayedRound]:
    """Six players, three rounds, no bye: three contributions each (for the median).

    R1: 0>1, 2>3, 4>5.  R2: 0>2, 4>1, 3>5.  R3: 0 and 4 share, 1>3, nobody wins 2-5.
    Points: 0: 5/2, 4: 5/2, 1: 1, 2: 1, 3: 1, 5: 0."""
    return [
        PlayedRound(Round((Table((0, 1)), Table((2, 3)), Table((4, 5)))), ((0,), (0,), (0,))),
        PlayedRound(Round((Table((0, 2)), Table((1, 4)), Table((3, 5)))), ((0,), (1,), (0,))),
        PlayedRound(Round((Table((0, 4)), Table((1, 3)), Table((2, 5)))), ((0, 1), (0,), ())),
    ]


def test_median_buchholz_cuts_the_highest_and_the_lowest() -> None:
    tiebreaks = ("buchholz", "buchholz_cut1", "median_buchholz")
    rows = {s.player: s.tiebreaks for s in table_of(event_h(), tiebreaks)}
    assert rows == {
        0: (F(9, 2), F(7, 2), 1),  # 1, 1, 5/2
        1: (6, 5, F(5, 2)),  # 5/2, 5/2, 1
        2: (F(7, 2), F(7, 2), 1),  # 1, 5/2, 0
        3: (2, 2, 1),  # 1, 0, 1
        4: (F(7, 2), F(7, 2), 1),  # 0, 1, 5/2
        5: (F(9, 2), F(7, 2), 1),  # 5/2, 1, 1
    }
    by_median = table_of(event_h(), ("median_buchholz",))
    assert [(s.player, s.place) for s in by_median] == [
        (0, "1-2"),
        (4, "1-2"),
        (1, "3"),
        (2, "4-5"),
        (3, "4-5"),
        (5, "6"),
    ]
    default = table_of(event_h())
    # 0 and 4: cut 1 equal (7/2), SB 13/4 against 9/4. 1, 2, 3: cut 1 5, 7/2, 2.
    assert [s.player for s in default] == [0, 4, 1, 2, 3, 5]
    assert default[0].tiebreaks[1] == F(13, 4) and default[1].tiebreaks[1] == F(9, 4)
    assert [s.tiebreaks[3] for s in default] == [3, 3, 1, 1, 1, 0]  # wins: a nobody-won is none


def test_equal_players_share_a_place_listed_by_number_and_names_never_decide() -> None:
    # 0 beats 1, 2 beats 3: 0 and 2 are equal on everything, as are 1 and 3.
    results = [GameResult((0, 1), (0,)), GameResult((2, 3), (0,))]
    for names in (["Zed", "Amy", "Bob", "Al"], ["a", "b", "c", "d"], ["d", "c", "b", "a"]):
        table = standings(names, results, [])
        assert [(s.player, s.place) for s in table] == [
            (0, "1-2"),
            (2, "1-2"),
            (1, "3-4"),
            (3, "3-4"),
        ]
        assert [s.name for s in table] == [names[0], names[2], names[1], names[3]]


def test_direct_encounter_ranks_tied_players_who_all_met() -> None:
    # R1: 1 beats 0, 2 beats 3. R2: 0 beats 3, 2 beats 1. 0 and 1 have 1 point; 1 beat 0.
    results = [
        GameResult((0, 1), (1,)),
        GameResult((2, 3), (0,)),
        GameResult((0, 3), (0,)),
        GameResult((1, 2), (1,)),
    ]
    names = ["a", "b", "c", "d"]
    direct = standings(names, results, [], tiebreaks=("direct_encounter",))
    assert [(s.player, s.place, s.tiebreaks) for s in direct] == [
        (2, "1", (F(0),)),  # alone on 2 points: 0
        (1, "2", (F(1),)),
        (0, "3", (F(0),)),
        (3, "4", (F(0),)),
    ]
    plain = standings(names, results, [], tiebreaks=())
    assert [(s.player, s.place) for s in plain] == [(2, "1"), (0, "2-3"), (1, "2-3"), (3, "4")]


def test_direct_encounter_is_equal_for_all_when_two_tied_players_never_met() -> None:
    # Everyone on 1 point; 0-3 and 1-2 never met.
    results = [
        GameResult((0, 1), (1,)),
        GameResult((2, 3), (0,)),
        GameResult((0, 2), (0,)),
        GameResult((1, 3), (1,)),
    ]
    table = standings(list("abcd"), results, [], tiebreaks=("direct_encounter",))
    assert [(s.player, s.place, s.tiebreaks) for s in table] == [
        (p, "1-4", (F(0),)) for p in range(4)
    ]


def test_tables_of_three_count_every_other_player_as_an_opponent() -> None:
    # 0 wins at (0, 1, 2); 3 and 4 share the win at (3, 4, 5).
    results = [GameResult((0, 1, 2), (0,)), GameResult((3, 4, 5), (0, 1))]
    rows = {s.player: s for s in standings(list("abcdef"), results, [], tiebreaks=ALL)}
    values = {p: tiebreak_values(s, ALL) for p, s in rows.items()}
    assert {p: s.points for p, s in rows.items()} == {
        0: 1,
        1: 0,
        2: 0,
        3: F(1, 2),
        4: F(1, 2),
        5: 0,
    }
    assert {p: v["buchholz"] for p, v in values.items()} == {
        0: 0,
        1: 1,
        2: 1,
        3: F(1, 2),
        4: F(1, 2),
        5: 1,
    }
    # The share scored times the sum of the others' points: 3 gets 1/2 × (1/2 + 0).
    assert {p: v["sonneborn_berger"] for p, v in values.items()} == {
        0: 0,
        1: 0,
        2: 0,
        3: F(1, 4),
        4: F(1, 4),
        5: 0,
    }
    assert values[3]["wins"] == values[4]["wins"] == values[0]["wins"] == 1


def test_the_default_call_keeps_working_and_names_an_unknown_tiebreak() -> None:
    table = standings(["a", "b"], [GameResult((0, 1), (1,))], [])
    assert [(s.player, s.points, s.place) for s in table] == [(1, F(1), "1"), (0, F(0), "2")]
    with pytest.raises(ValueError, match="nonsense"):
        standings(["a", "b"], [], [], tiebreaks=("nonsense",))
    with pytest.raises(ValueError, match="once"):
        standings(["a", "b"], [], [], tiebreaks=("wins", "wins"))


def test_places_share_runs_of_equal_keys() -> None:
    assert places([(F(2),), (F(1),), (F(1),), (F(0),)]) == ["1", "2-3", "2-3", "4"]
    assert places([]) == []


def test_a_correction_replaces_a_games_winners_and_the_latest_counts() -> None:
    played = event_a()
    # Round 2 table 1 (0 against 2): 0 wins after all.
    game = "00000000000000a1"
    fixed = Correct(2, 1, (0,), game_id=game, rounds_paired=2, seq=1, reason="scoring slip")
    table = {s.player: s.points for s in table_of(played, decisions=[fixed])}
    assert table == {0: 2, 1: 0, 2: F(1, 2), 3: F(3, 2), 4: 2}
    again = Correct(2, 1, (0, 1), game_id=game, rounds_paired=2, seq=2, reason="a draw, in truth")
    table = {s.player: s.points for s in table_of(played, decisions=[again, fixed])}
    assert table[0] == F(3, 2) and table[2] == 1  # seq 2 counts, whatever the list order
    # A result without its round and table is never corrected.
    blind = Correct(1, 1, (1,), game_id="00000000000000b2", rounds_paired=1)
    bare = standings(["a", "b"], [GameResult((0, 1), (0,))], [], decisions=[blind])
    assert bare[0].player == 0


def test_entered_and_withdrawn_players_are_in_the_standings() -> None:
    played = event_a()
    decisions = [
        Withdraw(1, rounds_paired=1, seq=1, reason="ill"),
        Enter(5, "Late", None, rounds_paired=1, seq=2, reason="arrived"),
    ]
    table = table_of(played, decisions=decisions)
    assert {s.player: s.name for s in table}[5] == "Late"
    # 0 points each; 1's Buchholz cut 1 (2) puts them ahead of 5 (no games: 0).
    assert [(s.player, s.place) for s in table][-2:] == [(1, "5"), (5, "6")]
