"""Rule 306.5: battle, from the attack declaration (306.5a) to its end (306.5o)."""

from __future__ import annotations

from events.harem_master.game import (
    AttackDeclared,
    AttackerChosen,
    BattleInterrupted,
    BattleResolved,
    BattleTypeSet,
    CardMilled,
    CastleAttacked,
    CharacterCaptured,
    InterceptionDeclined,
    InterceptorChosen,
    RandomNumberApplied,
    StepPerformed,
    WindowOpened,
)
from events.kernel import Event, Rewound
from projections.harem_master.state import Battle, GameState, other
from referee.actions import IllegalAction
from referee.rules.harem_master.abilities import battle_type_usable, forbidden
from referee.rules.harem_master.actions import Action, Seated
from referee.rules.harem_master.agenda import moment, pipeline, propose_moment
from referee.rules.harem_master.characteristics import (
    chars,
    gender,
    has_text,
    identity,
    mental as mental_of,
    physical as physical_of,
)
from referee.rules.harem_master.common import name_of, physical, refuse
from referee.rules.harem_master.effects import ends
from referee.rules.harem_master.hidden import reveal_decision
from referee.rules.harem_master.registry import (
    ACTIONS,
    CARD,
    Candidates,
    Context,
    Decision,
    Events,
    decision_kind,
    only,
    step,
)
from referee.rules.harem_master.situations import Sit


def _own_characters(do: str, tapped_rule: str) -> Candidates:
    """Each character ``p`` controls, untapped unless ``tapped_rule`` is
    waived (``_combatant`` refuses a tapped one whatever else holds)."""

    def candidates(state: GameState, p: str, ctx: Context) -> list[Action]:
        tapped_too = tapped_rule in ctx.waive
        return [Action(p, do, card=ch.card) for ch in state.field if ch.controller == p and (ch.ready or tapped_too)]

    return candidates


@ACTIONS.move(
    "attack",
    "306.5a",
    args=(CARD,),
    card_from="own_field",
    missing_rule="306.5b",
    candidates=_own_characters("attack", "306.5b"),
    side="active",
    side_rule="306.5a",
    side_text="Only the active player can declare an attack.",
    help="declare an attack with an untapped character you control (306.5b)",
)
def declare_attack(state: GameState, a: Action, ctx: Context) -> Events:
    """306.5a-b: declare an attack and choose an untapped character, tapping it."""
    p = a.player
    card = _combatant(state, a, ctx.waive, "306.5b", "attack", "attacker")
    return lambda: [
        AttackDeclared.trusted(player=p, step="306.5b"),
        AttackerChosen.trusted(player=p, card=card, step="306.5c"),
    ]


def _combatant(state: GameState, a: Action, waive: frozenset[str], rule: str, act: str, role: str) -> str:
    """The character ``a`` names to attack (306.5b) or intercept (306.5d): one
    its player controls on the field, not forbidden by card text (103.1), and
    untapped (unless record mode waives it)."""
    p = a.player
    ch = state.character(a.card) if a.card else None
    if ch is None or ch.controller != p:
        if not a.card:
            raise refuse(rule, f"The {role} must be a character {p} controls on the field, and none was named.")
        raise refuse(
            rule, f"The {role} must be a character {p} controls on the field; {name_of(state, a.card)} is not."
        )
    why = forbidden(state, act, p, ch.card)
    if why:
        raise refuse("103.1", why)
    if not ch.ready and rule not in waive:
        raise physical(rule, f"{name_of(state, ch.card)} is tapped; only an untapped character can {act}.")
    return ch.card


# --- the preamble: a combatant gone (ruling A18) ------------------------------------------


BATTLE_STEPS = frozenset({"306.5c", "306.5e", "306.5h", "306.5i", "306.5j", "306.5k", "306.5m"})


def combatant_gone(state: GameState) -> Event | None:
    """306.5 preamble (ruling A18): a combatant that left the field or changed
    controller ends the battle; the procedure jumps to 306.5n."""
    b = state.battle
    if b is None or state.step not in BATTLE_STEPS:
        return None
    for card, owner_side in ((b.attacker, b.player), (b.interceptor, other(b.player))):
        if card is None:
            continue
        ch = state.character(card)
        if ch is None or ch.controller != owner_side:
            return BattleInterrupted.trusted(card=card, step="306.5n")
    return None


# --- 306.5c-d interception -----------------------------------------------------------


_INTERCEPTS = _own_characters("intercept", "306.5d")


@ACTIONS.move(
    "intercept",
    "306.5c",
    args=(CARD,),
    card_from="own_field",
    missing_rule="306.5d",
    candidates=_INTERCEPTS,
    side="non_active",
    side_rule="306.5c",
    side_text="Only the non-active player can intercept.",
    help="intercept the attack with an untapped character you control (306.5d)",
)
def _intercept(state: GameState, a: Action, ctx: Context) -> Events:
    card = _combatant(state, a, ctx.waive, "306.5d", "intercept", "interceptor")
    return lambda: [InterceptorChosen.trusted(player=a.player, card=card, step="306.5e")]


@ACTIONS.move(
    "no_intercept",
    "306.5c",
    candidates=only("no_intercept"),
    side="non_active",
    side_rule="306.5c",
    side_text="Only the non-active player decides about intercepting.",
    help="let the attack go on without an interception (306.5g)",
)
def _no_intercept(state: GameState, a: Action, ctx: Context) -> Events:
    return lambda: [InterceptionDeclined.trusted(player=a.player, able=True, step="306.5e")]


def late_interception(state: GameState, a: Seated, waive: frozenset[str]) -> list[Event] | None:
    """306.5c-d: an interception the referee passed over because the
    non-active player's characters were all tapped (306.5c), entered at the
    table all the same: at 306.5c itself (where the referee would decline it
    by itself), or once the castle attack has begun but before any card was
    milled (in a table-dealt match the referee is then waiting for the first
    milled card). The table intercepted with a tapped character: refused
    citing 306.5d (a physical violation), or in record mode the battle
    becomes what the table played. None when the action is not that."""
    b = state.battle
    if a.do != "intercept" or b is None or a.player == b.player or b.interceptor is not None:
        return None
    # a.player is "A" or "B": the caller (engine._decide) has refused any other before.
    at_c = state.step == "306.5c" and b.attacker is not None and not _can_intercept(state, a.player)
    # At 306.5m the attacker is set (chosen at 306.5b).
    before_milling = (
        b.kind == "castle"
        and state.step == "306.5m"
        and state.to_move > 0
        and state.to_move == max(0, physical_of(state, b.attacker))  # type: ignore[arg-type]
    )
    if not (at_c or before_milling):
        return None
    ch = state.character(a.card) if a.card else None
    if ch is None or ch.controller != a.player or ch.ready:
        return None
    if "306.5d" not in waive:
        raise physical(
            "306.5d",
            f"{name_of(state, ch.card)} is tapped; only an untapped character can intercept "
            "(so the referee went on to the castle attack, 306.5c).",
        )
    return [InterceptorChosen.trusted(player=a.player, card=ch.card, step="306.5e")]


def retraction(state: GameState, a: Action) -> Rewound | None:
    """306.5c: the defender's characters were all tapped, so the referee went
    on by itself, and the table says the defender intercepted after all
    (with a tapped character: a 306.5d violation). Every step since was the
    referee's own (no player has acted since): they are taken back, to just
    before the referee passed over the interception, where the interception
    is then recorded (``late_interception``). None when the action is not
    that, or nothing needs taking back (nothing was milled yet: the
    interception is recorded where the battle stands)."""
    before = state.passed_over
    if a.do != "intercept" or before is None or before.battle is None:
        return None
    b = before.battle
    if a.player == b.player or b.attacker is None:
        return None
    ch = before.character(a.card) if a.card else None
    if ch is None or ch.controller != a.player:
        return None
    now = state.battle
    # At 306.5m the attacker is set (chosen at 306.5b).
    if (
        now is not None
        and now.kind == "castle"
        and state.step == "306.5m"
        and state.to_move > 0
        and state.to_move == max(0, physical_of(state, now.attacker))  # type: ignore[arg-type]
    ):
        return None  # nothing milled yet: late_interception records it as it stands
    from projections.harem_master.codec import encode_state

    return Rewound.trusted(
        rule="306.5c",
        to=before.position,
        reason=(
            f"{a.player} intercepted at the table with {name_of(state, ch.card)} after the referee had gone on by itself "
            f"({a.player}'s characters were all tapped)"
        ),
        state=encode_state(before, omit=("cards",)),
    )


def _can_intercept(state: GameState, p: str) -> bool:
    """306.5c: "if they wish and are able": is any interception ``p`` might
    declare accepted (the very check of ``intercept``)?"""
    for a in _INTERCEPTS(state, p, Context("intercept")):
        try:
            _combatant(state, a, frozenset(), "306.5d", "intercept", "interceptor")
        except IllegalAction:
            continue
        return True
    return False


decision_kind("intercept", "306.5c", "intercept or not (306.5c)", ("intercept", "no_intercept"))


def _attack_moment(state: GameState) -> list[Event] | None:
    """The moment before the attack (after 306.5b, before 306.5c): what
    resolves before it (403.1a, 214.3c, 409), reached once."""
    b: Battle = state.battle  # type: ignore[assignment]  # set from 306.5a until 306.5o ends the battle
    if not has_text(state) or "attack" in b.done:
        return None
    return propose_moment(state, Sit("attack", b.attacker, b.player))


def _may_intercept(state: GameState) -> Decision | None:
    """306.5c: only a player with an untapped character is asked."""
    if _attack_moment(state):
        return None
    nap = other(state.active)  # type: ignore[arg-type]  # a battle is in a turn: there is an active player
    if _can_intercept(state, nap):
        return Decision(nap, "intercept")
    return None


@step("306.5c", decision=_may_intercept)
def _cannot_intercept(state: GameState) -> list[Event]:
    return _attack_moment(state) or [
        InterceptionDeclined.trusted(player=other(state.active), able=False, step="306.5e")  # type: ignore[arg-type]
    ]


# --- 306.5e-h the battle's type --------------------------------------------------------


@step("306.5e")
def _battle_type(state: GameState) -> list[Event]:
    b: Battle = state.battle  # type: ignore[assignment]  # set from 306.5a until 306.5o ends the battle
    if b.interceptor is None:
        return [BattleTypeSet.trusted(rule="306.5g", kind="castle", step="306.5h")]
    if has_text(state) and "intercept" not in b.done:
        before = propose_moment(state, Sit("intercept", b.interceptor, other(b.player)))
        if before:
            return before
    if gender(state, b.interceptor) == "male":
        return [BattleTypeSet.trusted(rule="306.5e", kind="combat", step="306.5h")]
    return [BattleTypeSet.trusted(rule="306.5f", kind="approach", step="306.5h")]


@step("306.5h")
def _type_change_window(state: GameState) -> list[Event]:
    """306.5h: a window for uses that switch combat and approach (never into
    or out of a castle attack), opened once."""
    b: Battle = state.battle  # type: ignore[assignment]  # set from 306.5a until 306.5o ends the battle
    after = "306.5i" if b.interceptor is not None else "306.5j"
    if b.kind != "castle" and "306.5h" not in b.done and battle_type_usable(state):
        return [WindowOpened.trusted(rule="306.5h", kind="battle_type", player=other(b.player))]
    text = "The battle type may be changed no more." if "306.5h" in b.done else "Nobody can change the battle type."
    return [StepPerformed.trusted(rule="306.5h", text=text, step=after)]


# --- 306.5i random numbers and battle power -----------------------------------------


def _battle_number(state: GameState, player: str, character: str) -> Event:
    """306.5i: the top card of the combatant's controller's castle (ruling
    A5), its random number as card text leaves it, plus any change an effect
    made to the combatant's own random number."""
    top = state.zones[player].castle[0]
    to = "top" if state.rulings.get("A4") == "top" else "bottom"
    number = state.cards[top].random
    if has_text(state):
        number = chars(state, top).random + chars(state, character).random - identity(state, character).random
    return RandomNumberApplied.trusted(ruling="A4", player=player, character=character, card=top, number=number, to=to)


def _battle_stat(state: GameState, card: str, kind: str) -> int:
    return physical_of(state, card) if kind == "combat" else mental_of(state, card)


def _waived(state: GameState, card: str) -> bool:
    """306.5i: an effect said no card is turned for this combatant."""
    return any(e.kind == "no_random" and e.target == card for e in state.effects)


@step("306.5i", decision=reveal_decision)
def _random_numbers(state: GameState) -> Event:
    b: Battle = state.battle  # type: ignore[assignment]  # set from 306.5a until 306.5o ends the battle
    applied = {pl for pl, _ in b.numbers}
    defender = other(b.player)
    # 306.5i comes only after both combatants were chosen (306.5b, 306.5d) and the type was set (306.5e-f):
    # attacker, interceptor and kind are set here (the ignores below).
    if b.player not in applied and not _waived(state, b.attacker):  # type: ignore[arg-type]
        return _battle_number(state, b.player, b.attacker)  # type: ignore[arg-type]
    if defender not in applied and not _waived(state, b.interceptor):  # type: ignore[arg-type]
        return _battle_number(state, defender, b.interceptor)  # type: ignore[arg-type]
    numbers = {b.player: 0, defender: 0, **dict(b.numbers)}
    powers = {
        b.player: _battle_stat(state, b.attacker, b.kind) + numbers[b.player],  # type: ignore[arg-type]
        defender: _battle_stat(state, b.interceptor, b.kind) + numbers[defender],  # type: ignore[arg-type]
    }
    if powers[b.player] == powers[defender]:
        winner = None
    else:
        winner = b.player if powers[b.player] > powers[defender] else defender
    return BattleResolved.trusted(powers=powers, winner=winner, step="306.5j")


# --- 306.5j-o the outcome ------------------------------------------------------------------


@step("306.5j")
def _win_lose_triggers(state: GameState) -> list[Event]:
    """306.5j: abilities triggered by winning or losing (none in a draw, ruling A20)."""
    b: Battle = state.battle  # type: ignore[assignment]  # set from 306.5a until 306.5o ends the battle
    after = "306.5m" if b.kind == "castle" else ("306.5k" if b.winner is not None else "306.5n")
    done = StepPerformed.trusted(
        rule="306.5j", text="Abilities triggered by winning or losing are processed.", step=after
    )
    out: list[Event] = [done]
    if b.winner is not None and b.loser is not None:
        winner_card = b.attacker if b.winner == b.player else b.interceptor
        out = moment(state, Sit("win_battle", winner_card, b.winner), done)
        out += moment(state, Sit("lose_battle", b.loser, other(b.winner)), done)[1:]
    if len(out) == 1:
        out[0] = StepPerformed.trusted(rule="306.5j", text="No abilities trigger on winning or losing.", step=after)
    return out


@step("306.5k")
def _capture(state: GameState) -> list[Event]:
    """306.5k/l: the loser goes to the winner's execution pile or harem, at the
    moment before which replacements and triggers come first (409, 403.1a)."""
    b: Battle = state.battle  # type: ignore[assignment]  # set from 306.5a until 306.5o ends the battle
    # 306.5k follows 306.5j only when the battle has a winner, and so a losing character (BattleResolved).
    male = gender(state, b.loser) == "male"  # type: ignore[arg-type]
    captured = CharacterCaptured.trusted(
        rule="306.5k" if male else "306.5l",
        card=b.loser,
        by=b.winner,
        zone="execution" if male else "harem",
        step="306.5n",
    )
    return pipeline(state, [captured], "captured", b.loser, other(b.winner))  # type: ignore[arg-type]


@step("306.5m", decision=reveal_decision)
def _castle_attack(state: GameState) -> list[Event]:
    """306.5m (ruling A6): the attacker's physical now, one card at a time;
    the moment before the first card is milled comes first (castle_attack)."""
    b: Battle = state.battle  # type: ignore[assignment]  # set from 306.5a until 306.5o ends the battle
    target = other(b.player)
    if state.to_move == 0:
        amount = physical_of(state, b.attacker)  # type: ignore[arg-type]  # chosen at 306.5b
        attacked = CastleAttacked.trusted(player=target, amount=amount, step="306.5m" if amount > 0 else "306.5n")
        return pipeline(state, [attacked], "castle_attack", b.attacker, b.player)
    # Each card through the pipeline of every move: a replacement of its
    # milling (409) still counts it as one of the attack's cards.
    card = state.zones[target].castle[0]
    milled = CardMilled.trusted(player=target, card=card, step="306.5n" if state.to_move == 1 else "306.5m")
    return pipeline(state, [milled], "mill", card, b.player)


@step("306.5n")
def _end_of_battle(state: GameState) -> list[Event]:
    """306.5n: "at the end of the battle" abilities."""
    b = state.battle
    done = StepPerformed.trusted(rule="306.5n", text="End-of-battle abilities are processed.", step="306.5o")
    out = moment(state, Sit("battle_end", None, b.player if b else state.active), done)
    if len(out) == 1:
        out[0] = StepPerformed.trusted(rule="306.5n", text="No end-of-battle abilities.", step="306.5o")
    return out


@step("306.5o")
def _battle_over(state: GameState) -> list[Event]:
    """306.5o: "until end of battle" effects end; the battle is over."""
    return ends(state, "end_of_battle", "306.5o") + [
        StepPerformed.trusted(rule="306.5o", text="The battle ends.", step="306")
    ]
