"""Harem Master's own parts of the board's pages: its board, log, decision, card texts and console controls.

The board draws any game from its ruleset (``referee.web.anygame``); a game
with more to show hands the board this module as ``Ruleset.board``. For
Harem Master it is: the position with characters, piles and value
explanations (``views.state_view``, which hides what 215 hides), the log
whose choices are read to the end of their action
(``projections.harem_master.transcript.log_rows``), the decision with its
legal actions named as the viewer may know them (``views.decision_view``),
the printed text of the cards a page names, and the console's controls:
the legal actions one per line exactly as ``referee legal`` prints it
(``notation.action_line``, spec: console.md), grouped by kind, with the
cards each may use so the board can highlight them, a table-dealt match's
reveals most likely first, and record mode's menus (whatever the table did,
legal or not). The board draws it with its ``TEMPLATE`` and the template
names in ``TEMPLATE_GLOBALS``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from events.kernel import Event
from projections.harem_master.state import GameState
from projections.harem_master.transcript import log_rows as _log_rows
from projections.harem_master.views import SHOWN_PER_PILE
from referee.rules.harem_master.actions import Action
from referee.rules.harem_master.notation import action_line, action_lines, action_of_line, describe_action
from referee.rules.harem_master.rewinds import SKIPPABLE  # steps a table can skip (referee skip-step)
from referee.rules.harem_master.views import action_names, card_texts, decision_view, names_in_view, state_view

TEMPLATE = "harem-master/board.html"  # the board template (this package's templates/, found under the game's id)
LOOK_AHEAD = 200  # events read past a page, to see where its last action ends (projections.harem_master.visibility)

# The keys of ``state_view`` the board draws in its own place; any other key
# (value explanations, an agenda, open windows: whatever the view grows) is
# shown as it comes, never dropped.
VIEW_KEYS = frozenset(
    {
        "match",
        "event",
        "turn",
        "active",
        "step",
        "result",
        "zones",
        "characters",
        "violations",
        "mode",
        "draw_offer",
        "judge_call",
        "deal",
        "unaccounted",
    }
)
CHARACTER_KEYS = frozenset({"card", "id", "controller", "ready", "face_down", "items", "physical", "mental"})


TEMPLATE_GLOBALS = {
    "VIEW_KEYS": VIEW_KEYS,
    "CHARACTER_KEYS": CHARACTER_KEYS,
    "SHOWN_PER_PILE": SHOWN_PER_PILE,
    "action_lines": action_lines,  # the lines `referee legal` prints
}


def view(state: GameState, viewer: str) -> dict[str, Any]:
    """The position as ``viewer`` may see it (``referee state --json``)."""
    return state_view(state, viewer)


def log_rows(
    events: Sequence[Event], state: GameState, viewer: str, start: int, stop: int, retracted: frozenset[int]
) -> list[dict[str, Any]]:
    """The log's rows for ``events[start:stop]`` as ``viewer`` may read them,
    each action read to its end (``LOOK_AHEAD`` events past ``stop`` given)."""
    return _log_rows(events, state, viewer, start, stop, retracted)


def decision(state: GameState, viewer: str) -> dict[str, Any] | None:
    """Whose decision it is, and the legal actions for those who may read them."""
    return decision_view(state, viewer)


def page_card_texts(
    state: GameState, shown: dict[str, Any], decided: dict[str, Any] | None
) -> dict[str, dict[str, Any]]:
    """The printed text and abilities in words of every card the page names:
    those the view shows, those its legal actions name (shown only to whoever
    may see them) and a reveal's choices."""
    actions = decided["actions"] if decided else None
    extra = []
    if decided is not None and decided["kind"] == "reveal" and decided["actions"]:
        extra = [a["card"] for a in decided["actions"] if a["do"] == "reveal"]
    return card_texts(state, [*names_in_view(shown), *action_names(actions or []), *extra])


def action_of(state: GameState, line: str) -> Action | None:
    """The legal action whose line (as ``referee legal`` prints it) is ``line``, None if none is."""
    from referee.rules.harem_master.procedure import game

    player, _, rest = line.partition(" ")
    do = rest.split(" ", 1)[0]
    for a in game().legal_actions(state):
        if a.player != player or a.do != do:
            continue
        described = describe_action(state, a)
        if action_line(described) == line:
            return action_of_line(described)
    return None


# Each kind of action as the console titles its group, in the order shown.
GROUPS: dict[str, str] = {
    "reveal": "Which card did the table turn face up?",
    "choose_opening": "Opening character",
    "choose_order": "Turn order",
    "keep": "Opening hand",
    "mulligan": "Opening hand",
    "choose": "Choose",
    "intercept": "Intercept",
    "no_intercept": "Intercept",
    "attack": "Attack",
    "play_character": "Play a character",
    "play_item": "Play an item",
    "play_event": "Use an event",
    "activate": "Activate an ability",
    "discard": "Discard",
    "pass": "Pass",
    "end_turn": "End the turn",
    "accept_draw": "End of the game",
    "propose_draw": "End of the game",
    "concede": "End of the game",
}
# One-tap answers shown large, first: the usual way on.
PRIMARY = ("pass", "end_turn", "keep", "no_intercept", "accept_draw")
ENDING = ("concede", "propose_draw")  # kept apart, last: a mistap would end the game
UNKEYED = (*ENDING, "accept_draw")  # what no key logs: each ends the game


def label(a: dict[str, Any]) -> str:
    """A control's text: the line without its player and verb."""
    do = a["do"]
    fixed = {
        "pass": "Pass",
        "end_turn": "End the turn",
        "keep": "Keep the hand",
        "mulligan": "Mulligan",
        "no_intercept": "Do not intercept",
        "concede": f"{a['player']} concedes",
        "propose_draw": "Offer a draw",
        "accept_draw": "Accept the draw",
    }
    if do in fixed:
        return fixed[do]
    if do == "choose_order":
        return {"first": "Go first", "second": "Go second"}.get(a.get("order", ""), str(a.get("order")))
    parts: list[str] = []
    if "card" in a:
        parts.append(a["card"])
    if "cards" in a:
        parts.append(", ".join(a["cards"]))
    if "target" in a:
        parts.append(f"→ {a['target']}")
    if "ability" in a:
        parts.append(f"ability {a['ability']}")
    if "n" in a:
        parts.append(f"n = {a['n']}")
    if "option" in a:
        parts.append({"yes": "Yes", "no": "No"}.get(str(a["option"]), str(a["option"])))
    if "order" in a:
        parts.append(str(a["order"]))
    return " ".join(parts) or do.replace("_", " ")


@dataclass
class Control:
    """One legal line: what the button logs and the cards it may be picked by."""

    line: str
    do: str
    player: str
    label: str
    cost: str | None = None
    likely: int | None = None  # a reveal: copies of the name the deck list has left
    kind: str | None = None  # the card's type (character, item, event), for grouping a long list
    key: int | None = None  # the desktop key (1-9) that logs it; never an ending's
    # Per copy of the line, the cards it uses in order (card, then target; or
    # the cards of a discard): {"i": id, "n": name, "z": zone}.
    copies: list[list[dict[str, str]]] = field(default_factory=list)


@dataclass
class Group:
    title: str
    dos: list[str]
    controls: list[Control]
    filter: bool = False  # a list of names to pick from: searchable (spec: console.md, 9)


# A list of names longer than this gets a search box; a reveal always does.
FILTER_FROM = 6
KINDS = ("character", "item", "event")  # how a long list of cards is grouped, in this order


def _cost(c: Control) -> int:
    try:
        return int(str(c.cost))
    except ValueError:
        return 99  # "X" and the like after every fixed cost


def zones_of(state: GameState) -> dict[str, str]:
    """Where each card is, as ``GameState.where`` says it ("A.hand", "field"), all at once."""
    from projections.harem_master.state import PILES

    out: dict[str, str] = {}
    for player, z in state.zones.items():
        for pile in PILES:
            for c in getattr(z, pile):
                out[c] = f"{player}.{pile}"
    for c in state.orphans:
        out[c] = "field"
    for ch in state.field:
        out[ch.card] = "field"
        for item in ch.items:
            out[item] = "field"
    return out


def _slots(where: dict[str, str], a: dict[str, Any]) -> list[dict[str, str]]:
    out = []
    for key in ("card", "target"):
        ident = a.get(key + "_id")
        if ident:
            out.append({"i": ident, "n": a[key], "z": where.get(ident, "")})
    for ident, name in zip(a.get("cards_ids") or (), a.get("cards") or ()):
        out.append({"i": ident, "n": name, "z": where.get(ident, "")})
    return out


def controls(
    state: GameState, seat: str | None = None, described: list[dict[str, Any]] | None = None
) -> dict[str, Any] | None:
    """The controls for the decision in front of the table (None: nobody must
    act). ``seat``: a player's own console shows only that player's lines.
    ``described``: the legal actions already described (the page has them)."""
    from referee.rules.harem_master.engine import current_decision
    from referee.rules.harem_master.procedure import game

    d = current_decision(state) if state.position else None
    if d is None or (seat is not None and d.player != seat):
        return None
    if described is None:
        described = [describe_action(state, a) for a in game().legal_actions(state)]
    from referee.rules.harem_master.describe import definitions

    by_line: dict[str, Control] = {}
    where = zones_of(state)
    kinds = {name: cd.type for name, cd in definitions(state).items()}
    for a in described:
        line = action_line(a)
        found = by_line.get(line)
        if found is None:
            card = a.get("card") if isinstance(a.get("card"), str) else None
            found = by_line[line] = Control(
                line, a["do"], a["player"], label(a), a.get("cost"), kind=kinds.get(card) if card else None
            )
        if a["do"] != "reveal":
            slots = _slots(where, a)
            if slots:
                found.copies.append(slots)
    reveal = None
    if d.kind == "reveal":
        from referee.rules.harem_master.hidden import pending, unaccounted

        left = unaccounted(state, d.player)
        total = sum(left.values()) or 1
        for c in by_line.values():
            if c.do == "reveal":
                c.likely = left.get(c.label, 0)
        waiting = pending(state)
        reveal = {
            "player": d.player,
            "why": waiting.why if waiting else "",
            "total": total,
            "at_most": waiting.count if waiting else 1,
        }
    groups: dict[str, Group] = {}
    primary: list[Control] = []
    ending: list[Control] = []
    for c in by_line.values():
        if c.do in PRIMARY:
            primary.append(c)
        elif c.do in ENDING:
            ending.append(c)
        else:
            title = GROUPS.get(c.do, c.do.replace("_", " "))
            groups.setdefault(title, Group(title, [], [])).controls.append(c)
            if c.do not in groups[title].dos:
                groups[title].dos.append(c.do)
    for g in groups.values():
        # A stable order a thumb learns: a reveal's names alphabetically (the
        # copies left are shown beside each, and never reorder the list
        # between reveals); cards by type, then cost, then name.
        if "reveal" in g.dos:
            g.controls.sort(key=lambda c: c.label.casefold())
            g.filter = True
        elif any(c.kind for c in g.controls):
            rank = {k: i for i, k in enumerate(KINDS)}
            g.controls.sort(key=lambda c: (rank.get(c.kind or "", 9), _cost(c), c.label.casefold()))
            g.filter = len(g.controls) > FILTER_FROM
    order = list(dict.fromkeys(GROUPS.values()))
    shown = sorted(groups.values(), key=lambda g: order.index(g.title) if g.title in order else 99)
    # Keys 1-9 in the order the controls are drawn; the endings have none (a
    # key must never concede or offer a draw).
    keyed = [c for c in (*primary, *(c for g in shown for c in g.controls)) if c.do not in UNKEYED]
    for number, c in enumerate(keyed[:9], start=1):
        c.key = number
    return {
        "player": d.player,
        "kind": d.kind,
        "primary": primary,
        "groups": shown,
        "ending": ending,
        "reveal": reveal,
        "count": len(by_line),
    }


def entry_menus(state: GameState) -> dict[str, Any]:
    """What the record-mode form offers: every kind of action and every card
    name of the match (whatever the table did, legal or not), prefilled from
    the board so that what the table did usually takes two choices (the
    action and the card): the player is the one the decision is in front
    of, and the cards on the table come first (the characters of the field,
    by controller), then every name of the match."""
    from referee.rules.harem_master.describe import definitions
    from referee.rules.harem_master.engine import current_decision
    from referee.rules.harem_master.registry import ACTIONS

    d = current_decision(state) if state.position else None
    names = sorted(definitions(state))
    known = set(names)
    on_table: dict[str, list[str]] = {}
    for ch in state.field:
        name = state.cards[ch.card].name if ch.card in state.cards else None
        if name in known and not ch.face_down:
            on_table.setdefault(ch.controller, [])
            if name not in on_table[ch.controller]:
                on_table[ch.controller].append(name)
    first = d.player if d is not None else state.active
    groups = [
        (f"{p}'s characters on the table", sorted(on_table[p])) for p in sorted(on_table, key=lambda p: p != first)
    ]
    return {
        "kinds": sorted(ACTIONS),
        "names": names,
        "cards": [*groups, ("every card of the match", names)],
        "seats": ["A", "B"],
        "player": first or "A",
        "steps": SKIPPABLE,
    }
