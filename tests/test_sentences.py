"""Every sentence a user reads is English: one of every kind of event, for
every viewer, and one of every refusal the referee can give.

The fixtures are the scenario library (every scenario is run and every event
it logs is written out for the judge, both players and the public) plus
events built here for what the library never logs or the wordings that once
read badly ("Judge Judge Kim", "choose order order first"); the refusals
come from trying, in positions along the library's scenarios, actions that
are wrong in every way we could think of, plus a few built here. A refusal
is counted by the place in the code that raises it, and a test checks that
every such place was reached, so a new refusal cannot escape the check.
"""

from __future__ import annotations

import ast
import inspect
import os
import re
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Iterator

import pytest

import events.harem_master.game as game
from events.kernel import Event
from projections.harem_master.state import MUTATORS, NO_EFFECT, GameState, evolve, initial_state
from projections.harem_master.transcript import DESCRIBERS, describe
from projections.harem_master.views import VIEWERS
from referee import corrections
from referee.actions import IllegalAction, Refusal
from referee.rules.harem_master import apply, current_decision, decide
from referee.rules.harem_master.actions import Action
from referee.rules.harem_master.game import HAREM_MASTER
from referee.rules.harem_master.notation import PLAYER_DOS, action_from_mapping, resolve
from referee.scenario import judge_action, load_scenario, scenario_files
from referee.tournament.policy import POLICIES

ROOT = Path(__file__).resolve().parent.parent

# --- what a sentence must be ------------------------------------------------------------

_DOUBLED = re.compile(r"\b(\w+) \1\b", re.IGNORECASE)
_BAD_ARTICLE = re.compile(r"\ba (event|item|unknown|action|ability|opening|attack|approach|interception|effect|OT)\b")


def problems(text: str, names: set[str] = frozenset()) -> list[str]:
    """What keeps ``text`` from reading as a sentence: empty, a small letter
    first (unless it starts with a card's name, which is as printed), no
    full stop at the end, doubled words or stops, a Python value where a word
    should be, a placeholder left unfilled, a wrong article."""
    out = []
    if not text or text != text.strip():
        return [f"empty or padded: {text!r}"]
    starts_with_name = any(text.startswith(n) for n in names if n)
    if not (text[0].isupper() or text[0].isdigit() or starts_with_name):
        out.append("does not start with a capital letter")
    if not text.endswith("."):
        out.append("does not end with a full stop")
    for bad in ("..", ". .", " .", " ,", ",,", ", .", ",.", ";.", ":.", "  ", "()", "( ", " )"):
        if bad in text:
            out.append(f"holds {bad!r}")
    for word in ("None", "True", "False", "<", "{", "}", "[]", "card(s)", "(s)"):
        if word in text:
            out.append(f"holds {word!r}")
    if re.search(r"\b(not nothing|no \w+ is not|nobody is not)\b", text):
        out.append("says a negative twice")
    doubled = [
        m.group(0) for m in _DOUBLED.finditer(text) if not m.group(1).isdigit() and not _in_a_name(m, text, names)
    ]
    if doubled:
        out.append(f"doubled words {doubled}")
    if _BAD_ARTICLE.search(text):
        out.append(f"wrong article: {_BAD_ARTICLE.search(text).group(0)!r}")  # type: ignore[union-attr]
    return out


def _in_a_name(m: re.Match[str], text: str, names: set[str]) -> bool:
    """A doubled word inside a card's printed name is the name."""
    return any(m.group(0) in n and n in text for n in names)


def names_of(state: GameState) -> set[str]:
    return {cd.name for cd in state.cards.values()}


# --- the library, run once ----------------------------------------------------------------


class Library:
    """Every scenario run: each event with the state just before it, and a
    few positions of each scenario (with their logs) to try wrong actions in."""

    def __init__(self) -> None:
        self.pairs: list[tuple[Event, GameState]] = []
        self.positions: list[tuple[GameState, list[Event], dict[str, str]]] = []
        for path in scenario_files([str(ROOT / "scenarios")]):
            sc = load_scenario(path)
            if sc.game != "harem-master":
                continue  # another game's scenario (`game:`): its ruleset has sentences of its own
            state, log = sc.state, list(sc.events)
            s = initial_state()
            for e in log:
                self.pairs.append((e, s))
                s = evolve(s, e)
            kept = [(state, list(log))]
            before: list[int] = []
            for raw, _ in sc.actions:
                before.append(len(log))
                try:
                    if raw.get("judge") is True:
                        applied = judge_action(state, log, raw, before)
                    else:
                        applied = apply(state, resolve(state, action_from_mapping(raw), sc.labels))
                except IllegalAction:
                    break
                s = state
                for e in applied.events:
                    self.pairs.append((e, s))
                    s = evolve(s, e)
                state = applied.state
                log.extend(applied.events)
                kept.append((state, list(log)))
            # the end of each scenario, and the first position of each kind
            # of decision along it (a choice, a window, a reveal, ...)
            seen: set[str] = set()
            for k, (st, lg) in enumerate(kept):
                d = current_decision(st)
                kind = d.kind if d is not None else "none"
                if kind not in seen or k == len(kept) - 1:
                    seen.add(kind)
                    self.positions.append((st, lg, sc.labels))


@pytest.fixture(scope="module")
def library() -> Library:
    return Library()


# --- events -----------------------------------------------------------------------------------

EVENT_CLASSES = sorted(
    (
        c
        for c in vars(game).values()
        if inspect.isclass(c) and issubclass(c, Event) and c.__module__ == "events.harem_master.game" and c is not Event
    ),
    key=lambda c: c.__name__,
)


def built_events(library: Library) -> list[tuple[Event, GameState]]:
    """Events the library never logs, and the wordings that once read badly,
    each with a state from the library to read it in."""
    in_play = next(s for e, s in library.pairs if s.field and s.turn >= 2 and s.result is None)
    knight = next(ch.card for ch in in_play.field)
    out: list[Event] = [
        game.HandMaximumChanged(card=knight, use=1, player="A", set=5, until="end_of_turn"),
        game.HandMaximumChanged(card=knight, use=1, player="B", by=-2),
        game.ActionTaken(rule="101.3", player="A", do="choose_order", args={"order": "first"}),
        game.ActionTaken(rule="101.3", player="B", do="choose_order", args={"order": "second"}),
        game.ViolationRecorded(
            rule="306.1a", player="A", reason="A has already used a character card this turn, so X cannot be played."
        ),
        game.ViolationsAccepted(reason="Too late to rewind.", judge=None, rules=["306.1a"]),
    ]
    for judge in ("Kim", "Judge Kim", "Head Judge Kim", "judge kim", None):
        out += [
            game.NoteAdded(text="Table 4 called a judge.", judge=judge),
            game.ViolationsAccepted(reason="Too late to rewind", judge=judge, rules=["306.1a"]),
        ]
    return [(e, in_play) for e in out]


def test_every_event_class_has_a_describer() -> None:
    assert [c.__name__ for c in EVENT_CLASSES if c not in DESCRIBERS] == []


def test_every_event_class_has_a_mutator_or_is_declared_without_effect() -> None:
    """Each event's fold is declared once, by its class: a mutator, or a place
    among the events that change nothing but the step (with why), never both."""
    assert MUTATORS.missing(EVENT_CLASSES, exempt=NO_EFFECT) == []
    assert sorted(c.__name__ for c in NO_EFFECT if c in MUTATORS) == []
    assert all(why.strip() for why in NO_EFFECT.values())


def test_every_event_class_is_among_the_fixtures(library: Library) -> None:
    seen = {type(e) for e, _ in library.pairs + built_events(library)}
    assert [c.__name__ for c in EVENT_CLASSES if c not in seen] == []


def test_every_event_reads_as_a_sentence_for_every_viewer(library: Library) -> None:
    bad: dict[str, str] = {}
    for event, before in library.pairs + built_events(library):
        names = names_of(before)
        for viewer in VIEWERS:
            text = describe(event, before, viewer)
            found = problems(text, names)
            if found:
                bad.setdefault(f"{type(event).__name__} as {viewer}: {text}", "; ".join(found))
    assert not bad, "\n".join(f"{k}  <- {v}" for k, v in bad.items())


@pytest.mark.parametrize(
    "judge, said",
    [
        ("Kim", "Judge Kim notes"),
        ("Judge Kim", "Judge Kim notes"),
        ("Head Judge Kim", "Head Judge Kim notes"),
        (None, "Judge notes"),
    ],
)
def test_a_judge_given_with_a_title_is_named_once(library: Library, judge: str | None, said: str) -> None:
    _, state = built_events(library)[0]
    assert describe(game.NoteAdded(text="Checked the deck.", judge=judge), state).startswith(said + ": ")


def test_the_turn_order_choice_names_the_order_once(library: Library) -> None:
    _, state = built_events(library)[0]
    text = describe(game.ActionTaken(rule="101.3", player="A", do="choose_order", args={"order": "first"}), state)
    assert text == "A: choose order first."


# --- refusals -----------------------------------------------------------------------------------

# Where refusals are raised: the rules, the judges' corrections, the notation.
REFUSING_MODULES = [
    *sorted((ROOT / "referee" / "rules" / "harem_master").glob("*.py")),
    ROOT / "referee" / "corrections.py",
    ROOT / "referee" / "scenario.py",
]
_FACTORIES = {"refuse", "physical", "_refuse"}


def refusal_sites() -> set[tuple[str, int, int]]:
    """Every call that makes a refusal, as (file, first line, last line): the
    helpers ``refuse``/``physical``/``_refuse`` where the module has them from
    the rules' own helpers, and ``IllegalAction(Refusal(...))`` written out."""
    sites: set[tuple[str, int, int]] = set()
    for path in REFUSING_MODULES:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        helpers = {"_refuse"} if path.name == "corrections.py" else set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module == "referee.rules.harem_master.common":
                helpers |= {a.asname or a.name for a in node.names if a.name in ("refuse", "physical")}
        if path.name == "common.py":
            helpers |= {"refuse", "physical"}
        factories = {n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name in _FACTORIES}
        inside = {id(x) for f in factories for x in ast.walk(f)}
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call) or id(node) in inside:
                continue
            fn = node.func
            name = fn.id if isinstance(fn, ast.Name) else fn.attr if isinstance(fn, ast.Attribute) else ""
            if name in helpers or (name == "IllegalAction" and node.args and isinstance(node.args[0], ast.Call)):
                sites.add((path.name, node.lineno, node.end_lineno or node.lineno))
    return sites


class Collected:
    """Refusals met while the engine is tried, by the line that raised each."""

    def __init__(self) -> None:
        self.by_line: dict[tuple[str, int], Refusal] = {}

    def __enter__(self) -> "Collected":
        self._init = IllegalAction.__init__
        collected = self

        def init(this: IllegalAction, refusal: Refusal, *args: Any, **kwargs: Any) -> None:
            frame = sys._getframe(1)
            while frame is not None and frame.f_code.co_name in _FACTORIES | {"__init__"}:
                frame = frame.f_back
            if frame is not None:
                where = (os.path.basename(frame.f_code.co_filename), frame.f_lineno)
                if where not in collected.by_line:
                    collected.by_line[where] = refusal
            collected._init(this, refusal, *args, **kwargs)

        IllegalAction.__init__ = init  # type: ignore[method-assign]
        return self

    def __exit__(self, *exc: object) -> None:
        IllegalAction.__init__ = self._init  # type: ignore[method-assign]

    def covers(self, site: tuple[str, int, int]) -> bool:
        return any(f == site[0] and site[1] <= line <= site[2] for f, line in self.by_line)


def wrong_actions(state: GameState) -> Iterator[Action]:
    """Actions wrong in every way we could think of: every action with cards
    from every zone by the player whose decision it is, and every action
    with a card from the hand by the other."""
    cards: list[str | None] = [None]
    for p in ("A", "B"):
        z = state.zones[p]
        cards += [*z.hand[:2], *z.castle[:1], *z.discard[:1], *z.harem[:1]]
    cards += [ch.card for ch in state.field][:4]
    d = current_decision(state)
    for p in ("A", "B"):
        mine = cards if d is not None and d.player == p else [None, *state.zones[p].hand[:1]]
        for do in PLAYER_DOS:
            for c in mine:
                yield Action(p, do, card=c, target=c, cards=(c,) if c else None)
        hand = tuple(state.zones[p].hand)
        field = [ch.card for ch in state.field]
        for c in hand[:2]:
            yield Action(p, "play_item", card=c)
            yield Action(p, "play_item", card=c, target=field[0] if field else None)
            yield Action(p, "play_item", card=c, target=hand[-1])
            yield Action(p, "play_event", card=c, n=2)
            yield Action(p, "play_event", card=c, n=-1)
        for c in field[:4]:
            yield Action(p, "activate", card=c, ability=9)
            yield Action(p, "activate", card=c, n=1)
            yield Action(p, "activate", card=c, n=99)
            yield Action(p, "activate", card=c, targets=(c,))
        yield Action(p, "choose", option="maybe")
        yield Action(p, "choose", cards=hand[:2] * 2 if hand else None)
        yield Action(p, "choose_order")
        yield Action(p, "mulligan", cards=hand[:1] or None)
        yield Action(p, "mulligan")
        yield Action(p, "discard", cards=hand[:3])
        yield Action(p, "discard", cards=hand[:2])
        yield Action(p, "discard", cards=hand[:1] * 2 if hand else None)
        yield Action(p, "discard", cards=hand)
        yield Action(p, "reveal", cards=hand[:1] * 3 if hand else None)
        yield Action(p, "reveal", card=None)
    yield Action("C", "pass")


def wrong_corrections(state: GameState, log: list[Event]) -> Iterator[Any]:
    """A judge's corrections that cannot be made here."""
    states = corrections.states_along(log)
    yield lambda: corrections.note(state, "  ")
    yield lambda: corrections.accept(state, "  ")
    yield lambda: corrections.accept(state, "late")
    yield lambda: corrections.accept(state, "late", at=len(log) + 1)  # one violation, none recorded there
    # The board's undo: back past the end of the log, or with nothing to restore.
    yield lambda: corrections.undo(state, len(log) + 5, None, "scorekeeper Sam")
    yield lambda: judge_action(state, log, {"do": "undo", "by": "scorekeeper Sam"}, [len(log)])
    for rule in (*HAREM_MASTER.rewinds.skippable, "999"):
        yield lambda rule=rule: corrections.skip_step(state, log, rule)
    yield lambda: corrections.rewind(state, log, len(log) - 1, rule="410.3", reason="x", states=states)
    yield lambda: corrections.rewind(state, log, len(log) - 1, rule="410.1", reason=" ", states=states)
    yield lambda: corrections.rewind(state, log, len(log) + 5, rule="410.1", reason="x", states=states)
    for pos in range(1, min(len(log), 12)):
        yield lambda pos=pos: corrections.rewind(
            state, log, pos, rule="410.1", reason="x", states=states, describe_undone=False
        )
    yield lambda: corrections.position_of_step(log, 99, "303", states)
    yield lambda: corrections.position_of_step(log, state.turn, "999", states)
    yield lambda: corrections.position_before_action(log, 999)
    # A result entered by hand (tournament policy TP1), and its replacement.
    yield lambda: corrections.enter_result(state, "A", False, "  ", "r")
    yield lambda: corrections.enter_result(state, "A", False, "Kim", "r", rule="410.1")
    yield lambda: corrections.enter_result(state, "C", False, "Kim", "r")
    yield lambda: corrections.enter_result(state, "A", False, "Kim", "r")  # a game already over
    yield lambda: corrections.replace_result(state, log, "A", False, "Kim", "why", "r", states)  # none to replace
    yield lambda: corrections.replace_result(state, log, "A", False, "Kim", "  ", "r", states)
    if state.result is not None and log:
        ended = game.GameEnded(rule="102.7", winner="B")
        yield lambda: corrections.replace_result(state, log[:1], "A", False, "Kim", "why", "r")  # no end to take back
        yield lambda: corrections.replace_result(state, [log[0], ended], "A", False, "Kim", "why", "r")  # no action


def wrong_names(state: GameState, labels: dict[str, str]) -> Iterator[dict[str, Any]]:
    """Actions naming cards that are not in the game (the notation refuses them)."""
    yield {"player": "A", "do": "play_character", "card": "Nobody At All"}
    yield {"player": "A", "do": "play_item", "card": "Nobody At All", "target": "Nobody Either"}
    if state.zones["A"].hand:
        yield {"player": "A", "do": "play_item", "card": state.zones["A"].hand[0], "target": "Nobody Either"}
    yield {"player": "A", "do": "discard", "cards": ["Nobody At All"]}


@pytest.fixture(scope="module")
def refusals(library: Library, tmp_path_factory: pytest.TempPathFactory) -> Collected:
    positions = library.positions + extra_positions(tmp_path_factory.mktemp("positions"))
    with Collected() as got:
        for state, log, labels in positions:
            if state.result is None:
                for action in wrong_actions(state):
                    try:
                        decide(state, action)
                    except IllegalAction:
                        pass
            for make in wrong_corrections(state, log):
                try:
                    make()
                except IllegalAction:
                    pass
            for raw in wrong_names(state, labels):
                try:
                    resolve(state, action_from_mapping(raw), labels)
                except IllegalAction:
                    pass
        for make in extra_refusals(library):
            try:
                make()
            except IllegalAction:
                pass
    return got


# Positions the library does not have, for the refusals only they reach:
# card text forbidding everything (103.1), a [T] ability usable from the hand
# (402.1a), a response window where B holds an [OT] card with no text (406.1),
# and 309 with three cards over the maximum.
EXTRA_POSITIONS = {
    "forbidden": """
name: everything forbidden
rules: ["103.1"]
cards:
  - name: Gag Order
    type: character
    cost: 1
    gender: female
    text: "Nobody may use event cards, item cards or abilities."
    abilities:
      - kind: static
        effects:
          - forbid: {action: play_event, who: each}
          - forbid: {action: play_item, who: each}
          - forbid: {action: activate, who: each}
  - {name: Trinket, type: item, cost: 0}
  - {name: Spark, type: event, cost: 0, icons: [OT]}
setup:
  turn: 3
  active: A
  players:
    A: {field: [Gag Order, Fencing Master], hand: [Trinket, Spark], castle: 10}
""",
    "tap from the hand": """
name: a [T] ability from the hand
rules: ["402.1a"]
cards:
  - name: Pocket Charm
    type: character
    cost: 1
    gender: female
    text: "[T], from your hand: untap this card."
    abilities:
      - {kind: activated, cost: "[T]", zone: hand, effects: [{untap: this}]}
setup:
  turn: 3
  active: A
  players:
    A: {hand: [Pocket Charm], castle: 10}
""",
    "response": """
name: a response window
rules: ["406.1"]
cards:
  - {name: Empty Gesture, type: event, cost: 0, icons: [OT]}
  - name: War Cry
    type: event
    cost: 0
    text: "Target character gets +2 physical until end of turn."
    abilities:
      - kind: use
        effects: [{modify: {what: {target: {type: character}}, physical: 2, until: end_of_turn}}]
  - {name: Dispel, type: event, cost: 0, icons: [OT], abilities: [{kind: use, effects: [{counter: it}]}]}
setup:
  turn: 3
  active: A
  players:
    A: {field: [Iron Knight], hand: [War Cry], castle: 10}
    B: {hand: [Empty Gesture, Dispel], castle: 10}
actions:
  - {player: A, do: play_event, card: War Cry, targets: [Iron Knight]}
""",
    "three over": """
name: three over the hand maximum
rules: ["309"]
setup:
  turn: 3
  active: A
  players:
    A: {hand: [{random: 1}, {random: 2}, {random: 3}, {random: 4}, {random: 5}, {random: 6}, {random: 7}, {random: 8}, {random: 9}, {random: 10}], castle: 10}
actions:
  - {player: A, do: end_turn}
""",
}


def extra_positions(tmp: Path) -> list[tuple[GameState, list[Event], dict[str, str]]]:
    out = []
    for name, text in EXTRA_POSITIONS.items():
        path = tmp / (name.replace(" ", "-") + ".yaml")
        path.write_text(text, encoding="utf-8")
        sc = load_scenario(path)
        state, log = sc.state, list(sc.events)
        for raw, _ in sc.actions:
            applied = apply(state, resolve(state, action_from_mapping(raw), sc.labels))
            state, log = applied.state, log + list(applied.events)
        out.append((state, log, sc.labels))
    return out


def extra_refusals(library: Library) -> list[Any]:
    """Refusals that need a state no scenario stands in: before the match,
    between two rule steps, a table-dealt card named that no pool defines,
    a judge rewinding to an action that has not happened."""
    from events.harem_master.game import PositionSetUp

    start = next((e, s) for e, s in library.pairs if isinstance(e, PositionSetUp) and e.step == "301")
    between = evolve(initial_state(), start[0])  # at 301 before the referee has run it
    table = [(s, log) for s, log, _ in library.positions if s.unknown and s.result is None]
    over = [(s, log) for s, log, _ in library.positions if s.result is not None]
    state, log, _ = library.positions[0]
    out: list[Any] = [
        lambda: decide(initial_state(), Action("A", "pass")),
        lambda: decide(between, Action("A", "pass")),
        lambda: judge_action(state, log, {"do": "rewind", "to": {"action": 99}, "rule": "410.1", "reason": "x"}, []),
        # a game registered without corrections refuses every one
        lambda: corrections.rewinds_of(SimpleNamespace(rewinds=None, outside="100.1", name="A new game")),
    ]
    # The engine asks nobody for a second mulligan, so 101.5's own refusal of
    # one is reached only by asking the decision itself.
    from referee.rules.harem_master import ACTIONS
    from referee.rules.harem_master.registry import Context

    mulliganed = next(s for s, _, _ in library.positions if s.mulligans and s.step.startswith("101"))
    who = next(iter(mulliganed.mulligans))
    out.append(lambda: ACTIONS["mulligan"].check(mulliganed, Action(who, "mulligan"), Context("mulligan")))
    for s, _ in over[:3]:
        out.append(lambda s=s: decide(s, Action("A", "pass")))
        out.append(lambda s=s: decide(s, Action("B", "attack")))
    for s, _ in table:
        for p in ("A", "B"):
            for do in ("play_character", "play_event", "play_item", "discard"):
                out.append(lambda s=s, p=p, do=do: decide(s, Action(p, do, card="Unheard Of")))
                out.append(lambda s=s, p=p, do=do: decide(s, Action(p, do, card="Unheard Of"), frozenset({"100.2"})))
            out.append(lambda s=s, p=p: decide(s, Action(p, "reveal", cards=tuple(s.zones[p].castle[:3]))))
    # What-if forks (``corrections.fork``): at no event, or inside one action's own events.
    out.append(lambda: corrections.fork(log, 0, "m-x"))
    inside = next(
        (lg, p) for _, lg, _ in library.positions for p in range(1, len(lg)) if corrections.action_span(lg, p)
    )
    out.append(lambda: corrections.fork(inside[0], inside[1], "m-x"))
    # A discard at 309 naming a card with no unknown hand card left to be it.
    discards = [s for s, _ in table if (d := current_decision(s)) is not None and d.kind == "hand_limit"]
    for s in discards[:1]:
        p = current_decision(s).player
        known = s.copy()
        known.unknown = s.unknown - set(s.zones[p].hand)
        out.append(lambda known=known, p=p: decide(known, Action(p, "discard", cards=("Iron Knight",))))
    return out


def test_every_refusal_in_the_code_is_reached(refusals: Collected) -> None:
    missed = sorted(site for site in refusal_sites() if not refusals.covers(site))
    assert not missed, "\n".join(f"{f}:{a}-{b}" for f, a, b in missed)


def test_every_refusal_reads_as_a_sentence(refusals: Collected, library: Library) -> None:
    names = {n for state, _, _ in library.positions for n in names_of(state)}
    bad = {}
    for (file, line), refusal in sorted(refusals.by_line.items()):
        found = problems(refusal.reason, names)
        if (
            not re.fullmatch(r"(ruling:)?[0-9]{3}(\.[0-9]+[a-z]?)?|ruling:A[0-9]+|judge|undo", refusal.rule)
            and refusal.rule not in POLICIES
        ):  # a game a judge ended cites the tournament policy (TP1-TP6); the board's undo cites no rule: "undo"
            found.append(f"cites {refusal.rule!r}, not a rule")
        if found:
            bad[f"{file}:{line}: {refusal}"] = "; ".join(found)
    assert not bad, "\n".join(f"{k}  <- {v}" for k, v in bad.items())
