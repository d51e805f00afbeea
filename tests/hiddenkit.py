"""Matches in which every card has a name of its own, and what each viewer may know of them (rule 215).

The visibility tests play random matches with the ability decks
(scenarios/decks/alice.yaml, bob.yaml, cards of the bundled rules-test pool)
and cards that choose from a hidden hand (tests/data/hidden-choices-pool.yaml).
Each copy of a card is renamed ``Court Lady ~A12~``, so a name in any output
says which very card it is. The oracle below is written from the rules, apart
from the code under test: what a viewer may know is what they have seen
(215.2-215.9: a hand is its owner's, castles and action-cost stacks are
nobody's, a face-down opening is its controller's, the rest is face up), plus
what the rules turn face up (101.3, 101.6, 306.5i, a reveal at the table) and
the cards whose abilities are used or trigger (402, 403). Knowledge is judged
once a whole action is done (its events are printed together), and is kept:
a card once seen stays known.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from pathlib import Path

from events.harem_master.cards import CardDef
from events.harem_master.game import (
    AbilityActivated,
    CardRevealed,
    MatchStarted,
    OpeningsRevealed,
    RandomNumberApplied,
    SituationReplaced,
    TriggerCarried,
    TriggerFired,
    TurnOrderCardsTurned,
)
from events.kernel import ActionTaken, Event, NoteAdded, Rewound, StepSkipped, ViolationsAccepted
from projections.harem_master.state import GameState, evolve, initial_state
from referee.rules.harem_master.decks import deal, load_deck
from referee.rules.harem_master.pool import CardCatalog, bundled_pool, load_pool

ROOT = Path(__file__).resolve().parent.parent
HIDDEN_POOL = ROOT / "tests" / "data" / "hidden-choices-pool.yaml"
TOKEN = re.compile(r"~([AB])(\d+)~")
VIEWERS = ("A", "B", "public")  # the judge may know every card
HIDDEN_CHOOSERS = {
    "A": ["Stash", "Stash", "Hidden Blade", "Hidden Blade", "Smuggler", "Pickpocket's Lesson"],
    "B": ["Stash", "Stash", "Hidden Blade", "Smuggler", "Smuggler", "Pickpocket's Lesson"],
}


def unique_decks() -> dict[str, list[CardDef]]:
    """Alice's and Bob's decks, six cards of each replaced by hidden-hand
    choosers, every copy renamed ``NAME ~Pk~`` (k: its place in the deck, so
    the instance id the deal gives it is ``P:k``)."""
    catalog = CardCatalog(load_pool(HIDDEN_POOL), bundled_pool())
    out: dict[str, list[CardDef]] = {}
    for p, file in (("A", "alice.yaml"), ("B", "bob.yaml")):
        cards = list(load_deck(ROOT / "scenarios" / "decks" / file, catalog))
        extra = [catalog.get(name) for name in HIDDEN_CHOOSERS[p]]
        # Replace the last cards (never the only cost-1 characters at the top).
        cards = cards[: len(cards) - len(extra)] + [c for c in extra if c is not None]
        out[p] = [cd.model_copy(update={"name": f"{cd.name} ~{p}{k}~"}) for k, cd in enumerate(cards, start=1)]
    return out


def tokens(text: str) -> set[str]:
    """The cards a text names, as instance ids."""
    return {f"{p}:{k}" for p, k in TOKEN.findall(text)}


def _place_seen(state: GameState, card: str, viewer: str) -> bool:
    """215, written out again here: may ``viewer`` see ``card`` where it is?"""
    for ch in state.field:
        if ch.card == card:
            return not ch.face_down or viewer == ch.controller
        if card in ch.items:
            return True
    if card in state.orphans:
        return True
    for player, z in state.zones.items():
        if card in z.hand:
            return viewer == player
        if card in z.castle or card in z.action_stack:
            return False
        if card in z.discard or card in z.harem or card in z.execution or card in z.side:
            return True
    return False


def _turned_up(event: Event) -> set[str]:
    """Cards an event shows to everyone by the rules."""
    if isinstance(event, TurnOrderCardsTurned):
        return set(event.cards.values())
    if isinstance(event, (OpeningsRevealed,)):
        return set(event.cards)
    if isinstance(event, RandomNumberApplied):
        return {event.card}
    if isinstance(event, CardRevealed):
        return {event.card} | ({event.identity} if event.identity else set())
    if isinstance(event, (AbilityActivated, TriggerFired, TriggerCarried, SituationReplaced)):
        return {event.card}
    return set()


STARTS = (ActionTaken, Rewound, NoteAdded, ViolationsAccepted, StepSkipped)


@dataclass
class Knowledge:
    """For each event of a log, the cards each viewer may know once the
    action it belongs to is done (``allowed[viewer][i]``, i from 0)."""

    allowed: dict[str, list[frozenset[str]]] = field(default_factory=dict)
    states: list[GameState] = field(default_factory=list)  # states[i]: after the first i events


def knowledge(events: list[Event]) -> Knowledge:
    states = [initial_state()]
    for e in events:
        states.append(evolve(states[-1], e))
    out = Knowledge({v: [] for v in VIEWERS + ("judge",)}, states)
    known: dict[str, set[str]] = {v: set() for v in VIEWERS}
    judge_known: set[str] = set()
    i = 0
    while i < len(events):
        j = i + 1
        while j < len(events) and not isinstance(events[j], STARTS):
            j += 1
        for k in range(i, j + 1):
            s = states[k]
            ids = list(s.cards)
            judge_known.update(c for c in ids if c not in s.unknown)
            for v in VIEWERS:
                known[v].update(c for c in ids if c not in s.unknown and _place_seen(s, c, v))
        for e in events[i:j]:
            shown = _turned_up(e)
            judge_known.update(shown)
            for v in VIEWERS:
                known[v].update(shown)
        opening = not any(isinstance(e, OpeningsRevealed) for e in events[:j])
        for _ in range(i, j):
            out.allowed["judge"].append(frozenset(judge_known))
            for v in VIEWERS:
                # 101.1: before the openings are revealed, each player looks
                # through their own deck to pick one (known only then).
                looked = {c for c in states[j].cards if opening and c[0] == v and c not in states[j].unknown}
                out.allowed[v].append(frozenset(known[v] | looked))
        i = j
    return out


def leaks(text: str, allowed: frozenset[str]) -> set[str]:
    """Cards ``text`` names that are not in ``allowed``."""
    return tokens(text) - allowed


def random_match(seed: int, deal_mode: str, max_actions: int = 4000) -> tuple[list[Event], list[tuple[int, int]]]:
    """A random legal match with the unique decks; its events and, per
    action, the log range it wrote (first, last+1)."""
    from referee.rules.harem_master import apply, legal_actions, start
    from referee.simulate import random_action

    rng = random.Random(seed)
    cards, castles = deal(unique_decks())
    applied = start(cards, castles, seed=seed, deal=deal_mode)
    state, events = applied.state, list(applied.events)
    spans: list[tuple[int, int]] = []
    for _ in range(max_actions):
        if state.result is not None:
            break
        action = random_action(state, legal_actions(state), rng)
        applied = apply(state, action)
        spans.append((len(events), len(events) + len(applied.events)))
        events.extend(applied.events)
        state = applied.state
    return events, spans


def hidden_choices(events: list[Event]) -> int:
    """How many cards were chosen from a hand and put back on a castle (the
    case rule 215 must hide): the test is only as good as their number."""
    n = 0
    state = initial_state()
    for e in events:
        if type(e).__name__ == "CardMoved" and e.to == "castle" and state.where(e.target) == f"{e.target[0]}.hand":
            n += 1
        state = evolve(state, e)
    return n


__all__ = [
    "Knowledge",
    "MatchStarted",
    "VIEWERS",
    "hidden_choices",
    "knowledge",
    "leaks",
    "random_match",
    "tokens",
    "unique_decks",
]
