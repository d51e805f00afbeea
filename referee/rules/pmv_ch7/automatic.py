"""7.4, automatic effects: α and β applying while their conditions hold, γ resolved when theirs are met, and those applied at will.

An automatic effect's text opens (自動α), (自動β) or (自動γ) (7.1.4, 7.4.2,
7.4.3) and applies when its condition is met (7.4.1):

- **α** (7.4.5) applies while its card is on the field and its condition
  holds, from the moment it does, even in the middle of another effect's
  resolution, and stops the moment it does not (7.4.5.a-d). Several
  starting at once apply in the order their cards came onto the field
  (7.4.5.e). An optional α's player chooses, when its condition is met,
  whether it applies; the choice stands until the condition is met again
  (7.4.5.f).
- **β** (7.4.6) the same, wherever its card is (7.4.6.a).
- **γ** (7.4.7) is resolved once when its condition comes to hold while
  its card is on the field: at once if no effect is being resolved, else
  once that effect has ended (7.4.7.a-c); not at all if by then its
  condition no longer holds or its card has left the field (7.4.7.d).

α and β texts are continuous in the notation: what they set holds, and what
they add counts, while they apply (ruling:P7). These are the rules' checks,
run after every step (``engine``), one change at a time. An automatic
effect a player may apply at will (7.4.4) is the ``apply`` move.
"""

from __future__ import annotations

from collections.abc import Iterator

from events.kernel import Event
from events.pmv_ch7.cards import Effect
from events.pmv_ch7.effects import (
    AutoApplied,
    AutoChoiceAsked,
    AutoChoiceMade,
    AutoChoiceReleased,
    AutoLapsed,
    EffectApplied,
    GammaTriggered,
    GammaWatched,
    ResolutionBegan,
)
from projections.pmv_ch7.state import Table, effects_of, field_order, holds_all, on_field, parse_ref
from referee.moves import ArgSpec, Context
from referee.rules.pmv_ch7.activated import forbidden, named_effect
from referee.rules.pmv_ch7.common import MOVES, Action, refuse
from referee.rules.pmv_ch7.resolution import as_used_met


def autos(state: Table, opens: tuple[str, ...]) -> Iterator[tuple[str, Effect]]:
    """Every automatic effect opening so (but those applied at will, 7.4.4):
    on the field first, in the order the cards came onto it (7.4.5.e), then
    the other cards in the position's order."""
    first = field_order(state)
    for card in first + [c for c in state.cards if c not in first]:
        for label, e in effects_of(state.cards[card]):
            if e.opens in opens and not e.at_will:
                yield label, e


def _why_not(state: Table, label: str, e: Effect) -> tuple[str, str] | None:
    """Why an α or β does not apply now (the rule, and the reason), None if it does."""
    card = parse_ref(label)[0]
    if card in state.invalid:
        return ("7.4.1", f"{card}'s text is invalid")
    if e.opens == "alpha" and not on_field(state, card):
        return ("7.4.5.a", f"{card} is not on the field")
    if not holds_all(state, e.when):
        rule = "7.4.5.d" if e.opens == "alpha" else "7.4.6.d"
        return (rule, " and ".join(e.when) + (" does not hold" if len(e.when) == 1 else " do not hold"))
    return None


def transition(state: Table) -> list[Event] | None:
    """The first α or β whose application changes now (7.4.5.c-f, 7.4.6.b-d), if any."""
    for label, e in autos(state, ("alpha", "beta")):
        why = _why_not(state, label, e)
        applying = label in state.applying
        if why is not None:
            if applying:
                return [AutoLapsed.trusted(rule=why[0], effect=label, reason=why[1])]
            if label in state.chosen:
                return [AutoChoiceReleased.trusted(rule="7.4.5.f", effect=label)]
            continue
        if applying or label in state.chosen:
            continue  # applying, or its player chose it does not, until its condition is met again (7.4.5.f)
        if e.optional and e.opens == "alpha":
            owner = state.cards[parse_ref(label)[0]].owner
            return [AutoChoiceAsked.trusted(rule="7.4.5.f", effect=label, player=owner)]
        return [AutoApplied.trusted(rule="7.4.5.c" if e.opens == "alpha" else "7.4.6.c", effect=label)]
    return None


def gammas(state: Table) -> list[str]:
    """The γ effects whose conditions hold now (their cards' texts valid)."""
    return [
        label
        for label, e in autos(state, ("gamma",))
        if parse_ref(label)[0] not in state.invalid and holds_all(state, e.when)
    ]


def gamma_check(state: Table) -> list[Event] | None:
    """7.4.7.a-c: the γ effects whose conditions have just been met while
    their cards are on the field, all met at once in one batch; the first
    look at a position (recorded, even when nothing holds) sees what holds
    there, which meets nothing (ruling:P9): a γ whose condition holds in the
    position waits for it to stop holding and come to hold again."""
    any_gamma = any(True for _ in autos(state, ("gamma",)))
    if not any_gamma:
        return None
    now = gammas(state)
    if state.held is None:
        return [GammaWatched.trusted(rule="7.4.7.b", ruling="P9", held=now)]
    met = [g for g in now if g not in state.held and on_field(state, parse_ref(g)[0])]
    if met:
        return [GammaTriggered.trusted(rule="7.4.7.c", effects=met, held=now)]
    if set(now) != state.held:
        return [GammaWatched.trusted(rule="7.4.7.b", ruling="P9", held=now)]
    return None


# --- the moves ------------------------------------------------------------------------------


def _chooses(state: Table, player: str, ctx: Context) -> list[Action]:
    if state.asking is None or state.cards[parse_ref(state.asking)[0]].owner != player:
        return []
    return [Action(player, "choose", apply=True), Action(player, "choose", apply=False)]


@MOVES.move(
    "choose",
    "7.4.5.f",
    args=(
        ArgSpec(
            "apply", "flag", True, help="true: the α applies; false: it does not, until its condition is met again"
        ),
    ),
    help="choose whether an optional automatic α applies, when its condition is met (7.4.5.f)",
    candidates=_chooses,
)
def choose(state: Table, a: Action, ctx: Context) -> list[Event]:
    """7.4.5.f: the choice made when the condition is met."""
    if state.asking is None or a.player is None:
        raise refuse("7.4.5.f", "No optional α is waiting for its player's choice.")
    made: list[Event] = [
        AutoChoiceMade.trusted(rule="7.4.5.f", effect=state.asking, player=a.player, apply=bool(a.apply))
    ]
    if a.apply:
        made.append(AutoApplied.trusted(rule="7.4.5.c", effect=state.asking))
    return made


def choice_locked(state: Table, a: Action) -> None:
    """7.4.5.f: a choice already made stands until the condition is met again."""
    locked = [k for k in state.chosen]
    if locked:
        said = ", ".join(f"{k} {'applies' if state.chosen[k] else 'does not apply'}" for k in locked)
        raise refuse(
            "7.4.5.f",
            f"The choice made when the condition was met stands until it is met again ({said}): it cannot be changed now.",
        )
    raise refuse("7.4.5.f", "No optional α is waiting for its player's choice.")


def _applies(state: Table, player: str, ctx: Context) -> list[Action]:
    out = []
    for cd in state.cards.values():
        if cd.owner == player:
            out += [
                Action(player, "apply", cd.name, i)
                for i, e in enumerate(cd.effects, start=1)
                if e.kind == "automatic" and e.at_will
            ]
    return out


@MOVES.move(
    "apply",
    "7.4.4",
    args=(
        ArgSpec("card", "card", True, help="the card whose automatic effect you apply"),
        ArgSpec("effect", "count", True, help="which of its effects, from 1"),
    ),
    help="apply an automatic effect you may apply at will, holding priority with no interference (7.4.4)",
    candidates=_applies,
)
def apply(state: Table, a: Action, ctx: Context) -> list[Event]:
    """7.4.4: an automatic effect applied at will ("してもよい"), not prompted
    by another card's effect: only by the player holding priority, with no
    interference under way; priority does not move."""
    forbidden(state, a.player, "apply an effect at will")
    effect = named_effect(state, a)
    found = state.cards[a.card or ""].effects[(a.effect or 1) - 1]
    if found.kind != "automatic" or not found.at_will:
        raise refuse("7.4.4", f"{effect} is not an automatic effect its player may apply at will.")
    if state.cards[a.card or ""].owner != a.player:
        raise refuse("7.4.4", f"{effect} is {state.cards[a.card or ''].owner}'s effect.")
    if state.priority != a.player:
        raise refuse("7.4.4", f"{a.player} does not hold priority ({state.priority} does).")
    if state.interference is not None:
        raise refuse("7.4.4", "An interference is under way: an effect is applied at will only when there is none.")
    if a.card in state.invalid:
        raise refuse("7.4.4", f"{a.card}'s text is invalid.")
    if found.opens != "beta" and not on_field(state, a.card or ""):
        rule = "7.4.5.a" if found.opens == "alpha" else "7.4.7.a"
        raise refuse(rule, f"{a.card} is not on the field.")
    if not holds_all(state, found.when):
        rule = {"alpha": "7.4.5.b", "beta": "7.4.6.b", "gamma": "7.4.7.b"}[found.opens]
        raise refuse(rule, f"{effect} applies only when {' and '.join(found.when)}.")
    return [
        EffectApplied.trusted(rule="7.4.4", player=a.player, effect=effect),
        ResolutionBegan.trusted(
            rule="7.4.4",
            kind="at_will",
            effect=effect,
            source=a.card,
            player=a.player,
            met=as_used_met(state, found.text),
        ),
    ]
