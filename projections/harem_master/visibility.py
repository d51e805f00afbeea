"""Who may know which card, from a position or from an event (rule 215): the one function every output asks.

Every sentence of the log (``projections.harem_master.transcript``), every JSON document
(``referee state/log/act/legal --json``, ``export --names``) and every page of
the board names a card only where this module says the viewer may know it.
Viewers are ``judge`` (everything), ``A``, ``B`` and ``public``.

**Positions.** ``sees_pile`` and ``sees_character`` are rule 215 for a place:
nobody reads a castle or an action-cost stack (215.2, 215.4d), a hand is its
owner's (215.3c), a face-down opening character its controller's (101.1,
101.6), everything else is face up (215.5b-215.9). ``sees_card`` asks where a
card lies in a state. An unknown card of a table-dealt match is named to
nobody, not even the judge: nobody has revealed it.

**Events.** ``sight(event, before, viewer)`` is what one viewer may know of
one event: ``Sight.sees(card)`` and ``Sight.name(card)``. What each kind of
event reveals is declared once per event kind, beside its sentence in
``projections.harem_master.transcript`` (``@says(CardMoved, card=SHOWN, target=WHERE)``),
by naming an *audience* for each field that holds cards:

- ``WHERE``: whoever sees the card where it is just before the event or just
  after it. A card moved from a hand to the field is named to everyone; one
  moved from a hand to a castle is named to the hand's owner only.
- ``OUTCOME``: whoever sees it before the player's action, or where the whole
  action leaves it (the events up to the next action). For the choices a
  player makes (``ActionTaken``, ``Chosen``): a card chosen from a hidden
  hand and put on the castle stays hidden (215.3); one played from the hand
  is named, as the same action puts it face up.
- ``SHOWN``: everyone, because the rules turn the card face up (101.3, 101.6,
  306.5i), the table says what it was (a reveal), or it is the card whose
  ability is used, triggers or resolves (402, 403, 407: its text is read out).

A card a sentence names that no declared field holds (the attacker of the
battle under way, say) is ``WHERE``. The walk ``sights(events, state,
viewer)`` gives each event with its sight, looking ahead to where each action
ends; ``sight`` alone (no look-ahead) reads ``OUTCOME`` as ``WHERE``, which
hides at least as much.

The console and the board call ``sights``/``sight`` for events and
``sees_card`` for positions; ``projections.harem_master.transcript`` turns sights into
sentences and ``projections.harem_master.views`` positions into views.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator, Mapping, Sequence

from events.kernel import ActionTaken, Event, NoteAdded, Rewound, StepSkipped, ViolationsAccepted
from projections.harem_master.state import PILES, Character, GameState, evolve

VIEWERS = ("judge", "A", "B", "public")

WHERE = "where"
OUTCOME = "outcome"
SHOWN = "shown"
AUDIENCES = (WHERE, OUTCOME, SHOWN)

HIDDEN = "a card"  # what a sentence says in place of a card its reader may not know
UNKNOWN = "an unknown card"  # a table-dealt match's card nobody has revealed

# An audience, or a function of the event giving one, or giving one per key
# of a mapping field (``ActionTaken.args``: the audience of each argument).
Audience = str | Callable[[Any], "str | Mapping[str, str]"]

REVEALS: dict[type[Event], dict[str, Audience]] = {}
"""Per event kind, the audience of each field holding cards (filled by
``reveals``, called beside each sentence in ``projections.harem_master.transcript``,
which every reader of a sight has imported: the sentences are what sights
are for; ``transcript.declarations`` returns them once loaded)."""

# The events that begin something a person did (a player's action, a judge's
# command); the events after one, up to the next, are what it caused.
ACTION_STARTS: tuple[type[Event], ...] = (ActionTaken, Rewound, NoteAdded, ViolationsAccepted, StepSkipped)


def check_viewer(viewer: str) -> None:
    """Refuse a typo early: silently showing the judge view to "a" would leak."""
    if viewer not in VIEWERS:
        raise ValueError(f"unknown viewer {viewer!r}: expected one of {', '.join(VIEWERS)}")


def reveals(event_type: type[Event], **fields: Audience) -> None:
    """Declare what ``event_type`` reveals: the audience of each field holding
    cards. Declared once per event kind; a field the event does not have is a
    mistake caught here."""
    for field, audience in fields.items():
        if field not in event_type.model_fields:
            raise TypeError(f"{event_type.__name__} has no field {field!r}")
        if isinstance(audience, str) and audience not in AUDIENCES:
            raise ValueError(f"{event_type.__name__}.{field}: unknown audience {audience!r}")
    REVEALS[event_type] = dict(fields)


# --- positions ------------------------------------------------------------------------


def sees_pile(viewer: str, player: str, pile: str) -> bool:
    """215.2-215.9: may ``viewer`` read the faces in ``player``'s ``pile``?"""
    if viewer == "judge":
        return True
    if pile in ("castle", "action_stack"):
        return False
    if pile == "hand":
        return viewer == player
    return True


def sees_character(viewer: str, ch: Character) -> bool:
    """101.1/101.6: a face-down opening character is known to its controller only."""
    return not ch.face_down or viewer == "judge" or viewer == ch.controller


def sees_card(state: GameState, card: str, viewer: str) -> bool:
    """May ``viewer`` read ``card`` where it lies in ``state``? (Whether anyone
    knows what it is, in a table-dealt match, is ``state.unknown``.) A card
    that is nowhere is the judge's only."""
    if viewer == "judge":
        return True
    for ch in state.field:
        if ch.card == card:
            return sees_character(viewer, ch)
        if card in ch.items:
            return True  # attached face up (214.4c)
    if card in state.orphans:
        return True
    for player, z in state.zones.items():
        for pile in PILES:
            if card in getattr(z, pile):
                return sees_pile(viewer, player, pile)
    return False


def card_name(state: GameState, card: str, viewer: str, hidden: str = HIDDEN) -> str:
    """A card of a position as ``viewer`` may name it: its name, ``hidden``
    where the viewer may not see it, ``UNKNOWN`` where nobody knows it."""
    if not sees_card(state, card, viewer):
        return hidden
    if card in state.unknown:
        return UNKNOWN
    cd = state.cards.get(card)
    return cd.name if cd is not None else card


# --- events ---------------------------------------------------------------------------


def _ids(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, (list, tuple)):
        for v in value:
            if isinstance(v, str):
                yield v
    elif isinstance(value, dict):
        for v in value.values():
            yield from _ids(v)


_RANK = {WHERE: 0, OUTCOME: 1, SHOWN: 2}
_NOT_WHERE: dict[type[Event], tuple[tuple[str, Audience], ...]] = {}


def _plan(event_type: type[Event]) -> tuple[tuple[str, Audience], ...]:
    """The declared fields of an event kind whose audience is not plain ``WHERE``."""
    plan = _NOT_WHERE.get(event_type)
    if plan is None:
        fields = REVEALS.get(event_type, {})
        plan = _NOT_WHERE[event_type] = tuple((f, a) for f, a in fields.items() if a != WHERE)
    return plan


def audiences(event: Event) -> dict[str, str]:
    """The audience of each card ``event`` holds in a declared field, but
    those that are ``WHERE`` (the default): the widest, where a card is in two."""
    out: dict[str, str] = {}
    rank = _RANK
    for field, audience in _plan(type(event)):
        value = getattr(event, field, None)
        given = audience(event) if callable(audience) else audience
        if isinstance(given, str):
            pairs = [(c, given) for c in _ids(value)]
        else:  # per key of a mapping field
            pairs = [(c, given.get(k, WHERE)) for k, v in (value or {}).items() for c in _ids(v)]
        for card, a in pairs:
            if card not in out or rank[a] > rank[out[card]]:
                out[card] = a
    return out


class Sight:
    """What one viewer may know of one event: which of its cards they may
    name, and by which name. ``before`` is the state just before the event,
    ``after`` just after it (computed when needed), ``outcome`` the state
    where the action it belongs to ends (None: not looked ahead)."""

    __slots__ = ("event", "viewer", "before", "_after", "outcome", "_audiences")

    def __init__(
        self,
        event: Event,
        viewer: str,
        before: GameState,
        after: GameState | None = None,
        outcome: GameState | None = None,
    ) -> None:
        self.event = event
        self.viewer = viewer
        self.before = before
        self._after = after
        self.outcome = outcome
        self._audiences: dict[str, str] | None = None

    @property
    def after(self) -> GameState:
        if self._after is None:
            self._after = evolve(self.before, self.event)
        return self._after

    def audience(self, card: str) -> str:
        if self._audiences is None:
            self._audiences = audiences(self.event)
        return self._audiences.get(card, WHERE)

    def _states(self, card: str) -> tuple[GameState, ...]:
        """The states in which the viewer may look for ``card``."""
        if self.outcome is not None and self.audience(card) == OUTCOME:
            return (self.before, self.after, self.outcome)
        return (self.before, self.after)

    def sees(self, card: str) -> bool:
        """May the viewer know which card ``card`` is, in this event?"""
        if self.viewer == "judge" or self.audience(card) == SHOWN:
            return True
        viewer = self.viewer
        if sees_card(self.before, card, viewer):
            return True
        return any(sees_card(s, card, viewer) for s in self._states(card)[1:])

    def name(self, card: str, hidden: str = HIDDEN) -> str:
        """``card``'s name for this viewer: ``hidden`` where they may not know
        it, ``UNKNOWN`` where nobody does (a table-dealt card not revealed)."""
        if not self.sees(card):
            return hidden
        before = self.before
        if not before.unknown:  # a seeded match: every card is known
            cd = before.cards.get(card)
            return cd.name if cd is not None else card
        for s in self._states(card):
            if card not in s.unknown:
                cd = s.cards.get(card)
                return cd.name if cd is not None else card
        return UNKNOWN

    def names(self, cards: Sequence[str]) -> str:
        """Several cards: "3 unknown cards" or "3 cards" where none can be named."""
        cards = list(cards)
        shown = [self.name(c) for c in cards]
        if len(cards) > 1 and all(n == UNKNOWN for n in shown):
            return f"{len(cards)} unknown cards"
        if len(cards) > 1 and all(n == HIDDEN for n in shown):
            return f"{len(cards)} cards"
        return ", ".join(shown)


def sight(event: Event, before: GameState, viewer: str = "judge", after: GameState | None = None) -> Sight:
    """What ``viewer`` may know of ``event`` (``before``: the state just before
    it). Without the rest of the log, a choice's card is judged by the event
    itself (``OUTCOME`` read as ``WHERE``): see ``sights`` for the look-ahead."""
    check_viewer(viewer)
    return Sight(event, viewer, before, after)


KEEP_STATES = 256  # an action's states kept for its look-ahead; a longer one is folded twice


def sights(
    events: Sequence[Event], state: GameState, viewer: str = "judge", start: int = 0, stop: int | None = None
) -> Iterator[tuple[int, Event, Sight]]:
    """``(index, event, sight)`` for each of ``events[start:stop]``, folding
    from ``state`` (the state before ``events[start]``). Each action's events
    are seen with the state where the action ends, read past ``stop`` if it
    ends later, so a choice is named exactly where the action puts it face up."""
    check_viewer(viewer)
    stop = len(events) if stop is None else min(stop, len(events))
    i = start
    while i < stop:
        j = i + 1
        while j < len(events) and not isinstance(events[j], ACTION_STARTS):
            j += 1
        if j - i <= KEEP_STATES:
            states = [state]
            for e in events[i:j]:
                states.append(evolve(states[-1], e))
            end = states[-1]
            for k in range(i, min(j, stop)):
                yield k, events[k], Sight(events[k], viewer, states[k - i], states[k - i + 1], end)
            state = states[min(j, stop) - i]
            i = j
            continue
        end = state
        for e in events[i:j]:
            end = evolve(end, e)
        for k in range(i, min(j, stop)):
            after = evolve(state, events[k])
            yield k, events[k], Sight(events[k], viewer, state, after, end)
            state = after
        i = j


__all__ = [
    "ACTION_STARTS",
    "AUDIENCES",
    "HIDDEN",
    "OUTCOME",
    "REVEALS",
    "SHOWN",
    "UNKNOWN",
    "VIEWERS",
    "WHERE",
    "Sight",
    "audiences",
    "card_name",
    "check_viewer",
    "reveals",
    "sees_card",
    "sees_character",
    "sees_pile",
    "sight",
    "sights",
]
