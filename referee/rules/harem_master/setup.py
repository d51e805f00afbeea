"""Rule 101: setting up a game, from the opening characters to the reveal (101.1-101.8).

101.7 and 101.8 (the first turns' stack sizes) are applied at step 303, in
``turn``.
"""

from __future__ import annotations

from events.harem_master.game import (
    CastlesShuffled,
    HandDrawn,
    HandKept,
    MulliganTaken,
    OpeningChosen,
    OpeningsRevealed,
    TurnOrderCardsTurned,
    TurnOrderChosen,
)
from events.kernel import Event, GameEnded
from projections.harem_master.state import GameState, other
from referee.rules.harem_master.actions import Action, Seated
from referee.rules.harem_master.common import HAND_SIZE, TURN_ORDER_LIMIT, name_of, physical, refuse, rng_for
from referee.rules.harem_master.hidden import reveal_decision
from referee.rules.harem_master.registry import (
    ACTIONS,
    CARD,
    ORDER,
    Context,
    Decision,
    Events,
    decision_kind,
    only,
    step,
)

# --- 101.1 the opening characters ----------------------------------------------------


def _castle_cards(state: GameState, p: str, ctx: Context) -> list[Action]:
    return [Action(p, "choose_opening", card=c) for c in state.zones[p].castle]


@ACTIONS.move(
    "choose_opening",
    "101.1",
    args=(CARD,),
    card_from="castle",
    candidates=_castle_cards,
    help="choose the cost-1 character to start with, from your own deck",
)
def _decide_opening(state: GameState, a: Seated, ctx: Context) -> Events:
    card = a.card
    if card is None:
        raise refuse("101.1", f"Name the opening character: a cost-1 character from {a.player}'s own deck.")
    if card not in state.zones[a.player].castle:
        raise refuse(
            "101.1", f"The opening character must come from {a.player}'s own deck, not {name_of(state, card)}."
        )
    cd = state.cards[card]
    if (cd.type != "character" or cd.cost != 1) and "101.1" not in ctx.waive:
        raise physical(
            "101.1",
            f"The opening character must be a cost-1 character; {cd.name} is a cost-{cd.cost} {cd.type}.",
        )
    return lambda: [OpeningChosen.trusted(player=a.player, card=card, step=_both(state, "101.1", "101.2"))]


decision_kind("opening", "101.1", "choose a cost-1 character to start with (101.1)", ("choose_opening",))


def _both(state: GameState, here: str, then: str) -> str:
    """A step both players do, one after the other: it moves on after the second."""
    return then if state.progress else here


@step("101.1", decision=lambda s: Decision("A" if "A" not in s.progress else "B", "opening"))
def _openings(state: GameState) -> None:
    return None


# --- 101.2 shuffling ----------------------------------------------------------------


@step("101.2")
def _shuffle(state: GameState) -> Event:
    if state.deal == "table":
        # The players shuffle: nobody knows the order, so the castles become
        # piles of unknown cards (hidden), kept in deck order.
        return CastlesShuffled.trusted(orders={p: list(state.zones[p].castle) for p in ("A", "B")}, step="101.3")
    rng = rng_for(state, "101.2")
    orders = {}
    for p in ("A", "B"):
        castle = list(state.zones[p].castle)
        rng.shuffle(castle)
        orders[p] = castle
    return CastlesShuffled.trusted(orders=orders, step="101.3")


# --- 101.3 turn order ----------------------------------------------------------------


@step("101.3", decision=reveal_decision)
def _turn_order_flip(state: GameState) -> Event:
    if state.attempts >= TURN_ORDER_LIMIT:
        return GameEnded.trusted(
            rule="101.3",
            ruling="A29",
            draw=True,
            reason=f"The turn-order flips tied {TURN_ORDER_LIMIT} times.",
            step="over",
        )
    cards = {p: state.zones[p].castle[0] for p in ("A", "B")}
    numbers = {p: state.cards[c].random for p, c in cards.items()}
    return TurnOrderCardsTurned.trusted(
        attempt=state.attempts + 1,
        cards=cards,
        numbers=numbers,
        step="101.3" if numbers["A"] == numbers["B"] else "101.3-choose",
    )


def _orders(state: GameState, p: str, ctx: Context) -> list[Action]:
    return [Action(p, "choose_order", order="first"), Action(p, "choose_order", order="second")]


@ACTIONS.move("choose_order", "101.3", args=(ORDER,), candidates=_orders, help="go first or second")
def _decide_order(state: GameState, a: Seated, ctx: Context) -> list[Event]:
    if a.order not in ("first", "second"):
        raise refuse("101.3", "Choose order: first or second.")
    first = a.player if a.order == "first" else other(a.player)
    return [TurnOrderChosen.trusted(player=a.player, order=a.order, first=first, step="101.4")]


decision_kind("order", "101.3", "choose to go first or second (101.3)", ("choose_order",))


@step("101.3-choose", decision=lambda s: Decision(s.chooser, "order") if s.chooser else None)
def _order_chosen(state: GameState) -> None:
    return None


# --- 101.4 hands, 101.5 mulligans, 101.6 reveal ----------------------------------------


@step("101.4")
def _hands(state: GameState) -> Event:
    # state.first: chosen at 101.3.
    p: str = state.first if state.first not in state.progress else other(state.first)  # type: ignore[assignment]
    return HandDrawn.trusted(
        player=p, cards=list(state.zones[p].castle[:HAND_SIZE]), step=_both(state, "101.4", "101.5")
    )


@ACTIONS.move(
    "mulligan",
    "101.5",
    cards_from="hand",
    candidates=only("mulligan"),
    help="put the whole hand on the bottom of the castle and take 7 (once a game)",
)
def _decide_mulligan(state: GameState, a: Seated, ctx: Context) -> list[Event]:
    p = a.player
    after = _both(state, "101.5", "101.6")
    if p in state.mulligans:
        raise refuse("101.5", f"{p} has already taken the one mulligan allowed in a game.")
    z = state.zones[p]
    returned = list(a.cards) if a.cards else list(z.hand)
    if sorted(returned) != sorted(z.hand):
        raise refuse("101.5", "A mulligan puts the whole hand on the bottom of the castle.")
    castle_after = [c for c in z.castle] + returned
    return [MulliganTaken.trusted(player=p, returned=returned, drawn=castle_after[:HAND_SIZE], step=after)]


@ACTIONS.move("keep", "101.5", candidates=only("keep"), help="keep the hand")
def _keep(state: GameState, a: Action, ctx: Context) -> list[Event]:
    return [HandKept.trusted(player=a.player, step=_both(state, "101.5", "101.6"))]


decision_kind("mulligan", "101.5", "decide whether to mulligan (101.5)", ("mulligan", "keep"))


def _who_mulligans(state: GameState) -> Decision:
    """Ruling A16: the first player decides first."""
    first: str = state.first  # type: ignore[assignment]  # chosen at 101.3, before 101.5
    return Decision(first if first not in state.progress else other(first), "mulligan")


@step("101.5", decision=_who_mulligans)
def _mulligans(state: GameState) -> None:
    return None


@step("101.6")
def _reveal(state: GameState) -> Event:
    return OpeningsRevealed.trusted(cards=[ch.card for ch in state.field if ch.face_down], step="300")
