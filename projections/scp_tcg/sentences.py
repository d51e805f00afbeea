"""One sentence per event of an SCP-TCG chapter-4 match, as each viewer may know it.

A card is named to a viewer who may read its face before or after the event
(``views.sees``); otherwise it is "a card", so nobody learns a face-down
sandbox card from the log. Each sentence is registered by its event class
beside its function (``SENTENCES``), and the tests check every event class
has one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from events.kernel import ActionTaken, EntryUndone, Event, JudgeCalled, NoteAdded, Rewound
from events.scp_tcg.zones import (
    CardMoved,
    CardsPlaced,
    CardStacked,
    CardStayed,
    PersonnelRevealed,
    PlacementPending,
    ProtectionRaised,
    ProtectionRestored,
    SandboxBreached,
    SandboxCounted,
    SandboxDamaged,
    SandboxSearched,
    SandboxShuffled,
    TopCardTurned,
    ZoneLooked,
    ZoneReordered,
    ZonesSetUp,
)
from projections.by_type import ByType
from projections.judging import call_sentence, note_sentence, rewound_sentence, undone_sentence
from projections.scp_tcg.state import SANDBOXES, SEATS, ZoneState, evolve, initial_state, kind_of, seat_of
from projections.scp_tcg.views import check_viewer, sees

SENTENCES: ByType[Callable[[Any, ZoneState, ZoneState, str], str]] = ByType("sentence")

_KIND_WORDS = {
    "site": "site",
    "tale": "Tale zone",
    "personnel": "personnel zone",
    "decommissioned": "Decommissioned zone",
    "outside": "zone outside the game",
}


def zone_words(zone: str) -> str:
    """``A.keter`` -> "A's Keter sandbox"."""
    seat, kind = seat_of(zone), kind_of(zone)
    if kind in SANDBOXES:
        return f"{seat}'s {SANDBOXES[kind]} sandbox"
    return f"{seat}'s {_KIND_WORDS.get(kind, kind)}"


def _card(before: ZoneState, after: ZoneState, card: str, viewer: str) -> str:
    known = sees(before, card, viewer) or sees(after, card, viewer)
    if known and card in before.cards:
        return before.cards[card].name
    return "a card"


def _cards(before: ZoneState, after: ZoneState, cards: Iterable[str], viewer: str) -> str:
    return ", ".join(_card(before, after, c, viewer) for c in cards)


def _where(state: ZoneState, card: str) -> str:
    place = state.place(card)
    if place is None:
        return "nowhere"
    if place.host is not None:
        return f"{place.side} {state.cards[place.host].name}"
    if place.arriving:
        return "its way to Decommissioned"
    return zone_words(place.zone or "")


@SENTENCES.on(ZonesSetUp)
def _zones_set_up(e: ZonesSetUp, before: ZoneState, after: ZoneState, viewer: str) -> str:
    counts = ", ".join(f"{seat} {sum(1 for c in e.cards if c.startswith(seat + ':'))}" for seat in SEATS)
    return f"A position is set up by hand (cards: {counts})."


@SENTENCES.on(ActionTaken)
def _action_taken(e: ActionTaken, before: ZoneState, after: ZoneState, viewer: str) -> str:
    shown: list[str] = []
    for key, value in e.args.items():
        if key in ("card", "host") and isinstance(value, str) and value in before.cards:
            value = _card(before, before, value, viewer)
        elif key == "cards" and isinstance(value, list):
            value = "[" + _cards(before, before, [c for c in value if c in before.cards], viewer) + "]"
        shown.append(f"{key}: {value}")
    return f"{e.player}: {e.do}" + (f" ({', '.join(shown)})" if shown else "") + "."


@SENTENCES.on(CardMoved)
def _card_moved(e: CardMoved, before: ZoneState, after: ZoneState, viewer: str) -> str:
    text = f"{_card(before, after, e.card, viewer)} goes from {_where(before, e.card)} to {zone_words(e.to)}"
    if kind_of(e.to) in SANDBOXES or kind_of(e.to) == "tale":
        text += f", at the {e.at}"
    if e.terminated:
        text += ", terminated (405.2a)"
    if e.asked is not None and e.asked != e.to:
        text += f"; the process named {zone_words(e.asked)} ({', '.join(e.redirected_by)})"
    return text + "."


@SENTENCES.on(CardStayed)
def _card_stayed(e: CardStayed, before: ZoneState, after: ZoneState, viewer: str) -> str:
    """The reason names the card and its kind: only for a viewer who may see it."""
    why = e.reason if sees(before, e.card, viewer) else f"({e.rule})."
    return f"{_card(before, after, e.card, viewer)} stays in {_where(before, e.card)} rather than going to {zone_words(e.asked)}: {why}"


@SENTENCES.on(CardStacked)
def _card_stacked(e: CardStacked, before: ZoneState, after: ZoneState, viewer: str) -> str:
    return (
        f"{_card(before, after, e.card, viewer)} leaves {_where(before, e.card)} and is put {e.side} "
        f"{_card(before, after, e.host, viewer)}; it is on that card, not on the site (401.5a)."
    )


@SENTENCES.on(PlacementPending)
def _placement_pending(e: PlacementPending, before: ZoneState, after: ZoneState, viewer: str) -> str:
    how = "are terminated and go" if e.terminated else "go"
    return (
        f"{_cards(before, after, e.cards, viewer)} {how} to {zone_words(e.player + '.decommissioned')} together "
        f"({e.rule}); {e.player}, their owner, puts them there in the order they choose (405.4)."
    )


@SENTENCES.on(CardsPlaced)
def _cards_placed(e: CardsPlaced, before: ZoneState, after: ZoneState, viewer: str) -> str:
    return (
        f"{e.player} puts {_cards(before, after, e.cards, viewer)} onto their Decommissioned zone, "
        "in that order (405.4)."
    )


@SENTENCES.on(SandboxDamaged)
def _sandbox_damaged(e: SandboxDamaged, before: ZoneState, after: ZoneState, viewer: str) -> str:
    return (
        f"{zone_words(e.sandbox)} takes {e.amount} damage: its protection goes from "
        f"{before.protection(e.sandbox)} to {after.protection(e.sandbox)} (402.5)."
    )


@SENTENCES.on(ProtectionRaised)
def _protection_raised(e: ProtectionRaised, before: ZoneState, after: ZoneState, viewer: str) -> str:
    text = f"{zone_words(e.sandbox)}'s protection rises by {e.amount} to {after.protection(e.sandbox)}"
    if e.amount < e.asked:
        text += f" (the process asked for {e.asked}; 402.4: never above its maximum)"
    return text + "."


@SENTENCES.on(ProtectionRestored)
def _protection_restored(e: ProtectionRestored, before: ZoneState, after: ZoneState, viewer: str) -> str:
    return (
        f"All damage is removed from {zone_words(e.sandbox)}: its protection is back to "
        f"{after.protection(e.sandbox)} (402.6a)."
    )


@SENTENCES.on(SandboxBreached)
def _sandbox_breached(e: SandboxBreached, before: ZoneState, after: ZoneState, viewer: str) -> str:
    return (
        f"{zone_words(e.sandbox)} is breached (402.6b). What a breach does is rule 301.2, "
        "outside the zone rules of chapter 4."
    )


@SENTENCES.on(SandboxSearched)
def _sandbox_searched(e: SandboxSearched, before: ZoneState, after: ZoneState, viewer: str) -> str:
    return f"{e.player} searches {zone_words(e.sandbox)} (402.7)."


@SENTENCES.on(SandboxShuffled)
def _sandbox_shuffled(e: SandboxShuffled, before: ZoneState, after: ZoneState, viewer: str) -> str:
    return f"{zone_words(e.sandbox)} is shuffled now that the search is over (402.7)."


@SENTENCES.on(TopCardTurned)
def _top_card_turned(e: TopCardTurned, before: ZoneState, after: ZoneState, viewer: str) -> str:
    return (
        f"The top card of {zone_words(e.sandbox)} turns face up: {_card(before, after, e.card, viewer)}. "
        "It stays in the sandbox and is not an object on a site (402.3)."
    )


@SENTENCES.on(PersonnelRevealed)
def _personnel_revealed(e: PersonnelRevealed, before: ZoneState, after: ZoneState, viewer: str) -> str:
    return f"{e.player}'s personnel card turns face up: {_card(before, after, e.card, viewer)} (404.1a)."


@SENTENCES.on(ZoneLooked)
def _zone_looked(e: ZoneLooked, before: ZoneState, after: ZoneState, viewer: str) -> str:
    why = ", as a process tells them" if e.instructed else ""
    return f"{e.player} looks at {zone_words(e.zone)}{why} ({e.rule})."


@SENTENCES.on(SandboxCounted)
def _sandbox_counted(e: SandboxCounted, before: ZoneState, after: ZoneState, viewer: str) -> str:
    return f"{e.player} counts {zone_words(e.sandbox)}: {e.count} card{'s' if e.count != 1 else ''} (402.2)."


@SENTENCES.on(ZoneReordered)
def _zone_reordered(e: ZoneReordered, before: ZoneState, after: ZoneState, viewer: str) -> str:
    return f"{e.player} puts {zone_words(e.zone)} in a new order, as a process tells them (402.2)."


@SENTENCES.on(Rewound)
def _rewound(e: Rewound, before: ZoneState, after: ZoneState, viewer: str) -> str:
    return rewound_sentence(e, before.position, "instructions")


@SENTENCES.on(EntryUndone)
def _entry_undone(e: EntryUndone, before: ZoneState, after: ZoneState, viewer: str) -> str:
    return undone_sentence(e, before.position + 1)


@SENTENCES.on(NoteAdded)
def _note_added(e: NoteAdded, before: ZoneState, after: ZoneState, viewer: str) -> str:
    return note_sentence(e)


@SENTENCES.on(JudgeCalled)
def _judge_called(e: JudgeCalled, before: ZoneState, after: ZoneState, viewer: str) -> str:
    return call_sentence(e)


def describe(event: Event, state_before: ZoneState, viewer: str = "judge") -> str:
    """One sentence for ``event`` as ``viewer`` may know it; an event class
    without a sentence still gets one, so a newer log stays readable."""
    check_viewer(viewer)
    sentence = SENTENCES.get(type(event))
    if sentence is None:
        return f"{type(event).__name__} ({event.rule})."
    return sentence(event, state_before, evolve(state_before, event), viewer)


def transcript(events: Iterable[Event], viewer: str = "judge") -> list[dict[str, Any]]:
    """Rows like ``referee log --json``'s, folding from the empty table."""
    check_viewer(viewer)
    rows: list[dict[str, Any]] = []
    state = initial_state()
    for i, event in enumerate(events, start=1):
        rows.append(
            {
                "position": i,
                "type": type(event).__name__,
                "rule": event.rule,
                "ruling": event.ruling,
                "text": describe(event, state, viewer),
                "retracted": False,
            }
        )
        state = evolve(state, event)
    return rows
