"""The air-raid rules, one test (or a few) per line of shared/rules/airraid.md and issue 2."""

from __future__ import annotations

import pytest

from referee.rules import airraid
from referee.rules.errors import GameOver, IllegalAction, MalformedAction, NotYourTurn, RulesetError, StaleVersion
from referee.rules.events import REFEREE, Role
from referee.rules.ruleset import airraid_ruleset_from_dict

from ..airraid_helpers import LAST_SHIP, SEA_7, Game, new_game, ruleset_data, ships_json, started_game, win

# --- Rounds, defenders and orders --------------------------------------------------------------


def plan(game: Game, orders: list[dict[str, object]], defenders: tuple[str, str] = ("Amy", "Bo")) -> None:
    """Set the defenders and write the given orders (team, pilot, kind, ship, corridor, ...)."""
    game.do("team:A", type="set_defender", team="A", pilot=defenders[0])
    game.do("team:B", type="set_defender", team="B", pilot=defenders[1])
    for order in orders:
        game.do(f"team:{order['team']}", type="add_order", **order)


def test_round_phases_are_numbered_planning_airborne_closed() -> None:
    game = started_game()
    assert game.state.round.number == 1 and game.state.round.phase == "planning"
    plan(game, [])
    game.ref(type="start_round")
    assert game.state.round.phase == "airborne"
    game.ref(type="end_round")
    assert [r.phase for r in game.state.rounds] == ["closed", "planning"]
    assert game.state.round.number == 2


def test_a_round_needs_one_defender_per_team() -> None:
    game = started_game()
    game.do("team:A", type="set_defender", team="A", pilot="Amy")
    with pytest.raises(IllegalAction, match="defender; missing for Sharks"):
        game.ref(type="start_round")
    game.do("team:A", type="set_defender", team="A", pilot="Abe")
    assert game.state.round.defenders["A"] == "Abe"


def test_the_defender_may_not_fly() -> None:
    game = started_game()
    plan(game, [])
    with pytest.raises(IllegalAction, match="Amy is this round's defender"):
        game.do("team:A", type="add_order", team="A", pilot="Amy", kind="fighter", ship="A", corridor="upper")


def test_a_pilot_flies_once_a_round() -> None:
    game = started_game()
    plan(game, [{"team": "A", "pilot": "Ann", "kind": "fighter", "ship": "A", "corridor": "upper"}])
    with pytest.raises(IllegalAction, match="Ann already flies this round"):
        game.do("team:A", type="add_order", team="A", pilot="Ann", kind="fighter", ship="B", corridor="lower")


def test_corridor_limit_is_enforced() -> None:
    game = started_game(players={"A": ["P1", "P2", "P3", "P4", "P5"], "B": ["Q1", "Q2", "Q3", "Q4", "Q5"]})
    plan(game, [], defenders=("P5", "Q5"))
    for pilot, ship in (("P1", "A"), ("P2", "B"), ("P3", "C")):
        game.do("team:A", type="add_order", team="A", pilot=pilot, kind="fighter", ship=ship, corridor="middle")
    with pytest.raises(IllegalAction, match="middle corridor already has 3 planes, its limit"):
        game.do("team:A", type="add_order", team="A", pilot="P4", kind="fighter", ship="D", corridor="middle")


def test_a_fighter_has_no_target_and_a_bomber_needs_one_on_the_sea() -> None:
    game = started_game()
    plan(game, [])
    with pytest.raises(IllegalAction, match="a fighter has no target square"):
        game.do(
            "team:A", type="add_order", team="A", pilot="Ann", kind="fighter", ship="A", corridor="upper", target="B2"
        )
    with pytest.raises(MalformedAction, match="H1 is off the 7×7 sea"):
        game.do(
            "team:A", type="add_order", team="A", pilot="Ann", kind="bomber", ship="A", corridor="upper", target="H1"
        )
    with pytest.raises(IllegalAction, match="a bomber needs a target square"):
        game.do("team:A", type="add_order", team="A", pilot="Ann", kind="bomber", ship="A", corridor="upper")


def test_take_off_needs_a_plane_of_that_kind_on_that_ship() -> None:
    game = started_game()
    plan(
        game,
        [
            {"team": "A", "pilot": "Ann", "kind": "bomber", "ship": "E", "corridor": "upper", "target": "A1"},
            {"team": "A", "pilot": "Ada", "kind": "bomber", "ship": "E", "corridor": "upper", "target": "A1"},
        ],
    )
    with pytest.raises(IllegalAction, match="ship-two has no bomber left"):
        game.do(
            "team:A", type="add_order", team="A", pilot="Abe", kind="bomber", ship="E", corridor="upper", target="A1"
        )
    with pytest.raises(IllegalAction, match="has no ship Z"):
        game.do(
            "team:A", type="add_order", team="A", pilot="Abe", kind="bomber", ship="Z", corridor="upper", target="A1"
        )


def test_orders_are_locked_when_the_round_starts() -> None:
    game = started_game()
    plan(game, [{"team": "A", "pilot": "Ann", "kind": "fighter", "ship": "A", "corridor": "upper"}])
    game.ref(type="start_round")
    with pytest.raises(IllegalAction, match="orders are locked"):
        game.do("team:A", type="add_order", team="A", pilot="Ada", kind="fighter", ship="A", corridor="lower")
    with pytest.raises(IllegalAction, match="orders are locked"):
        game.do("team:A", type="remove_order", order=game.order_id("A", "Ann"))


def test_a_team_cannot_write_the_other_teams_orders() -> None:
    game = started_game()
    plan(game, [])
    with pytest.raises(NotYourTurn):
        game.do("team:B", type="add_order", team="A", pilot="Ann", kind="fighter", ship="A", corridor="upper")
    with pytest.raises(NotYourTurn):
        game.do("team:A", type="start_round")


# --- Corridors: who meets whom ------------------------------------------------------------------


def corridor_game(a_kinds: list[str], b_kinds: list[str]) -> Game:
    """Start a round with the given planes, in take-off order, all in the upper corridor."""
    game = started_game()
    orders = []
    for team, kinds, pilots in (("A", a_kinds, ["Ann", "Ada", "Abe"]), ("B", b_kinds, ["Bob", "Bea", "Ben"])):
        for position, (kind, pilot) in enumerate(zip(kinds, pilots, strict=False), 1):  # a team may fly fewer than 3
            order = {
                "team": team,
                "pilot": pilot,
                "kind": kind,
                "ship": "ABC"[position - 1],
                "corridor": "upper",
                "position": position,
            }
            if kind == "bomber":
                order["target"] = "A1"
            orders.append(order)
    plan(game, orders)
    game.ref(type="start_round")
    return game


def statuses(game: Game) -> dict[str, str]:
    board = airraid.corridor_board(game.state.round, "upper", game.state.ruleset)
    label = {o.id: o.label(game.state.ruleset) for o in game.state.round.orders.values()}
    return {f"{label[m.a]}-{label[m.b]}": m.status for m in board.meetings}


def test_first_planes_meet_first_and_later_ones_wait() -> None:
    game = corridor_game(["fighter", "fighter"], ["fighter", "fighter"])
    assert statuses(game) == {"A1-B1": "due", "A1-B2": "waiting", "A2-B1": "waiting", "A2-B2": "waiting"}


def test_a_survivor_meets_the_next_enemy_plane_in_take_off_order() -> None:
    game = corridor_game(["fighter", "fighter"], ["fighter", "fighter"])
    a1, a2, b1, b2 = (game.order_id(t, p) for t, p in (("A", "Ann"), ("A", "Ada"), ("B", "Bob"), ("B", "Bea")))
    game.ref(type="report_dogfight", a=a1, b=b1, throws=[win("A")])
    # B1 is down: A1 meets B2; A2 never meets B1.
    assert statuses(game) == {"A1-B1": "done", "A1-B2": "due", "A2-B1": "never", "A2-B2": "waiting"}
    with pytest.raises(IllegalAction, match="A2 never meets B1: B1 was shot down by A1"):
        game.ref(type="report_dogfight", a=a2, b=b1, throws=[win("A")])
    with pytest.raises(IllegalAction, match="A2 cannot meet B2 yet"):
        game.ref(type="report_dogfight", a=a2, b=b2, throws=[win("A")])


def test_after_a_pass_two_dogfights_are_due_at_once() -> None:
    game = corridor_game(["bomber", "fighter"], ["bomber", "fighter"])
    a1, b1 = game.order_id("A", "Ann"), game.order_id("B", "Bob")
    game.ref(type="report_dogfight", a=a1, b=b1, choice="pass")
    assert statuses(game) == {"A1-B1": "done", "A1-B2": "due", "A2-B1": "due", "A2-B2": "waiting"}


def test_planes_in_different_corridors_never_meet() -> None:
    game = started_game()
    plan(
        game,
        [
            {"team": "A", "pilot": "Ann", "kind": "fighter", "ship": "A", "corridor": "upper"},
            {"team": "B", "pilot": "Bob", "kind": "fighter", "ship": "A", "corridor": "lower"},
        ],
    )
    game.ref(type="start_round")
    with pytest.raises(IllegalAction, match="they never meet"):
        game.ref(type="report_dogfight", a=game.order_id("A", "Ann"), b=game.order_id("B", "Bob"), throws=[win("A")])


def test_a_fighter_through_its_corridor_goes_home_and_a_bomber_goes_on_to_bomb() -> None:
    game = started_game()
    plan(
        game,
        [
            {"team": "A", "pilot": "Ann", "kind": "fighter", "ship": "A", "corridor": "upper"},
            {"team": "A", "pilot": "Ada", "kind": "bomber", "ship": "B", "corridor": "middle", "target": "C4"},
        ],
    )
    game.ref(type="start_round")
    ann = game.state.round.orders[game.order_id("A", "Ann")]
    ada = game.state.round.orders[game.order_id("A", "Ada")]
    assert (ann.status, ann.landed_on) == ("landed", "A")
    assert ada.status == "bombing"


# --- Dogfights, exactly per the rules ----------------------------------------------------------


def test_same_kind_dogfight_is_one_throw_and_the_loser_is_shot_down() -> None:
    game = corridor_game(["fighter"], ["fighter"])
    a1, b1 = game.order_id("A", "Ann"), game.order_id("B", "Bob")
    with pytest.raises(MalformedAction, match="one decisive throw, not 2"):
        game.ref(type="report_dogfight", a=a1, b=b1, throws=[win("A"), win("B")])
    game.ref(type="report_dogfight", a=a1, b=b1, throws=[{"hands": ["rock", "rock"]}, {"hands": ["paper", "rock"]}])
    duel = next(iter(game.state.round.duels.values()))
    assert [t.winner for t in duel.throws] == [None, "A"], "the tie is recorded as a throw again"
    assert game.state.round.orders[b1].status == "shot_down"
    trophy = game.state.trophies[0]
    assert (trophy.holder_team, trophy.holder, trophy.kind, trophy.plane_team) == ("A", "Ann", "fighter", "B")


def test_two_bombers_may_agree_to_pass() -> None:
    game = corridor_game(["bomber"], ["bomber"])
    game.ref(type="report_dogfight", a=game.order_id("A", "Ann"), b=game.order_id("B", "Bob"), choice="pass")
    assert {o.status for o in game.state.round.orders.values()} == {"bombing"}


def test_fighters_may_not_agree_to_pass() -> None:
    game = corridor_game(["fighter"], ["fighter"])
    with pytest.raises(MalformedAction, match="only two bombers may agree to pass"):
        game.ref(type="report_dogfight", a=game.order_id("A", "Ann"), b=game.order_id("B", "Bob"), choice="pass")


def test_fighter_winning_the_first_throw_shoots_the_bomber_down() -> None:
    game = corridor_game(["fighter"], ["bomber"])
    a1, b1 = game.order_id("A", "Ann"), game.order_id("B", "Bob")
    game.ref(type="report_dogfight", a=a1, b=b1, throws=[win("A")])
    assert game.state.round.orders[b1].status == "shot_down"


def test_fighter_losing_the_first_throw_chooses_pass_or_continue() -> None:
    game = corridor_game(["fighter"], ["bomber"])
    a1, b1 = game.order_id("A", "Ann"), game.order_id("B", "Bob")
    with pytest.raises(MalformedAction, match="chooses pass or continue"):
        game.ref(type="report_dogfight", a=a1, b=b1, throws=[win("B")])
    with pytest.raises(MalformedAction, match="enter the second throw"):
        game.ref(type="report_dogfight", a=a1, b=b1, throws=[win("B")], choice="continue")
    game.ref(type="report_dogfight", a=a1, b=b1, throws=[win("B")], choice="pass")
    assert game.state.round.orders[a1].status == "landed"  # both fly on: the fighter reaches the end and goes home
    assert game.state.round.orders[b1].status == "bombing"


def test_fighter_continuing_fights_a_second_throw() -> None:
    game = corridor_game(["fighter"], ["bomber"])
    a1, b1 = game.order_id("A", "Ann"), game.order_id("B", "Bob")
    game.ref(type="report_dogfight", a=a1, b=b1, throws=[win("B"), {"winner": "tie"}, win("B")], choice="continue")
    assert game.state.round.orders[a1].status == "shot_down"
    assert game.state.trophies[0].holder == "Bob"


def test_throws_given_as_hands() -> None:
    game = corridor_game(["bomber"], ["fighter"])
    a1, b1 = game.order_id("A", "Ann"), game.order_id("B", "Bob")
    # A's bomber plays paper against B's fighter's rock: the fighter lost and continues; scissors beat paper.
    game.ref(
        type="report_dogfight",
        a=a1,
        b=b1,
        throws=[{"hands": ["paper", "rock"]}, {"hands": ["paper", "scissors"]}],
        choice="continue",
    )
    assert game.state.round.orders[a1].status == "shot_down"
    with pytest.raises(MalformedAction, match="two of rock, paper, scissors"):
        game.ref(type="report_dogfight", a=a1, b=b1, throws=[{"hands": ["rock", "lizard"]}])


# --- Bombing -------------------------------------------------------------------------------


def bombing_game(target: str, pilots: tuple[str, ...] = ("Ann",)) -> Game:
    game = started_game()
    plan(
        game,
        [
            {
                "team": "A",
                "pilot": p,
                "kind": "bomber",
                "ship": "ABC"[i],
                "corridor": ("upper", "middle", "lower")[i],
                "target": target,
            }
            for i, p in enumerate(pilots)
        ],
    )
    game.ref(type="start_round")
    return game


def test_bombing_water_sends_the_bomber_home() -> None:
    game = bombing_game("C3")
    order = game.order_id("A", "Ann")
    game.do("team:B", type="announce_bombing", order=order)
    assert game.state.round.bombings[order].answer == "water"
    assert game.state.round.orders[order].status == "landed"
    assert game.state.teams["B"].shots == {"C3": "water"}


def test_bombing_a_ship_is_a_fight_the_bomber_winning_hits_the_square() -> None:
    game = bombing_game("C4")
    order = game.order_id("A", "Ann")
    game.do("team:B", type="announce_bombing", target="C4")
    assert game.state.round.bombings[order].answer == "fight"
    game.do("team:B", type="report_bombing", order=order, throws=[win("bomber")])
    assert game.state.teams["B"].shots == {"C4": "hit"}


def test_ship_winning_first_throw_lets_the_bomber_leave_or_continue() -> None:
    game = bombing_game("C4", ("Ann", "Ada"))
    ann, ada = game.order_id("A", "Ann"), game.order_id("A", "Ada")
    for order in (ann, ada):
        game.do("team:B", type="announce_bombing", order=order)
    with pytest.raises(MalformedAction, match="chooses leave or continue"):
        game.do("team:B", type="report_bombing", order=ann, throws=[win("ship")])
    game.do("team:B", type="report_bombing", order=ann, throws=[win("ship")], choice="leave")
    assert game.state.round.bombings[ann].result == "left" and game.state.round.orders[ann].status == "landed"
    game.do("team:B", type="report_bombing", order=ada, throws=[win("ship"), win("ship")], choice="continue")
    assert game.state.round.orders[ada].status == "shot_down"
    trophy = game.state.trophies[-1]
    assert (trophy.holder_team, trophy.holder) == ("B", "ship:cruiser")


def test_a_ship_that_shoots_a_bomber_down_is_named_in_each_page_language() -> None:
    # The state keeps the ship's English label; every view names it so that a Czech page says
    # "křižník", not "cruiser" (the trophy line, the pilot's banner, the log's note).
    game = bombing_game("C4")
    ann = game.order_id("A", "Ann")
    game.do("team:B", type="announce_bombing", order=ann)
    game.do("team:B", type="report_bombing", order=ann, throws=[win("ship"), win("ship")], choice="continue")
    referee = airraid.view_for(game.state, REFEREE, now=0)
    holder = referee["trophies"][-1]["holder"]
    assert (holder, holder.in_language("cs"), holder.in_language("sv")) == (
        "ship:cruiser",
        "ship:křižník",
        "ship:kryssare",
    )
    pilot = airraid.view_for(game.state, Role("pilot", ann), now=0)
    assert pilot["order"]["shot_down_by"].in_language("cs") == "ship:křižník"
    notes = [n for row in referee["log"] for n in row["notes"] if n["type"] == "shot_down"]
    assert [n["by"].in_language("cs") for n in notes] == ["ship:křižník"]
    team = airraid.view_for(game.state, Role("team", "B"), now=0)
    assert [t["holder"].in_language("cs") for t in team["trophies"]] == ["ship:křižník"]


def test_bombing_an_already_hit_square_has_no_effect() -> None:
    game = bombing_game("C4", ("Ann", "Ada"))
    ann, ada = game.order_id("A", "Ann"), game.order_id("A", "Ada")
    game.do("team:B", type="announce_bombing", order=ann)
    game.do("team:B", type="report_bombing", order=ann, throws=[win("bomber")])
    game.do("team:B", type="announce_bombing", order=ada)
    assert game.state.round.bombings[ada].answer == "already_hit"
    assert game.state.round.orders[ada].status == "landed"


def test_only_the_bombed_team_or_the_referee_resolves_a_bombing() -> None:
    game = bombing_game("C4")
    with pytest.raises(NotYourTurn):
        game.do("team:A", type="announce_bombing", order=game.order_id("A", "Ann"))


def test_a_ship_sinks_when_every_square_is_hit_and_its_planes_are_lost() -> None:
    game = started_game()
    # The ship-two E of team B lies on A6 and B6.
    plan(
        game,
        [
            {"team": "A", "pilot": "Ann", "kind": "bomber", "ship": "A", "corridor": "upper", "target": "A6"},
            {"team": "A", "pilot": "Ada", "kind": "bomber", "ship": "B", "corridor": "lower", "target": "B6"},
        ],
    )
    game.ref(type="start_round")
    for pilot in ("Ann", "Ada"):
        order = game.order_id("A", pilot)
        game.do("team:B", type="announce_bombing", order=order)
        game.do("team:B", type="report_bombing", order=order, throws=[win("bomber")])
    b = game.state.teams["B"]
    assert b.sunk == ["E"]
    assert b.lost == {"fighter": 2, "bomber": 2}
    assert b.shots == {"A6": "sunk", "B6": "sunk"}
    assert airraid.ledger_balances(game.state)
    # The bomber whose hit sank the ship hears it; the one before it only hit.
    seen = {p: airraid.view_for(game.state, Role("pilot", game.order_id("A", p)), 0)["bombing"] for p in ("Ann", "Ada")}
    assert seen["Ann"] == {"answer": "fight", "result": "hit", "sunk": False}
    assert seen["Ada"] == {"answer": "fight", "result": "hit", "sunk": True}


# --- The tricky cases of issue 2 -------------------------------------------------------------


def test_a_bomber_survives_two_dogfights_and_bombs() -> None:
    game = corridor_game(["bomber"], ["fighter", "bomber"])
    a1, b1, b2 = game.order_id("A", "Ann"), game.order_id("B", "Bob"), game.order_id("B", "Bea")
    # The bomber wins the first throw; the fighter fights on and loses the second.
    game.ref(type="report_dogfight", a=a1, b=b1, throws=[win("A"), win("A")], choice="continue")
    assert game.state.round.orders[b1].status == "shot_down"
    assert game.state.round.orders[a1].status == "airborne"
    game.ref(type="report_dogfight", a=a1, b=b2, choice="pass")
    assert game.state.round.orders[a1].status == "bombing"
    game.do("team:B", type="announce_bombing", order=a1)
    game.do("team:B", type="report_bombing", order=a1, throws=[win("bomber")])
    assert game.state.teams["B"].hits == {game.state.grid("B").parse_square("A1")}
    assert game.state.round.orders[a1].landed_on == "A"


def test_a_plane_whose_ship_sinks_while_airborne_lands_on_another_ship() -> None:
    game = started_game()
    # A's bombers sink B's ship-two (A6, B6) while B's fighter from that ship is in the air.
    plan(
        game,
        [
            {"team": "A", "pilot": "Ann", "kind": "bomber", "ship": "A", "corridor": "upper", "target": "A6"},
            {"team": "A", "pilot": "Ada", "kind": "bomber", "ship": "B", "corridor": "middle", "target": "B6"},
            {"team": "B", "pilot": "Bob", "kind": "fighter", "ship": "E", "corridor": "lower"},
            {"team": "B", "pilot": "Bea", "kind": "bomber", "ship": "E", "corridor": "lower", "target": "G7"},
        ],
    )
    game.ref(type="start_round")
    bob = game.state.round.orders[game.order_id("B", "Bob")]
    assert bob.status == "landed" and bob.landed_on == "E"  # nobody in the lower corridor: home at once
    bea = game.order_id("B", "Bea")
    for pilot in ("Ann", "Ada"):
        order = game.order_id("A", pilot)
        game.do("team:B", type="announce_bombing", order=order)
        game.do("team:B", type="report_bombing", order=order, throws=[win("bomber")])
    assert game.state.teams["B"].sunk == ["E"]
    assert game.state.teams["B"].lost == {"fighter": 2, "bomber": 1}  # Bob's fighter was back on board
    game.do("team:A", type="announce_bombing", order=bea)
    game.do("team:A", type="report_bombing", order=bea, throws=[win("ship")], choice="leave")
    assert game.state.round.orders[bea].landed_on == "A", "home ship sank: lands on the first ship afloat"
    assert airraid.ledger_balances(game.state)


def test_a_void_in_the_middle_of_a_round_recomputes_everything_after_it() -> None:
    game = corridor_game(["fighter", "fighter"], ["fighter"])
    a1, a2, b1 = game.order_id("A", "Ann"), game.order_id("A", "Ada"), game.order_id("B", "Bob")
    game.ref(type="report_dogfight", a=a1, b=b1, throws=[win("B")])
    wrong = game.state.version
    game.ref(type="report_dogfight", a=a2, b=b1, throws=[win("A")])
    assert game.state.round.orders[b1].status == "shot_down"
    game.ref(type="void", seq=wrong, reason="Ann says she won; Bob agrees")
    rnd = game.state.round
    assert game.state.voided == {wrong: "Ann says she won; Bob agrees"}
    assert rnd.orders[a1].status == "airborne" and rnd.orders[b1].status == "airborne"
    # A2 against B1 can no longer be judged: it comes after the voided dogfight, and is skipped.
    assert wrong + 1 in game.state.skipped and "cannot meet" in game.state.skipped[wrong + 1]
    assert len(game.state.trophies) == 0
    game.ref(type="report_dogfight", a=a1, b=b1, throws=[win("A")])
    assert rnd is not game.state.round and game.state.round.orders[b1].status == "shot_down"
    assert airraid.replay(game.events).__dict__.keys() == game.state.__dict__.keys()
    assert airraid.state_to_dict(airraid.replay(game.events)) == airraid.state_to_dict(game.state)


@pytest.mark.parametrize("decided_by", ["confirm", "agreeing report"])
def test_a_voided_dogfight_result_is_open_again_not_offered_for_confirmation(decided_by: str) -> None:
    game = corridor_game(["fighter"], ["fighter"])
    a1, b1 = game.order_id("A", "Ann"), game.order_id("B", "Bob")
    key = airraid.duel_key("upper", a1, b1)
    game.do(f"pilot:{b1}", type="report_dogfight", a=a1, b=b1, throws=[win("B")])
    if decided_by == "confirm":
        game.do(f"pilot:{a1}", type="confirm_dogfight", a=a1, b=b1)
    else:
        game.do(f"pilot:{a1}", type="report_dogfight", a=a1, b=b1, throws=[win("B")])
    assert game.state.round.orders[a1].status == "shot_down"
    game.ref(type="void", seq=game.state.version, reason="Ann won, in fact")
    rnd = game.state.round
    assert rnd.orders[a1].status == "airborne" and key not in rnd.duels
    assert key not in rnd.reports and key not in rnd.conflicts, "the voided result is not waiting for a Confirm"
    ann = Role("pilot", a1)
    assert not [m for m in airraid.legal_actions(game.state, ann) if m["type"] == "confirm_dogfight"]
    with pytest.raises(IllegalAction):
        game.do(f"pilot:{a1}", type="confirm_dogfight", a=a1, b=b1)
    # A fresh report by either pilot waits for the other's again.
    game.do(f"pilot:{a1}", type="report_dogfight", a=a1, b=b1, throws=[win("A")])
    assert key not in game.state.round.duels and len(game.state.round.reports[key]) == 1
    game.do(f"pilot:{b1}", type="confirm_dogfight", a=a1, b=b1)
    assert game.state.round.orders[b1].status == "shot_down"
    assert airraid.state_to_dict(airraid.replay(game.events)) == airraid.state_to_dict(game.state)


def test_a_voided_report_that_decided_nothing_leaves_the_other_pilots_report() -> None:
    game = corridor_game(["fighter"], ["fighter"])
    a1, b1 = game.order_id("A", "Ann"), game.order_id("B", "Bob")
    key = airraid.duel_key("upper", a1, b1)
    game.do(f"pilot:{a1}", type="report_dogfight", a=a1, b=b1, throws=[win("A")])
    game.do(f"pilot:{b1}", type="report_dogfight", a=a1, b=b1, throws=[win("B")])
    assert key in game.state.round.conflicts
    game.ref(type="void", seq=game.state.version, reason="Bob pressed the wrong button")
    rnd = game.state.round
    assert key not in rnd.conflicts and [r.by for r in rnd.reports[key]] == [f"pilot:{a1}"]


def test_the_round_view_says_when_the_referee_ended_a_round_with_time_left() -> None:
    game = corridor_game(["fighter"], ["fighter"])
    view = airraid.view_for(game.state, REFEREE, now=game.clock)
    assert view["round"]["ended_early"] is None
    game.clock += 221  # 1:19 left of five minutes
    game.ref(type="end_round")
    for role in (REFEREE, Role("public"), Role("team", "A")):
        assert airraid.view_for(game.state, role, now=game.clock)["round"]["ended_early"] == 1
    # Ended at 0:00 or after (the clock's, or the referee's once the due duels are done): "Time!".
    game = corridor_game(["fighter"], ["fighter"])
    game.clock += 300
    game.ref(type="end_round")
    assert airraid.view_for(game.state, REFEREE, now=game.clock)["round"]["ended_early"] is None


def test_voiding_a_void_restores_the_event() -> None:
    game = corridor_game(["fighter"], ["fighter"])
    game.ref(type="report_dogfight", a=game.order_id("A", "Ann"), b=game.order_id("B", "Bob"), throws=[win("A")])
    duel = game.state.version
    game.ref(type="void", seq=duel, reason="mistake")
    game.ref(type="void", seq=game.state.version, reason="it was right after all")
    assert game.state.voided == {game.state.version - 1: "it was right after all"}
    assert len(game.state.trophies) == 1


def test_both_teams_last_ships_sinking_in_one_round() -> None:
    game = started_game(LAST_SHIP, LAST_SHIP, fleet={"two": 1})
    plan(
        game,
        [
            {"team": "A", "pilot": "Ann", "kind": "bomber", "ship": "E", "corridor": "upper", "target": "A6"},
            {"team": "A", "pilot": "Ada", "kind": "bomber", "ship": "E", "corridor": "lower", "target": "B6"},
            {
                "team": "B",
                "pilot": "Bob",
                "kind": "bomber",
                "ship": "E",
                "corridor": "middle",
                "position": 1,
                "target": "A6",
            },
            {
                "team": "B",
                "pilot": "Bea",
                "kind": "bomber",
                "ship": "E",
                "corridor": "middle",
                "position": 2,
                "target": "B6",
            },
        ],
    )
    game.ref(type="start_round")
    for team, pilot in (("A", "Ann"), ("A", "Ada"), ("B", "Bob")):
        order = game.order_id(team, pilot)
        game.do(f"team:{airraid.other(team)}", type="announce_bombing", order=order)
        game.do(f"team:{airraid.other(team)}", type="report_bombing", order=order, throws=[win("bomber")])
    # Sharks' fleet is gone, but their bomber Bea is still at the Eagles' door: the game waits.
    assert game.state.teams["B"].afloat() == [] and game.state.phase == "playing"
    order = game.order_id("B", "Bea")
    game.do("team:A", type="announce_bombing", order=order)
    game.do("team:A", type="report_bombing", order=order, throws=[win("bomber")])
    out = game.state.outcome
    assert out is not None and out.reason == "fleets_sunk" and out.winner is None
    assert "both fleets sank" in out.detail and "a draw" in out.detail


def test_a_sunk_team_with_no_raid_in_the_air_loses_at_once() -> None:
    game = started_game(LAST_SHIP, LAST_SHIP, fleet={"two": 1})
    plan(
        game,
        [
            {"team": "A", "pilot": "Ann", "kind": "bomber", "ship": "E", "corridor": "upper", "target": "A6"},
            {"team": "A", "pilot": "Ada", "kind": "bomber", "ship": "E", "corridor": "lower", "target": "B6"},
        ],
    )
    game.ref(type="start_round")
    for pilot in ("Ann", "Ada"):
        order = game.order_id("A", pilot)
        game.do("team:B", type="announce_bombing", order=order)
        game.do("team:B", type="report_bombing", order=order, throws=[win("bomber")])
    assert (game.state.outcome.winner, game.state.outcome.reason) == ("A", "fleet_sunk")
    with pytest.raises(GameOver):
        game.ref(type="end_round")
    assert game.state.round.timer.deadline is None, "the clock stops when the game ends"


# --- End of game ---------------------------------------------------------------------------


def test_round_limit_with_tie_breaks() -> None:
    game = started_game(rounds__limit=1)
    plan(game, [{"team": "A", "pilot": "Ann", "kind": "bomber", "ship": "A", "corridor": "upper", "target": "A6"}])
    game.ref(type="start_round")
    order = game.order_id("A", "Ann")
    game.do("team:B", type="announce_bombing", order=order)
    game.do("team:B", type="report_bombing", order=order, throws=[win("bomber")])
    game.ref(type="end_round")
    out = game.state.outcome
    assert out.winner == "A" and out.reason == "round_limit" and "more squares still afloat (18 to 17)" in out.detail


def test_round_limit_draw_when_all_tie_breaks_tie() -> None:
    game = started_game(rounds__limit=1)
    plan(game, [])
    game.ref(type="start_round")
    game.ref(type="end_round")
    assert game.state.outcome.winner is None and "a draw" in game.state.outcome.detail


def test_surrender_and_forfeit() -> None:
    game = started_game()
    game.do("team:A", type="surrender", team="A")
    assert (game.state.outcome.winner, game.state.outcome.reason) == ("B", "surrender")
    game = started_game()
    with pytest.raises(NotYourTurn):
        game.do("team:A", type="forfeit", team="B", reason="left early")
    game.ref(type="forfeit", team="B", reason="left early")
    assert (game.state.outcome.winner, game.state.outcome.reason) == ("A", "forfeit")


def test_the_round_clock_ends_a_round_only_when_time_is_up() -> None:
    game = started_game()
    plan(game, [])
    game.ref(type="start_round")
    deadline = game.state.round.timer.deadline
    with pytest.raises(IllegalAction, match="time is not up"):
        airraid.apply(game.state, {"type": "end_round"}, at=deadline - 1, by="clock")
    state, _ = airraid.apply(game.state, {"type": "end_round"}, at=deadline, by="clock")
    assert state.rounds[0].phase == "closed"


MEETING = [
    {"team": "A", "pilot": "Ann", "kind": "fighter", "ship": "A", "corridor": "upper"},
    {"team": "B", "pilot": "Bob", "kind": "fighter", "ship": "A", "corridor": "upper"},
]


def test_at_zero_a_waiting_round_stays_in_the_air_while_a_dogfight_is_due() -> None:
    game = started_game()
    assert game.state.ruleset.at_zero == "wait"  # the shipped ruleset's choice
    plan(game, MEETING)
    game.ref(type="start_round")
    deadline = game.state.round.timer.deadline
    assert airraid.next_deadline(game.state) is None  # nothing for the clock while the duel is due
    with pytest.raises(IllegalAction, match="still open"):
        airraid.apply(game.state, {"type": "end_round"}, at=deadline + 30, by="clock")
    assert airraid.view_for(game.state, REFEREE, deadline + 30)["open"] == {
        "dogfights": 1,
        "bombings": 0,
        "disputes": 0,
    }
    game.ref(type="report_dogfight", a="1A1", b="1B1", throws=[{"winner": "A"}])
    # Settled after 0:00: the deadline, already past, is due again, and the clock ends the round.
    assert airraid.next_deadline(game.state) == deadline
    assert airraid.due_action(game.state, deadline + 31) == ("clock", {"type": "end_round"})


def test_at_zero_a_waiting_round_may_still_be_ended_by_the_referee() -> None:
    game = started_game()
    plan(game, MEETING)
    game.ref(type="start_round")
    game.ref(type="end_round")
    assert game.state.rounds[0].phase == "closed"


def test_at_zero_an_ending_ruleset_ends_the_round_whatever_is_open() -> None:
    game = started_game(rounds__at_zero="end")
    plan(game, MEETING)
    game.ref(type="start_round")
    deadline = game.state.round.timer.deadline
    assert airraid.next_deadline(game.state) == deadline
    state, _ = airraid.apply(game.state, {"type": "end_round"}, at=deadline, by="clock")
    assert state.rounds[0].phase == "closed"


def test_a_ruleset_without_at_zero_ends_the_round_as_before_and_a_wrong_value_is_named() -> None:
    data = ruleset_data()
    del data["rounds"]["at_zero"]
    assert airraid_ruleset_from_dict(data).at_zero == "end"
    data["rounds"]["at_zero"] = "later"
    with pytest.raises(RulesetError, match=r"rounds\.at_zero: must be one of wait, end"):
        airraid_ruleset_from_dict(data)


def test_timer_pause_resume_and_adjust() -> None:
    game = started_game()
    plan(game, [])
    game.ref(type="start_round")
    start = game.clock
    assert game.state.round.timer.left(start) == 300
    game.ref(type="pause_timer")
    assert game.state.round.timer.left(start + 100) == 299
    game.ref(type="adjust_timer", seconds=-60)
    game.ref(type="resume_timer")
    assert game.state.round.timer.deadline == game.clock + 239
    with pytest.raises(IllegalAction, match="end the round instead"):
        game.ref(type="adjust_timer", seconds=-1000)


def test_the_referee_sets_the_length_of_the_rounds_to_come() -> None:
    game = started_game()
    assert game.state.round.timer.seconds == 300
    game.ref(type="set_round_length", seconds=240)
    # The round being planned takes it: its clock starts at 4:00, on every screen.
    view = airraid.view_for(game.state, Role("public"), now=game.clock)
    assert (view["round"]["seconds"], view["round"]["next_seconds"]) == (240, 240)
    plan(game, [])
    game.ref(type="start_round")
    deadline = game.state.round.timer.deadline
    assert deadline == game.clock + 240
    # A round in the air keeps its clock; the next ones take the new length.
    game.ref(type="set_round_length", seconds=180)
    assert (game.state.round.timer.deadline, game.state.round.timer.seconds) == (deadline, 240)
    notes = [n for row in airraid.view_for(game.state, Role("public"), now=game.clock)["log"] for n in row["notes"]]
    assert [(n["seconds"], n["round"]) for n in notes if n["type"] == "round_length"] == [(240, 1), (180, 2)]
    game.ref(type="end_round")
    assert (game.state.round.number, game.state.round.timer.seconds) == (2, 180)
    with pytest.raises(NotYourTurn):
        game.do("team:A", type="set_round_length", seconds=60)
    with pytest.raises(MalformedAction, match="between 10 and 3600"):
        game.ref(type="set_round_length", seconds=5)
    assert game.state.round_seconds == 180
    assert {"type": "set_round_length"} in airraid.legal_actions(game.state, REFEREE)
    assert all(a["type"] != "set_round_length" for a in airraid.legal_actions(game.state, Role("team", "A")))


def test_the_round_length_set_before_the_start_is_the_first_rounds() -> None:
    game = Game(*new_game())
    game.ref(type="set_round_length", seconds=120)
    game.do("team:A", type="lock_sea", team="A", ships=ships_json())
    game.do("team:B", type="lock_sea", team="B", ships=ships_json())
    game.ref(type="start_game")
    assert game.state.round.timer.seconds == 120
    game.ref(type="end_game")
    with pytest.raises(GameOver):
        game.ref(type="set_round_length", seconds=60)


# --- Event sourcing -------------------------------------------------------------------------


def test_a_stale_version_is_refused() -> None:
    game = started_game()
    v = game.state.version
    game.do("team:A", type="set_defender", team="A", pilot="Amy")
    with pytest.raises(StaleVersion):
        airraid.apply(game.state, {"type": "set_defender", "team": "A", "pilot": "Abe"}, at=0, by="team:A", version=v)


def test_a_refused_action_changes_nothing() -> None:
    game = started_game()
    before = airraid.state_to_dict(game.state)
    with pytest.raises(IllegalAction):
        game.ref(type="start_round")
    assert airraid.state_to_dict(game.state) == before


def test_state_round_trips_through_its_dict() -> None:
    game = corridor_game(["fighter", "bomber"], ["bomber"])
    game.ref(type="report_dogfight", a=game.order_id("A", "Ann"), b=game.order_id("B", "Bob"), throws=[win("A")])
    data = airraid.state_to_dict(game.state)
    assert airraid.state_to_dict(airraid.state_from_dict(data)) == data


def test_malformed_actions_are_refused_with_a_reason() -> None:
    game = started_game()
    with pytest.raises(MalformedAction, match="unknown action type 'fly'"):
        game.ref(type="fly")
    with pytest.raises(MalformedAction, match="unknown field 'colour' in 'set_defender'"):  # the action named
        game.do("team:A", type="set_defender", team="A", pilot="Amy", colour="red")
    with pytest.raises(MalformedAction, match="team must be A or B"):
        game.ref(type="set_defender", team="C", pilot="Amy")
    with pytest.raises(MalformedAction, match="unknown role"):
        game.do("captain", type="start_round")


def test_locking_a_touching_sea_is_refused_with_ships_and_squares() -> None:
    game = Game(*new_game())
    touching = SEA_7.replace("AAAA.CC", "AAAACC.").replace(".A...CC", ".A..CC.")
    with pytest.raises(IllegalAction, match=r"aircraft carrier touches tug at D1/E1, D1/E2"):
        game.do("team:A", type="lock_sea", team="A", ships=_ships_unchecked(touching))


def _ships_unchecked(text: str) -> list[dict[str, object]]:
    from referee.rules.sea import ships_from_text

    state, _ = new_game()
    grid, ships, _problems = ships_from_text(text, state.ruleset.sea, state.teams["A"].fleet)
    return [s.to_dict(grid) for s in ships]


def test_start_game_needs_both_seas_locked() -> None:
    game = Game(*new_game())
    game.do("team:A", type="lock_sea", team="A", ships=ships_json())
    with pytest.raises(IllegalAction, match="waiting for Sharks"):
        game.ref(type="start_game")


# --- Views ---------------------------------------------------------------------------------


def test_views_strip_the_enemy_fleet_but_show_hit_squares() -> None:
    game = bombing_game("C4")
    order = game.order_id("A", "Ann")
    game.do("team:B", type="announce_bombing", order=order)
    game.do("team:B", type="report_bombing", order=order, throws=[win("bomber")])
    view = airraid.view_for(game.state, Role("team", "A"), now=game.clock)
    assert "ships" not in view["enemy_sea"]
    assert view["enemy_sea"]["hits"] == ["C4"]
    assert {s["id"] for s in view["sea"]["ships"]} == set("ABCDE")
    public = airraid.view_for(game.state, Role("public"), now=game.clock)
    assert "seas" not in public and "orders" not in public


def test_pilot_view_shows_the_next_opponent() -> None:
    game = corridor_game(["fighter"], ["bomber"])
    view = airraid.view_for(game.state, Role("pilot", game.order_id("A", "Ann")), now=game.clock)
    assert view["next"]["opponent"] == {"label": "B1", "kind": "bomber", "team": "B"}
    assert "target" not in view["next"]["opponent"]


def test_pilot_reports_wait_for_confirmation_and_contradictions_are_flagged() -> None:
    game = corridor_game(["fighter"], ["fighter"])
    a1, b1 = game.order_id("A", "Ann"), game.order_id("B", "Bob")
    game.do(f"pilot:{a1}", type="report_dogfight", a=a1, b=b1, throws=[win("A")])
    assert game.state.round.duels == {}
    game.do(f"pilot:{b1}", type="confirm_dogfight", a=a1, b=b1)
    assert game.state.round.orders[b1].status == "shot_down"

    game = corridor_game(["fighter"], ["fighter"])
    a1, b1 = game.order_id("A", "Ann"), game.order_id("B", "Bob")
    game.do(f"pilot:{a1}", type="report_dogfight", a=a1, b=b1, throws=[win("A")])
    game.do(f"pilot:{b1}", type="report_dogfight", a=a1, b=b1, throws=[win("B")])
    assert list(game.state.round.conflicts) == [airraid.duel_key("upper", a1, b1)]
    with pytest.raises(NotYourTurn):
        game.do("team:A", type="report_dogfight", a=a1, b=b1, throws=[win("A")])
    game.ref(type="report_dogfight", a=a1, b=b1, throws=[win("B")])
    assert game.state.round.conflicts == {} and game.state.round.orders[a1].status == "shot_down"
