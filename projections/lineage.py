"""Which events of a log are live and which a rewind retracted (rule 410).

A ``Rewound`` event at position r back to position N leaves events N+1..r-1
in the log but takes them out of the game. Rewinds can nest (a later rewind
may go back to a point inside a stretch an earlier one retracted), so the
live events are found by walking the log backwards from its end: each
``Rewound`` jumps to its target, and whatever the walk steps over is
retracted. The current state is the fold of the live events, and also, since
every ``Rewound`` carries its restored state, the fold of the whole log.
"""

from __future__ import annotations

from typing import Sequence

from events.kernel import Event, Rewound


def live_positions(events: Sequence[Event]) -> list[int]:
    """The 1-based positions of the live events, in log order."""
    live: list[int] = []
    pos = len(events)
    while pos >= 1:
        live.append(pos)
        event = events[pos - 1]
        if isinstance(event, Rewound) and 0 <= event.to < pos:
            pos = event.to
        else:
            pos -= 1
    live.reverse()
    return live


def retracted_positions(events: Sequence[Event]) -> set[int]:
    """The 1-based positions a rewind took out of the game."""
    live = set(live_positions(events))
    return {p for p in range(1, len(events) + 1) if p not in live}
