"""The facts of a 幻想郷夢紀行 §4 match, one class per kind, each citing the statement of §4 that produced it.

Statements are cited as docs/games/gensokyo-s4.md numbers them (``4-6a``:
section 4-6, its first statement). Zones are written ``deck`` (山札),
``character_deck`` (人妖の山), ``fantasy`` (幻想), and per seat ``A.hand``,
``A.party`` (仲間), ``A.journey`` (旅路: the destination cards a player may
move to) and ``A.items`` (呪品). Stored logs name these classes
``gensokyo-s4:ClassName``: never rename one without keeping old logs readable.
"""

from __future__ import annotations

from typing import Final, Literal

from events.gensokyo.cards import GensokyoCard
from events.kernel import Event
from events.names import stored_as

GAME: Final = "gensokyo-s4"

DrawKind = Literal["活力", "ドロー", "ドローフェイズ"]  # 4-1a, 4-1d
DiscardKind = Literal["疲労", "捨て", "cost"]  # 4-1b, 4-1d, 4-3a/4-4e
UseKind = Literal["travel", "intervention", "ability", "action"]
Question = Literal["cost", "ability_cost", "discard", "choose"]


class TableSetUp(Event):
    """A position written by hand: the match's first event. ``zones`` hold
    card ids, piles top first; ``ki`` each party character's 気力 now;
    ``hand_max`` each player's hand maximum (4-6a); ``cannot`` the kinds of
    draw and discard an effect in force denies a player (4-1d)."""

    game: Literal["gensokyo-s4"] = GAME
    rule: str = "scenario"
    seed: int = 0
    names: dict[str, str]
    cards: dict[str, GensokyoCard]
    zones: dict[str, list[str]]
    ki: dict[str, int] = {}
    hand_max: dict[str, int] = {}
    cannot: dict[str, list[str]] = {}
    mode: str = "strict"


class CardMoved(Event):
    """A process sent a card to zone ``asked``; it went to ``to`` (``at`` its
    top or bottom). ``redirected_by`` is the rule that sent it elsewhere
    (4-7b: a card that is not a character to 幻想; 4-7c: a character to the
    bottom of 人妖の山)."""

    card: str
    to: str
    at: Literal["top", "bottom"] = "top"
    asked: str | None = None
    redirected_by: list[str] = []


class CardDrawn(Event):
    """``player`` drew the top card of 山札: as 活力 (4-1a), a plain draw or
    the draw phase's (4-1d)."""

    player: str
    card: str
    kind: DrawKind


class DrawStopped(Event):
    """``player`` was to draw ``wanted`` cards and drew ``drawn``: the hand
    was at its maximum (4-6a), 山札 was empty (4-6c) or an effect denies
    that kind of draw (4-1d)."""

    player: str
    kind: DrawKind
    wanted: int
    drawn: int


class CardDiscarded(Event):
    """``player`` discarded a card from their hand, as 疲労 (4-1b), a plain
    discard (4-1d) or a hand cost (4-3a, 4-4e); it went to ``to`` (幻想,
    ruling G7; a character to the bottom of 人妖の山, 4-7c)."""

    player: str
    card: str
    kind: DiscardKind
    to: str
    redirected_by: list[str] = []


class DiscardDenied(Event):
    """An effect in force denies ``player`` that kind of discard (4-1d)."""

    rule: str = "4-1d"
    player: str
    kind: DiscardKind
    wanted: int


class EffectUsed(Event):
    """``player`` moved to a destination card (travel), used an intervention
    card or an ability, or took an action (such as setting a 騒動): it waits
    to resolve, on top of whatever waits already (4-5b). ``lines`` are the
    effect lines it will resolve; an intervention card leaves the hand."""

    player: str
    kind: UseKind
    card: str | None = None
    ability: str | None = None
    timing: str | None = None
    text: str = ""
    lines: list[str] = []


class ResolutionBegan(Event):
    """Nobody interrupts (more): the effect on top resolves now (4-5b)."""

    rule: str = "4-5b"
    player: str


class ChoiceAsked(Event):
    """Resolving line ``line``, ``player`` must answer ``question``: pay or
    decline a hand cost (4-3b), pick the cards an ability's hand cost
    discards (4-4e), pick ``n`` cards to discard (4-1b) or the character a
    recovery goes to."""

    player: str
    question: Question
    line: int
    n: int = 0


class CostPaid(Event):
    """``player`` paid line ``line``'s hand cost (the discards precede this), or an ability's costs."""

    player: str
    line: int


class LineSkipped(Event):
    """Line ``line`` has no effect: its attributes are not met (4-2b, 4-2c,
    4-2e), its hand cost was declined or cannot be paid (4-3b), or it finds
    nothing to act on; ``reason`` says which."""

    line: int
    reason: str


class LineApplied(Event):
    """Line ``line`` has taken effect; ``abstract``: its effect is one whose
    workings are outside §4, recorded as applied (ruling G3)."""

    line: int
    abstract: bool = False


class KiPaid(Event):
    """4-4e: ``card`` paid ``amount`` 気力 for its ability (to exactly 0 at most, 4-4f)."""

    rule: str = "4-4e"
    card: str
    amount: int


class KiRecovered(Event):
    """``card`` recovered ``amount`` 気力 (never above its printed 気力, ruling G13)."""

    card: str
    amount: int
    asked: int


class EffectResolved(Event):
    """The effect on top has resolved; the one below it, if any, waits again (4-5d)."""

    rule: str = "4-5b"
    player: str


class EffectNotResolved(Event):
    """The effect on top is not resolved: its user left the field or its
    costs can no longer be paid (4-5e), or the player who took the action
    dropped out (4-5f)."""

    player: str
    reason: str


class PlayerEliminated(Event):
    """``player`` dropped out (脱落), as a rule outside §4 decided; §4 says
    only what that does to their action waiting to resolve (4-5f)."""

    rule: str = "4-5f"
    player: str


stored_as(__name__, GAME)  # a new game's classes are stored under its id (``events.names``)
