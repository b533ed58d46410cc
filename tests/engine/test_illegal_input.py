"""Illegal actions and malformed records are refused, and nothing changes."""

from __future__ import annotations

import copy
import json

import pytest

from games.engine import (
    Action,
    IllegalAction,
    RecordError,
    apply,
    cancel,
    export_record,
    replay,
    replay_result,
    view,
)

from .support import deal, pass_all, play, record, stacked_deck

BASE = {0: "12o 12c 7o 1o", 1: "11o 11c 6o 4e", 2: "5o 4o 6c 1c", 3: "10o 7c 6e 5e"}


def refused(g, action: Action) -> str:
    """Apply an action that must be refused; check the game is unchanged; return the code."""
    before = (export_record(g), [view(g, s) for s in (None, 0, 1, 2, 3)])
    with pytest.raises(IllegalAction) as e:
        apply(g, action)
    assert str(e.value) == e.value.message and e.value.message
    assert (export_record(g), [view(g, s) for s in (None, 0, 1, 2, 3)]) == before
    return e.value.code


# actions -------------------------------------------------------------------------------------


def test_it_refuses_an_action_out_of_turn():
    g = deal(BASE)
    assert refused(g, Action(1, "mus")) == "not_your_turn"
    g = play(g, "0 corto", "0 paso")
    assert refused(g, Action(2, "paso")) == "not_your_turn"
    g = play(g, "1 envido 2")
    assert refused(g, Action(1, "quiero")) == "not_your_turn"  # the bettor's team waits


def test_it_refuses_an_unknown_act():
    g = deal(BASE)
    assert refused(g, Action(0, "fold")) == "unknown_act"
    with pytest.raises(IllegalAction) as e:
        Action.from_dict({"seat": 0, "act": "fold"})
    assert e.value.code == "unknown_act"


def test_it_refuses_an_act_that_is_not_allowed_now():
    g = deal(BASE)
    assert refused(g, Action(0, "paso")) == "illegal_act"
    assert refused(g, Action(0, "repartir")) == "illegal_act"
    g = play(g, "0 corto")
    assert refused(g, Action(0, "quiero")) == "illegal_act"
    assert refused(g, Action(0, "mus")) == "illegal_act"


@pytest.mark.parametrize("amount", [1, 0, -5, 41, 100])
def test_it_refuses_a_bet_outside_2_to_40(amount):
    g = play(deal(BASE), "0 corto")
    assert refused(g, Action(0, "envido", to=amount)) == "bad_amount"


@pytest.mark.parametrize("amount", [4, 5])
def test_it_refuses_a_raise_that_is_not_above_the_bet(amount):
    g = play(deal(BASE), "0 corto", "0 envido 5")
    assert refused(g, Action(1, "envido", to=amount)) == "bad_amount"
    assert refused(g, Action(1, "envido", to=41)) == "bad_amount"


def test_it_refuses_a_raise_on_an_ordago():
    g = play(deal(BASE), "0 corto", "0 envido 2", "1 ordago", "3 quiero")
    assert refused(g, Action(0, "envido", to=10)) == "no_raise_on_ordago"
    assert refused(g, Action(2, "ordago")) == "no_raise_on_ordago"


@pytest.mark.parametrize(
    "cards",
    [
        (),  # none
        ("12o", "12c", "7o", "1o", "5o"),  # five
        ("5o",),  # not held (seat 2 has it)
        ("12o", "12o"),  # the same card twice
        ("13o",),  # not a card
    ],
)
def test_it_refuses_a_bad_discard(cards):
    g = play(deal(BASE), "0 mus", "1 mus", "2 mus", "3 mus")
    assert refused(g, Action(0, "descarte", cards=cards)) == "bad_cards"


def test_it_refuses_a_second_discard_in_the_same_round():
    g = play(deal(BASE), "0 mus", "1 mus", "2 mus", "3 mus", "0 descarte 12o")
    assert refused(g, Action(0, "descarte", cards=("12c",))) == "not_your_turn"


def test_it_refuses_any_action_after_the_game_ended():
    g = play(deal(BASE), "0 corto", "0 ordago", "1 quiero", "3 quiero")
    assert g.phase == "terminada"
    for action in (Action(0, "paso"), Action(1, "repartir"), Action(2, "mus")):
        assert refused(g, action) == "game_over"
    c = cancel(play(deal(BASE), "0 corto"))
    assert refused(c, Action(0, "paso")) == "game_over"


@pytest.mark.parametrize(
    "d",
    [
        "paso",
        ["seat", 0],
        {"seat": 0},
        {"act": "paso"},
        {"seat": 4, "act": "paso"},
        {"seat": True, "act": "paso"},
        {"seat": "0", "act": "paso"},
        {"seat": 0, "act": 3},
        {"seat": 0, "act": "paso", "v": 3},
        {"seat": 0, "act": "paso", "to": 2},
        {"seat": 0, "act": "envido"},
        {"seat": 0, "act": "envido", "to": "5"},
        {"seat": 0, "act": "envido", "to": 5.0},
        {"seat": 0, "act": "envido", "to": True},
        {"seat": 0, "act": "descarte"},
        {"seat": 0, "act": "descarte", "cards": "12o"},
        {"seat": 0, "act": "descarte", "cards": [12]},
        {"seat": 0, "act": "mus", "cards": ["12o"]},
    ],
)
def test_action_from_dict_refuses_a_malformed_shape(d):
    with pytest.raises(IllegalAction) as e:
        Action.from_dict(d)
    assert e.value.code == "malformed"


def test_action_from_dict_takes_the_seat_from_the_session_and_checks_it():
    assert Action.from_dict({"act": "envido", "to": 5}, seat=2) == Action(2, "envido", to=5)
    with pytest.raises(IllegalAction) as e:
        Action.from_dict({"seat": 1, "act": "paso"}, seat=2)
    assert e.value.code == "malformed"
    a = Action.from_dict({"seat": 3, "act": "descarte", "cards": ["1o", "2o"]})
    assert a.cards == ("1o", "2o")
    assert Action.from_dict(a.to_dict()) == a


def test_apply_refuses_a_hand_made_action_of_the_wrong_shape():
    g = play(deal(BASE), "0 corto")
    assert refused(g, Action(0, "envido")) == "malformed"
    assert refused(g, Action(0, "paso", to=3)) == "malformed"
    assert refused(g, Action(7, "paso")) == "malformed"


# records -------------------------------------------------------------------------------------


def good_record() -> dict:
    deck = stacked_deck(BASE)
    g = pass_all(play(deal(BASE), "0 corto"))
    assert g.phase == "recuento"
    rec = export_record(g)
    assert rec["hands"][0]["deck"] == deck
    return rec


def record_error(rec) -> RecordError:
    with pytest.raises(RecordError) as e:
        replay(rec)
    assert isinstance(e.value, ValueError)
    return e.value


def test_a_good_record_replays():
    assert replay(good_record()).phase == "recuento"


@pytest.mark.parametrize(
    ("change", "fragment"),
    [
        (lambda r: r.__setitem__("format", "mus-record/2"), "format"),
        (lambda r: r.pop("format"), "format"),
        (lambda r: r.__setitem__("mode", "6-reyes"), "mode"),
        (lambda r: r.__setitem__("target", 30), "target"),
        (lambda r: r.__setitem__("first_mano", 4), "first_mano"),
        (lambda r: r.__setitem__("hands", []), "hands"),
        (lambda r: r.__setitem__("hands", {}), "hands"),
        (lambda r: r.__setitem__("extra", 1), "extra"),
    ],
)
def test_it_refuses_a_record_with_a_bad_header(change, fragment):
    rec = good_record()
    change(rec)
    e = record_error(rec)
    assert (e.hand_index, e.action_index) == (0, 0)
    assert fragment in str(e)


def test_the_optional_fields_of_game_record_md_replay_the_same():
    """`"by": "clock"` on an action the clock played and the top-level `ended` of a cancelled
    game are kept for readers; they change nothing in how the record replays."""
    plain = good_record()
    marked = copy.deepcopy(plain)
    marked["hands"][0]["actions"][0]["by"] = "clock"
    marked["ended"] = {"reason": "abandono", "abandoned_seat": 2}
    assert replay_result(marked) == replay_result(plain)


@pytest.mark.parametrize("by", ["bot", "", None, 1])
def test_it_refuses_an_action_played_by_anything_but_the_clock(by):
    rec = good_record()
    rec["hands"][0]["actions"][0]["by"] = by
    e = record_error(rec)
    assert (e.hand_index, e.action_index) == (1, 1)
    assert "by" in str(e)


def test_it_refuses_a_record_that_is_not_an_object():
    for rec in ([], "x", None, 3):
        record_error(rec)


@pytest.mark.parametrize(
    "deck_change",
    [
        lambda d: d.pop(),  # 39 cards
        lambda d: d.__setitem__(5, d[6]),  # a duplicate
        lambda d: d.__setitem__(0, "13o"),  # not a card
        lambda d: d.__setitem__(0, 12),  # not a code
        lambda d: d.append("1o"),  # 41 cards
    ],
)
def test_it_refuses_a_bad_deck(deck_change):
    rec = good_record()
    deck_change(rec["hands"][0]["deck"])
    e = record_error(rec)
    assert str(e).startswith("hand 1: ")


@pytest.mark.parametrize(
    "hand",
    [
        [],
        {"deck": None, "actions": []},
        {"actions": []},
        {"deck": stacked_deck(BASE)},
        {"deck": stacked_deck(BASE), "actions": {}},
        {"deck": stacked_deck(BASE), "actions": [], "notes": "x"},
    ],
)
def test_it_refuses_a_malformed_hand(hand):
    rec = record("4-reyes", 0, hand)
    assert record_error(rec).hand_index == 1


@pytest.mark.parametrize(
    ("action", "fragment"),
    [
        ({"seat": 0}, "seat and act"),
        ({"act": "corto"}, "seat and act"),
        ({"seat": 9, "act": "corto"}, "seat"),
        ({"seat": 0, "act": "cut"}, "unknown act"),
        ({"seat": 0, "act": ["corto"]}, "unknown act"),
        ({"seat": 0, "act": "corto", "to": 2}, "unexpected field"),
        ("corto", "object"),
    ],
)
def test_it_refuses_a_malformed_action_in_a_record(action, fragment):
    rec = record("4-reyes", 0, {"deck": stacked_deck(BASE), "actions": [action]})
    e = record_error(rec)
    assert (e.hand_index, e.action_index) == (1, 1)
    assert str(e).startswith("hand 1 action 1: ")
    assert fragment in str(e)


def test_an_illegal_action_in_a_record_names_the_hand_action_and_reason():
    rec = good_record()
    rec["hands"][0]["actions"][3] = {"seat": 3, "act": "paso"}  # seat 2's turn in grande
    e = record_error(rec)
    assert str(e) == "hand 1 action 4: seat 3 cannot act now"
    assert (e.hand_index, e.action_index) == (1, 4)


def test_a_record_error_names_the_right_action_when_actions_repeat():
    # The same dict object several times (possible when a record is built in Python): the
    # index still counts actions, not distinct objects.
    mus = {"seat": 0, "act": "mus"}
    rec = record("4-reyes", 0, {"deck": stacked_deck(BASE), "actions": [mus, mus, mus]})
    e = record_error(rec)
    assert str(e) == "hand 1 action 2: seat 0 cannot act now"
    bad = {"seat": 0, "act": "mus", "x": 1}
    rec = record("4-reyes", 0, {"deck": stacked_deck(BASE), "actions": [mus, bad, bad]})
    assert record_error(rec).action_index == 2


def test_an_illegal_action_before_a_malformed_one_is_the_error_reported():
    rec = good_record()
    rec["hands"][0]["actions"][2] = {"seat": 3, "act": "paso"}  # not seat 3's turn
    rec["hands"][0]["actions"][3] = {"seat": 2, "act": "paso", "to": 2}  # malformed
    e = record_error(rec)
    assert (e.action_index, e.reason) == (3, "seat 3 cannot act now")


def test_it_refuses_a_bet_out_of_range_in_a_record():
    rec = good_record()
    rec["hands"][0]["actions"][1] = {"seat": 0, "act": "envido", "to": 41}
    assert record_error(rec).action_index == 2


def test_it_refuses_an_unfinished_hand_followed_by_another():
    rec = good_record()
    unfinished = copy.deepcopy(rec["hands"][0])
    del unfinished["actions"][-1]
    rec["hands"] = [unfinished, copy.deepcopy(rec["hands"][0])]
    e = record_error(rec)
    assert str(e) == "hand 2: the previous hand is not finished"


def test_it_refuses_actions_after_the_end_of_the_game():
    g = play(deal(BASE), "0 corto", "0 ordago", "1 quiero", "3 quiero")
    rec = export_record(g)
    more = copy.deepcopy(rec)
    more["hands"][0]["actions"].append({"seat": 1, "act": "paso"})
    e = record_error(more)
    assert e.action_index == len(more["hands"][0]["actions"])
    another = copy.deepcopy(rec)
    another["hands"].append({"deck": stacked_deck(BASE, 1), "actions": []})
    assert str(record_error(another)) == "hand 2: the game was already over"


def _reshuffle_record() -> dict:
    """A hand whose second discard round runs the pile out (needs one reshuffle)."""
    g = deal(BASE)
    for _ in range(2):
        g = play(g, "0 mus", "1 mus", "2 mus", "3 mus")
        for s in range(4):
            g = apply(g, Action(s, "descarte", cards=tuple(g.hand_codes(s))))
    rec = export_record(g)
    assert len(rec["hands"][0]["reshuffles"]) == 1
    return rec


def test_it_refuses_a_reshuffle_that_is_not_the_earlier_discards():
    rec = _reshuffle_record()
    pile = rec["hands"][0]["reshuffles"][0]
    outsider = next(c for c in rec["hands"][0]["deck"] if c not in pile)
    bad = copy.deepcopy(rec)
    bad["hands"][0]["reshuffles"][0][0] = outsider  # a card that was never discarded
    assert "reshuffle" in str(record_error(bad))
    short = copy.deepcopy(rec)
    short["hands"][0]["reshuffles"][0] = pile[:-1]
    assert "reshuffle" in str(record_error(short))


def test_it_refuses_a_missing_extra_or_malformed_reshuffle():
    rec = _reshuffle_record()
    missing = copy.deepcopy(rec)
    del missing["hands"][0]["reshuffles"]
    assert "reshuffle" in str(record_error(missing))
    extra = copy.deepcopy(rec)
    extra["hands"][0]["reshuffles"].append(list(rec["hands"][0]["reshuffles"][0]))
    assert "reshuffle" in str(record_error(extra))
    for value in ([], "x", [["99z"]], [[]]):
        bad = copy.deepcopy(rec)
        bad["hands"][0]["reshuffles"] = value
        assert record_error(bad).hand_index == 1


def test_a_record_with_a_reshuffle_survives_a_json_round_trip():
    rec = json.loads(json.dumps(_reshuffle_record()))
    assert export_record(replay(rec)) == rec
