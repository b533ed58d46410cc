"""The hand analysis of a finished game (games/engine/analysis.py): no database needed.

What is claimed here:
* every recorded action becomes one decision, in order, seen by the seat that acted, at the
  moment it acted (the view the estimator gets is that seat's own: no other hand, ever);
* the cost of a decision is the best option's value minus the chosen option's, never negative,
  and the summary lists the costliest decisions first;
* the analysis is deterministic given the seed, also with the real estimator;
* a record that does not replay is refused before any work.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from games.engine import (
    LANCES,
    Action,
    RecordError,
    analysis,
    apply,
    estimate,
    export_record,
    new_game,
    view,
)
from games.engine.bot import decide
from games.engine.cards import CODES
from games.engine.record import replay
from games.engine.view import said_entries


def bot_game(seed: int, mode: str = "4-reyes") -> dict[str, Any]:
    """A whole game of bots, as its record."""
    rng = random.Random(seed)
    game = new_game(mode, seed % 4, rng)
    while game.phase != "terminada":
        if game.phase == "recuento":
            game = apply(game, Action(0, "repartir"), rng)
            continue
        seat = game.to_act()[0]
        game = apply(game, decide(view(game, seat), rng), rng)
    return export_record(game)


def short_record(seed: int = 3) -> dict[str, Any]:
    """The first hand of a bot game (enough decisions for every phase, quickly analysed)."""
    record = bot_game(seed)
    return {**record, "hands": record["hands"][:1]}


class FakeAdviser:
    """Values each legal option by its position (the last is best), and remembers what it saw."""

    def __init__(self) -> None:
        self.seen: list[dict[str, Any]] = []

    def __call__(self, seen: dict[str, Any], rng: random.Random, **_: Any) -> dict[str, Any]:
        self.seen.append(seen)
        you = seen["you"]
        options = []
        for i, legal in enumerate(you["legal"]):
            action: dict[str, Any] = {"act": legal["act"]}
            if legal["act"] == "envido":
                action["to"] = legal["min"]
            if legal["act"] == "descarte":
                action["cards"] = you["cards"][:1]
            options.append({"action": action, "value": i / 10})
        return {
            "chances": {lance: 0.5 for lance in estimate.LANCES},
            "action": options[-1]["action"],
            "options": options,
        }


def test_every_recorded_action_is_one_decision_seen_by_its_own_seat_then() -> None:
    record = short_record()
    fake = FakeAdviser()
    done: list[tuple[int, int]] = []
    result = analysis.analyse(
        record, seed=1, advise=fake, progress=lambda d, t: done.append((d, t))
    )
    actions = record["hands"][0]["actions"]
    assert len(result["decisions"]) == len(actions) == analysis.decision_count(record)
    assert done[0] == (0, len(actions)) and done[-1] == (len(actions), len(actions))
    for k, (decision, action, seen) in enumerate(
        zip(result["decisions"], actions, fake.seen, strict=True)
    ):
        assert (decision["hand"], decision["step"], decision["seat"]) == (1, k, action["seat"])
        assert seen["you"]["seat"] == action["seat"]
        # The seat may act: the recorded act is one of its legal acts at that moment.
        assert action["act"] in {legal["act"] for legal in seen["you"]["legal"]}
        # Hidden information: its own four cards and no other card code anywhere in the view.
        own = set(seen["you"]["cards"])
        assert seen["hands"] is None
        text = repr({key: value for key, value in seen.items() if key != "you"})
        assert not [c for c in CODES if c not in own and f"'{c}'" in text]


def test_the_cost_is_the_best_value_minus_the_chosen_one_and_never_negative() -> None:
    result = analysis.analyse(short_record(), seed=1, advise=FakeAdviser())
    for d in result["decisions"]:
        assert d["best_value"] == max(o["value"] for o in d["options"])
        if d["value"] is not None:
            assert d["cost"] == pytest.approx(d["best_value"] - d["value"], abs=1e-4)
            assert d["cost"] >= 0
        if d["same"]:
            assert d["cost"] == 0


def test_the_summary_lists_the_costliest_decisions_first_and_adds_up_each_seat() -> None:
    result = analysis.analyse(short_record(), seed=1, advise=FakeAdviser())
    decisions, summary = result["decisions"], result["summary"]
    costs = [decisions[i]["cost"] for i in summary["worst"]]
    assert costs == sorted(costs, reverse=True)
    assert all(c > analysis.MIN_COST for c in costs)
    assert len(summary["worst"]) <= analysis.WORST_SHOWN
    for seat in summary["seats"]:
        mine = [d for d in decisions if d["seat"] == seat["seat"]]
        assert seat["decisions"] == len(mine)
        assert seat["cost"] == pytest.approx(sum(d["cost"] or 0 for d in mine), abs=1e-3)


def test_an_envido_the_estimator_did_not_value_takes_the_nearest_valued_amount() -> None:
    options = [
        {"action": {"act": "paso"}, "value": 0.1},
        {"action": {"act": "envido", "to": 2}, "value": 0.3},
        {"action": {"act": "envido", "to": 10}, "value": 0.6},
    ]
    assert analysis.chosen_value({"seat": 1, "act": "envido", "to": 8}, options) == 0.6
    assert analysis.chosen_value({"seat": 1, "act": "envido", "to": 3}, options) == 0.3
    assert analysis.chosen_value({"seat": 1, "act": "paso"}, options) == 0.1
    assert analysis.chosen_value({"seat": 1, "act": "ordago"}, options) is None
    cards = [{"action": {"act": "descarte", "cards": ["1o", "5c"]}, "value": 0.2}]
    assert analysis.chosen_value({"act": "descarte", "cards": ["5c", "1o"]}, cards) == 0.2


def test_a_raise_carries_the_tantos_it_put_over_the_bet_as_the_table_said_it() -> None:
    # Players say a raise as what it puts over the bet («dos más»): the decision, its best
    # option and every valued envido over a bet carry it as the table's said entries do.
    record = bot_game(1)
    result = analysis.analyse(record, advise=FakeAdviser())
    raises = [d for d in result["decisions"] if d["action"].get("more")]
    assert raises
    before = [0]
    for hand in record["hands"]:
        before.append(before[-1] + len(hand["actions"]))
    for d in raises:
        h = d["hand"] - 1
        heard = said_entries(replay(record, upto=before[h + 1]))  # the hand's end: all heard
        assert d["action"]["more"] == heard[d["step"]]["more"]
        assert d["action"]["more"] < d["action"]["to"]
        raised = [o for o in d["options"] if o["action"]["act"] == "envido"]
        assert raised and all(o["action"]["more"] >= 1 for o in raised)
    openings = [
        d for d in result["decisions"] if d["action"]["act"] == "envido" and d not in raises
    ]
    assert openings and all("more" not in d["action"] for d in openings)


def test_a_record_that_does_not_replay_is_refused_before_any_work() -> None:
    record = short_record()
    broken = {**record, "hands": [{**record["hands"][0], "actions": [{"seat": 9, "act": "mus"}]}]}
    fake = FakeAdviser()
    with pytest.raises(RecordError):
        analysis.analyse(broken, advise=fake)
    assert fake.seen == []


def test_the_real_estimator_gives_chances_per_lance_and_the_same_analysis_for_the_same_seed() -> (
    None
):
    record = short_record(5)
    first = analysis.analyse(record, seed=7, samples=40)
    again = analysis.analyse(record, seed=7, samples=40)
    assert first == again
    for d in first["decisions"]:
        assert set(d["chances"]) <= set(LANCES)
        assert all(0 <= p <= 1 for p in d["chances"].values())
        assert d["best"]["act"] in {o["action"]["act"] for o in d["options"]} | {d["best"]["act"]}
