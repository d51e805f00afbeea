"""Rule 410 for Harem Master: what its rewinds cite, which steps a table may skip, what its events reveal.

``referee.corrections`` does every rewind, replay, note and acceptance the
same way for each game, through ``Ruleset.rewinds``; what is Harem Master's
own lives here: the rules a rewind cites (410.1, 410.2), the steps a table
may be recorded in record mode as having skipped (301, 302, 303, 309 and
214.2e's discards), the events that showed someone a hidden card and what a
rewind cannot hide of them (the castle wording), and how a 410.2 rewind
finds a step of a turn (300, and 305 as 306's window).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from events.harem_master.game import (
    CardMilled,
    CardMovedToStack,
    CardRevealed,
    CastlesShuffled,
    CharacterPlayed,
    CharactersUntapped,
    EventPlayed,
    HandDrawn,
    ItemPlayed,
    MulliganTaken,
    OpeningsRevealed,
    PositionSetUp,
    RandomNumberApplied,
    StackReturnedToHand,
    StackSizeSet,
    TurnOrderCardsTurned,
    TurnStarted,
)
from events.kernel import ActionTaken, Event, StepSkipped, ViolationRecorded
from projections.harem_master.state import GameState, evolve, initial_state
from projections.lineage import live_positions
from referee.rules.harem_master.common import refuse
from referee.rules.harem_master.engine import current_decision

REWIND_RULES = ("410.1", "410.2")
SKIPPABLE = ("301", "302", "303", "309", "214.2e")

# Events that showed a player something hidden, and what: a judge weighing a
# rewind must know that the table has already seen these (DESIGN: rule 410).
REVEALS: dict[type[Event], str] = {
    CastlesShuffled: "a shuffle: the castles' order was decided",
    TurnOrderCardsTurned: "cards turned face up for the turn order",
    HandDrawn: "cards moved into a hand",
    MulliganTaken: "cards moved into a hand",
    StackReturnedToHand: "cards moved into a hand",
    OpeningsRevealed: "the opening characters were turned face up",
    RandomNumberApplied: "a card turned face up for its random number",
    CardMilled: "a castle card turned face up into the discard",
    CharacterPlayed: "a card from a hidden hand shown on the field",
    EventPlayed: "a card from a hidden hand shown in the discard",
    ItemPlayed: "a card from a hidden hand shown on the field",
    CardRevealed: "a hidden card named by the table",
}


# --- what a rewind cannot hide --------------------------------------------------------


def cannot_hide(event: CardRevealed, restored: GameState) -> str:
    """A table-dealt match: a rewind gives the card back its place, and since
    nobody at the table forgets what was shown, it stays known there (ruling
    A36: ``still_known``)."""
    where = restored.where(event.card)
    text = f"{event.player}'s {event.name} was shown face up ({event.rule}); the rewind cannot hide it again"
    if where == f"{event.player}.castle":
        pos = restored.zones[event.player].castle.index(event.card) + 1
        return text + f": it returns to {event.player}'s castle, {_nth(pos)} from the top, a position both players know"
    if where == f"{event.player}.hand":
        return (
            text + f": it goes back into {event.player}'s hand, still known, as both players have seen it (ruling A36)"
        )
    if where == f"{event.player}.action_stack":
        return (
            text + f": it goes back to {event.player}'s action-cost stack, still known, as both players have seen it "
            "(ruling A36)"
        )
    return text


def still_known(undone: Sequence[Event], restored: GameState, rule: str) -> list[Event]:
    """Ruling A36: a table-dealt match's cards that the table saw (the reveals
    among ``undone``, the events the rewind takes back, in log order) stay
    known after the rewind: one ``CardRevealed`` each, citing the rewind's
    rule and marked ``again``, so that when the rules turn such a card face
    up again the table's reveal must agree. A reveal whose cards are no longer
    both unknown in the restored state (an earlier reveal of the same card)
    is left out."""
    if restored.deal != "table" or not restored.unknown:
        return []
    out: list[Event] = []
    state = restored
    for event in undone:
        if not isinstance(event, CardRevealed) or event.identity is None:
            continue  # a card on neither deck list (ruling A35) is no card of the deck to know
        x, y = event.card, event.identity
        if y not in state.unknown or x not in state.unknown or event.name != state.cards[y].name:
            continue
        again = CardRevealed(
            rule=rule, ruling="A36", player=event.player, card=x, name=event.name, identity=y, again=True
        )
        out.append(again)
        state = evolve(state, again)
    return out


def _nth(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


# --- finding a step -------------------------------------------------------------------


def position_of_step(log: Sequence[Event], turn: int, step: str, states: Sequence[GameState]) -> int:
    """The position just before rule step ``step`` of turn ``turn`` began, in
    the current line of play: the first position after which the procedure
    stands at that step of that turn (for a step that waits for a player, such
    as 309, that is before the player's action, so a replay applies it again)."""
    line = [0, *live_positions(log)]
    if step in ("300", "300.1"):
        for pos in line[1:]:
            event = log[pos - 1]
            if isinstance(event, (TurnStarted, PositionSetUp)) and event.turn == turn:
                return pos - 1
    want = "306" if step == "305" else step  # 305 is the main phase's window
    seen_turn = False
    for pos in line:
        s = states[pos]
        if s.turn == turn and s.step not in ("new", "over"):
            seen_turn = True
            if s.step == want:
                return pos
    if not seen_turn:
        raise refuse("410", f"Turn {turn} is not in the current line of play.")
    raise refuse("410", f"Step {step} of turn {turn} is not in the log.")


# --- a step the table skipped (record mode, 410.2) ----------------------------------------


def skip_step(state: GameState, log: Sequence[Event], rule: str, reason: str = "") -> list[Event]:
    """Record mode: the table skipped a mandatory step; the events that make
    the state mirror the table, with the skip as an open violation (410.2)
    for a judge (the kernel runs the automatic steps after them)."""
    if state.mode != "record":
        raise refuse(
            "410.2", "Skipped steps are recorded only in record mode; in strict mode the referee performs every step."
        )
    if rule not in SKIPPABLE:
        raise refuse("410.2", f"Only steps {', '.join(SKIPPABLE)} can be recorded as skipped, not {rule}.")
    player = state.active
    cards: list[str] = []
    if rule == "309":
        d = current_decision(state)
        if d is None or d.kind != "hand_limit":
            raise refuse("309", "Step 309 is not waiting for discards now.")
    elif rule == "214.2e":
        # The table kept characters over the limit (two of one name, or more
        # than six): no discard is asked of that player while it stays open.
        d = current_decision(state)
        if d is None or d.kind != "same_name":
            raise refuse("214.2e", "Nobody has characters over the 214.2e limits to discard now.")
        player = d.player
    else:
        cards = _cards_of_this_turn(log, rule)
    text = f"The table skipped step {rule}" + (f": {reason.rstrip('.')}" if reason else "") + "."
    step = "310" if rule == "309" else None
    # A castle that fell during the skipped 303 did not fall at the table: the
    # game goes on from 304 (a 410.2 rewind to the step ends it again).
    resumes = rule == "303" and state.result is not None and state.result.rule in ("102.3", "103.2")
    if resumes:
        step = "304"
    return [
        StepSkipped(rule=rule, player=player, cards=cards, reason=reason, step=step, resumes=resumes),
        ViolationRecorded(rule=rule, player=player, reason=text),
    ]


def _cards_of_this_turn(log: Sequence[Event], rule: str) -> list[str]:
    """The cards the engine moved for ``rule`` in the current turn, provided no
    player has acted since (a skip is recorded when it happens)."""
    live = live_positions(log)
    moved: list[str] = []
    found = False
    for pos in reversed(live):
        event = log[pos - 1]
        if isinstance(event, (TurnStarted, PositionSetUp)):
            break
        if isinstance(event, StepSkipped) and event.rule == rule:  # twice would put the cards back twice
            raise refuse("410.2", f"Step {rule} is already recorded as skipped this turn.")
        if isinstance(event, ActionTaken):
            raise refuse(
                "410.2",
                f"Record a skipped {rule} before the next action; "
                "once play has gone on, a judge rewinds to the step instead (410.2).",
            )
        if rule == "301" and isinstance(event, CharactersUntapped):
            moved, found = list(event.cards), True
        elif rule == "302" and isinstance(event, StackReturnedToHand):
            moved, found = list(event.cards), True
        elif rule == "303" and isinstance(event, (CardMovedToStack, StackSizeSet)):
            found = True
            if isinstance(event, CardMovedToStack):
                moved.append(event.card)  # walking backwards: the stack's top first
    if not found:
        raise refuse("410.2", f"Step {rule} of this turn is not in the log, so there is nothing to record as skipped.")
    return moved


# --- the game's ``rewinds`` capability ------------------------------------------------


class HaremMasterRewinds:
    """Rule 410 (410.1 a rewind, 410.2 a forgotten step) as ``referee.corrections`` asks for it."""

    rules: tuple[str, ...] = REWIND_RULES
    skippable: tuple[str, ...] = SKIPPABLE
    reveals: Mapping[type, str] = REVEALS
    # What each rule is for, in the board's rewind form.
    words: Mapping[str, str] = {
        "410.1": "an action that was impossible",
        "410.2": "a forgotten mandatory step",
    }
    skip_step = staticmethod(skip_step)
    still_known = staticmethod(still_known)

    def revealed(self, event: Event, restored: GameState) -> str | None:
        if isinstance(event, CardRevealed):
            return cannot_hide(event, restored)
        return self.reveals.get(type(event))

    def position_of_step(
        self, log: Sequence[Event], turn: int, step: str, states: Sequence[GameState] | None = None
    ) -> int:
        if states is None:
            states = [initial_state()]
            for event in log:
                states.append(evolve(states[-1], event))
        return position_of_step(log, turn, step, states)


REWINDS = HaremMasterRewinds()
