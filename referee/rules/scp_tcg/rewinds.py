"""A judge's rewinds of an SCP-TCG chapter-4 match: what they cite, what each event revealed, no skipped steps.

``referee.corrections`` rewinds every game the same way through its
``rewinds`` capability; this is what chapter 4 tells it (ruling:S13).
Chapter 4 has no rule for a judge's corrections, so a rewind cites ``4``,
as a correction outside the zone rules of chapter 4 (the table entered
something a process did not do). Its automatic steps (cards on a card that
left the site go to Decommissioned, 401.5c; a sandbox at 0 protection is
restored and breached, 402.6; a searched sandbox is shuffled, 402.7) are
performed by the referee at once and off the chain, and this ruleset has no
record mode, so no step is ever recorded as skipped. It has no turns
(chapter 5 has them), so a rewind is aimed at an event or an instruction,
never at a step of a turn.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from events.kernel import Event
from events.scp_tcg.zones import (
    CardMoved,
    CardStacked,
    PersonnelRevealed,
    PlacementPending,
    SandboxSearched,
    SandboxShuffled,
    TopCardTurned,
    ZoneLooked,
    ZoneReordered,
)
from projections.scp_tcg.state import ZoneState, kind_of
from projections.scp_tcg.views import sees
from referee.rules.scp_tcg.common import OUTSIDE, OUTSIDE_WORDS, refuse

REWIND_RULES = (OUTSIDE,)
SKIPPABLE: tuple[str, ...] = ()

# Events that showed someone something hidden, and what; ``revealed`` says
# of each one what a rewind cannot hide again (nothing, for a look at a
# Decommissioned zone, which anyone may look at: 405.3).
REVEALS: dict[type[Event], str] = {
    TopCardTurned: "the top card of a sandbox turned face up (402.3)",
    PersonnelRevealed: "a personnel card turned face up (404.1a)",
    ZoneLooked: "a player looked at a sandbox's cards, as a process told them (402.2)",
    SandboxSearched: "a player searched a sandbox and saw its cards (402.7)",
    SandboxShuffled: "a shuffle: a sandbox's order was decided (402.7)",
    ZoneReordered: "a player saw a sandbox's cards to put them in a new order (402.2)",
}

PUBLIC = ("site", "decommissioned")  # where every card is face up (ruling:S1, 405.3)


def _name(state: ZoneState, card: str) -> str:
    return state.cards[card].name if card in state.cards else card


def _shown(state: ZoneState, cards: Sequence[str], to: str | None) -> list[str]:
    """The cards hidden where ``state`` has them that a move to ``to`` (a
    public zone; None: stacked on a site card, face up) showed to everyone."""
    if to is not None and kind_of(to) not in PUBLIC:
        return []
    return [c for c in cards if c in state.cards and not sees(state, c, "public")]


class ScpTcgRewinds:
    """Chapter 4's answer to ``referee.corrections`` (ruling:S13)."""

    rules: tuple[str, ...] = REWIND_RULES
    skippable: tuple[str, ...] = SKIPPABLE
    reveals: Mapping[type, str] = REVEALS
    words: Mapping[str, str] = {
        OUTSIDE: "an instruction no process gave: chapter 4 has no correction rule of its own (ruling:S13)"
    }

    def revealed(self, event: Event, restored: ZoneState) -> str | None:
        """What the table saw that a rewind to ``restored`` cannot hide again."""
        if isinstance(event, ZoneLooked) and not event.instructed:
            return None  # Decommissioned: anyone may look at any time (405.3)
        if restored is None:
            return self.reveals.get(type(event))
        cannot = "the rewind cannot hide it again"
        if isinstance(event, TopCardTurned):
            return (
                f"{_name(restored, event.card)}, the top card of {event.sandbox}, was turned face up ({event.rule}); "
                f"{cannot}: it goes back face down, but both players have seen it"
            )
        if isinstance(event, PersonnelRevealed):
            return (
                f"{event.player}'s personnel {_name(restored, event.card)} was turned face up ({event.rule}); "
                f"{cannot}: it goes back face down, but both players have seen it"
            )
        if isinstance(event, (CardMoved, CardStacked, PlacementPending)):
            cards = event.cards if isinstance(event, PlacementPending) else [event.card]
            to = event.to if isinstance(event, CardMoved) else None
            shown = _shown(restored, cards, to)
            if not shown:
                return None
            names = ", ".join(_name(restored, c) for c in shown)
            return (
                f"{names} left a hidden zone face up ({event.rule}); "
                f"{cannot}: the rewind puts it back face down, but both players have seen it"
            )
        return self.reveals.get(type(event))

    def skip_step(self, state: ZoneState, log: Sequence[Event], rule: str, reason: str) -> list[Event]:
        raise refuse(
            OUTSIDE,
            f"Recording a skipped step is {OUTSIDE_WORDS}: the referee performs chapter 4's automatic steps "
            "(401.5c, 402.6, 402.7) at once itself and keeps no record mode, so none can be skipped; "
            "a judge rewinds instead (ruling:S13).",
        )

    def position_of_step(
        self, log: Sequence[Event], turn: int, step: str, states: Sequence[ZoneState] | None = None
    ) -> int:
        raise refuse(
            OUTSIDE,
            f"Turns are {OUTSIDE_WORDS} (chapter 5 has them), so there is no step {step} of turn {turn} "
            "to rewind to: rewind to an event or to before an instruction (ruling:S13).",
        )


REWINDS = ScpTcgRewinds()
