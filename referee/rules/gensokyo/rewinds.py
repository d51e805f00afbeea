"""A judge's rewinds of a 幻想郷夢紀行 §4 match: what they cite, what each event revealed, no skipped steps.

``referee.corrections`` rewinds every game the same way through its
``rewinds`` capability; this is what §4 tells it (ruling G14). §4 has no
rule for a judge's corrections, so a rewind cites ``4``: a correction
outside §4 (the table entered something that did not happen). The
referee walks a resolving effect's lines itself, at once, and this ruleset
has no record mode, so no step is ever recorded as skipped; it has no turns
(other chapters have them), so a rewind is aimed at an event or an
instruction, never at a step of a turn.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from events.gensokyo.table import CardDiscarded, CardDrawn, CardMoved, EffectUsed
from events.kernel import Event
from projections.gensokyo.state import Table
from projections.gensokyo.views import sees
from referee.rules.gensokyo.common import OUTSIDE, OUTSIDE_WORDS, refuse

REWIND_RULES = (OUTSIDE,)
SKIPPABLE: tuple[str, ...] = ()

# Events that showed someone something hidden, and what.
REVEALS: dict[type[Event], str] = {
    CardDrawn: "a card drawn from 山札: its drawer has seen it",
    CardDiscarded: "a card discarded from a hand to a face-up 幻想",
    EffectUsed: "an intervention card used from a hand, face up",
    CardMoved: "a card that left a face-down pile or a hand face up",
}


class GensokyoRewinds:
    """§4's answer to ``referee.corrections`` (ruling G14)."""

    rules: tuple[str, ...] = REWIND_RULES
    skippable: tuple[str, ...] = SKIPPABLE
    reveals: Mapping[type, str] = REVEALS
    words: Mapping[str, str] = {
        OUTSIDE: "something that did not happen: §4 has no correction rule of its own (ruling:G14)"
    }

    def revealed(self, event: Event, restored: Table | None) -> str | None:
        """What the table saw that a rewind to ``restored`` cannot hide again."""
        if restored is None:
            return self.reveals.get(type(event))
        cannot = "the rewind cannot hide it again"
        if isinstance(event, CardDrawn):
            return f"{event.player} drew {restored.name(event.card)} and has seen it; {cannot} from {event.player}"
        card = getattr(event, "card", None)
        if isinstance(event, (CardDiscarded, CardMoved, EffectUsed)) and card is not None:
            if event_shows(event) and not sees(restored, card, "public"):
                return (
                    f"{restored.name(card)} was shown to everyone ({event.rule}); {cannot}: both players have seen it"
                )
        return None

    def skip_step(self, state: Table, log: Sequence[Event], rule: str, reason: str) -> list[Event]:
        raise refuse(
            OUTSIDE,
            f"Recording a skipped step is {OUTSIDE_WORDS}: the referee walks a resolving effect's lines itself, "
            "at once, and keeps no record mode, so none can be skipped; a judge rewinds instead (ruling:G14).",
        )

    def position_of_step(
        self, log: Sequence[Event], turn: int, step: str, states: Sequence[Table] | None = None
    ) -> int:
        raise refuse(
            OUTSIDE,
            f"Turns are {OUTSIDE_WORDS} (other chapters have them), so there is no step {step} of turn {turn} "
            "to rewind to: rewind to an event or to before an instruction (ruling:G14).",
        )


def event_shows(event: Event) -> bool:
    """Does ``event`` put its card face up (幻想, a party, a journey, the items, or used)?"""
    if isinstance(event, EffectUsed):
        return event.kind == "intervention"
    to = getattr(event, "to", "")
    return to in ("fantasy",) or to.endswith((".party", ".journey", ".items"))


REWINDS = GensokyoRewinds()
