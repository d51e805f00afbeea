"""7.1, the principles: effects resolved one at a time, each clause by clause from the head, and how a resolution ends.

An effect being resolved is a frame (``projections.pmv_ch7.state.Frame``):
one automatic step applies its next clause (7.1.9), so that between two
clauses the rules can interrupt it with what its application set off
(7.1.10: an α or β that comes to apply, a waiting effect whose situation
came) and resume it after. A clause that cannot be applied as it says
stops the text there (7.1.12): the effect fails, what was applied stays
(7.1.12.a), unless the text says what to do then (7.1.12.b). A clause over
several cards applies to them at once (7.1.13), and one over "all" of them
counts as applied even where it missed some (7.1.12.e). Effects that wait
to resolve at the same timing are resolved one at a time (7.1.6), each
player choosing the order of their own, the turn player first (7.1.6.a,
7.1.17).
"""

from __future__ import annotations

from typing import NamedTuple

from events.kernel import Event
from events.pmv_ch7.cards import Clause
from events.pmv_ch7.effects import (
    AsUsedBegan,
    CardsMoved,
    ClauseApplied,
    ClauseFailed,
    ConditionCleared,
    ConditionSet,
    EffectNullified,
    EffectPicked,
    FallbackBegan,
    GammaSkipped,
    LastingBegan,
    LastingEnded,
    PointsPaid,
    ResolutionBegan,
    ResolutionEnded,
    TextInvalidated,
    TextRewritten,
    ValueAdded,
    WaitingBegan,
    WaitingTriggered,
)
from projections.pmv_ch7.state import (
    Frame,
    Table,
    effect_of,
    holds,
    holds_all,
    on_field,
    parse_ref,
    ready_index,
    targets,
    text_key,
    unordered,
    zone_of,
)
from referee.moves import ArgSpec, Context
from referee.rules.pmv_ch7.common import MOVES, Action, refuse


class Performed(NamedTuple):
    """What applying one clause did: its events, the cards it could not
    apply to, and why it cannot be applied as it says (None: it can)."""

    events: list[Event]
    missed: list[str]
    reason: str | None


def _not_holding(state: Table, conditions: tuple[str, ...], frame: Frame | None) -> str | None:
    missing = [c for c in conditions if not holds(state, c, frame)]
    return " and ".join(missing) + (" does not hold" if len(missing) == 1 else " do not hold") if missing else None


def perform(state: Table, clause: Clause, source: str, player: str, frame: Frame | None, rule: str) -> Performed:
    """Apply ``clause`` of an effect of ``source`` (``self``), ``player``'s,
    being resolved in ``frame`` (None: a cost being paid). The notation's
    rulings (docs/rulings.md, P2-P5) say when each kind cannot apply."""
    reason = _not_holding(state, clause.needs, frame)
    if reason is not None:
        return Performed([], [], reason)
    effect = frame.effect if frame is not None else ""
    if clause.until is not None and clause.does in ("set", "add"):
        cards = [c for c in targets(clause, source) if on_field(state, c)] if clause.does == "add" else []
        missed = [c for c in targets(clause, source) if c not in cards] if clause.does == "add" else []
        found = effect_of(state, effect) if "#" in effect else None
        key = text_key(found) if found is not None else effect
        kept = clause.model_copy(update={"until": clause.until, "n": _amount(clause, frame), "paid": False})
        began = LastingBegan.trusted(
            rule="7.1.16",
            id=f"l{state.ids + 1}",
            effect=effect,
            clause=kept,
            cards=cards,
            key=key,
            unique=found.unique if found is not None else False,
        )
        return _missing(Performed([began], missed, None), clause)
    if clause.does == "set":
        return Performed([ConditionSet.trusted(rule=rule, condition=clause.word)], [], None)
    if clause.does == "clear":
        if clause.word not in state.conditions:
            why = (
                "it holds only while an effect makes it hold" if holds(state, clause.word or "") else "it does not hold"
            )
            return Performed([], [], f"{clause.word} cannot be cleared: {why}")
        return Performed([ConditionCleared.trusted(rule=rule, condition=clause.word)], [], None)
    if clause.does == "add":
        named = targets(clause, source)
        cards = [c for c in named if on_field(state, c)]
        missed = [c for c in named if c not in cards]
        n = _amount(clause, frame)
        events: list[Event] = []
        if cards:
            events.append(
                ValueAdded.trusted(rule="7.1.13" if len(cards) > 1 else rule, cards=cards, value=clause.word, n=n)
            )
        return _missing(Performed(events, missed, None), clause)
    if clause.does == "move":
        named = targets(clause, source)
        cards = [
            c for c in named if c in state.cards and not (zone_of(state, c) or "").endswith("." + (clause.to or ""))
        ]
        missed = [c for c in named if c not in cards]
        events = []
        if cards:
            events.append(CardsMoved.trusted(rule="7.1.13" if len(cards) > 1 else rule, cards=cards, to=clause.to))
        return _missing(Performed(events, missed, None), clause, "already there")
    if clause.does == "pay":
        n = clause.n or 0
        have = state.points.get(player, 0)
        if have < n:
            return Performed([], [], f"{player} has {have} point{'s' if have != 1 else ''}, not {n}")
        return Performed([PointsPaid.trusted(rule=rule, player=player, n=n)], [], None)
    if clause.does == "act":
        return Performed([], [], None)
    if clause.does == "invalidate":
        return Performed([TextInvalidated.trusted(rule=rule, cards=targets(clause, source))], [], None)
    if clause.does == "rewrite":
        return Performed([TextRewritten.trusted(rule="7.1.12.d", effect=clause.ref, text=list(clause.text))], [], None)
    if clause.does == "wait":
        waits = WaitingBegan.trusted(
            rule="7.8.1",
            id=f"w{state.ids + 1}",
            effect=effect,
            player=player,
            when=list(clause.when),
            text=list(clause.text),
        )
        return Performed([waits], [], None)
    # nullify and as_used are the resolution's own (``step``): a cost never holds them (ruling:P2)
    return Performed([], [], f"{clause.does} cannot be paid as a cost")


def _amount(clause: Clause, frame: Frame | None) -> int:
    """How much an ``add`` adds: its ``n`` (1 if none), or the points paid for
    the effect (``n: paid``; 0 for an effect resolved as if used, 7.5.1.c)."""
    if clause.paid:
        return frame.paid if frame is not None else 0
    return clause.n if clause.n is not None else 1


def _missing(done: Performed, clause: Clause, why: str = "not on the field") -> Performed:
    """A clause over several cards that missed some: applied to the others at
    once (7.1.13); not applied as it says (7.1.12), unless it is over "all"
    of them (7.1.12.e)."""
    if not done.missed or clause.all:
        return done
    return Performed(done.events, done.missed, f"{', '.join(done.missed)}: {why}")


def as_used_met(state: Table, clauses: tuple[Clause, ...], frame: Frame | None = None) -> list[bool]:
    """For each clause, whether the effect it resolves as if used has its
    conditions of use met now (7.5.1.b: judged when the effect holding the
    clause is played or used); True for every other clause."""
    out = []
    for c in clauses:
        found = effect_of(state, c.ref) if c.does == "as_used" and c.ref else None
        out.append(found is None or holds_all(state, found.needs, frame))
    return out


# --- one step of the effect being resolved ---------------------------------------------


def step(state: Table) -> list[Event]:
    """The next step of the innermost effect being resolved: its next clause
    (7.1.9), or how it ends (7.1.11, 7.1.12)."""
    frame = state.frames[-1]
    depth = len(state.frames) - 1
    if frame.nullified:
        return [ResolutionEnded.trusted(rule="7.1.12.c", effect=frame.effect, outcome="failure")]
    if frame.pc >= len(frame.clauses):
        rule = "7.1.12.b" if frame.fallback else "7.1.12.e" if frame.missed else "7.1.11"
        return [ResolutionEnded.trusted(rule=rule, effect=frame.effect, outcome="success")]
    clause = frame.clauses[frame.pc]
    if frame.sub is not None:  # an effect resolved as if used from this clause has ended (7.5.3)
        if frame.sub == "success":
            return [ClauseApplied.trusted(rule="7.5.3", effect=frame.effect, index=frame.pc)]
        return _failed(frame, f"{clause.ref}, resolved as if used, failed", "7.5.3")
    if clause.does == "nullify":
        reason = _not_holding(state, clause.needs, frame)
        if reason is not None:
            return _failed(frame, reason)
        # The effect being resolved: the one a waiting effect interrupted (7.1.10), else this one.
        target = depth - 1 if frame.kind == "waiting" and depth > 0 else depth
        nullified = EffectNullified.trusted(rule="7.1.12.c", effect=state.frames[target].effect, depth=target)
        return [nullified, ClauseApplied.trusted(rule="7.1.9", effect=frame.effect, index=frame.pc)]
    if clause.does == "as_used":
        return _as_used(state, frame, clause)
    done = perform(state, clause, frame.source, frame.player, frame, "7.1.9")
    if done.reason is None:
        rule = "7.1.12.e" if done.missed else "7.1.9"
        return [*done.events, ClauseApplied.trusted(rule=rule, effect=frame.effect, index=frame.pc, missed=done.missed)]
    return done.events + _failed(frame, done.reason, missed=done.missed)


def _failed(frame: Frame, reason: str, rule: str = "7.1.12", missed: list[str] | None = None) -> list[Event]:
    """A clause that cannot be applied as it says: the text after it is not
    applied (7.1.12); what the text says to do instead is (7.1.12.b), else
    the effect fails, what was applied staying (7.1.12.a)."""
    clause = frame.clauses[frame.pc]
    out: list[Event] = [
        ClauseFailed.trusted(rule=rule, effect=frame.effect, index=frame.pc, reason=reason, missed=missed or [])
    ]
    if clause.otherwise:
        out.append(FallbackBegan.trusted(rule="7.1.12.b", effect=frame.effect))
    else:
        out.append(ResolutionEnded.trusted(rule="7.1.12.a", effect=frame.effect, outcome="failure"))
    return out


def _as_used(state: Table, frame: Frame, clause: Clause) -> list[Event]:
    """7.5: resolve an effect as if it had been used: the conditions this
    clause names (7.5.1.a), the effect's own conditions of use, met when the
    effect holding the clause was played or used (7.5.1.b), then, by the
    procedure of 7.5.2, that effect resolves in the usual way with nothing
    paid (7.5.1.c, 7.5.2.d), its
    source the card that has it (7.5.4)."""
    reason = _not_holding(state, clause.needs, frame)
    if reason is not None:
        return _failed(frame, reason, "7.5.1.a")
    met = frame.met[frame.pc] if frame.pc < len(frame.met) and not frame.fallback else as_used_met(state, (clause,))[0]
    if not met:
        return _failed(frame, f"the conditions of {clause.ref} were not met when {frame.effect} was used", "7.5.1.b")
    assert clause.ref is not None  # the position reader requires it of an "as if used" clause
    card = parse_ref(clause.ref)[0]
    found = effect_of(state, clause.ref)
    clauses = (found.modes[clause.mode - 1] if found.modes and clause.mode else found.text) if found else ()
    return [
        AsUsedBegan.trusted(rule="7.5.1", effect=clause.ref, by=frame.effect),
        ResolutionBegan.trusted(
            rule="7.5.2.d",
            kind="as_used",
            effect=clause.ref,
            source=card,
            player=frame.player,
            mode=clause.mode,
            declared=clause.declare,
            paid=0,
            met=as_used_met(state, tuple(clauses)),
        ),
    ]


# --- lasting and waiting effects (7.1.16, 7.8) ---------------------------------------------


def lasting_ends(state: Table) -> list[Event] | None:
    """A lasting effect ends when what it lasts until holds (7.1.16)."""
    for x in state.lasting:
        if x.clause.until and holds_all(state, x.clause.until):
            return [LastingEnded.trusted(rule="7.1.16", id=x.id)]
    return None


def waiting_come(state: Table) -> list[Event] | None:
    """7.8.1: the waiting effects whose situation has come (a played card's
    part applied on a condition among them, 7.2.1.b), processed at once (7.1.10)."""
    queued = {x.label for b in state.pending for p in b.parts for x in p.chosen + p.rest}
    ready = [w.id for w in state.waiting if w.id not in queued and holds_all(state, w.when)]
    return [WaitingTriggered.trusted(rule="7.8.1", ids=ready)] if ready else None


# --- effects waiting to resolve at the same timing (7.1.6, 7.1.6.a, 7.1.17) --------------


def begin_next(state: Table) -> list[Event] | None:
    """The next effect of the batch that may be resolved now, once every
    player has chosen the order of theirs: None while one must choose."""
    i = ready_index(state)
    if i is None:
        return None
    batch = state.pending[i]
    if unordered(batch) is not None:
        return None
    item = batch.parts[0].chosen[0]
    if batch.kind == "waiting":
        found = next((w for w in state.waiting if w.id == item.label), None)
        source = parse_ref(found.effect)[0] if found is not None else ""
        clauses = found.text if found is not None else ()
        return [
            ResolutionBegan.trusted(
                rule="7.8.1",
                kind="waiting",
                effect=item.label,
                source=source,
                player=item.player,
                met=as_used_met(state, clauses),
            )
        ]
    card = parse_ref(item.label)[0]
    found_effect = effect_of(state, item.label)
    when = found_effect.when if found_effect is not None else ()
    if not on_field(state, card):
        return [GammaSkipped.trusted(rule="7.4.7.d", effect=item.label, reason=f"{card} has left the field")]
    if card in state.invalid:
        return [
            GammaSkipped.trusted(rule="7.4.7.d", ruling="P6", effect=item.label, reason=f"{card}'s text is invalid")
        ]
    if not holds_all(state, when):
        why = " and ".join(when) + " no longer " + ("holds" if len(when) == 1 else "hold")
        return [GammaSkipped.trusted(rule="7.4.7.d", effect=item.label, reason=why)]
    clauses = found_effect.text if found_effect is not None else ()
    return [
        ResolutionBegan.trusted(
            rule="7.4.7.c",
            kind="gamma",
            effect=item.label,
            source=card,
            player=item.player,
            met=as_used_met(state, clauses),
        )
    ]


def order_rule(state: Table) -> str:
    """7.1.6.a for effects resolved at the same timing (γ); 7.1.17 for
    processes applied at once with no order of their own (waiting effects)."""
    i = ready_index(state)
    return "7.1.17" if i is not None and state.pending[i].kind == "waiting" else "7.1.6.a"


def choosing(state: Table) -> tuple[str, list[str]] | None:
    """Who chooses which of their effects resolves next, and among which
    (the turn player first, 7.1.6.a); None when nobody must."""
    i = ready_index(state)
    if i is None:
        return None
    part = unordered(state.pending[i])
    return (part.player, [x.label for x in part.rest]) if part is not None else None


def _picks(state: Table, player: str, ctx: Context) -> list[Action]:
    found = choosing(state)
    if found is None or found[0] != player:
        return []
    return [Action(player, "order", first=label) for label in found[1]]


@MOVES.move(
    "order",
    "7.1.6.a",
    args=(
        ArgSpec(
            "first", "choice", True, help="the effect to resolve next of those left (CARD#N or a waiting effect's id)"
        ),
    ),
    help="choose which of your effects waiting at the same timing resolves next (7.1.6.a, 7.1.17)",
    candidates=_picks,
)
def order(state: Table, a: Action, ctx: Context) -> list[Event]:
    """7.1.6.a, 7.1.17: the player whose effects wait at the same timing
    chooses their order, one effect at a time, the turn player first."""
    found = choosing(state)
    rule = order_rule(state)
    if found is None or found[0] != a.player:
        raise refuse(rule, "No effects of yours are waiting for you to choose their order.")
    if a.first not in found[1]:
        raise refuse(rule, f"Choose one of your effects waiting to resolve: {', '.join(found[1])}; not {a.first!r}.")
    return [EffectPicked.trusted(rule=rule, player=a.player, effect=a.first)]
