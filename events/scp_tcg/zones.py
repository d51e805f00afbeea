"""The facts of an SCP-TCG-JP-J 購買部版 match as chapter 4 (zones) sees them, one class per kind.

Each event is a frozen pydantic model, past tense, citing the rule of
chapter 4 that produced it, like Harem Master's (``events.harem_master.game``): the base
class and ``ActionTaken`` (a player's action as they asked for it) are the
kernel's and still live there (docs/rulesets.md). Zones are written
``A.site``, ``A.safe``, ``A.euclid``, ``A.keter``, ``A.tale``,
``A.personnel``, ``A.decommissioned``, ``A.outside`` (docs/games/scp-tcg-s4.md).
Stored logs will name these classes ``events.scp_tcg.zones:ClassName``:
never rename or move one without keeping old logs readable.
"""

from __future__ import annotations

from typing import Final, Literal

from events.kernel import Event
from events.names import stored_as
from events.scp_tcg.cards import ScpCard

GAME: Final = "scp-tcg-s4"


class ZonesSetUp(Event):
    """A position written by hand (a scenario's setup): the match's first event.

    ``zones`` hold card ids, piles top first; ``above``/``below`` the cards
    stacked on a site card (401.5), nearest first; ``face_up`` the sandbox
    cards turned face up (402.3); ``face_down`` the personnel cards not yet
    turned face up (404.1a); ``damage`` each sandbox's damage (402.5);
    ``terminated`` the Decommissioned cards that were terminated (405.2a);
    ``classes`` the class an effect gave a sandbox card (402.1c)."""

    game: Literal["scp-tcg-s4"] = GAME
    rule: str = "scenario"
    seed: int = 0
    names: dict[str, str]
    cards: dict[str, ScpCard]
    zones: dict[str, list[str]]
    partners: list[str] = []
    above: dict[str, list[str]] = {}
    below: dict[str, list[str]] = {}
    face_up: list[str] = []
    face_down: list[str] = []
    damage: dict[str, int] = {}
    terminated: list[str] = []
    classes: dict[str, str] = {}
    mode: str = "strict"


class CardMoved(Event):
    """A card left where it was for zone ``to`` (``at`` its top or bottom).

    ``asked`` is the zone the process named when the rules sent the card
    elsewhere, ``redirected_by`` the rules that did (400.2: the owner's zone;
    402.1a/402.1c: the sandbox of its class). ``terminated``: it was
    terminated on the way to Decommissioned (405.2a)."""

    card: str
    to: str
    at: Literal["top", "bottom"] = "top"
    asked: str | None = None
    redirected_by: list[str] = []
    terminated: bool = False
    object_class: str | None = None  # the class an effect gave it, which put it in this sandbox (402.1c)


class CardStayed(Event):
    """A process told a card to go to ``asked``, and the rule (401.4a, 401.4b,
    402.1b, 403.2, 404.1b, 404.2) keeps it where it was."""

    card: str
    asked: str
    reason: str


class CardStacked(Event):
    """401.5: a card left where it was to lie above or below ``host``, a card
    on a site; it is then on the host, not on the site (401.5a)."""

    rule: str = "401.5"
    card: str
    host: str
    side: Literal["above", "below"]


class PlacementPending(Event):
    """Two or more of ``player``'s cards go to their Decommissioned zone at
    once: they leave where they were, and ``player``, their owner, puts them
    there in the order they choose (405.4). ``rule`` is why they go (401.5c,
    405.2, or the process's own rule)."""

    player: str
    cards: list[str]
    terminated: bool = False


class CardsPlaced(Event):
    """405.4: the owner put these arriving cards onto their Decommissioned
    zone, in this order (the last one ends on top)."""

    rule: str = "405.4"
    player: str
    cards: list[str]


class SandboxDamaged(Event):
    """402.5: the sandbox took ``amount`` damage; its protection falls by that."""

    rule: str = "402.5"
    sandbox: str
    amount: int


class ProtectionRaised(Event):
    """A process raised the sandbox's protection; ``amount`` is what it rose
    by, never above the maximum (402.4), so it can be less than asked."""

    rule: str = "402.4"
    sandbox: str
    amount: int
    asked: int


class ProtectionRestored(Event):
    """402.6a: the sandbox's damage is all removed; its protection is its initial value again."""

    rule: str = "402.6a"
    sandbox: str


class SandboxBreached(Event):
    """402.6b: the sandbox is breached (収容違反). What a breach does is rule
    301.2, which is not in chapter 4: the referee records the breach only."""

    rule: str = "402.6b"
    sandbox: str


class SandboxSearched(Event):
    """402.7: ``player``'s process searched the sandbox (what it found moves
    in the events after this one); the sandbox is shuffled once it ends."""

    rule: str = "402.7"
    player: str
    sandbox: str


class SandboxShuffled(Event):
    """402.7: the searched sandbox is shuffled; ``order`` is the result, top
    first, decided from the match seed (replaying never shuffles again)."""

    rule: str = "402.7"
    sandbox: str
    order: list[str]


class TopCardTurned(Event):
    """402.3: the top card of the sandbox turned face up; it stays in the
    sandbox and is not an object on a site."""

    rule: str = "402.3"
    sandbox: str
    card: str


class PersonnelRevealed(Event):
    """404.1a: before the first player's first turn, the personnel card turns face up."""

    rule: str = "404.1a"
    player: str
    card: str


class ZoneLooked(Event):
    """A player looked at a zone's cards: at any Decommissioned zone at any
    time (405.3), at a sandbox only when a process told them to (402.2)."""

    player: str
    zone: str
    instructed: bool = False


class SandboxCounted(Event):
    """402.2: a player counted the cards left in a sandbox, which anyone may do at any time."""

    rule: str = "402.2"
    player: str
    sandbox: str
    count: int


class ZoneReordered(Event):
    """402.2: a process told a player to change a sandbox's order; ``order`` is the new one, top first."""

    rule: str = "402.2"
    player: str
    zone: str
    order: list[str]


stored_as(__name__, "events.scp_tcg.zones")  # as they were first stored (``events.names``)
