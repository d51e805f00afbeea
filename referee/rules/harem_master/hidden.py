"""Hidden cards of a table-dealt match (100.2, 215): reveals are inputs.

In a match dealt at a table (``deal: table``, a paper game being logged) the
referee never decides a hidden card. After 101.2 every castle card is an
*unknown* card of its owner's registered deck (``state.unknown``): the id it
has stands for one copy of the deck list not yet accounted for, and the name
that id carries means nothing until the table reveals the card. Wherever the
rules turn a hidden card face up, the referee waits for the table to say
what it was (a ``reveal`` decision):

- 101.3: the top card of each castle, turned for the turn order;
- 306.5i: the top card of a combatant's castle, turned for its random number;
- 306.5m: each card milled from the attacked castle;

and a card used or discarded from the hand (306.1-306.3, 309) is named by
the action itself. The deck list bounds every reveal (100.2): an unknown card
can only be revealed as a name its owner's deck still has unaccounted for.
A reveal swaps two unknown cards (``CardRevealed``): the card at the place
turned face up takes the identity of an unaccounted copy of that name.
"""

from __future__ import annotations

from collections import Counter
from typing import NamedTuple

from events.harem_master.cards import CardDef
from events.harem_master.game import CardRevealed
from events.kernel import Event
from projections.harem_master.state import HIDDEN_PILES, GameState, evolve, other
from referee.rules.harem_master.actions import Action
from referee.rules.harem_master.common import physical, refuse
from referee.rules.harem_master.registry import ACTIONS, NAME, NAMES, Context, Decision, decision_kind

_PLACES = {
    "castle": "in the castle",
    "hand": "in the hand",
    "action_stack": "in the action-cost stack",
    "discard": "in the discard",
    "harem": "in a harem",
    "execution": "in an execution pile",
    "side": "at the side",
}


class Pending(NamedTuple):
    """Cards the rules turn face up now and the table must name, top first."""

    player: str  # whose castle
    rule: str
    why: str
    # how many may be named at once (306.5m: the cards about to be milled); the field hides tuple.count
    count: int  # type: ignore[assignment]


def unaccounted(state: GameState, player: str) -> Counter[str]:
    """The names ``player``'s deck list still has unaccounted for: one per unknown card."""
    cards = state.cards
    return Counter(cards[c].name for c in unknown_of(state, player))


def unknown_of(state: GameState, player: str) -> list[str]:
    """``player``'s unknown cards in a fixed order (castle, hand, stack), then
    any that card text just put face up and the table has yet to name (215):
    when those were the last unknown cards of the deck, their names are the
    only ones left to say."""
    z = state.zones[player]
    unknown = state.unknown
    hidden = [c for pile in HIDDEN_PILES for c in getattr(z, pile) if c in unknown]
    if len(hidden) == sum(1 for c in unknown if c[0] == player):
        return hidden
    held = set(hidden)
    return hidden + sorted((c for c in unknown if c[0] == player and c not in held), key=_deck_order)


def _deck_order(card: str) -> int:
    return int(card.partition(":")[2] or 0)


def _leading_unknown(state: GameState, player: str, limit: int) -> int:
    """How many of the top ``limit`` castle cards, from the top, the table must name."""
    n = 0
    for c in state.zones[player].castle[:limit]:
        if not _to_name(state, c):
            break
        n += 1
    return n


def _to_name(state: GameState, card: str) -> bool:
    """Must the table say what ``card`` is as the rules turn it face up? An
    unknown card, or one seen before a rewind took its reveal back (ruling
    A36): known, but turned again at the table, which must say it again."""
    return card in state.unknown or card in state.seen


PUBLIC_PILES = ("discard", "harem", "execution", "side")  # face up (215)


def face_up(state: GameState) -> str | None:
    """An unknown card that card text put face up (onto the field, into a
    discard, a harem, an execution pile or the side): the table must say what
    it is before anything else happens."""
    unknown = state.unknown
    if not unknown:
        return None
    for ch in state.field:
        for c in (ch.card, *ch.items):
            if c in unknown:
                return c
    for c in state.orphans:
        if c in unknown:
            return c
    for z in state.zones.values():
        for pile in PUBLIC_PILES:
            for c in getattr(z, pile):
                if c in unknown:
                    return c
    return None


def pending(state: GameState) -> Pending | None:
    """What the table must reveal before the procedure can go on, if anything."""
    if not state.unknown and not state.seen:
        return None
    shown = face_up(state)
    if shown is not None:
        where = state.where(shown) or "play"
        return Pending(
            shown[0], "215", f"an unknown card of {shown[0]}'s went face up ({where}): say what it is (215)", 1
        )
    step = state.step
    if step == "101.3":
        for p in ("A", "B"):
            castle = state.zones[p].castle
            if castle and _to_name(state, castle[0]):
                return Pending(p, "101.3", f"{p} turns the top card of their castle for the turn order (101.3)", 1)
        return None
    if step == "306.5i" and state.battle is not None:
        b = state.battle
        applied = {pl for pl, _ in b.numbers}
        waived = {e.target for e in state.effects if e.kind == "no_random"}
        for p, ch in ((b.player, b.attacker), (other(b.player), b.interceptor)):
            if p in applied or ch in waived:
                continue
            castle = state.zones[p].castle
            if castle and _to_name(state, castle[0]):
                return Pending(p, "306.5i", f"{p} turns the top card of their castle for its random number (306.5i)", 1)
            return None
        return None
    if step == "306.5m" and state.to_move > 0 and state.battle is not None:
        p = other(state.battle.player)
        n = _leading_unknown(state, p, state.to_move)
        if n:
            left = "the card" if state.to_move == 1 else f"the next of {state.to_move} cards"
            return Pending(p, "306.5m", f"{left} milled from {p}'s castle is turned face up (306.5m)", n)
    return None


def reveal_decision(state: GameState) -> Decision | None:
    """The ``decision`` of every step that turns a hidden card face up."""
    found = pending(state)
    return Decision(found.player, "reveal") if found is not None else None


def where_copies(state: GameState, player: str, name: str) -> str:
    """Where ``player``'s known cards named ``name`` are, for a 100.2 refusal."""
    places: list[str] = []
    for ch in state.field:
        for c in (ch.card, *ch.items):
            if c[0] == player and state.cards[c].name == name and c not in state.unknown:
                places.append(f"{c} on the field")
    for owner_, z in state.zones.items():
        for pile in ("castle", "hand", "action_stack", "discard", "harem", "execution", "side"):
            for c in getattr(z, pile):
                if c[0] == player and c not in state.unknown and state.cards[c].name == name:
                    place = _PLACES[pile] if owner_ == player else f"{_PLACES[pile]} of {owner_}"
                    if pile == "castle":
                        place = f"in the castle (position {getattr(z, pile).index(c) + 1} from the top)"
                    places.append(f"{c} {place}")
    deck = sum(1 for c, cd in state.cards.items() if c[0] == player and cd.name == name)
    if not deck:
        return f"{player}'s deck list has no {name}"
    copies = "copy" if deck == 1 else "copies"
    return f"{player}'s deck list has {deck} {copies} of {name}, all accounted for: " + "; ".join(places)


def _no_copy(state: GameState, player: str, name: str, rule: str) -> str:
    what = "the card revealed" if rule in ("101.3", "306.5i", "306.5m", "215") else "the card used from the hand"
    return f"{where_copies(state, player, name)}, so {what} cannot be {name}."


def reveal_as(
    state: GameState,
    player: str,
    place: str,
    name: str,
    rule: str,
    waive: frozenset[str],
    definitions: tuple[CardDef, ...] = (),
) -> CardRevealed:
    """The unknown card at ``place`` revealed as ``name``: it takes the identity
    of an unaccounted copy (itself if it already carries that name). Refused
    citing 100.2 if the deck list has none left (or never had one); in record
    mode the table's card is recorded anyway, with its violation: a new card
    at that place (its definition from the match, or from the pool the
    action brought: ``definitions``), while the unknown card that stood there
    stays unaccounted for, so that no copy the list does have is taken away
    by a card it does not have (a judge then rewinds or accepts)."""
    cards = state.cards
    if place in state.seen and cards[place].name != name:
        # Ruling A36: the table saw this card before a rewind took the reveal
        # back; turned again, it is the same card. Record mode records what
        # the table says, and the card seen goes back to being unknown.
        what = "the card revealed" if rule in ("101.3", "306.5i", "306.5m", "215") else "the card"
        if "ruling:A36" not in waive:
            raise physical(
                "ruling:A36",
                f"{player}'s card there was seen face up as {cards[place].name} before a judge's rewind took "
                f"that back; both players know it, so {what} cannot be {name}.",
            )
    elif cards[place].name == name:
        return CardRevealed.trusted(rule=rule, player=player, card=place, name=name, identity=place)
    for c in unknown_of(state, player):
        if cards[c].name == name:
            return CardRevealed.trusted(rule=rule, player=player, card=place, name=name, identity=c)
    if "100.2" not in waive:
        raise physical("100.2", _no_copy(state, player, name, rule))
    definition = next((cd for cd in cards.values() if cd.name == name), None)
    if definition is None:
        definition = next((cd for cd in definitions if cd.name == name), None)
    if definition is None:
        raise refuse(
            "100.2", f"No card named {name} is defined in this match or its pool, so the referee cannot record it."
        )
    return CardRevealed.trusted(
        rule=rule, player=player, card=place, name=name, definition=definition, unlisted=new_id(state, player)
    )


def new_id(state: GameState, player: str) -> str:
    """An instance id no card of the match has: the owner's next number."""
    numbers = [int(c.partition(":")[2]) for c in state.cards if c[0] == player and c.partition(":")[2].isdigit()]
    return f"{player}:{max(numbers, default=0) + 1}"


def _named(state: GameState, a: Action) -> list[str]:
    refs = [a.card] if a.card is not None else list(a.cards or ())
    return [state.cards[r].name if r in state.cards else r for r in refs]


def reveal_args(state: GameState, a: Action) -> dict[str, object]:
    """A reveal's arguments as the log keeps them: card names (what the table
    saw), not the ids of the copies that stood for them."""
    args = a.arguments()
    names = _named(state, a)
    if "card" in args:
        args["card"] = names[0]
    elif "cards" in args:
        args["cards"] = names
    return args


def _reveal_candidates(state: GameState, p: str, ctx: Context) -> list[Action]:
    """One reveal per name the owner's deck list has unaccounted for (the
    copy named stands for any of them)."""
    found = pending(state)
    if found is None:
        return []
    shown = face_up(state)
    castle = state.zones[found.player].castle
    place = shown if shown is not None else castle[0] if castle else None
    if place is not None and place in state.seen:
        return [Action(p, "reveal", card=place)]  # seen before a rewind: it is that card (ruling A36)
    names: dict[str, str] = {}
    for c in unknown_of(state, found.player):
        names.setdefault(state.cards[c].name, c)
    return [Action(p, "reveal", card=c) for _, c in sorted(names.items())]


@ACTIONS.move(
    "reveal",
    "100.2",
    args=(NAME, NAMES),
    candidates=_reveal_candidates,
    help="a table-dealt match: name the card the table turned face up (several at once for 306.5m)",
)
def _decide_reveal(state: GameState, a: Action, ctx: Context) -> list[Event]:
    found = pending(state)
    assert found is not None
    p = found.player
    names = _named(state, a)
    if not names:
        raise refuse(found.rule, f"Name the card that was revealed: {found.why}.")
    if len(names) > found.count:
        raise refuse(
            found.rule,
            f"Only {found.count} card{'s are' if found.count > 1 else ' is'} turned face up here; "
            f"{len(names)} were named.",
        )
    out: list[Event] = []
    st = state
    shown = face_up(state)
    for i, name in enumerate(names):
        place = shown if shown is not None else st.zones[p].castle[i]
        ev = reveal_as(st, p, place, name, found.rule, ctx.waive, a.definitions)
        out.append(ev)
        st = evolve(st, ev)
    return out


decision_kind("reveal", "100.2", "say which card the table turned face up", ("reveal",))


# --- cards named as they leave the hand -----------------------------------------------


def hand_reveals(state: GameState, player: str, named: list[str], rule: str) -> list[CardRevealed]:
    """The reveals a use or discard from the hand implies: each named card that
    is unknown takes the place of an unknown card in the hand (itself if it
    is there)."""
    out: list[CardRevealed] = []
    st = state
    used: set[str] = set()
    for c in named:
        if c not in st.unknown or c[0] != player:
            continue
        hand = st.zones[player].hand
        if c in hand:
            place: str | None = c
        else:
            place = next((h for h in hand if h in st.unknown and h not in used and h not in named), None)
            if place is None:
                return out
        ev = CardRevealed.trusted(rule=rule, player=player, card=place, name=st.cards[c].name, identity=c)
        out.append(ev)
        used.add(c)
        st = evolve(st, ev)
    return out


def hand_candidates(state: GameState, player: str) -> list[str]:
    """The cards ``player`` could use from the hand: the known ones, and, while
    the hand holds unknown cards, one unknown copy of each unaccounted name."""
    hand = state.zones[player].hand
    unknown = state.unknown
    if not unknown or not any(c in unknown for c in hand):
        return list(hand)
    out = [c for c in hand if c not in unknown]
    seen: set[str] = set()
    for c in unknown_of(state, player):
        name = state.cards[c].name
        if name not in seen:
            seen.add(name)
            out.append(c)
    return out


def as_played(state: GameState, player: str, card: str, rule: str) -> GameState:
    """The state in which ``card`` (an unknown copy) is the hand card used."""
    if card not in state.unknown:
        return state
    for ev in hand_reveals(state, player, [card], rule):
        state = evolve(state, ev)
    return state
