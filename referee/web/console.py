"""The console: the board's controls for logging a match, and the writes they make.

The controls are the legal actions of the decision in front of the table
(``referee.rules.legal_actions``), one per line exactly as ``referee legal``
prints it (``notation.action_line``, spec: console.md), grouped by kind,
with the cards each may use so the board can highlight them. A line is
logged as ``referee act MATCH LINE`` would log it typed out: the line's
action with the cards it names (``notation.action_of_line``), resolved and
applied by the same functions, so a match logged at the board and the same
match logged at a terminal are the same record.

Every write goes through ``MatchStore.update`` with the version the page
showed (``expected_version``) and who entered it (``by``, ``entry``): a
page that fell behind records nothing (``StaleVersion``) and learns what was
logged meanwhile; the same submission sent twice (a double tap, a resend
after a lost answer) is recognised by its entry id and logged once.

In record mode anything the table did may be entered, legal or not: the
console decides it without storing it first, and what it would record as a
violation is shown for a confirmation before anything is written.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

from events.kernel import (
    ActionTaken,
    JudgeCalled,
    NoteAdded,
    Rewound,
    StepSkipped,
    ViolationRecorded,
    ViolationsAccepted,
)
from projections.harem_master.state import GameState
from referee.actions import Action, Applied, IllegalAction
from referee.rules import ACTIONS, apply as apply_action, current_decision, legal_actions
from referee.rules.harem_master.notation import action_line, action_of_line, describe_action, resolve
from referee.store import MatchStore
from referee.store.errors import StaleVersion
from referee.web.anygame import cards_named

if TYPE_CHECKING:
    from referee.web.auth import Role

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
SKIPPABLE = ("301", "302", "303", "309", "214.2e")  # steps a table can skip (referee skip-step)
JUDGE_EVENTS = (NoteAdded, ViolationsAccepted, Rewound, JudgeCalled, StepSkipped)


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
    # Per copy of the line, the cards it uses in order (card, then target; or
    # the cards of a discard): {"i": id, "n": name, "z": zone}.
    copies: list[list[dict[str, str]]] = field(default_factory=list)


@dataclass
class Group:
    title: str
    dos: list[str]
    controls: list[Control]


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
    d = current_decision(state) if state.position else None
    if d is None or (seat is not None and d.player != seat):
        return None
    if described is None:
        described = [describe_action(state, a) for a in legal_actions(state)]
    by_line: dict[str, Control] = {}
    where = zones_of(state)
    for a in described:
        line = action_line(a)
        found = by_line.get(line)
        if found is None:
            found = by_line[line] = Control(line, a["do"], a["player"], label(a), a.get("cost"))
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
        found = pending(state)
        reveal = {
            "player": d.player,
            "why": found.why if found else "",
            "total": total,
            "at_most": found.count if found else 1,
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
        if "reveal" in g.dos:  # most likely first: the names with the most copies left
            g.controls.sort(key=lambda c: (-(c.likely or 0), c.label))
    order = list(dict.fromkeys(GROUPS.values()))
    return {
        "player": d.player,
        "kind": d.kind,
        "primary": primary,
        "groups": sorted(groups.values(), key=lambda g: order.index(g.title) if g.title in order else 99),
        "ending": ending,
        "reveal": reveal,
        "count": len(by_line),
    }


def entry_menus(state: GameState) -> dict[str, Any]:
    """What the record-mode form offers: every kind of action and every card
    name of the match (whatever the table did, legal or not)."""
    from referee.rules.harem_master.describe import definitions

    return {
        "kinds": sorted(ACTIONS),
        "names": sorted(definitions(state)),
        "steps": SKIPPABLE,
    }


# --- writes -------------------------------------------------------------------------------


@dataclass
class Outcome:
    """What a submission did, for the page's notice."""

    status: str  # logged | refused | stale | repeat | preview | invalid
    message: str = ""
    rule: str | None = None
    version: int = 0
    violations: list[dict[str, str]] = field(default_factory=list)  # a preview's
    confirm: dict[str, Any] | None = None  # where a preview's confirmation posts, and its fields
    http: int = 200

    def to_json(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "message": self.message,
            "rule": self.rule,
            "version": self.version,
            "violations": self.violations,
        }


class Console:
    """The writes of the board, on one store."""

    def __init__(self, store: MatchStore) -> None:
        self.store = store

    def _write(
        self, match: str, version: int, role: Role, entry: str, viewer: str, decide: Callable[[GameState], Any]
    ) -> Outcome:
        try:
            done = self.store.update(match, decide, expected_version=version, by=role.by, entry=entry or None)
        except StaleVersion as exc:
            return self.stale(match, exc, entry, viewer)
        except IllegalAction as exc:
            return Outcome("refused", exc.refusal.reason, exc.refusal.rule, version, http=422)
        after = getattr(done, "state", None)
        new = after.position if after is not None else self.store.load(match)[1]
        return Outcome("logged", f"{len(done.events)} events recorded.", None, new)

    def stale(self, match: str, exc: StaleVersion, entry: str, viewer: str) -> Outcome:
        """Nothing was recorded: say what was logged meanwhile (as ``viewer`` may read it)."""
        records = [r for r in self.store.records(match) if r.position > exc.chosen]
        if entry and records and records[0].entry == entry:
            return Outcome(
                "repeat", "That was logged already (it was sent twice); here is the board now.", version=exc.current
            )
        said = None
        before = self.store.state_at(match, exc.chosen)
        game = self.store.ruleset(match)
        for r in records:
            if isinstance(r.event, (ActionTaken, *JUDGE_EVENTS)):
                said = game.describe(r.event, before, viewer)
                who = f" (entered by {r.by})" if r.by else ""
                break
            before = game.evolve(before, r.event)
        if said is None:
            said, who = "Something else", ""
        return Outcome(
            "stale",
            f"Not recorded: {said.rstrip('.')}{who} was logged meanwhile. Here is the board now: choose again.",
            None,
            exc.current,
            http=409,
        )

    # --- player actions ---------------------------------------------------------------

    def act_line(self, match: str, version: int, line: str, role: Role, entry: str, viewer: str) -> Outcome:
        """Log one legal line, as chosen on the board at ``version``."""
        state, current = self.store.load(match)
        if current != version:
            return self.stale(match, StaleVersion(match, version, current, False), entry, viewer)
        player, _, rest = line.partition(" ")
        do = rest.split(" ", 1)[0]
        for a in legal_actions(state):
            if a.player != player or a.do != do:
                continue
            described = describe_action(state, a)
            if action_line(described) == line:
                raw = action_of_line(described)
                break
        else:
            return Outcome("invalid", f"{line!r} is not a legal action now.", "406.1", version, http=422)
        if role.kind == "player" and raw.player != role.seat:
            return Outcome(
                "invalid", f"Player {role.seat}'s link cannot act for {raw.player}.", "100.1", version, http=403
            )
        return self._write(match, version, role, entry, viewer, lambda s: apply_action(s, resolve(s, raw)))

    def act_free(
        self, match: str, version: int, raw: Action, role: Role, entry: str, viewer: str, confirmed: bool
    ) -> Outcome:
        """Record mode: log what the table did, whatever it was. Decided first
        without storing: what it would record as a violation needs a confirmation."""
        state, current = self.store.load(match)
        if current != version:
            return self.stale(match, StaleVersion(match, version, current, False), entry, viewer)
        try:
            found = apply_action(state, resolve(state, raw))
        except IllegalAction as exc:
            return Outcome("refused", exc.refusal.reason, exc.refusal.rule, version, http=422)
        violations = [{"rule": e.rule, "reason": e.reason} for e in found.events if isinstance(e, ViolationRecorded)]
        if violations and not confirmed:
            return Outcome(
                "preview",
                "The table's action breaks the rules: confirm to record it with its "
                "violation (a judge then rewinds or accepts it).",
                violations[0]["rule"],
                version,
                violations,
            )
        return self._write(match, version, role, entry, viewer, lambda s: apply_action(s, resolve(s, raw)))

    def act_any(self, match: str, version: int, data: dict[str, Any], role: Role, entry: str, viewer: str) -> Outcome:
        """Log one action of a game drawn from its ruleset alone (``anygame``):
        ``data`` as the notation writes it, checked against its declarations;
        the ruleset resolves, decides and applies it (a refusal cites its rule)."""
        game = self.store.ruleset(match)
        state, current = self.store.load(match)
        if current != version:
            return self.stale(match, StaleVersion(match, version, current, False), entry, viewer)
        if role.kind == "player" and data["player"] != role.seat:
            return Outcome(
                "invalid", f"Player {role.seat}'s link cannot act for {data['player']}.", None, version, http=403
            )
        names = {c.name for c in state.cards.values()}
        unknown = [c for c in cards_named(game, data) if c not in state.cards and c not in names]
        if unknown:
            return Outcome("invalid", f"{unknown[0]!r} is no card of this match.", None, version, http=422)
        try:
            raw = game.action_from_mapping(data)
        except (ValueError, TypeError) as exc:
            return Outcome("invalid", str(exc), None, version, http=422)
        return self._write(match, version, role, entry, viewer, lambda s: game.apply(s, game.resolve(s, raw)))

    # --- the table's and the judge's entries ---------------------------------------------

    def skip_step(
        self, match: str, version: int, rule: str, reason: str, role: Role, entry: str, viewer: str, confirmed: bool
    ) -> Outcome:
        from referee import corrections

        state, current = self.store.load(match)
        if current != version:
            return self.stale(match, StaleVersion(match, version, current, False), entry, viewer)
        try:
            corrections.skip_step(state, self.store.events(match), rule, reason)
        except IllegalAction as exc:
            return Outcome("refused", exc.refusal.reason, exc.refusal.rule, version, http=422)
        if not confirmed:
            return Outcome(
                "preview",
                f"The table skipped {rule}: confirm to record it as an open violation "
                "(a judge then rewinds to the step with 410.2, or accepts it).",
                rule,
                version,
                [{"rule": rule, "reason": reason or f"the table skipped {rule}"}],
            )
        return self._write(
            match,
            version,
            role,
            entry,
            viewer,
            lambda s: corrections.skip_step(s, self.store.events(match), rule, reason),
        )

    def correction(
        self,
        match: str,
        version: int,
        role: Role,
        entry: str,
        viewer: str,
        decide: Callable[[GameState, list[Any]], Applied],
    ) -> Outcome:
        """A note, a call, an acceptance or a rewind (``corrections``), at ``version``."""
        return self._write(match, version, role, entry, viewer, lambda s: decide(s, self.store.events(match)))
