"""The board of any game, read through its ruleset alone: the log, the decision and the controls.

A game whose ruleset brings no page parts of its own (SCP-TCG chapter 4
today) is shown from what the ``Ruleset`` interface gives: the zones of its
``view`` for the viewer (what the rules hide stays hidden: the view decides
it), one ``describe`` sentence per event for the viewer, who must act
(``decision``) and, to the judge and to a seat that may act, its legal
actions (``legal_actions`` through ``describe_action``, as that viewer
may know them). The controls are
one form per kind of action (``ActionSpec``) that the legal list holds now,
a field per declared argument (``ArgSpec``), its choices the values the
legal list uses; what a form sends is read back against the same
declarations (``action_data``) before the ruleset decides it, as
``referee act --arg NAME=VALUE`` is. Every legal action is also one button
carrying its line (``line_of``: what ``referee legal`` prints for it,
without the card ids), as the console contract asks (spec: console.md):
the server finds the action again by that line among the legal ones. A
game that groups its legal list (``Ruleset.group_actions``) has its
buttons under the same headings as ``referee legal`` prints (a kind, then
the card or zone its actions name), each button showing what tells it
apart from its neighbours and carrying its whole line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Collection, Mapping, Sequence

from referee.ruleset import ActionSpec, ArgSpec, Ruleset

MAX_LISTED = 60  # values a list argument takes at most (a zone's cards)
MAX_COUNT = 999  # a count argument's largest value


class BadForm(ValueError):
    """A form that does not fit the game's declarations (a 400, nothing decided)."""


def log_rows(
    game: Ruleset,
    events: Sequence[Any],
    state: Any,
    viewer: str,
    stop: int | None = None,
    retracted: Collection[int] = (),
) -> list[dict[str, Any]]:
    """The rows of ``referee log --json`` for ``events[:stop]``, folded from
    ``state`` (the state before the first of them), each in the ruleset's
    sentence as ``viewer`` may know it (its ``describe_log``)."""
    return game.log_rows(events[:stop], state, viewer, retracted)


def shows_actions(game: Ruleset, player: str | None, viewer: str) -> bool:
    """The judge reads the legal actions, and so does a seat that may act
    (any seat, when the decision is nobody's in particular); the public does not."""
    return viewer == "judge" or (viewer in game.seats and player in (None, viewer))


def decision(game: Ruleset, state: Any, viewer: str) -> dict[str, Any] | None:
    """Who must act and on what, as ``referee legal --json`` says it, with the
    legal actions described for those who may read them (None: nobody must act)."""
    d = game.decision(state) if state.position else None
    if d is None:
        return None
    shown = shows_actions(game, d.player, viewer)
    actions = [game.describe_action(state, a, viewer) for a in game.legal_actions(state)] if shown else None
    return {
        "player": d.player,
        "kind": d.kind,
        "rule": d.rule,
        "text": d.text,
        "actions": actions,
        "moves": list(d.moves) if d.moves is not None else None,  # the moves that answer it (None: any)
        # Each as `referee legal` prints it, without card ids (a viewer who reads but does not log).
        "lines": [line_of(game, a) for a in actions] if actions is not None else None,
    }


@dataclass
class Field:
    """One argument of a form: its declaration and the values offered."""

    name: str
    kind: str
    required: bool
    help: str
    options: list[tuple[str, str]] = field(default_factory=list)  # (value sent, label)


@dataclass
class Button:
    """One legal action's control: its whole line (``data-action``, and its
    text), drawn as the whole line, or (under a game's groups) as the seat
    that acts, the rest of its line (``hidden``) kept in its text for a
    screen reader and a filter but not drawn: its row says it."""

    line: str
    player: str = ""
    hidden: str = ""


@dataclass
class Row:
    """The buttons of one subject that differ only in who acts, and what
    tells them apart from the subject's other rows (``label``: ``to=A.safe
    at=top``)."""

    label: str
    buttons: list[Button]


@dataclass
class Part:
    """The controls of one kind that name one subject (a card where it lies,
    a zone; "" for a kind not grouped so): its rows, or its buttons drawn whole."""

    subject: str
    rows: list[Row] = field(default_factory=list)
    buttons: list[Button] = field(default_factory=list)

    @property
    def count(self) -> int:
        return sum(len(r.buttons) for r in self.rows) + len(self.buttons)


@dataclass
class Form:
    """One kind of action the table may log now: its rule, who may send it, its fields."""

    do: str
    rule: str
    help: str
    players: list[str]
    fields: list[Field]
    count: int  # legal actions of this kind now
    lines: list[str] = field(default_factory=list)  # each legal action of the kind as `referee legal` prints it
    parts: list[Part] = field(default_factory=list)  # its buttons, one per legal action, under their subjects


# A card id `referee legal` prints in brackets beside a name, e.g. " [A:12]" or " [A:3,A:4]".
_IDS = re.compile(r" \[[A-Za-z0-9_-]+:\d+(?:,\s?[A-Za-z0-9_-]+:\d+)*\]")


def line_of(game: Ruleset, described: Mapping[str, Any]) -> str:
    """One legal action (``describe_action``'s) as `referee legal` prints it
    (``list_actions``), without its number and card ids: the console's LINE."""
    return _IDS.sub("", game.list_actions([described])[0][0])


def line_action(game: Ruleset, state: Any, line: str, viewer: str) -> Any | None:
    """The legal action whose line is ``line`` (the first copy), or None."""
    for action in game.legal_actions(state):
        if line_of(game, game.describe_action(state, action, viewer)) == line:
            return action
    return None


def _label(ident: str, name: str | None, known: Mapping[str, str]) -> str:
    shown = known.get(ident) or (name if name and name != "face-down" else None)
    return f"{shown} ({ident})" if shown else f"{ident} (face down)"


def known_names(view: Mapping[str, Any]) -> dict[str, str]:
    """Card id -> name, for the cards the view both names and gives the id of
    (the judge's view gives ids): a label never tells more than the view."""
    out: dict[str, str] = {}
    for zone in (view.get("zones") or {}).values():
        for ident, name in zip(zone.get("ids") or (), zone.get("cards") or ()):
            if name:
                out[ident] = name
    return out


def _options(arg: ArgSpec, actions: list[dict[str, Any]], known: Mapping[str, str]) -> list[tuple[str, str]]:
    """The values the legal actions give ``arg``, in the order first met."""
    if arg.choices:
        return [(c, c) for c in arg.choices]
    found: dict[str, str] = {}
    for a in actions:
        if arg.kind == "card" and a.get(arg.name + "_id"):
            ident = str(a[arg.name + "_id"])
            found.setdefault(ident, _label(ident, a.get(arg.name), known))
        elif arg.kind == "cards":
            for ident, name in zip(a.get(arg.name + "_ids") or (), a.get(arg.name) or ()):
                found.setdefault(str(ident), _label(str(ident), name, known))
        elif arg.kind in ("zone", "choice") and a.get(arg.name) is not None:
            found.setdefault(str(a[arg.name]), str(a[arg.name]))
    return list(found.items())


def controls(
    game: Ruleset,
    described: list[dict[str, Any]],
    view: Mapping[str, Any],
    seat: str | None = None,
    answers: Sequence[str] | None = None,
) -> list[Form]:
    """One form per kind of action the legal list holds (a player's own
    console: only that seat's): those that answer the decision (``answers``,
    its ``moves``) first, then the rest in the order the ruleset declares them."""
    mine = [a for a in described if seat is None or a["player"] == seat]
    known = known_names(view)
    line = [line_of(game, a) for a in mine]  # each action's line, made once
    parts = _parts(game, mine, line)
    forms = []
    kinds = [*(answers or ()), *(do for do in game.actions if do not in (answers or ()))]
    for do in kinds:
        spec = game.actions[do]
        actions = [a for a in mine if a["do"] == do]
        if not actions:
            continue
        players = list(dict.fromkeys(a["player"] for a in actions))
        fields = [
            Field(arg.name, arg.kind, arg.required, arg.help, _options(arg, actions, known)) for arg in spec.args or ()
        ]
        lines = list(dict.fromkeys(line[i] for i, a in enumerate(mine) if a["do"] == do))
        forms.append(Form(do, spec.rule, spec.help, players, fields, len(actions), lines, parts.get(do, [])))
    return forms


def _parts(game: Ruleset, described: list[dict[str, Any]], lines: list[str]) -> dict[str, list[Part]]:
    """Each kind's controls, one per distinct line (``lines``: each described
    action's): under the game's groups (``group_actions``) where it has them,
    in rows of the seats that may do the same, else every line whole under
    the kind."""
    groups = game.group_actions(described) if game.group_actions is not None and described else None
    if groups is None:
        out: dict[str, list[Button]] = {}
        for a, line in zip(described, lines):
            out.setdefault(a["do"], []).append(Button(line))
        return {do: [Part("", buttons=_unique(buttons))] for do, buttons in out.items()}
    grouped: dict[str, list[Part]] = {}
    for g in groups:
        part = Part(g.subject)
        rows: dict[str, Row] = {}
        for i in g.indices:
            label, button = _control(described[i], lines[i], g.subject)
            if label is None:
                part.buttons.append(button)
            else:
                rows.setdefault(label, Row(label, [])).buttons.append(button)
        part.rows = [Row(r.label, _unique(r.buttons)) for r in rows.values()]
        part.buttons = _unique(part.buttons)
        grouped.setdefault(g.do, []).append(part)
    return grouped


def _control(a: Mapping[str, Any], line: str, subject: str) -> tuple[str | None, Button]:
    """One action's row (what tells it apart under ``subject``: None for a
    line that does not start with its subject, as a game may write its
    lines its own way: drawn whole) and its button."""
    head = f"{a['player']} {a['do']} {subject}".rstrip()
    if not (line == head or line.startswith(head + " ")):
        return None, Button(line)
    label = line[len(head) :].strip() or str(a["do"]).replace("_", " ")
    return label, Button(line, str(a["player"]), line[len(str(a["player"])) :].strip())


def _unique(buttons: list[Button]) -> list[Button]:
    """One button per line (two copies of a card a line cannot tell apart are one action to log)."""
    seen: dict[str, Button] = {}
    for b in buttons:
        seen.setdefault(b.line, b)
    return list(seen.values())


def _one(form: Any, name: str) -> str:
    values = [str(v).strip() for v in form.getlist(name)]
    values = [v for v in values if v]
    if len(values) > 1:
        raise BadForm(f"{name}: give one value.")
    value = values[0] if values else ""
    if len(value) > 200 or not value.isprintable():
        raise BadForm(f"{name}: plain text, at most 200 characters.")
    return value


def _value(arg: ArgSpec, form: Any) -> Any:
    """The argument from the form, checked against its declaration (None: not given)."""
    if arg.kind in ("cards", "names"):
        raw = [str(v) for v in form.getlist(arg.name)]
        values = [v.strip() for text in raw for v in text.split(",") if v.strip()]
        if len(values) > MAX_LISTED:
            raise BadForm(f"{arg.name}: at most {MAX_LISTED} values.")
        if any(len(v) > 200 or not v.isprintable() for v in values):
            raise BadForm(f"{arg.name}: plain text, at most 200 characters each.")
        return values or None
    value = _one(form, arg.name)
    if not value:
        return None
    if arg.choices and value not in arg.choices:
        raise BadForm(f"{arg.name}: expected one of {', '.join(arg.choices)}.")
    if arg.kind == "count":
        if not (value.isascii() and value.isdigit()) or not 0 < int(value) <= MAX_COUNT:
            raise BadForm(f"{arg.name}: expected a whole number from 1 to {MAX_COUNT}.")
        return int(value)
    if arg.kind == "flag":
        if value not in ("true", "false"):
            raise BadForm(f"{arg.name}: expected true or false.")
        return value == "true"
    return value


def action_data(game: Ruleset, form: Any) -> dict[str, Any]:
    """The action a form sends, as the notation writes it (``{player, do,
    ...}``), checked against its ``ActionSpec``: an unknown kind, a seat the
    game has not, a bad value or a missing required argument is ``BadForm``."""
    do = _one(form, "do")
    spec: ActionSpec | None = game.actions.get(do)
    if spec is None:
        raise BadForm(f"do: {do[:30]!r} is not an action of {game.name}; expected one of {', '.join(game.actions)}.")
    player = _one(form, "player")
    if player not in game.seats:
        raise BadForm(f"player: expected one of {', '.join(game.seats)}.")
    data: dict[str, Any] = {"player": player, "do": do}
    missing = []
    for arg in spec.args or ():
        value = _value(arg, form)
        if value is not None:
            data[arg.name] = value
        elif arg.required:
            missing.append(arg.name)
    if missing:
        raise BadForm(f"{do} needs {', '.join(missing)}.")
    return data


def cards_named(game: Ruleset, data: Mapping[str, Any]) -> list[str]:
    """Every card the action's arguments name (to check they are the match's)."""
    out: list[str] = []
    for arg in game.actions[data["do"]].args or ():
        value = data.get(arg.name)
        if arg.kind == "card" and value:
            out.append(value)
        elif arg.kind == "cards" and value:
            out += list(value)
    return out


__all__ = [
    "BadForm",
    "Button",
    "Field",
    "Form",
    "Part",
    "Row",
    "action_data",
    "cards_named",
    "controls",
    "decision",
    "line_action",
    "line_of",
    "log_rows",
]
