"""Reading logs written before events recorded the procedure's step (log format 1).

Since log format 2 the rules decide the next step and every event that moves
the procedure on carries it (``Event.step``). Older logs carry none, so for
them the projection derives the step from the event the way the referee of
that time did. Nothing else uses these functions: a format-2 log never
reaches them (``GameState.log_format``).
"""

from __future__ import annotations

from typing import Any, Callable

from events.harem_master.game import (
    AttackDeclared,
    AttackerChosen,
    BattleResolved,
    BattleTypeSet,
    CardMilled,
    CardMovedToStack,
    CastleAttacked,
    CastlesShuffled,
    CharacterCaptured,
    CharacterPlayed,
    CharactersUntapped,
    EndAccepted,
    EndDeclarationCancelled,
    EndDeclared,
    EventPlayed,
    HandDrawn,
    HandKept,
    HandLimitDiscarded,
    InterceptionDeclined,
    InterceptorChosen,
    ItemPlayed,
    MatchStarted,
    MulliganTaken,
    OpeningChosen,
    OpeningsRevealed,
    StackReturnedToHand,
    StackSizeSet,
    StepPerformed,
    TurnOrderCardsTurned,
    TurnOrderChosen,
    TurnStarted,
)
from events.kernel import Event, GameEnded, StepSkipped

_NEXT_STEP = {"304": "306", "308": "309", "309": "310", "310": "300"}


def _both_done(next_step: str) -> Callable[[Any, Event], None]:
    def step(s: Any, e: Event) -> None:
        if len(s.progress) >= 2:
            s.step, s.progress = next_step, ()

    return step


def _to(next_step: str) -> Callable[[Any, Event], None]:
    def step(s: Any, e: Event) -> None:
        s.step = next_step

    return step


def _active_acted(s: Any, e: Any) -> None:
    if e.player == s.active:
        s.window_passed = False


def _turn_order_cards_turned(s: Any, e: TurnOrderCardsTurned) -> None:
    if s.chooser is not None:
        s.step = "101.3-choose"


def _stack_size_set(s: Any, e: StackSizeSet) -> None:
    s.step = "303" if e.count > 0 else "304"


def _moved_or_milled(done: str) -> Callable[[Any, Event], None]:
    def step(s: Any, e: Event) -> None:
        if s.to_move <= 0:
            s.step = done

    return step


def _after_battle_step(s: Any, step: str) -> str:
    b = s.battle
    if step == "306.5h":
        return "306.5i" if b is not None and b.interceptor is not None else "306.5j"
    if step == "306.5j":
        if b is not None and b.kind == "castle":
            return "306.5m"
        return "306.5k" if b is not None and b.winner is not None else "306.5n"
    return "306.5o"  # after 306.5n


def _step_performed(s: Any, e: StepPerformed) -> None:
    step = e.rule
    if step in _NEXT_STEP:
        s.step = _NEXT_STEP[step]
        if step == "304":
            s.window_passed = False
    elif step == "306.5o":
        s.step = "306"
        s.window_passed = False
    elif step.startswith("306.5"):
        s.step = _after_battle_step(s, step)


def _castle_attacked(s: Any, e: CastleAttacked) -> None:
    s.step = "306.5m" if s.to_move > 0 else "306.5n"


def _end_cancelled(s: Any, e: EndDeclarationCancelled) -> None:
    s.step = "306"
    s.window_passed = False


def _hand_limit_discarded(s: Any, e: HandLimitDiscarded) -> None:
    if len(s.zones[e.player].hand) <= s.hand_max.get(e.player, 7):
        s.step = "310"


def _step_skipped(s: Any, e: StepSkipped) -> None:
    if e.rule == "309":
        s.step = "310"


# Run after the event's own mutator, on the state it produced.
LEGACY_STEPS: dict[type[Event], Callable[[Any, Any], None]] = {
    MatchStarted: _to("101.1"),
    OpeningChosen: _both_done("101.2"),
    CastlesShuffled: _to("101.3"),
    TurnOrderCardsTurned: _turn_order_cards_turned,
    TurnOrderChosen: _to("101.4"),
    HandDrawn: _both_done("101.5"),
    MulliganTaken: _both_done("101.6"),
    HandKept: _both_done("101.6"),
    OpeningsRevealed: _to("300"),
    TurnStarted: _to("301"),
    CharactersUntapped: _to("302"),
    StackReturnedToHand: _to("303"),
    StackSizeSet: _stack_size_set,
    CardMovedToStack: _moved_or_milled("304"),
    StepPerformed: _step_performed,
    CharacterPlayed: _active_acted,
    EventPlayed: _active_acted,
    ItemPlayed: _active_acted,
    AttackDeclared: _to("306.5b"),  # the 305 window opens again at 306.5o
    AttackerChosen: _to("306.5c"),
    InterceptionDeclined: _to("306.5e"),
    InterceptorChosen: _to("306.5e"),
    BattleTypeSet: _to("306.5h"),
    BattleResolved: _to("306.5j"),
    CharacterCaptured: _to("306.5n"),
    CastleAttacked: _castle_attacked,
    CardMilled: _moved_or_milled("306.5n"),
    EndDeclared: _to("307"),
    EndDeclarationCancelled: _end_cancelled,
    EndAccepted: _to("308"),
    HandLimitDiscarded: _hand_limit_discarded,
    GameEnded: _to("over"),
    StepSkipped: _step_skipped,
}
