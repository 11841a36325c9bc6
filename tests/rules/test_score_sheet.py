"""The score sheet (`airraid.score_sheet`): numbers checked by hand on a scripted game, voids, sums."""

from __future__ import annotations

from dataclasses import astuple

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.rules import airraid

from ..airraid_helpers import Game, started_game, win
from ..speed import examples
from .test_airraid_properties import play

# Both seas are SEA_7: the ship-two E lies on A6 and B6, the cruiser B on A4–D4, nothing on C3.
ORDERS = [
    {"team": "A", "pilot": "Ann", "kind": "fighter", "ship": "A", "corridor": "upper"},
    {"team": "A", "pilot": "Abe", "kind": "bomber", "ship": "C", "corridor": "middle", "target": "B6"},
    {"team": "A", "pilot": "Ada", "kind": "bomber", "ship": "B", "corridor": "lower", "target": "A6"},
    {"team": "B", "pilot": "Bob", "kind": "fighter", "ship": "A", "corridor": "upper"},
    {"team": "B", "pilot": "Ben", "kind": "bomber", "ship": "C", "corridor": "middle", "target": "A4"},
    {"team": "B", "pilot": "Bea", "kind": "bomber", "ship": "B", "corridor": "lower", "target": "C3"},
]


def one_round(*, end: bool = True) -> tuple[Game, dict[str, int]]:
    """Play the round worked out by hand below; return the game and the seq of each step."""
    game = started_game(rounds__limit=1)
    game.do("team:A", type="set_defender", team="A", pilot="Amy")
    game.do("team:B", type="set_defender", team="B", pilot="Bo")
    for order in ORDERS:
        game.do(f"team:{order['team']}", type="add_order", **order)
    game.ref(type="start_round")
    o = {
        p: game.order_id(t, p)
        for t, p in (("A", "Ann"), ("A", "Abe"), ("A", "Ada"), ("B", "Bob"), ("B", "Ben"), ("B", "Bea"))
    }
    seqs: dict[str, int] = {}
    # Upper: Ann's fighter shoots Bob's down. Middle: the two bombers pass. Lower: Ada shoots Bea down.
    game.ref(type="report_dogfight", a=o["Ann"], b=o["Bob"], throws=[win("A")])
    game.ref(type="report_dogfight", a=o["Abe"], b=o["Ben"], choice="pass")
    game.ref(type="report_dogfight", a=o["Ada"], b=o["Bea"], throws=[win("A")])
    # Ada hits A6, Abe hits B6 and sinks the ship-two (its 2 fighters and 2 bombers go down with it).
    game.do("team:B", type="announce_bombing", order=o["Ada"])
    game.do("team:B", type="report_bombing", order=o["Ada"], throws=[win("bomber")])
    game.do("team:B", type="announce_bombing", order=o["Abe"])
    game.do("team:B", type="report_bombing", order=o["Abe"], throws=[win("bomber")])
    seqs["sinking"] = game.state.version
    # Ben at the Eagles' cruiser (A4): the ship wins twice and keeps the bomber as a trophy.
    game.do("team:A", type="announce_bombing", order=o["Ben"])
    game.do("team:A", type="report_bombing", order=o["Ben"], throws=[win("ship"), win("ship")], choice="continue")
    if end:
        game.ref(type="end_round")
    return game, seqs


def pilot_rows(sheet: airraid.Sheet) -> dict[str, tuple[object, ...]]:
    return {p.pilot: astuple(p)[2:] for p in sheet.pilots}


def test_a_scripted_round_counted_by_hand() -> None:
    game, _ = one_round()
    sheet = airraid.score_sheet(game.state)

    # The round limit of 1: A has 18 squares afloat, B 16 (its ship-two sank): A wins on the first tie-break.
    r = sheet.result
    assert (r.over, r.winner, r.reason, r.decided_by, r.rounds) == (True, "A", "round_limit", "floating_squares", 1)
    assert [astuple(b) for b in r.tie_breaks] == [("floating_squares", 18, 16), ("trophies", 3, 0)]

    a, b = sheet.teams["A"], sheet.teams["B"]
    assert (a.sorties, a.dogfights_won, a.dogfights_lost, a.bombs, a.squares_hit, a.ships_sunk) == (3, 2, 0, 2, 2, 1)
    assert (a.ships_lost, a.planes_lost, a.trophies, a.ship_trophies) == (0, 0, 3, 1)
    assert (b.sorties, b.dogfights_won, b.dogfights_lost, b.bombs, b.squares_hit, b.ships_sunk) == (3, 0, 2, 1, 0, 0)
    # Bob, Bea and Ben shot down; the ship-two's four planes lost with it.
    assert (b.ships_lost, b.shot_down, b.lost_with_ships, b.planes_lost, b.trophies) == (1, 3, 4, 7, 0)

    #                    sorties won lost bombs hits sinkings trophies shot_down
    assert pilot_rows(sheet) == {
        "Ann": (1, 1, 0, 0, 0, 0, 1, 0),
        "Ada": (1, 1, 0, 1, 1, 0, 1, 0),
        "Abe": (1, 0, 0, 1, 1, 1, 0, 0),
        "Amy": (0, 0, 0, 0, 0, 0, 0, 0),
        "Bob": (1, 0, 1, 0, 0, 0, 0, 1),
        "Bea": (1, 0, 1, 0, 0, 0, 0, 1),
        "Ben": (1, 0, 0, 1, 0, 0, 0, 1),
        "Bo": (0, 0, 0, 0, 0, 0, 0, 0),
    }
    assert [p.team for p in sheet.pilots] == ["A"] * 4 + ["B"] * 4

    (line,) = sheet.rounds
    assert (line.number, line.dogfights) == (1, 3)
    assert line.sorties == {"A": 3, "B": 3} and line.bombings == {"A": 2, "B": 1}
    assert line.hits == {"A": 2, "B": 0} and line.sinkings == {"A": 1, "B": 0}
    assert line.planes_lost == {"A": 0, "B": 7}
    assert line.started_at is not None and line.ended_at is not None and line.ended_at > line.started_at

    assert sheet.bombs == {"A": {"A4": 1}, "B": {"A6": 1, "B6": 1}}
    assert sheet.voided == 0


def test_the_timeline_tells_the_round_in_order() -> None:
    game, _ = one_round()
    timeline = airraid.score_sheet(game.state).timeline
    assert [(m.what, m.result) for m in timeline] == [
        ("round_started", ""),
        ("dogfight", "shot_down"),
        ("dogfight", "passed"),
        ("dogfight", "shot_down"),
        ("bombing", "fight"),
        ("bombing_result", "hit"),
        ("bombing", "fight"),
        ("bombing_result", "hit"),
        ("sunk", "two"),
        ("bombing", "fight"),
        ("bombing_result", "shot_down"),
        ("round_ended", ""),
        ("game_over", "round_limit"),
    ]
    assert all(m.round == 1 for m in timeline)
    start = timeline[0]
    assert start.into == 0.0 and all(m.into is not None and m.into >= 0 for m in timeline)
    assert [m.into for m in timeline] == sorted(m.into for m in timeline if m.into is not None)
    duel = timeline[1]
    assert duel.corridor == "upper" and [f.pilot for f in duel.flyers] == ["Ann", "Bob"]
    assert duel.shot_down == duel.flyers[1].order
    sunk = timeline[8]
    assert (sunk.team, sunk.ship, sunk.planes, sunk.corridor) == ("B", "E", 4, "middle")
    assert [f.pilot for f in sunk.flyers] == ["Abe"]
    ben = timeline[10]
    assert (ben.team, ben.square, ben.flyers[0].pilot, ben.shot_down) == ("A", "A4", "Ben", ben.flyers[0].order)
    assert timeline[-1].team == "A"


def test_a_voided_event_counts_for_nothing() -> None:
    game, seqs = one_round(end=False)
    game.ref(type="void", seq=seqs["sinking"], reason="Abe lost that throw")
    game.ref(type="end_round")
    sheet = airraid.score_sheet(game.state)
    a, b = sheet.teams["A"], sheet.teams["B"]
    # Abe's bombing was still announced (a bomb fell); its hit and the sinking are gone.
    assert (a.bombs, a.squares_hit, a.ships_sunk) == (2, 1, 0)
    assert (b.ships_lost, b.planes_lost) == (0, 3)
    abe = next(p for p in sheet.pilots if p.pilot == "Abe")
    assert (abe.bombs, abe.hits, abe.sinkings) == (1, 0, 0)
    assert "sunk" not in [m.what for m in sheet.timeline]
    assert sheet.voided == 1 and sheet.rounds[0].sinkings == {"A": 0, "B": 0}
    # Both seas now have 17 and 18 squares afloat: still A, by one square fewer.
    assert astuple(sheet.result.tie_breaks[0]) == ("floating_squares", 18, 17)


def test_a_game_still_playing_has_no_result_yet() -> None:
    game, _ = one_round(end=False)
    sheet = airraid.score_sheet(game.state)
    assert (sheet.result.over, sheet.result.winner, sheet.result.reason, sheet.result.decided_by) == (
        False,
        None,
        "",
        "",
    )
    assert sheet.rounds[0].ended_at is None and sheet.timeline[-1].what == "bombing_result"


def test_surrender_is_how_it_was_decided() -> None:
    game = started_game()
    game.ref(type="surrender", team="B")
    r = airraid.score_sheet(game.state).result
    assert (r.winner, r.reason, r.decided_by, r.rounds) == ("A", "surrender", "surrender", 0)


def check_sums(sheet: airraid.Sheet, state: airraid.State) -> None:
    for team, score in sheet.teams.items():
        mine = [p for p in sheet.pilots if p.team == team]
        assert sum(p.sorties for p in mine) == score.sorties
        assert sum(p.dogfights_won for p in mine) == score.dogfights_won
        assert sum(p.dogfights_lost for p in mine) == score.dogfights_lost
        assert sum(p.bombs for p in mine) == score.bombs
        assert sum(p.hits for p in mine) == score.squares_hit
        assert sum(p.sinkings for p in mine) == score.ships_sunk
        assert sum(p.trophies for p in mine) + score.ship_trophies == score.trophies
        assert sum(p.shot_down for p in mine) == score.shot_down
        # The rounds add up to the game, and the team's losses to the ledger's.
        assert sum(r.sorties[team] for r in sheet.rounds) == score.sorties
        assert sum(r.hits[team] for r in sheet.rounds) == score.squares_hit
        assert sum(r.planes_lost[team] for r in sheet.rounds) == score.planes_lost
        ledger = airraid.ledger(state, team)
        assert score.planes_lost == sum(row["lost"] + row["trophies"] for row in ledger.values())
        assert score.trophies == sum(1 for t in state.trophies if t.holder_team == team)
        assert score.squares_hit == len(state.teams[airraid.other(team)].hits)
        assert score.ships_sunk == len(state.teams[airraid.other(team)].sunk)
        assert sum(sheet.bombs[airraid.other(team)].values()) == score.bombs
    assert sum(r.dogfights for r in sheet.rounds) == sum(1 for m in sheet.timeline if m.what == "dogfight")


@given(seed=st.integers(0, 2**32 - 1), limit=st.sampled_from([0, 2]))
@settings(max_examples=examples(24), deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_pilots_add_up_to_their_team_in_random_games(seed: int, limit: int) -> None:
    game = play(seed, steps=250, rounds_limit=limit, check_views=False, void_rate=0.05)
    check_sums(airraid.score_sheet(game.state), game.state)
    # A sheet is the fold's: the same log replayed gives the same sheet.
    assert airraid.score_sheet(airraid.replay(game.events)) == airraid.score_sheet(game.state)


def test_the_sums_hold_after_a_void_too() -> None:
    game, seqs = one_round(end=False)
    game.ref(type="void", seq=seqs["sinking"], reason="wrong")
    check_sums(airraid.score_sheet(game.state), game.state)


def test_two_bombers_that_hit_one_square_count_one_square() -> None:
    game = started_game()
    game.do("team:A", type="set_defender", team="A", pilot="Amy")
    game.do("team:B", type="set_defender", team="B", pilot="Bo")
    for pilot, ship, corridor in (("Abe", "C", "middle"), ("Ada", "B", "lower")):
        game.do(
            "team:A", type="add_order", team="A", pilot=pilot, kind="bomber", ship=ship, corridor=corridor, target="A4"
        )
    game.ref(type="start_round")  # B sends nobody: both bombers reach B's base
    abe, ada = game.order_id("A", "Abe"), game.order_id("A", "Ada")
    # Both announced before either fought: the square is not hit yet, so both answers are "fight".
    game.do("team:B", type="announce_bombing", order=abe)
    game.do("team:B", type="announce_bombing", order=ada)
    game.do("team:B", type="report_bombing", order=abe, throws=[win("bomber")])
    game.do("team:B", type="report_bombing", order=ada, throws=[win("bomber")])
    sheet = airraid.score_sheet(game.state)
    assert len(game.state.teams["B"].hits) == 1
    assert sheet.teams["A"].squares_hit == 1
    assert {p.pilot: p.hits for p in sheet.pilots if p.team == "A" and p.hits} == {"Abe": 1}
    check_sums(sheet, game.state)
