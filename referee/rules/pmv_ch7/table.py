"""What the table enters on behalf of the chapters the referee does not have, and 7.2, the played card's text.

Chapter 7 reacts to things other chapters do: a condition comes to hold or
stops holding (``happen``), a card comes onto the field or leaves it
(``move``), the turn passes (``pass_turn``), priority moves (``priority``),
a card's play resolves (``play``, 7.2.1). The table enters them, and the
referee records them and applies chapter 7 to what follows (an α that
comes to apply, a γ whose condition is met, an effect used whose card left
the field). Who enters which (ruling:P11): a condition and the turn, the
turn player; a card's move and its play, its owner; priority, the player
who gets it. A condition is one the position names somewhere (its
conditions, or any card's text), or one of the prohibitions
``cannot-use:SEAT`` (7.1.8.a) and ``cannot-activate:SEAT`` (7.3.7).
"""

from __future__ import annotations

from events.kernel import Event
from events.pmv_ch7.effects import (
    CardsMoved,
    ConditionCleared,
    ConditionSet,
    PriorityGiven,
    ResolutionBegan,
    TurnPassed,
)
from projections.pmv_ch7.state import SEATS, Table, effects_of, other, ref, walk, zone_of
from referee.moves import ArgSpec, Context
from referee.rules.pmv_ch7.common import MOVES, OUTSIDE, Action, refuse
from referee.rules.pmv_ch7.resolution import as_used_met

RESERVED = tuple(f"{word}:{seat}" for word in ("cannot-use", "cannot-activate") for seat in SEATS)


def named_conditions(state: Table) -> list[str]:
    """Every condition the position names: its own, every card's text's, and the prohibitions."""
    found: dict[str, None] = dict.fromkeys(sorted(state.conditions))
    for cd in state.cards.values():
        for _, e in effects_of(cd):
            words = list(e.needs) + list(e.when)
            for clauses in (e.text, e.cost, *e.modes):
                for c in walk(clauses):
                    words += list(c.needs) + list(c.when) + list(c.until or ())
                    if c.does in ("set", "clear") and c.word:
                        words.append(c.word)
            for w in words:
                w = w[4:] if w.startswith("not ") else w
                if not w.startswith(("field:", "declared:")):
                    found[w] = None
    found.update(dict.fromkeys(RESERVED))
    return list(found)


def _happens(state: Table, player: str, ctx: Context) -> list[Action]:
    if player != state.turn:
        return []
    return [
        Action(player, "happen", condition=c)
        if c not in state.conditions
        else Action(player, "happen", condition=c, holds=False)
        for c in named_conditions(state)
    ]


@MOVES.move(
    "happen",
    OUTSIDE,
    args=(
        ArgSpec("condition", "choice", True, help="a named condition of the position"),
        ArgSpec("holds", "flag", help="false: it stops holding (default: it comes to hold)"),
    ),
    help="another chapter's process: a named condition comes to hold, or stops holding (ruling:P11)",
    candidates=_happens,
)
def happen(state: Table, a: Action, ctx: Context) -> list[Event]:
    """A condition changes by another chapter's process."""
    if a.player != state.turn:
        raise refuse(OUTSIDE, f"What other chapters do is entered as the turn player's, {state.turn}'s (ruling:P11).")
    condition = a.condition or ""
    if condition.startswith(("not ", "field:", "declared:")):
        raise refuse(OUTSIDE, f"{condition!r} is not a condition that is set: name it without 'not', or move the card.")
    if condition not in named_conditions(state):
        raise refuse(
            OUTSIDE, f"No card or position names the condition {condition!r}: it changes nothing chapter 7 decides."
        )
    if a.holds is False:
        if condition not in state.conditions:
            raise refuse(OUTSIDE, f"{condition} does not hold (or holds only while an effect makes it hold).")
        return [ConditionCleared.trusted(rule=OUTSIDE, condition=condition)]
    if condition in state.conditions:
        raise refuse(OUTSIDE, f"{condition} holds already.")
    return [ConditionSet.trusted(rule=OUTSIDE, condition=condition)]


def _moves(state: Table, player: str, ctx: Context) -> list[Action]:
    out = []
    for cd in state.cards.values():
        if cd.owner == player:
            place = "elsewhere" if (zone_of(state, cd.name) or "").endswith(".field") else "field"
            out.append(Action(player, "move", cd.name, to=place))
    return out


@MOVES.move(
    "move",
    OUTSIDE,
    args=(
        ArgSpec("card", "card", True, help="the card"),
        ArgSpec("to", "choice", True, ("field", "elsewhere"), help="onto the field, or off it"),
    ),
    help="another chapter's process: a card comes onto the field or leaves it (ruling:P11)",
    candidates=_moves,
)
def move(state: Table, a: Action, ctx: Context) -> list[Event]:
    if a.card not in state.cards:
        raise refuse(OUTSIDE, f"There is no card {a.card!r} in this position.")
    owner = state.cards[a.card].owner
    if a.player != owner:
        raise refuse(OUTSIDE, f"{a.card} is {owner}'s: its moves are entered as {owner}'s (ruling:P11).")
    if a.to not in ("field", "elsewhere"):
        raise refuse(OUTSIDE, "A card goes to the field or elsewhere.")
    if (zone_of(state, a.card) or "").endswith("." + a.to):
        raise refuse(OUTSIDE, f"{a.card} is {'on the field' if a.to == 'field' else 'elsewhere'} already.")
    return [CardsMoved.trusted(rule=OUTSIDE, cards=[a.card], to=a.to)]


def _passes(state: Table, player: str, ctx: Context) -> list[Action]:
    return [Action(player, "pass_turn")] if player == state.turn else []


@MOVES.move(
    "pass_turn", OUTSIDE, help="another chapter's process: the turn passes to the other player", candidates=_passes
)
def pass_turn(state: Table, a: Action, ctx: Context) -> list[Event]:
    if a.player != state.turn:
        raise refuse(OUTSIDE, f"It is {state.turn}'s turn: only the turn player's turn passes.")
    return [TurnPassed.trusted(rule=OUTSIDE, to=other(state.turn))]


def _gets(state: Table, player: str, ctx: Context) -> list[Action]:
    return [Action(player, "priority")] if player != state.priority else []


@MOVES.move(
    "priority",
    OUTSIDE,
    help="another chapter's process: the player gets priority (chapter 7 moves it only in 7.3.4.f)",
    candidates=_gets,
)
def priority(state: Table, a: Action, ctx: Context) -> list[Event]:
    if a.player == state.priority:
        raise refuse(OUTSIDE, f"{a.player} holds priority already.")
    return [PriorityGiven.trusted(rule=OUTSIDE, to=a.player)]


# --- 7.2: the text applied when a card's play resolves ----------------------------------------


def _plays(state: Table, player: str, ctx: Context) -> list[Action]:
    out = []
    for cd in state.cards.values():
        if cd.owner == player and cd.play is not None:
            modes = range(1, len(cd.play.modes) + 1) if cd.play.modes else (None,)
            out += [Action(player, "play", cd.name, mode=m) for m in modes]
    return out


@MOVES.move(
    "play",
    "7.2.1",
    args=(
        ArgSpec("card", "card", True, help="the card whose play resolves"),
        ArgSpec("mode", "count", help="which of its effects resolves, for a text that has several (7.1.15)"),
    ),
    help="a card's play resolves: the text applied then, its effects of other kinds left out (7.2.1, 7.2.1.a)",
    candidates=_plays,
)
def play(state: Table, a: Action, ctx: Context) -> list[Event]:
    """7.2.1: the played card's effect is the text applied when its play
    resolves (7.1.2), and only that (7.2.1.a). How a card is played is
    another chapter's: the table enters that its play resolves; the card
    stays where it is (ruling:P11). What it applies to another card is not
    that card's effect (7.2.1.c): a lasting effect stays apart from it."""
    if a.card not in state.cards:
        raise refuse(OUTSIDE, f"There is no card {a.card!r} in this position.")
    cd = state.cards[a.card]
    if a.player != cd.owner:
        raise refuse("7.2.1", f"{a.card} is {cd.owner}'s: its play is theirs (ruling:P11).")
    if cd.play is None:
        raise refuse(
            "7.2.1",
            f"{a.card} has no text applied when its play resolves (7.1.2): all its text is effects of other kinds.",
        )
    effect = cd.play
    if effect.modes and (a.mode is None or not 1 <= a.mode <= len(effect.modes)):
        raise refuse(
            "7.1.15",
            f"{a.card}'s text has {len(effect.modes)} effects: choose which resolves (mode 1 to {len(effect.modes)}).",
        )
    if not effect.modes and a.mode is not None:
        raise refuse("7.1.15", f"{a.card}'s text has one effect: there is no mode to choose.")
    text = effect.modes[a.mode - 1] if effect.modes and a.mode else effect.text
    return [
        ResolutionBegan.trusted(
            rule="7.2.1",
            kind="play",
            effect=ref(a.card, "play"),
            source=a.card,
            player=a.player,
            mode=a.mode,
            met=as_used_met(state, text),
        )
    ]
