"""402: the sandboxes: three face-down piles of objects by class, their protection, breach and search.

- 402.1: each player has a Safe, a Euclid and a Keter sandbox; 402.1a:
  "a sandbox" alone means any one of the three; 402.1b: only object cards
  go into a sandbox (any other card stays where it was); 402.1c: an object
  card goes only into the sandbox of its class, and a process that names
  another sandbox puts it into that one instead.
- 402.2: nobody looks at or reorders a sandbox unless a process says so;
  anyone may count one at any time.
- 402.3: a card a process turns face up on top of a sandbox is still in the
  sandbox, not an object on a site.
- 402.4: protection starts at, and never rises above, 4 (Safe), 8 (Euclid),
  12 (Keter); 402.5: damage lowers it by its amount.
- 402.6: at 0 or less, at once and off the chain: 402.6a all damage is
  removed and protection is its initial value again (however far below 0 it
  was), then 402.6b the sandbox is breached. What a breach does is rule
  301.2, outside chapter 4: the referee records it and stops there.
- 402.7: a sandbox a process searched is shuffled once the process is over;
  the order is decided from the match seed and stored in the event.
"""

from __future__ import annotations

import random

from events.kernel import Event
from events.scp_tcg.zones import (
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
)
from projections.scp_tcg.state import INITIAL_PROTECTION, SANDBOXES, ZONES, ZoneState, kind_of, seat_of
from referee.rules.scp_tcg.common import ANY_SANDBOX, Instruction, name, refuse

CLASSES = tuple(SANDBOXES.values())


def sandbox_of(state: ZoneState, card: str, seat: str, given: str | None = None) -> str:
    """402.1c: ``seat``'s sandbox of the card's class, or of the class an effect gives it."""
    cls = given or state.cards[card].object_class or ""
    return f"{seat}.{cls.lower()}"


def route(
    state: ZoneState, card: str, asked: str, given: str | None = None
) -> tuple[str | None, list[str], str | None]:
    """Where in ``asked``'s player's sandboxes the card goes (of ``given``
    class if an effect names one): (zone, the rules that redirected it,
    None), or (None, [], the reason it stays: 402.1b)."""
    cd = state.cards[card]
    if cd.type != "object":
        return None, [], f"{cd.name} is a {cd.type} card, and only object cards go into a sandbox (402.1b)."
    if given is not None and given not in CLASSES:
        raise refuse("402.1c", f"An object's class is Safe, Euclid or Keter, not {given!r} (402.1c).")
    zone = sandbox_of(state, card, seat_of(asked), given)
    if kind_of(asked) == ANY_SANDBOX:
        return zone, ["402.1a", "402.1c"], None
    return zone, ([] if zone == asked else ["402.1c"]), None


def look(state: ZoneState, a: Instruction, zone: str) -> list[Event]:
    if not a.instructed:
        raise refuse(
            "402.2",
            f"Nobody may look at the cards in {zone} unless a process says so (402.2); anyone may count them.",
        )
    return [ZoneLooked(rule="402.2", player=a.player or "", zone=zone, instructed=True)]


def count(state: ZoneState, a: Instruction, zone: str) -> list[Event]:
    return [SandboxCounted(player=a.player or "", sandbox=zone, count=len(state.zones[zone]))]


def reorder(state: ZoneState, a: Instruction, zone: str) -> list[Event]:
    if not a.instructed:
        raise refuse("402.2", f"Nobody may change the order of {zone} unless a process says so (402.2).")
    order = list(a.cards or ())
    if sorted(order) != sorted(state.zones[zone]):
        raise refuse("402.2", f"A new order of {zone} lists each of its {len(state.zones[zone])} cards once.")
    return [ZoneReordered(player=a.player or "", zone=zone, order=order)]


def turn_top(state: ZoneState, zone: str) -> list[Event]:
    """402.3: the top card turns face up and stays in the sandbox."""
    pile = state.zones[zone]
    if not pile:
        raise refuse("402.3", f"{zone} is empty: it has no top card to turn face up (402.3).")
    if pile[0] in state.face_up:
        raise refuse("402.3", f"The top card of {zone}, {name(state, pile[0])}, is face up already (402.3).")
    return [TopCardTurned(sandbox=zone, card=pile[0])]


def maximum(zone: str) -> int:
    """402.4: the initial protection, which is also the most it can be."""
    return INITIAL_PROTECTION[SANDBOXES[kind_of(zone)]]


def damage(state: ZoneState, zone: str, amount: int) -> list[Event]:
    if amount < 1:
        raise refuse("402.5", f"Damage to a sandbox is a positive amount (402.5), not {amount}.")
    return [SandboxDamaged(sandbox=zone, amount=amount)]


def raise_protection(state: ZoneState, zone: str, amount: int) -> list[Event]:
    """402.4: protection rises, never above the maximum (only damage taken can be made good)."""
    if amount < 1:
        raise refuse("402.4", f"Protection rises by a positive amount, not {amount}.")
    return [ProtectionRaised(sandbox=zone, amount=min(amount, state.damage.get(zone, 0)), asked=amount)]


def breach(state: ZoneState) -> list[Event] | None:
    """402.6: a sandbox at 0 protection or less: 402.6a, then 402.6b."""
    for zone in ZONES:
        if kind_of(zone) in SANDBOXES and state.protection(zone) <= 0:
            return [ProtectionRestored(sandbox=zone), SandboxBreached(sandbox=zone)]
    return None


def search(state: ZoneState, a: Instruction, zone: str, found: str | None) -> list[Event]:
    """402.7: the search itself; what it found moves next; the shuffle follows the process."""
    if found is not None and found not in state.zones[zone]:
        raise refuse("402.7", f"{name(state, found)} is not in {zone}, so a search of it cannot find it.")
    return [SandboxSearched(player=a.player or "", sandbox=zone)]


def shuffle(state: ZoneState) -> list[Event] | None:
    """402.7: each searched sandbox, shuffled from the seed once the process is over."""
    if not state.searched:
        return None
    zone = state.searched[0]
    order = list(state.zones[zone])
    random.Random(f"{state.seed}:{state.position}:{zone}").shuffle(order)
    return [SandboxShuffled(sandbox=zone, order=order)]
