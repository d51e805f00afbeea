"""A game as the kernel knows it: the small core a game writes, the procedure written once, and the registry of games.

A game is one ``Ruleset``: a handful of declarations (python-chess's variant,
OpenSpiel's ``Game``, boardgame.io's game object), most of them the functions
that do the work. What a game must write is its **core**: who it is and who
sits at it, its first events, its state and fold (``initial_state``,
``evolve``), a position written by hand (``position``), the decision in
front of the table (``decision``), its moves declared once in a registry
(``moves``, ``referee.moves``), how the notation reads an action
(``action_from_mapping``), what each viewer sees (``view``) and one sentence
per event (``describe``). Everything else has a default (the automatic
steps, the result, the codec, the notation's names...) or is a **capability**
(``referee.capabilities``: decks, records, scenarios, rewinds, the board's
parts, tournaments, self-play), None when the game lacks it; the kernel asks
with ``need`` and says in one line what is missing.

The **procedure** is the kernel's, the same for every game, here: the legal
list (each decision's candidates that the move's check accepts), deciding
an action (its seat, the game not over, whose decision it is, then its one
check), its record and violations (``own_events``), the automatic steps to
the next decision (``advance``), ``apply`` and the fold. A game supplies
rules, never plumbing; ``tests/test_conformance.py`` holds every registered
game to what the procedure promises.

A game is found by the id its match's first event records (``game``); a
first event without one was written before games had ids and is the first
registered game's (Harem Master's), so old logs and records stay readable.
``docs/rulesets.md`` is the guide to adding one.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar, runtime_checkable

from events import use_card_types
from events.kernel import ActionTaken, Event, ViolationRecorded
from referee.actions import Applied, IllegalAction, Refusal
from referee.capabilities import (
    CAPABILITIES,
    BoardParts,
    Codec,
    Decks,
    InPlace,
    Outcome,
    RecordDecks,
    RecordHeader,
    Records,
    RewindRules,
    Scenarios,
    ScenarioWriter,
    SelfPlay,
    Setup,
    Started,
    StartOption,
    Tournaments,
    outcome_json,
)
from referee.moves import ANY, ActionSpec, ArgSpec, Context, Decision, Events, Moves, made, refuse

if TYPE_CHECKING:
    from referee.inputs import Document

# State, Event, Card and Action as the kernel passes them around, where it
# does not know the game (each game's own types are ``Ruleset``'s S and A).
State = Any
Card = Any
Action = Any


# --- what the kernel reads from every game's objects ----------------------------------


@runtime_checkable
class StateLike(Protocol):
    """The fields of any game's state that the kernel reads: where the log is,
    who plays, how the match was set up, what a judge must rule on."""

    @property
    def position(self) -> int: ...  # events folded so far

    @property
    def seed(self) -> int: ...

    @property
    def mode(self) -> str: ...  # strict | record

    @property
    def violations(self) -> Sequence[Any]: ...  # open violations (record mode), each with ``rule``


@runtime_checkable
class ActionLike(Protocol):
    """A player's action as the kernel passes it around: who, which kind, and
    the arguments (each move's ``args`` declares them)."""

    @property
    def player(self) -> str | None: ...

    @property
    def do(self) -> str: ...

    def arguments(self) -> dict[str, object]: ...

    def to_dict(self) -> dict[str, object]: ...


S = TypeVar("S", bound=StateLike)
A = TypeVar("A", bound=ActionLike)
S_in = TypeVar("S_in", contravariant=True)
A_in = TypeVar("A_in", contravariant=True)
A_io = TypeVar("A_io")


# What the core's functions with a default argument are called as: the kernel
# may leave the default out, so a game's function must have it too.


class Describe(Protocol[S_in]):
    def __call__(self, event: Event, state_before: S_in, viewer: str = "judge", /) -> str: ...


class Resolve(Protocol[S_in, A_io]):
    def __call__(self, state: S_in, action: A_io, labels: Mapping[str, str] | None = None, /) -> A_io: ...


class DescribeAction(Protocol[S_in, A_in]):
    def __call__(self, state: S_in, action: A_in, viewer: str = "judge", /) -> dict[str, Any]: ...


# One action's automatic steps stop here, whatever the rules do: the action is
# refused whole and nothing is written (a station never hangs).
ACTION_EVENTS = 50_000
_NO_WAIVER: frozenset[str] = frozenset()


class Lacks(IllegalAction):
    """A game lacks a capability the kernel was asked to use: refused in one
    line citing the rule it gives for what its rules do not decide."""


class Loop(IllegalAction):
    """An action whose automatic steps would never end: ``key`` is what went
    round (``Loops.key`` of an event; None: the steps passed ``ACTION_EVENTS``
    events). The action is refused whole, or the game's rules end the game
    (``Loops.ends``)."""

    def __init__(self, refusal: Refusal, key: Hashable | None = None) -> None:
        super().__init__(refusal)
        self.key = key


@dataclass(frozen=True)
class Loops(Generic[S]):
    """A game's rule for automatic steps that go round without end (Harem
    Master's ruling A30): what counts as one more time round (``key`` of an
    event, None for most events), the refusal of a loop (``refusal(state,
    key)``; key None: past ``ACTION_EVENTS``), and the event that ends the
    game instead (``ends``; None refuses the action)."""

    key: Callable[[Event], Hashable | None]
    refusal: Callable[[S, Hashable | None], Loop]
    ends: Callable[[S, Loop], Event | None] | None = None
    repeats: int = 200


class _Later:
    """A part of a game named by ``"module:attribute"``, imported when the
    kernel first uses it (``later``)."""

    def __init__(self, where: str) -> None:
        self._where = where
        self._found: Any = None

    def _get(self) -> Any:
        if self._found is None:
            module, _, attribute = self._where.partition(":")
            found = importlib.import_module(module)
            self._found = getattr(found, attribute) if attribute else found
        return self._found

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self._get(), name)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._get()(*args, **kwargs)

    def __repr__(self) -> str:
        return f"later({self._where!r})"


def later(where: str) -> Any:
    """A part of a game named by ``"module:attribute"`` (or a module by its
    name alone), imported when the
    kernel first uses it: a capability whose module needs the game's own
    procedure (its scenario writer replays actions) is named so, and a
    command that never uses it never imports it. Attribute access and calls
    pass through to it."""
    return _Later(where)


# --- the defaults of what a game need not write --------------------------------------


def _no_automatic_step(state: Any) -> list[Event] | None:
    return None


def _never_ends(state: Any) -> Outcome | None:
    return None


def _as_given(state: Any, action: Any, labels: Mapping[str, str] | None = None) -> Any:
    return action


def _action_dict(state: Any, action: Any, viewer: str = "judge") -> dict[str, Any]:
    return dict(action.to_dict())


def _companion(key: str, described: Mapping[str, Any]) -> bool:
    """Is ``key`` what a described action says beside an argument (its card
    ids, ``card_id``/``cards_ids``; where it lies, ``card_at``/``cards_at``),
    not an argument of its own?"""
    if key.endswith(("_id", "_ids")):
        return True
    return key.endswith("_at") and key[:-3] in described


def action_words(described: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """Each argument of a described action as ``referee legal`` writes it:
    (name, ``NAME=VALUE`` with where each card lies in parentheses where
    the game says so (``card_at``), its card ids in brackets where the
    viewer may know them, or "")."""
    out = []
    for k, v in described.items():
        if k == "player" or k == "do" or _companion(k, described):
            continue
        at = described.get(k + "_at")
        if isinstance(v, list):
            places = [*at, *[None] * len(v)] if isinstance(at, list) else [at] * len(v)
            text = ",".join(f"{x} ({p})" if p is not None else str(x) for x, p in zip(v, places))
            ids = described.get(k + "_ids")
            shown = ",".join(map(str, ids)) if ids and all(i is not None for i in ids) else ""
        else:
            text = f"{v} ({at})" if at is not None else str(v)
            ident = described.get(k + "_id")
            shown = str(ident) if ident is not None else ""
        out.append((k, f"{k}={text}", shown))
    return out


def action_lines(described: Sequence[Mapping[str, Any]]) -> list[tuple[str, list[str]]]:
    """Described actions as ``referee legal`` lists them by default: each
    argument as NAME=VALUE (``action_words``), a card's id in brackets
    beside its name where the viewer may know it, where it lies in
    parentheses where the game describes that (``card_at``): two actions on
    two cards of one face (or two face-down cards) then read apart."""
    lines = []
    for a in described:
        words = " ".join(word + (f" [{ids}]" if ids else "") for _, word, ids in action_words(a))
        lines.append((f"{a['player']} {a['do']} {words}".rstrip(), [""]))
    return lines


@dataclass(frozen=True)
class ActionGroup:
    """Legal actions a person reads together: one kind (``do``) and one
    subject within it (the first argument as the line writes it, e.g.
    ``card=Euclid object (A.site #1)``; "" for a kind without arguments),
    and where its actions are in the described list (``indices``)."""

    do: str
    subject: str
    indices: tuple[int, ...]


def by_kind_and_subject(described: Sequence[Mapping[str, Any]]) -> list[ActionGroup]:
    """Described actions grouped for people (``Ruleset.group_actions``): by
    kind in the order first met, then by their first argument (the card a
    move moves, the zone a count counts), each action once, in list order
    within its group. ``referee legal`` prints a long list so, with counts,
    and the board draws one control per action under the same headings."""
    groups: dict[tuple[str, str], list[int]] = {}
    for i, a in enumerate(described):
        words = action_words(a)
        groups.setdefault((str(a["do"]), words[0][1] if words else ""), []).append(i)
    kinds = list(dict.fromkeys(do for do, _ in groups))
    return [
        ActionGroup(do, subject, tuple(indices))
        for kind in kinds
        for (do, subject), indices in groups.items()
        if do == kind
    ]


def kind_order(ruleset: Ruleset[Any, Any], decision: Decision | None) -> dict[str, int]:
    """The kinds of move in the order people read a legal list: those that
    answer the decision in front of the table first, as it gives them (an
    owner's ``order`` before the counts anyone may make meanwhile), then the
    rest as the game declares them."""
    first = tuple(decision.moves or ()) if decision is not None else ()
    rest = [do for do in ruleset.actions if do not in first]
    return {do: k for k, do in enumerate([*first, *rest])}


def render_zones(view: Mapping[str, Any]) -> str:
    """A view as text by default: its game and position, then each zone with
    its count and the cards the viewer may see."""
    lines = [f"{view.get('game', '')} after event {view.get('event', 0)}".strip()]
    result = view.get("result")
    if result:
        lines.append(f"result: {json.dumps(result, ensure_ascii=False)}")
    for name, zone in (view.get("zones") or {}).items():
        cards = zone.get("cards") if isinstance(zone, Mapping) else None
        count = zone.get("count") if isinstance(zone, Mapping) else None
        shown = ", ".join(map(str, cards)) if cards else ("hidden" if cards is None and count else "empty")
        lines.append(f"  {name} ({count}): {shown}" if count is not None else f"  {name}: {shown}")
    return "\n".join(lines)


def rows_by_event(
    ruleset: Ruleset[Any, Any],
    events: Sequence[Event],
    state: State,
    viewer: str = "judge",
    retracted: Iterable[int] = (),
) -> list[dict[str, Any]]:
    """The rows of ``referee log --json`` for a game whose sentences each read
    one event and the state before it (``describe``)."""
    out = set(retracted)
    rows = []
    for event in events:
        pos = state.position + 1
        rows.append(
            {
                "position": pos,
                "type": type(event).__name__,
                "rule": event.rule,
                "ruling": getattr(event, "ruling", None),
                "text": ruleset.describe(event, state, viewer),
                "retracted": pos in out,
            }
        )
        state = ruleset.evolve(state, event)
    return rows


# --- the game --------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Ruleset(Generic[S, A]):
    """One game: its core, what it may add, and the procedure every game shares.

    Checking an action and listing the legal ones agree (every listed action
    is accepted; a refused one is never listed), and ``apply`` is
    ``own_events`` followed by ``advance``: the kernel makes it so, and
    ``tests/test_conformance.py`` plays every game at random to hold it so."""

    # --- the core: what a game must write (tests/test_conformance.py counts it) ------------
    id: str  # what a first event's ``game`` and a record's format name
    name: str  # for people
    rules_document: str  # the rules it implements, for people
    seats: tuple[str, ...]  # the players' seats, in order ("A", "B")
    outside: str  # the rule a refusal cites for what its rules do not decide
    first_events: tuple[type[Event], ...]  # the classes a match of this game may start with
    initial_state: Callable[[], S]  # the empty table before the first event
    evolve: Callable[[S, Event], S]  # the state after one event: pure and total (it never validates)
    position: Callable[[Mapping[str, Any], Document], Started]  # a position written by hand, checked
    decision: Callable[[S], Decision | None]  # who must act now and on what (None: nobody, or the game is over)
    moves: Moves[S, A, Any]  # every move, declared once with its rule, arguments, candidates and check
    action_from_mapping: Callable[[Mapping[str, Any]], A]  # an action as the notation writes it
    view: Callable[[S, str], dict[str, Any]]  # the position as a viewer may see it (hidden stays hidden)
    describe: Describe[S]  # one sentence for an event as a viewer may know it

    # --- what a game may write, else the kernel's default --------------------------------
    automatic: Callable[[S], list[Event] | None] = _no_automatic_step  # the next automatic step; None at a decision
    checks: Callable[[S], list[Event] | None] | None = None  # what the rules check after every step (214.2e)
    # How a step's events are recorded together (and what they set off, 403.1b):
    # push(state, batch, out) folds ``batch`` onto ``state``, appending to ``out``.
    push: Callable[[S, list[Event], list[Event]], S] | None = None
    loops: Loops[S] | None = None  # automatic steps that go round without end
    result: Callable[[S], Outcome | None] = _never_ends  # how the game ended, None while it goes on
    viewers: tuple[str, ...] = ()  # who may look (default: the judge, each seat, the public)
    resolve: Resolve[S, A] = _as_given  # card names and labels as ids
    describe_action: DescribeAction[S, A] = _action_dict  # an action as a viewer may read it
    list_actions: Callable[[Sequence[Mapping[str, Any]]], list[tuple[str, list[str]]]] = action_lines
    # How a long legal list is grouped for people (``by_kind_and_subject``), in
    # ``referee legal`` and on the board drawn from the core; None: one list.
    group_actions: Callable[[Sequence[Mapping[str, Any]]], list[ActionGroup]] | None = None
    render_view: Callable[[dict[str, Any]], str] = render_zones  # a view as text
    # The rows of ``referee log --json``, called (events, state, viewer, retracted=positions)
    # (default: one sentence per event, ``rows_by_event``).
    describe_log: Callable[..., list[dict[str, Any]]] | None = None
    # The match's cards by instance id, each with its ``name`` (None: a game without
    # cards): what the command line and the board check a card's name against.
    cards: Callable[[S], Mapping[str, Any]] | None = None
    # The printed text of the cards a view or described actions name (None: none shown).
    card_texts: Callable[..., dict[str, Any] | None] | None = None
    # The folder of the game's own templates for the board, found under its id
    # (``harem-master/board.html``): its board parts' template, or for a game
    # drawn from its core, the details of one zone (``zone.html``).
    templates: Path | None = None
    # One action of a scenario or record, checked (default: read against the moves' arguments).
    read_action: Callable[[Any, Any, tuple[Any, ...]], tuple[dict[str, Any], dict[str, Any] | None]] | None = None

    # --- capabilities (referee.capabilities): None when the game lacks one ------------------
    decks: Decks | None = None
    records: Records | None = None
    scenarios: Scenarios | None = None
    scenario_writer: ScenarioWriter | None = None
    rewinds: RewindRules | None = None
    board: BoardParts | None = None
    tournaments: Tournaments | None = None
    selfplay: SelfPlay | None = None
    codec: Codec | None = None
    in_place: InPlace | None = None

    # The latest legal list and what each listed action was accepted with.
    _listed: list[Any] = field(default_factory=lambda: [None, -1, [], []], init=False, repr=False)
    _state_type: list[type] = field(default_factory=list, init=False, repr=False)

    def __post_init__(self) -> None:
        if not self.viewers:
            object.__setattr__(self, "viewers", ("judge", *self.seats, "public"))

    # --- asking for a capability ----------------------------------------------------

    def need(self, capability: str, why: str = "") -> Any:
        """The capability named ``capability``, or ``Lacks`` saying in one line
        that this game has none (``why``: what it would have been for)."""
        found = getattr(self, capability, None) if capability in CAPABILITIES else None
        if found is None:
            words = _WORDS.get(capability, capability)
            raise Lacks(Refusal(self.outside, f"{self.name} has no {words}" + (f": {why}" if why else ".")))
        return found

    @property
    def state_type(self) -> type[Any]:
        """The class of this game's states (a snapshot is stored under it)."""
        if not self._state_type:
            self._state_type.append(type(self.initial_state()))
        return self._state_type[0]

    @property
    def actions(self) -> Mapping[str, ActionSpec]:
        """Every ``do`` a player may send, with its rule and arguments."""
        return self.moves.specs()

    # --- the procedure ----------------------------------------------------------------

    def legal_actions(self, state: S) -> list[A]:
        """Every action the rules accept now: each move's candidates for the
        decision in front of the table (and the any-time moves') that its
        check accepts, so every action listed is accepted and none refused
        is listed."""
        d = self.decision(state)
        if d is None:
            return []
        listed = self._listed
        if listed[0] is state and listed[1] == state.position:
            return list(listed[2])
        moves = self.moves
        kinds = moves.kinds
        before, prepare, strict = moves.before, moves.prepare, moves.strict_arguments
        out: list[A] = []
        found: list[Events] = []
        append, keep = out.append, found.append
        players = self.seats if d.player is None else (d.player,)
        answers = tuple(kinds) if d.moves is None else d.moves
        ctx = Context(d.kind)
        for p in players:
            for do in answers:
                kind = kinds[do]
                check = kind.check
                if prepare is not None:
                    check = prepare(state, ctx, check) or check
                for candidate in kind.candidates(state, p, ctx):
                    if candidate.player != p or candidate.do != do:
                        self._accept(state, candidate, out, found)
                        continue
                    # A candidate of the decision in front of the table, by the
                    # player who makes it, of a move that answers it: what
                    # ``_decide`` checks before the move's own check (a seat,
                    # the game not over, whose decision it is) holds, so only
                    # the rest is done, as ``_decide`` does it.
                    try:
                        events = before(state, candidate, _NO_WAIVER) if before is not None else None
                        if events is None:
                            if strict:
                                _arguments_check(moves, candidate)
                            events = check(state, candidate, ctx)
                    except IllegalAction:
                        continue
                    append(candidate)
                    keep(events)
        rank = moves.rank(state, d) if moves.rank is not None and out else None
        if rank is not None:
            order = sorted(range(len(out)), key=lambda i: rank(out[i]))
            out, found = [out[i] for i in order], [found[i] for i in order]
        if moves.any_time:
            anytime = Context(ANY)
            for p in players:
                for do in moves.any_time:
                    kind = kinds[do]
                    for candidate in kind.candidates(state, p, ctx):
                        if candidate.player == p and candidate.do == do:
                            try:
                                events = kind.check(state, candidate, anytime)
                            except IllegalAction:
                                continue
                            out.append(candidate)
                            found.append(events)
                        else:
                            self._accept(state, candidate, out, found)
        listed[:] = [state, state.position, out, found]
        return list(out)

    def _accept(self, state: S, action: A, out: list[A], found: list[Events]) -> None:
        """``action`` listed if ``decide`` accepts it, with what it was accepted
        with, for the ``decide`` that usually follows a listing."""
        try:
            events = self._decide(state, action, _NO_WAIVER)
        except IllegalAction:
            return
        out.append(action)
        found.append(events)

    def _listed_events(self, state: S, action: A) -> list[Event] | None:
        """The events a listed action was accepted with, when ``action`` is
        one of the latest legal list's own objects (chosen from it)."""
        listed = self._listed
        if listed[0] is not state or listed[1] != state.position:
            return None
        for i, candidate in enumerate(listed[2]):
            if candidate is action:
                events = listed[3][i] = made(listed[3][i])
                return events
        return None

    def decide(self, state: S, action: A, waive: frozenset[str] = frozenset()) -> list[Event]:
        """The events ``action`` itself causes, or ``IllegalAction`` citing the
        rule; nothing automatic (``apply`` adds the steps that follow).
        ``waive``: the rules record mode lets the table break."""
        if not waive:
            found = self._listed_events(state, action)
            if found is not None:
                return list(found)
        return made(self._decide(state, action, waive))

    def _decide(self, state: S, action: A, waive: frozenset[str]) -> Events:
        moves = self.moves
        p, do = action.player, action.do
        if p not in self.seats:
            if moves.seated is not None:
                raise moves.seated(p)
            raise refuse(
                moves.seat_rule or self.outside,
                f"Only players {' and '.join(self.seats)} take part in a game, not {p!r}.",
            )
        outcome = self.result(state)
        if outcome is not None:
            raise refuse(outcome.rule, "The game is over" + (f": {outcome.reason}" if outcome.reason else "."))
        if moves.before is not None:
            early = moves.before(state, action, waive)
            if early is not None:
                return early
        if do in moves.any_time:
            return moves.kinds[do].check(state, action, Context(ANY, waive))
        d = self.decision(state)
        kind = moves.kinds.get(do)
        if (
            d is None
            or kind is None
            or (d.player is not None and p != d.player)
            or (d.moves is not None and do not in d.moves)
        ):
            if moves.elsewhere is not None:
                return moves.elsewhere(state, action, d, Context(d.kind if d is not None else ANY, waive))
            raise _not_the_decision(self, action, d)
        if moves.strict_arguments:
            _arguments_check(moves, action)
        ctx = Context(d.kind, waive)
        check = kind.check
        if moves.prepare is not None:
            check = moves.prepare(state, ctx, check) or check
        return check(state, action, ctx)

    def is_legal(self, state: S, action: A) -> Refusal | None:
        """None if ``action`` would be accepted, else its refusal (its events
        are not made: every refusal comes before them)."""
        try:
            self._decide(state, action, _NO_WAIVER)
        except IllegalAction as exc:
            return exc.refusal
        return None

    def canonical(self, state: S, action: A) -> A:
        """``action`` as the legal list writes it (defaults filled in, hints for
        later choices dropped), so an accepted action can be found in the list."""
        return self.moves.canonical(state, action) if self.moves.canonical is not None else action

    def own_events(self, state: S, action: A, *, strict: bool = False) -> list[Event]:
        """The events the action itself causes, after its record
        (``ActionTaken``) and any violations record mode keeps: one
        indivisible whole, which a rewind goes back before or after, never
        into. ``strict`` refuses physical violations even in record mode (a
        replay after a correction applies only what the rules allow)."""
        moves = self.moves
        if moves.retract is not None:
            back = moves.retract(state, action)
            if back is not None:
                return [back, *self.own_events(self.evolve(state, back), action, strict=strict)]
        try:
            events = self.decide(state, action)
            violations: list[Event] = []
        except IllegalAction as exc:
            exc.action = action
            if strict or state.mode != "record" or not exc.refusal.physical:
                raise
            events, violations = self._record_anyway(state, action, exc.refusal)
        recorded = moves.record(state, action) if moves.record is not None else None
        if recorded is None:
            kind = moves.kinds.get(action.do)
            recorded = (kind.rule if kind is not None else self.outside, action.arguments())
        taken = ActionTaken.trusted(rule=recorded[0], player=action.player, do=action.do, args=recorded[1])
        return [taken, *violations, *events]

    def _record_anyway(self, state: S, action: A, first: Refusal) -> tuple[list[Event], list[Event]]:
        """The events of an action the table physically took despite the rules
        (record mode), with a violation for every rule it broke."""
        waive: set[str] = set()
        refusal: Refusal | None = first
        broken: list[Refusal] = []
        events: list[Event] = []
        while refusal is not None:
            broken.append(refusal)
            waive.add(refusal.rule)
            try:
                events = self.decide(state, action, frozenset(waive))
                refusal = None
            except IllegalAction as exc:
                if not exc.refusal.physical:
                    exc.action = action
                    raise
                refusal = exc.refusal
        return events, [ViolationRecorded.trusted(rule=r.rule, player=action.player, reason=r.reason) for r in broken]

    def _push(self, state: S, batch: list[Event], out: list[Event]) -> S:
        """``batch`` folded onto ``state`` and appended to ``out``: the game's
        ``push`` if it has one (what the events set off), else the fold."""
        if self.push is not None:
            return self.push(state, batch, out)
        evolve = self.evolve
        for event in batch:
            state = evolve(state, event)
            out.append(event)
        return state

    def advance(self, state: S, out: list[Event] | None = None) -> tuple[list[Event], S]:
        """The automatic rule steps up to the next decision (or the end):
        after every step what the rules check (``checks``), then the next
        step (``automatic``); ``Loop`` if they would never end."""
        events: list[Event] = [] if out is None else out
        start = len(events)
        repeats: dict[Hashable, int] = {}
        result, checks, automatic, loops = self.result, self.checks, self.automatic, self.loops
        push = self.push if self.push is not None else self._push
        while result(state) is None:
            seen = len(events)
            checked = checks(state) if checks is not None else None
            if checked:
                state = push(state, checked, events)
            else:
                steps = automatic(state)
                if not steps:
                    break
                state = push(state, steps, events)
            # What the checks make counts toward the bound and the loops as the
            # steps do: checks that never settle are a loop too.
            if len(events) - start > ACTION_EVENTS:
                raise loops.refusal(state, None) if loops is not None else _endless(self)
            if loops is not None:
                for event in events[seen:]:
                    key = loops.key(event)
                    if key is not None:
                        repeats[key] = repeats.get(key, 0) + 1
                        if repeats[key] > loops.repeats:
                            raise loops.refusal(state, key)
        return events, state

    def apply(self, state: S, action: A, *, strict: bool = False) -> Applied:
        """Every event one action causes and the state after them:
        ``own_events`` then ``advance``; ``IllegalAction`` with nothing applied
        if it is refused. Every check is made and every event computed before
        anything is returned, so an action that turns out impossible part way
        through is refused whole. In record mode an action the table took
        despite a rule it can physically break is applied with its
        violations recorded."""
        own = self.own_events(state, action, strict=strict)
        events: list[Event] = []
        state = self._push(state, own, events)
        done = len(events)
        try:
            events, state = self.advance(state, events)
        except Loop as loop:
            ends = self.loops.ends if self.loops is not None else None
            ended = ends(state, loop) if ends is not None else None
            if ended is None:
                raise
            # The rules end the game right after the action that set the loop
            # off; its endless steps are not written.
            del events[done:]
            state = self.evolve(state, ended)
            events.append(ended)
        return Applied(events, state)

    def begin(self, first: Sequence[Event]) -> Applied:
        """A match's first events and every automatic step up to the first decision."""
        state = self.initial_state()
        for event in first:
            state = self.evolve(state, event)
        events, state = self.advance(state, list(first))
        return Applied(events, state)

    def fold(self, events: Iterable[Event], state: S | None = None) -> S:
        """``evolve`` over ``events`` from ``state`` (the empty table by
        default); on one private copy when the game can record in place."""
        s = state if state is not None else self.initial_state()
        if self.in_place is not None:
            s = self.in_place.copy(s)
            record = self.in_place.record
            for event in events:
                record(s, event)
            return s
        evolve = self.evolve
        for event in events:
            s = evolve(s, event)
        return s

    # --- what the kernel asks every game through its capabilities -----------------------

    def start(
        self,
        decks: Mapping[str, Sequence[Card]],
        *,
        seed: int,
        deal: str = "seeded",
        names: Mapping[str, str] | None = None,
        mode: str = "strict",
        options: Mapping[str, Any] | None = None,
    ) -> Applied:
        """A new match dealt from checked decks: its first events and the
        automatic steps to the first decision (the ``decks`` capability)."""
        found: Decks = self.need("decks", "start from a position instead")
        first = found.start(decks, seed=seed, deal=deal, names=names, mode=mode, options=dict(options or {}))
        return self.begin(first)

    def encode_state(self, state: S, omit: tuple[str, ...] = ()) -> dict[str, Any]:
        """The state as JSON-ready data (a snapshot, a rewind's restored state):
        the game's ``codec``, else the kernel's walk of its fields."""
        if self.codec is not None:
            return self.codec.encode_state(state, omit)
        from projections.encoding import encode_fields

        return encode_fields(state, omit)

    def encode_snapshot(self, state: S, omit: tuple[str, ...] = ()) -> dict[str, Any]:
        """The store's snapshot of ``state`` (never part of an event)."""
        if self.codec is not None:
            return self.codec.encode_snapshot(state, omit)
        from projections.encoding import encode_fields

        return encode_fields(state, omit, snapshot=True)

    def decode_state(self, data: Mapping[str, Any], base: S | None = None) -> S:
        """``encode_state`` or ``encode_snapshot`` undone, fields omitted taken from ``base``."""
        if self.codec is not None:
            return self.codec.decode_state(data, base)
        from projections.encoding import decode_fields

        empty = self.initial_state()
        return decode_fields(data, type(empty), vars(empty), base=base)

    def log_rows(
        self, events: Sequence[Event], state: S, viewer: str = "judge", retracted: Iterable[int] = ()
    ) -> list[dict[str, Any]]:
        """The rows of ``referee log --json``: ``position``, ``type``, ``rule``,
        ``ruling``, ``text`` (as ``viewer`` may know it) and ``retracted``."""
        if self.describe_log is not None:
            return self.describe_log(events, state, viewer, retracted=frozenset(retracted))
        return rows_by_event(self, events, state, viewer, retracted)

    def cards_of(self, state: S) -> Mapping[str, Any]:
        """The match's cards by instance id (none for a game without cards)."""
        return self.cards(state) if self.cards is not None else {}

    def texts(
        self, state: S, view: Mapping[str, Any] | None = None, actions: Sequence[Mapping[str, Any]] | None = None
    ) -> dict[str, Any] | None:
        """The printed text of the cards a view or described actions name, as
        ``state --json``, ``legal --json`` and the board show it (None: none)."""
        return self.card_texts(state, view, actions) if self.card_texts is not None else None


_WORDS = {
    "decks": "decks or card pools",
    "records": "match record format",
    "scenarios": "scenario expectations of its own",
    "scenario_writer": "way to write its matches as scenarios",
    "rewinds": "judges' corrections",
    "board": "board parts of its own",
    "tournaments": "tournament scoring",
    "selfplay": "self-play",
    "codec": "codec of its own",
    "in_place": "fold in place",
}


def _not_the_decision(ruleset: Ruleset[Any, Any], action: Any, d: Decision | None) -> IllegalAction:
    """The kernel's refusal of an action that answers no decision in front of the table."""
    if d is None:
        return refuse(ruleset.outside, "Nobody can act now.")
    if d.player is not None and action.player != d.player:
        return refuse(d.rule, f"It is {d.player}, not {action.player}, who must {d.text}.")
    answers = d.moves if d.moves is not None else tuple(ruleset.moves.kinds)
    who = action.player if d.player is None else d.player
    return refuse(d.rule, f"{who} must {d.text} now; the possible actions are {', '.join(answers)}, not {action.do}.")


def _arguments_check(moves: Moves[Any, Any, Any], action: Any) -> None:
    """An argument the move does not take, or a required one left out, refused citing its rule."""
    kind = moves.kinds[action.do]
    takes = {arg.name for arg in kind.args}
    extra = [key for key in action.arguments() if key not in takes]
    if extra:
        said = ", ".join(sorted(takes)) or "no arguments"
        raise refuse(kind.rule, f"{action.do} takes {said}; not {', '.join(extra)}.")
    given = action.arguments()
    for arg in kind.args:
        if arg.required and arg.name not in given:
            raise refuse(kind.rule, f"{action.do} needs {arg.name}: {arg.help or arg.kind}.")


def _endless(ruleset: Ruleset[Any, Any]) -> Loop:
    return Loop(
        Refusal(ruleset.outside, f"This action sets off automatic steps that never end (past {ACTION_EVENTS} events).")
    )


# --- the registry -----------------------------------------------------------------------


class UnknownGame(LookupError):
    """A game id no ruleset is registered for."""


# Game id -> "module:attribute" of its ruleset, imported on first use so that a
# command touching one game never imports another. Adding a game is its
# packages and one line here. The first is the game of every log, record and
# scenario written before games had ids.
_REGISTERED: dict[str, str] = {
    "harem-master": "referee.rules.harem_master.game:HAREM_MASTER",
    "scp-tcg-s4": "referee.rules.scp_tcg.game:SCP_TCG_ZONES",
    "gensokyo-s4": "referee.rules.gensokyo.game:GENSOKYO",
    "pmv-ch7": "referee.rules.pmv_ch7.game:PMV_CH7",
}
_loaded: dict[str, Ruleset[Any, Any]] = {}
DEFAULT_GAME = next(iter(_REGISTERED))


def register(game: str, where: str) -> None:
    """Register the ruleset at ``where`` ("module:attribute") under ``game``."""
    if game in _REGISTERED and _REGISTERED[game] != where:
        raise ValueError(f"game {game!r} is already registered at {_REGISTERED[game]}")
    _REGISTERED[game] = where


def games() -> list[str]:
    """Every registered game id, in the order they were registered."""
    return list(_REGISTERED)


def get(game: str | None = None) -> Ruleset[Any, Any]:
    """The ruleset registered as ``game`` (the default game when None: the
    game of files and logs that name none)."""
    key = DEFAULT_GAME if game is None else game
    found = _loaded.get(key)
    if found is not None:
        return found
    where = _REGISTERED.get(key)
    if where is None:
        raise UnknownGame(f"no game {key!r}: the referee knows {', '.join(repr(g) for g in _REGISTERED)}")
    module, _, attribute = where.partition(":")
    found = getattr(importlib.import_module(module), attribute)
    if not isinstance(found, Ruleset) or found.id != key:
        raise TypeError(f"{where} is not the Ruleset of {key!r}")
    _loaded[key] = found
    return found


def _card_type(game: str | None) -> type | None:
    decks = get(game).decks
    return decks.card_type if decks is not None else None


use_card_types(_card_type)  # a tournament's registrations read their cards as their game's


def game_of(first_event: Any) -> str:
    """The game a match's first event names; the default game for logs
    written before first events named one."""
    return getattr(first_event, "game", None) or DEFAULT_GAME


def of_first_event(first_event: Any) -> Ruleset[Any, Any]:
    """The ruleset a match's log is folded and decided with."""
    return get(game_of(first_event))


__all__ = [
    "ACTION_EVENTS",
    "DEFAULT_GAME",
    "ActionLike",
    "ActionGroup",
    "ActionSpec",
    "ArgSpec",
    "BoardParts",
    "Codec",
    "Decision",
    "Decks",
    "InPlace",
    "Lacks",
    "Loop",
    "Loops",
    "Outcome",
    "RecordDecks",
    "RecordHeader",
    "Records",
    "RewindRules",
    "Ruleset",
    "Scenarios",
    "ScenarioWriter",
    "SelfPlay",
    "Setup",
    "StartOption",
    "Started",
    "StateLike",
    "Tournaments",
    "UnknownGame",
    "action_lines",
    "action_words",
    "by_kind_and_subject",
    "kind_order",
    "game_of",
    "games",
    "get",
    "later",
    "of_first_event",
    "outcome_json",
    "register",
    "render_zones",
    "rows_by_event",
]
