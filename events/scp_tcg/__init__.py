"""SCP-TCG-JP-J 購買部版, chapter 4 (zones): the facts its matches are built from.

``EVENT_TYPES`` maps each class name of ``events.scp_tcg.zones`` to its
class, as ``events.harem_master.EVENT_TYPES`` does for Harem Master; the store reads this
game's logs once the kernel knows games by their ruleset (docs/rulesets.md).
"""

from __future__ import annotations

import inspect

from events.kernel import Event
from events.scp_tcg import zones
from events.scp_tcg.cards import ScpCard

EVENT_TYPES: dict[str, type[Event]] = {
    name: cls
    for name, cls in inspect.getmembers(zones, inspect.isclass)
    if issubclass(cls, Event) and cls.__module__ == zones.__name__
}

__all__ = ["EVENT_TYPES", "ScpCard"]
