"""The events every game's log shares: the base class, the record of play, results and judges' corrections.

A match of any game writes its players' actions (``ActionTaken``), its result
(``GameEnded``) and a judge's corrections (``Rewound``, ``NoteAdded``,
``JudgeCalled``, ``ViolationRecorded``, ``ViolationsAccepted``,
``StepSkipped``) with these classes, so that the store, corrections, records
and tournaments read them without knowing the game; each game's own facts are
in its package (``events.harem_master``, ``events.scp_tcg``).

Every event is a frozen pydantic model named in the past tense and carries the
rule (and, where an interpretation decided, the ruling) that produced it.
Stored logs name these classes by ``events.kernel:ClassName``; logs written
before they moved here name them ``events.game:ClassName``, which
``events.MOVED_MODULES`` reads as these.
"""

import re
from typing import Annotated, Any, Self

from pydantic import BaseModel, ConfigDict, StringConstraints, model_serializer

from events.names import stored_as

# A player's seat, as its game names it (``Ruleset.seats``: "A" and "B" in
# both games so far): the kernel's events take any game's seats, and each
# game refuses a seat it has not before any event is made.
SEAT_PATTERN = r"[A-Za-z0-9][A-Za-z0-9_-]{0,19}"  # also what a link and the command line accept as a seat
Seat = Annotated[str, StringConstraints(pattern=f"^{SEAT_PATTERN}$")]
_SEAT = re.compile(SEAT_PATTERN)


def is_seat(text: str) -> bool:
    """Could ``text`` be a seat of some game (``Seat``)? Which seats a match
    has is its game's to say (``Ruleset.seats``): the caller checks that."""
    return _SEAT.fullmatch(text) is not None


class Event(BaseModel):
    """Base of every domain event: the rule that produced it and, when the
    event moves the procedure on, the step it stands at afterwards.

    ``step`` is decided by the rules (``referee.rules``), which know the
    order of the turn procedure; the projection only records it. Logs written
    before events carried it have ``step`` None on every event, and the
    projection reads them with ``projections.harem_master.legacy``."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    rule: str
    ruling: str | None = None
    step: str | None = None

    @classmethod
    def trusted(cls, **fields: Any) -> Self:
        """The event with these fields, built without validation, for the
        engine, which makes only valid events from values of the right types
        (``tests/test_selfplay.py`` checks each event it makes equals its
        validated copy): pydantic's ``model_construct``, with the defaults
        worked out once per class. Whatever comes from outside (a stored log,
        a record, a scenario) is validated (``model_validate``, ``__init__``)."""
        plan = _PLANS.get(cls)
        if plan is None:
            plan = _PLANS[cls] = _plan(cls)
        names, defaults, fresh, required = plan
        values = {**defaults, **fields}
        # A name not among the fields makes the dict longer than the defaults.
        if len(values) != len(defaults) or (required and not required <= fields.keys()):
            given = fields.keys()
            unknown = sorted(given - names)
            raise TypeError(
                f"{cls.__name__}: no field {unknown[0]!r}"
                if unknown
                else f"{cls.__name__} needs {sorted(required - given)[0]!r}"
            )
        for name, make in fresh:
            if name not in fields:
                values[name] = make()
        event = _new(cls)
        _set(event, "__dict__", values)
        _set_fields_set(event, set(fields))
        _set_extra(event, None)
        _set_private(event, None)
        return event


_new = object.__new__
_set = object.__setattr__
# pydantic's slots, set through their descriptors (what ``object.__setattr__`` looks up each time)
_set_fields_set = BaseModel.__dict__["__pydantic_fields_set__"].__set__
_set_extra = BaseModel.__dict__["__pydantic_extra__"].__set__
_set_private = BaseModel.__dict__["__pydantic_private__"].__set__
_Plan = tuple[frozenset[str], dict[str, Any], tuple[tuple[str, Any], ...], frozenset[str]]
_PLANS: dict[type, _Plan] = {}


def _plan(cls: type[BaseModel]) -> _Plan:
    """A class's field names; the defaults that can be shared, in field order
    (required fields hold a place, every one of them given); those made fresh
    for each event (a mutable default, a factory); the required ones."""
    defaults: dict[str, Any] = {}
    fresh: list[tuple[str, Any]] = []
    required: set[str] = set()
    for name, field in cls.model_fields.items():
        defaults[name] = None
        if field.is_required():
            required.add(name)
        elif field.default_factory is not None:
            fresh.append((name, field.default_factory))
        elif isinstance(field.default, (list, dict, set)):
            fresh.append((name, field.default.copy))
        else:
            defaults[name] = field.default
    return frozenset(defaults), defaults, tuple(fresh), frozenset(required)


# --- the result, the record of play and judges' corrections -----------------------


class GameEnded(Event):
    """The result as data: a winner or a draw, the rule, and scores if counted;
    ``card`` is the card whose ability ended the game (102.4).

    ``judge`` is set only on a result a judge entered by hand (tournament
    policy TP1, docs/tournament-policy.md: a paper game's result, a game
    loss, time called): the game ends there, and only a judge's rewind
    (410) reopens it. Left out of the JSON when None, so the games the rules
    end are stored exactly as before."""

    winner: Seat | None = None
    draw: bool = False
    scores: dict[str, int] | None = None
    reason: str = ""
    card: str | None = None
    judge: str | None = None

    @model_serializer(mode="wrap")
    def _omit_judge(self, handler: Any) -> Any:
        data = handler(self)
        if isinstance(data, dict) and data.get("judge") is None:
            data.pop("judge", None)
        return data


class ActionTaken(Event):
    """A player's action as they asked for it (cards as instance ids), written
    before the events it causes: the log then holds the match record that
    ``export`` writes and the actions a 410.2 replay applies again."""

    player: Seat
    do: str
    args: dict[str, Any] = {}


class ViolationRecorded(Event):
    """Record mode: the action just recorded broke ``rule``; the violation stays
    open until a judge rewinds (410) or accepts it."""

    player: Seat | None = None
    reason: str


class StepSkipped(Event):
    """Record mode: the table skipped a mandatory step (``rule``); ``cards`` are
    the ones its automatic moves had put in place and that go back (for 303,
    from the stack top back onto the castle top)."""

    player: Seat | None = None
    cards: list[str] = []
    reason: str = ""
    # The skip undoes the game's end: a castle that fell during the step the
    # table skipped did not fall at the table (left out of the JSON when false).
    resumes: bool = False

    @model_serializer(mode="wrap")
    def _omit_resumes(self, handler: Any) -> Any:
        data = handler(self)
        if isinstance(data, dict) and data.get("resumes") is False:
            del data["resumes"]
        return data


class NoteAdded(Event):
    """A judge's note in the log; it changes nothing on the table."""

    rule: str = "judge"
    judge: str | None = None
    text: str


class JudgeCalled(Event):
    """Someone at the table (a player, the scorekeeper) calls a judge. It
    changes nothing on the table; the match shows the call, and its event's
    page flags the table, until a judge answers with a note, an acceptance
    or a rewind."""

    rule: str = "judge"
    by: str | None = None  # who called, as they gave it ("A", "the scorekeeper")
    reason: str = ""


class ViolationsAccepted(Event):
    """A judge leaves open violations standing (the game is too far along):
    those recorded at the positions ``at``, one ruling per violation as the
    board makes it; with ``at`` empty, every violation open then (as every
    acceptance was before violations were ruled on one at a time). ``at``
    is left out of the JSON when empty, so those are stored as before."""

    rule: str = "410"
    judge: str | None = None
    reason: str
    rules: list[str] = []
    at: list[int] = []

    @model_serializer(mode="wrap")
    def _omit_at(self, handler: Any) -> Any:
        data = handler(self)
        if isinstance(data, dict) and not data.get("at"):
            data.pop("at", None)
        return data


class Rewound(Event):
    """410.1/410.2: the game goes back to the position just after event ``to``.
    With ``rule`` 306.5c and no ``judge``: the referee takes back its own
    automatic steps for an interception the table made after it had passed it
    over (record mode; the ``ActionTaken`` of that interception follows).

    The restored state itself is in the event (as ``projections.harem_master.codec``
    writes it), so folding the log stays one pure step per event; the events
    after ``to`` stay in the log and every view marks them retracted."""

    rule: str = "410.1"
    to: int
    reason: str
    judge: str | None = None
    replay: bool = False  # the player actions after ``to`` are applied again next
    # With ``replay``: the first of those actions (the one the rewind was made
    # to undo, "rewind to before action K") is left out, and what came after
    # it is applied again (K+1 onward). Left out of the JSON when false.
    after: bool = False
    state: dict[str, Any]

    @model_serializer(mode="wrap")
    def _omit_after(self, handler: Any) -> Any:
        data = handler(self)
        if isinstance(data, dict) and data.get("after") is False:
            del data["after"]
        return data


class EntryUndone(Rewound):
    """Whoever logged an entry at the board takes it back, before anything
    else is logged in the match: the game goes back to the position just
    before that entry (``to``), exactly as a rewind does, but no rule was
    broken and no judge ruled: an entry was mistyped (spec: console.md, 10).
    ``by`` names who took it back (the one who had entered it, as the
    envelope's ``_by`` names them), so the log keeps both the entry (the
    events after ``to``, their envelope naming who entered them) and its
    undo, with who made them.

    A kind of ``Rewound``: every reader of the log that retracts what a
    rewind undid (the lineage, the board, records, tournaments, the store's
    stale-version check) treats an undo alike."""

    rule: str = "undo"
    reason: str = "a mistyped entry"
    by: str


# Stored as ``events.game:Class``: the kernel's events were first stored in
# ``events.game`` with Harem Master's (``events.names``).
stored_as(__name__, "events.game")
