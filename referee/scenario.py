"""Scenario files: a rules question as data (shared/spec/scenario-format.md, section 2), the part every game shares.

A file names its game (``game:``; the default game's, Harem Master's, when
it names none). The kernel reads and runs every game's scenarios the same
way: the ``Reader`` whose errors name the file, the place and what was
expected, the keys every file has (name, rules, question, actions), the
judges' actions (410 corrections, notes, calls, results), the loop that
plays the actions, the expectations every game may check (a refusal, the
decision, the result, events) and the ``ScenarioReport``. A game gives its
position (its core ``position``) and, with the ``Scenarios`` capability,
its own top keys and expectations (Harem Master's zones and characters).
A scenario is read in full and checked before anything runs; one whose
rules answer differs from its expectation is a failure with readable
reasons.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee import ruleset as rulesets
from referee.actions import IllegalAction, Refusal
from referee.inputs import MAX_ACTIONS, TITLE_LENGTH, Document, InputError, kind_of, load_document, text_problem

# --- checking the file's shape ---------------------------------------------------

Path_ = tuple[Any, ...]


class Reader:
    """Small typed accessors that raise InputError at the right place."""

    def __init__(self, doc: Document, seats: tuple[str, ...] = ()) -> None:
        self.doc = doc
        self.seats = seats  # the game's seats, which ``player`` accepts (none until the game is known)

    def err(self, path: Path_, message: str) -> InputError:
        return self.doc.error(path, message)

    def mapping(self, value: Any, path: Path_, allowed: tuple[str, ...], required: tuple[str, ...] = ()) -> dict:
        if not isinstance(value, dict):
            raise self.err(path, f"expected a mapping with keys {', '.join(allowed)}, got {kind_of(value)}")
        for key in value:
            if key not in allowed:
                raise self.err(path + (key,), f"unknown key {key!r}; expected one of: {', '.join(allowed)}")
        for key in required:
            if key not in value:
                raise self.err(path, f"missing required key {key!r}")
        return value

    def seq(self, value: Any, path: Path_, maximum: int | None = None, what: str = "entries") -> list:
        if not isinstance(value, list):
            raise self.err(path, f"expected a list, got {kind_of(value)}")
        if maximum is not None and len(value) > maximum:
            raise self.err(path, f"expected at most {maximum:,} {what}, got {len(value):,}")
        return value

    def int_(self, value: Any, path: Path_, minimum: int | None = None, maximum: int | None = None) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.err(path, f"expected a whole number, got {kind_of(value)}")
        if minimum is not None and value < minimum:
            raise self.err(path, f"expected a number >= {minimum}, got {value}")
        if maximum is not None and value > maximum:
            raise self.err(path, f"expected a number <= {maximum:,}, got {value:,}")
        return value

    def str_(self, value: Any, path: Path_) -> str:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return str(value)
        if value == "":
            raise self.err(path, "expected text, got an empty text")
        if not isinstance(value, str):
            raise self.err(path, f"expected text, got {kind_of(value)}")
        return value

    def text(self, value: Any, path: Path_, max_length: int) -> str:
        """Text that is stored and printed (a name, a title, a reason): no
        control characters, bounded length (``inputs.text_problem``)."""
        text = self.str_(value, path)
        problem = text_problem(text, max_length)
        if problem is not None:
            shown = repr(text) if len(text) <= 40 else repr(text[:37]) + "..."
            raise self.err(path, f"{shown} {problem}")
        return text

    def bool_(self, value: Any, path: Path_) -> bool:
        if not isinstance(value, bool):
            raise self.err(path, f"expected true or false, got {kind_of(value)}")
        return value

    def choice(self, value: Any, path: Path_, options: tuple[str, ...]) -> str:
        if value not in options:
            raise self.err(path, f"expected one of {', '.join(options)}, got {value!r}")
        return value

    def player(self, value: Any, path: Path_) -> str:
        return self.choice(value, path, self.seats)

    def names(self, value: Any, path: Path_, max_length: int) -> dict[str, str]:
        """A position's ``names:`` (seat -> the player's name, each seat named
        by itself unless given), as every game's position writes them."""
        given = self.mapping(value, path, self.seats)
        return {
            seat: self.text(given[seat], path + (seat,), max_length) if seat in given else seat for seat in self.seats
        }

    def setup(self, data: Mapping[str, Any], allowed: tuple[str, ...]) -> tuple[dict[str, Any], int]:
        """A position's ``setup:`` mapping, its keys checked, and its ``seed`` (0 unless given)."""
        setup = self.mapping(data.get("setup", {}), ("setup",), allowed)
        return setup, self.int_(setup.get("seed", 0), ("setup", "seed"))


# --- judges' actions -------------------------------------------------------------------

# What each judge action needs (scenario format, section 3); every game's
# scenarios and records have these beside their players' actions.
JUDGE_REQUIRED = {
    "rewind": ("to", "rule", "reason"),
    "note": ("text",),
    "skip_step": ("rule",),
    "accept": ("reason",),
    "result": ("winner", "by"),  # a result entered by hand (tournament policy TP1)
    "call": (),  # a judge call (JudgeCalled)
    "undo": ("by",),  # whoever logged the last entry takes it back (EntryUndone; the board's undo)
}
JUDGE_DOS = tuple(JUDGE_REQUIRED)
JUDGE_ACTION_KEYS = ("to", "rule", "reason", "text", "replay", "by", "winner", "at")


def read_judge_action(
    reader: Reader,
    a: dict[str, Any],
    do: str,
    path: Path_,
    player_keys: tuple[str, ...],
    rewind_rules: tuple[str, ...],
) -> None:
    """Check a judge's action (``judge: true``) whose keys the game's reader
    has checked already; ``player_keys`` are the keys only a player's action of
    that game has, which a judge's may not carry, and ``rewind_rules`` the
    rules a rewind of that game may cite (``RewindRules.rules``)."""
    if do not in JUDGE_DOS:
        raise reader.err(path + ("do",), f"expected a judge action ({', '.join(JUDGE_DOS)}), got {do!r}")
    if "player" in a:
        raise reader.err(path + ("player",), "a judge action has judge: true and no player")
    for key in JUDGE_REQUIRED[do]:
        if key not in a:
            raise reader.err(path, f"missing required key {key!r} for a {do}")
    for key in player_keys:
        if key in a:
            raise reader.err(path + (key,), f"{key!r} belongs to a player's action, not to a judge's {do}")
    if "to" in a:
        to = reader.mapping(a["to"], path + ("to",), ("action", "event", "turn", "step"))
        shapes = ({"action"}, {"event"}, {"turn", "step"})
        if set(to) not in shapes:
            raise reader.err(path + ("to",), 'expected one of {action: K}, {event: N} or {turn: T, step: "303"}')
        for key in ("action", "event", "turn"):
            if key in to:
                # No match reaches a billion events, actions or turns.
                reader.int_(to[key], path + ("to", key), 0 if key == "event" else 1, 10**9)
        if "step" in to:
            reader.str_(to["step"], path + ("to", "step"))
    if do == "rewind":
        reader.choice(str(a["rule"]), path + ("rule",), rewind_rules)
    if "winner" in a:
        reader.choice(a["winner"], path + ("winner",), (*reader.seats, "draw"))
    if "replay" in a and a["replay"] != "after":
        # true: the player actions after the rewound point are applied again;
        # "after": all but the first of them (rewound to just before action
        # K, the replay starts at K+1)
        if not isinstance(a["replay"], bool):
            raise reader.err(path + ("replay",), f"expected true, false or after, got {kind_of(a['replay'])}")
    if "at" in a:
        if do != "accept":
            raise reader.err(path + ("at",), f"'at' names the violation an accept lets stand, not a {do}'s")
        reader.int_(a["at"], path + ("at",), 1, 10**9)
    for key in ("reason", "text", "rule", "by"):
        if key in a:
            reader.str_(a[key], path + (key,))


# --- running ------------------------------------------------------------------------


@dataclass
class ScenarioReport:
    """What one scenario answered, whatever its game: passed, or each way it failed, as sentences."""

    file: str
    name: str
    rules: list[str]
    passed: bool
    failures: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "name": self.name,
            "rules": self.rules,
            "passed": self.passed,
            "failures": self.failures,
        }


@dataclass
class Scenario:
    """A scenario read and checked, ready to run: its position, its actions
    (each with the expectation checked after it) and its final expectation."""

    doc: Document
    name: str
    rules: list[str]
    events: list[Any]
    state: Any
    labels: dict[str, str]
    actions: list[tuple[dict[str, Any], dict | None]]
    expect: dict
    game: str = rulesets.DEFAULT_GAME  # the ruleset that reads and runs it
    catalog: Any = field(default=None, repr=False)  # where its card names get definitions (a game's ``Scenarios.read``)


TOP_KEYS = ("game", "name", "rules", "question", "setup", "actions", "expect")


def load_scenario(file: str | Path) -> Scenario:
    """Read and check a scenario file with its game's ruleset (``InputError`` if it is not one)."""
    return read_scenario(load_document(file))


def read_scenario(doc: Document) -> Scenario:
    """A scenario document read and checked in full before anything runs:
    the kernel's keys (name, rules, question, actions), the game's position
    (its ``Scenarios.read``, else its core ``position``), each action as the
    game reads the notation, and each expectation's shape."""
    ruleset = ruleset_of(doc)
    scenarios = ruleset.scenarios
    reader = Reader(doc, ruleset.seats)
    data = reader.mapping(doc.data, (), (*TOP_KEYS, *(scenarios.keys if scenarios else ())), ("name", "rules", "setup"))
    name = reader.text(data["name"], ("name",), TITLE_LENGTH)
    rules = [reader.str_(r, ("rules", i)) for i, r in enumerate(reader.seq(data["rules"], ("rules",)))]
    if not rules:
        raise reader.err(("rules",), "expected at least one rule this scenario checks")
    if "question" in data:
        reader.str_(data["question"], ("question",))
    if scenarios is not None:
        started, catalog = scenarios.read(reader, data)
    else:
        started, catalog = ruleset.position(data, doc), None
    read = ruleset.read_action or moves_reader(ruleset)
    raw_actions = reader.seq(data.get("actions", []) or [], ("actions",), MAX_ACTIONS, "actions")
    actions = [read(reader, a, ("actions", i)) for i, a in enumerate(raw_actions)]
    expect = data.get("expect") or {}
    check_shape(ruleset, reader, expect, ("expect",))
    return Scenario(
        doc, name, rules, started.events, started.state, dict(started.labels), actions, expect, ruleset.id, catalog
    )


def ruleset_of(doc: Document) -> rulesets.Ruleset[Any, Any]:
    """The ruleset of the game a scenario file names (``game:``); the
    default game's when it names none, as every scenario did before games had ids."""
    game = doc.data.get("game") if isinstance(doc.data, dict) else None
    if game is None:
        return rulesets.get(rulesets.DEFAULT_GAME)
    if game not in rulesets.games():
        raise Reader(doc).err(("game",), f"expected one of {', '.join(rulesets.games())}, got {game!r}")
    return rulesets.get(game)


def unreadable(file: str | Path, error: InputError) -> ScenarioReport:
    """A file that could not be read, as a failed scenario of its own, so
    that one bad file in a folder does not hide what the others answer. Its
    name and rules are taken from the file where they can be read."""
    name, rules = Path(file).name, []
    try:
        data = load_document(file).data
    except InputError:
        data = None
    if isinstance(data, dict):
        if isinstance(data.get("name"), str) and text_problem(data["name"], TITLE_LENGTH) is None:
            name = data["name"]
        if isinstance(data.get("rules"), list):
            rules = [str(r) for r in data["rules"] if isinstance(r, (str, int, float)) and not isinstance(r, bool)]
    return ScenarioReport(str(file), name, rules, False, [f"not read: {error.describe()}"])


def run_scenario(file: str | Path | Scenario) -> ScenarioReport:
    """Play a scenario's actions with its game's ruleset and check its
    expectations, loading it first (InputError on a bad file) unless it was
    loaded already (``scenario check`` checks every file before it runs
    any, and reads each once). The loop is every game's: a judge's action is
    the kernel's, a player's is read, given the definitions of cards no
    deck lists (``Decks.with_unlisted``), resolved and applied; an action
    refused is a failure unless it is the last and the file expects a
    refusal."""
    sc = load_scenario(file) if isinstance(file, (str, Path)) else file
    ruleset = rulesets.get(sc.game)
    state, log, labels = sc.state, list(sc.events), sc.labels
    fails: list[str] = []
    last_refusal: Refusal | None = None
    expects_refusal = "refused" in sc.expect
    before_action: list[int] = []  # log length just before each scenario action
    for i, (raw, step_expect) in enumerate(sc.actions):
        where = f"action {i + 1} ({raw.get('player', 'judge')} {raw['do']})"
        before_action.append(len(log))
        try:
            if raw.get("judge") is True:
                applied = judge_action(state, log, raw, before_action)
            else:
                action = ruleset.action_from_mapping(raw)
                if sc.catalog is not None and ruleset.decks is not None:
                    action = ruleset.decks.with_unlisted(state, action, sc.catalog.get)
                applied = ruleset.apply(state, ruleset.resolve(state, action, labels))
        except IllegalAction as exc:
            last_refusal = exc.refusal
            if i != len(sc.actions) - 1 or not expects_refusal:
                fails.append(f"{where} was refused: {exc.refusal}")
                break
        else:
            state = applied.state
            log.extend(applied.events)
            last_refusal = None
        if step_expect:
            fails += [f"after {where}: {f}" for f in check(ruleset, step_expect, state, log, last_refusal, labels)]
    if not fails:
        if expects_refusal:
            want = (sc.expect.get("refused") or {}).get("rule")
            if last_refusal is None:
                fails.append(f"expected the last action to be refused citing {want or 'any rule'}, but it was accepted")
            elif want is not None and not last_refusal.cites(str(want)):
                fails.append(f"expected a refusal citing {want}, got {last_refusal}")
        fails += check(ruleset, sc.expect, state, log, last_refusal, labels)
    return ScenarioReport(str(sc.doc.file), sc.name, sc.rules, not fails, fails)


# --- what every game's scenarios may expect ---------------------------------------------

EXPECT_KEYS = ("refused", "decision", "result", "events")


def check_shape(ruleset: rulesets.Ruleset[Any, Any], reader: Reader, expect: Any, path: Path_) -> None:
    """An expectation's shape: the game's (``Scenarios.check_shape``), else
    the kernel's own expectations (``EXPECT_KEYS``)."""
    if ruleset.scenarios is not None:
        ruleset.scenarios.check_shape(reader, expect, path)
        return
    e = reader.mapping(expect, path, EXPECT_KEYS)
    if "refused" in e:
        reader.mapping(e["refused"] or {}, path + ("refused",), ("rule",))
    if "decision" in e:
        d = reader.mapping(e["decision"], path + ("decision",), ("player", "kind", "rule"))
        if d.get("player") is not None:
            reader.player(d["player"], path + ("decision", "player"))
    if "result" in e:
        r = reader.mapping(e["result"], path + ("result",), ("winner", "draw", "rule"))
        if r.get("winner") is not None:
            reader.player(r["winner"], path + ("result", "winner"))
        if "draw" in r:
            reader.bool_(r["draw"], path + ("result", "draw"))
    for i, item in enumerate(reader.seq(e.get("events", []), path + ("events",))):
        reader.mapping(item, path + ("events", i), ("rule", "type", "player"))


def check(
    ruleset: rulesets.Ruleset[Any, Any],
    expect: dict[str, Any],
    state: Any,
    log: list[Any],
    refusal: Refusal | None,
    labels: dict[str, str],
) -> list[str]:
    """Every way the position differs from ``expect``: the game's
    (``Scenarios.check``), else the kernel's own expectations: who must
    decide what, the result, and events the log holds."""
    if ruleset.scenarios is not None:
        return list(ruleset.scenarios.check(expect, state, log, refusal, labels))
    fails: list[str] = []
    if "decision" in expect:
        d = ruleset.decision(state)
        have = {"player": d.player, "kind": d.kind, "rule": d.rule} if d is not None else None
        for key, want in expect["decision"].items():
            got = have.get(key) if have is not None else None
            if got != want:
                fails.append(f"expected the decision's {key} {want!r}, got {got!r}")
    if "result" in expect:
        outcome = ruleset.result(state)
        if outcome is None:
            fails.append(f"expected the game to have ended ({expect['result']}), but it goes on")
        else:
            for key, want in expect["result"].items():
                got = getattr(outcome, key)
                if got != want and not (key == "rule" and Refusal(got, "").cites(str(want))):
                    fails.append(f"expected the result's {key} {want!r}, got {got!r}")
    for want in expect.get("events", []):
        if not any(_event_matches(event, want) for event in log):
            fails.append(f"expected an event {want} in the log, found none")
    return fails


def zone_checks(
    zones: Mapping[str, Mapping[str, Any]],
    cards_in: Callable[[str], list[Any]],
    show: Callable[[list[Any]], str],
    match: Callable[[Any, Any], bool],
) -> list[str]:
    """The scenario format's checks of a zone (``count``, ``cards``, ``top``,
    ``bottom``, ``contains``, ``excludes``: section 4), for any game whose
    zones are lists of cards: every way they differ, as sentences. The game
    says what a zone holds (``cards_in``), how cards read in a sentence
    (``show``) and whether a card is what an entry names (``match(card,
    entry)``); ``contains`` counts each card once, so two entries need two
    cards."""
    fails: list[str] = []
    for zone, check in zones.items():
        actual = cards_in(zone)
        shown = show(actual)

        def same(cards: list[Any], want: list[Any]) -> bool:
            return len(cards) == len(want) and all(match(c, w) for c, w in zip(cards, want))

        if "count" in check and len(actual) != check["count"]:
            fails.append(f"{zone}: expected {check['count']} cards, found {len(actual)} {shown}")
        if "cards" in check and not same(actual, list(check["cards"])):
            fails.append(f"{zone}: expected exactly {check['cards']}, found {shown}")
        if "contains" in check:
            left = list(actual)
            for w in check["contains"]:
                hit = next((c for c in left if match(c, w)), None)
                if hit is None:
                    fails.append(f"{zone}: expected to contain {w}, found {shown}")
                else:
                    left.remove(hit)
        for w in check.get("excludes", []):
            if any(match(c, w) for c in actual):
                fails.append(f"{zone}: expected not to contain {w}, found {shown}")
        if "top" in check and not same(actual[: len(check["top"])], list(check["top"])):
            fails.append(f"{zone}: expected {check['top']} on top, found {shown}")
        if "bottom" in check:
            want = list(check["bottom"])
            if not same(actual[len(actual) - len(want) :] if want else [], want):
                fails.append(f"{zone}: expected {want} at the bottom, found {shown}")
    return fails


def _event_matches(event: Any, want: Mapping[str, Any]) -> bool:
    for key, value in want.items():
        if key == "type":
            if type(event).__name__ != value:
                return False
        elif key == "rule":
            if not Refusal(str(getattr(event, "rule", "")), "").cites(str(value)):
                return False
        elif getattr(event, key, None) != value:
            return False
    return True


def moves_reader(
    ruleset: rulesets.Ruleset[Any, Any],
) -> Callable[[Reader, Any, Path_], tuple[dict[str, Any], dict | None]]:
    """The kernel's reader of a scenario's or record's action, for a game
    that writes none of its own: a judge's action, or a player's ``do``
    checked against the game's moves, each argument against its
    declaration (``ArgSpec``), with the expectation after it."""
    moves = ruleset.moves
    argument_keys = tuple(dict.fromkeys(arg.name for kind in moves.values() for arg in kind.args))
    rewinds = ruleset.rewinds

    def read(reader: Reader, raw: Any, path: Path_) -> tuple[dict[str, Any], dict | None]:
        keys = ("player", "judge", "do", "expect", *argument_keys, *JUDGE_ACTION_KEYS)
        a = reader.mapping(raw, path, tuple(dict.fromkeys(keys)), ("do",))
        do = reader.str_(a["do"], path + ("do",))
        if a.get("judge") is True:
            only = tuple(k for k in argument_keys if k not in JUDGE_ACTION_KEYS)
            read_judge_action(reader, a, do, path, only, rewinds.rules if rewinds is not None else (ruleset.outside,))
        else:
            if "judge" in a:
                reader.bool_(a["judge"], path + ("judge",))
            if "player" not in a:
                raise reader.err(path, f"missing required key 'player' ({', '.join(ruleset.seats)}), or judge: true")
            reader.player(a["player"], path + ("player",))
            kind = moves.get(do)
            if kind is None:
                raise reader.err(path + ("do",), f"unknown action {do!r}; expected one of: {', '.join(moves)}")
            declared = {arg.name: arg for arg in kind.args}
            for key in a:
                if key in argument_keys and key not in declared:
                    raise reader.err(path + (key,), f"{do} takes {', '.join(declared) or 'no arguments'}, not {key!r}")
            for arg in kind.args:
                if arg.required and arg.name not in a:
                    raise reader.err(path, f"missing required key {arg.name!r} for {do}")
                if arg.name in a:
                    _argument(reader, a[arg.name], path + (arg.name,), arg)
        expect = a.get("expect")
        if expect is not None:
            check_shape(ruleset, reader, expect, path + ("expect",))
        return a, expect

    return read


def _argument(reader: Reader, value: Any, path: Path_, arg: Any) -> None:
    """One argument's value checked against its declaration's kind."""
    if arg.kind in ("cards", "names"):
        for i, v in enumerate(reader.seq(value, path)):
            reader.str_(v, path + (i,))
    elif arg.kind == "count":
        reader.int_(value, path, 0)
    elif arg.kind == "flag":
        reader.bool_(value, path)
    elif arg.kind == "choice" and arg.choices:
        reader.choice(value, path, arg.choices)
    else:
        reader.str_(value, path)


def judge_action(
    state: Any,
    log: list[Any],
    raw: dict[str, Any],
    before_action: list[int],
    states: list[Any] | None = None,
) -> Any:
    """A judge's action of a scenario (410 corrections, notes). ``states``
    (``corrections.states_along(log)``) spares a rewind folding the log."""
    from referee import corrections

    do = raw["do"]
    judge = raw.get("by")
    if do == "note":
        return corrections.note(state, str(raw["text"]), judge)
    if do == "accept":
        return corrections.accept(state, str(raw["reason"]), judge, at=raw.get("at"))
    if do == "call":
        return corrections.call(state, str(raw.get("reason", "")), judge)
    if do == "skip_step":
        return corrections.skip_step(state, log, str(raw["rule"]), str(raw.get("reason", "")))
    if do == "result":
        winner = None if raw["winner"] == "draw" else str(raw["winner"])
        return corrections.enter_result(
            state,
            winner,
            winner is None,
            str(judge),
            str(raw.get("reason", "")),
            rule=raw.get("rule"),
        )
    to = raw.get("to")
    if do == "undo" and to is None:
        # The last entry: the action before this one (``before_action`` ends with this one's).
        if len(before_action) < 2:
            raise IllegalAction(Refusal("undo", "No action has been logged yet: there is nothing to take back."))
        to = {"event": before_action[-2]}
    assert to is not None  # read_judge_action requires it of a rewind
    if "action" in to:
        k = to["action"]
        if k > len(before_action):
            raise IllegalAction(Refusal(corrections.rewind_section(log), f"Action {k} has not happened yet."))
        position = before_action[k - 1]
    elif "event" in to:
        position = to["event"]
    else:
        position = corrections.position_of_step(log, to["turn"], str(to["step"]), states)
    if do == "undo":
        states = corrections.states_along(log, states)
        restored = states[position] if 0 <= position < len(states) else None
        return corrections.undo(state, position, restored, str(judge), reason=str(raw.get("reason", "")))
    return corrections.rewind(
        state,
        log,
        position,
        rule=str(raw["rule"]),
        reason=str(raw["reason"]),
        judge=judge,
        replay=bool(raw.get("replay", False)),
        after=raw.get("replay") == "after",
        states=states,
        describe_undone=False,
    )


def scenario_files(paths: list[str]) -> list[Path]:
    """The files named, folders searched recursively for *.yaml, sorted."""
    out: list[Path] = []
    for p in paths:
        path = Path(p)
        if path.is_dir():
            out.extend(sorted(f for f in path.rglob("*.yaml") if _is_scenario(f)))
        elif path.exists():
            out.append(path)
        else:
            raise InputError(path, "", "no such file or folder")
    return out


def _is_scenario(f: Path) -> bool:
    """Deck files, card pools and match records live beside scenarios; a
    scenario is a mapping with a ``rules`` key, which those never have."""
    if "decks" in f.parts or "records" in f.parts or "pools" in f.parts:
        return False
    return True


# --- a match written as a scenario ------------------------------------------------------


def scenario_from(
    log: list[Any], at: int, to: int | None = None, viewer: str = "judge", match: str = "", title: str | None = None
) -> Any:
    """A stretch of a stored match as a scenario file (``referee scenario
    from``): its game's ``write_scenario`` (Harem Master's
    ``referee.rules.harem_master.written``). ``ValueError`` with the reason
    when the stretch cannot be written, or the game writes no scenarios."""
    if not log:
        raise ValueError("the match has no events")
    ruleset = rulesets.of_first_event(log[0])
    if ruleset.scenario_writer is None:
        raise ValueError(f"{ruleset.name} ({ruleset.id}) cannot write its matches as scenarios yet")
    return ruleset.scenario_writer.write(log, at, to, viewer, match, title)


def dump_scenario(data: dict[str, Any], comment: str | None = None) -> str:
    """A scenario as YAML people read: keys in the format's order, each card,
    action and small mapping on one line (flow style)."""
    import yaml

    head = "".join(f"# {line}".rstrip() + "\n" for line in (comment or "").splitlines())
    return head + yaml.safe_dump(data, sort_keys=False, allow_unicode=True, default_flow_style=None, width=110)
