"""A judge's rewinds of a Phantom Magic Vision chapter-7 match: what they cite, and that nothing was hidden (ruling:P13).

``referee.corrections`` rewinds every game the same way through its
``rewinds`` capability. Chapter 7 has no rule for a judge's corrections, so
a rewind cites ``7``: a correction outside the effect rules of chapter 7
(the table entered something that did not happen). Nothing in a chapter-7
position is hidden (ruling:P1), so no event revealed anything a rewind
cannot hide again; the referee performs every automatic step itself and
there is no record mode, so no step is ever recorded as skipped; there are
no turn steps here, so a rewind is aimed at an event or an action.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from events.kernel import Event
from projections.pmv_ch7.state import Table
from referee.rules.pmv_ch7.common import OUTSIDE, OUTSIDE_WORDS, refuse


class PmvRewinds:
    """Chapter 7's answer to ``referee.corrections`` (ruling:P13)."""

    rules: tuple[str, ...] = (OUTSIDE,)
    skippable: tuple[str, ...] = ()
    reveals: Mapping[type, str] = {}
    words: Mapping[str, str] = {
        OUTSIDE: "something the table entered that did not happen: chapter 7 has no correction rule of its own (ruling:P13)"
    }

    def revealed(self, event: Event, restored: Table) -> str | None:
        return None  # nothing of a chapter-7 position is hidden (ruling:P1)

    def skip_step(self, state: Table, log: Sequence[Event], rule: str, reason: str) -> list[Event]:
        raise refuse(
            OUTSIDE,
            f"Recording a skipped step is {OUTSIDE_WORDS}: the referee performs chapter 7's checks and "
            "automatic steps itself and keeps no record mode; a judge rewinds instead (ruling:P13).",
        )

    def position_of_step(
        self, log: Sequence[Event], turn: int, step: str, states: Sequence[Table] | None = None
    ) -> int:
        raise refuse(
            OUTSIDE,
            f"Turn steps are {OUTSIDE_WORDS}: rewind to an event or to before an action (ruling:P13).",
        )


REWINDS = PmvRewinds()
