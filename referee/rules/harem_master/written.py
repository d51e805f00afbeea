"""A stretch of a stored Harem Master match written as a scenario file: a dispute as a rules question (``referee scenario from``).

The file holds the position just after event N, the actions of the line of
play from there to event K as the log has them, and the state at K as the
expected outcome, with the rules the log cites. It is written in the
scenario format as people write it (docs/scenario-format.md), with two
additions of that format that make a position exactly the match's: every
card carries its instance id (``id: A:12``), and in a table-dealt position
a face-down card that is known says so (``known: true``). So the file
passes ``referee scenario check`` as written, and edited ("what if B had
intercepted?") it is the question a judge asks.

**Which position.** The format writes a position in the main phase (306,
``step: main`` or ``"305"``) with nothing waiting on the agenda, no battle
under way, no continuous effect and no open violation. When the state just
after event N is not one (a battle, a window of card abilities, an open
violation), the position is the latest one before it on the same line of
play that is, and the actions between them come first; when there is none
(event N is in the setup, 101), the file starts from both decks and the
match's seed, as a match record does. The file's ``question`` says which
event it starts after. An event K inside one action is read as the end of
that action.

**Whose view.** The judge's view (the default) is the position exactly:
a seeded match's castles in their order, a table-dealt match's unknown cards
unknown. For a player (or the public) the file is a table-dealt position
(rule 215, ``projections.harem_master.visibility``): every card that viewer
may not see where it lies is an unknown card, named only if the viewer sees
it by event K (played, turned, milled, drawn into their hand), else a
filler that says nothing; the table's reveals (random numbers, milled
cards) and the passes the referee made by itself where an unknown hand might
have held something usable are written as actions. Nothing the viewer may
not know is named, not even in ``cards:``.

Before the file is given out it is run (``referee.scenario.run_scenario``): it must pass,
so a stretch the format cannot hold is an error here, never a file that
fails.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from events.harem_master.cards import CardDef
from events.harem_master.game import MatchStarted
from events.kernel import (
    ActionTaken,
    Event,
    GameEnded,
    JudgeCalled,
    NoteAdded,
    Rewound,
    StepSkipped,
    ViolationsAccepted,
)
from projections.harem_master.state import HIDDEN_PILES, PILES, PLAYERS, GameState
from projections.harem_master.visibility import ACTION_STARTS, REVEALS, SHOWN, sees_character, sees_pile
from projections.lineage import live_positions
from referee.actions import IllegalAction
from referee.inputs import TITLE_LENGTH, Document
from referee.rules.harem_master.engine import ANY_TIME, current_decision, current_player
from referee.rules.harem_master.notation import INSTANCE_ID, action_from_mapping, resolve, with_unlisted
from referee.rules.harem_master.procedure import game
from referee.rules.harem_master.registry import KINDS
from referee.rules.harem_master.settings import RULING_OPTIONS

# The fields of a position the format writes; the others (the setup's
# progress, the log's format, a judge call, the position itself) are not
# part of the rules question.
_COMPARED = (
    "cards",
    "names",
    "mode",
    "rulings",
    "auto_pass",
    "zones",
    "orphans",
    "turn",
    "active",
    "first",
    "step",
    "characters_played",
    "window_passed",
    "to_move",
    "battle",
    "hand_max",
    "draw_offer",
    "result",
    "violations",
    "agenda",
    "triggers",
    "effects",
    "carried",
    "turn_end_fired",
    "deal",
    "unknown",
    "emptied",
    "passed_over",
    "seen",
)
CASTLE_TOP = 3  # castle cards an expectation names, from the top


class NotWritable(ValueError):
    """The stretch asked for cannot be written as a scenario that passes (the message says why)."""


@dataclass
class Written:
    """A scenario written from a match: the file's data, and where it starts and ends."""

    data: dict[str, Any]
    start: int  # the event the position is taken just after (0: the decks, before event 1)
    asked: int  # the event asked for (``--at``)
    to: int  # the last event of the stretch
    viewer: str


def write(
    log: Sequence[Event],
    at: int,
    to: int | None = None,
    viewer: str = "judge",
    match: str = "",
    title: str | None = None,
) -> Written:
    """The scenario of ``log`` from just after event ``at`` to event ``to``
    (default: the last), as ``viewer`` may know it (module docstring)."""
    from referee.corrections import states_along

    if not log:
        raise NotWritable("the match has no events")
    last = len(log) if to is None else to
    if not 0 <= at < last <= len(log):
        raise NotWritable(
            f"the stretch goes from an event --at to a later one --to, both from 0 to {len(log)}; "
            f"{at} to {last} is not one"
        )
    last = _entry_end(log, last)  # an event inside an entry: the end of that entry
    states = states_along(log, upto=last)
    line = live_positions(log[:last])
    start = _start(log, states, line, at)
    if start == 0 and viewer != "judge":
        raise NotWritable(
            f"the position before event {at + 1} is the setup of the match (101), which cannot be written "
            f"without naming cards {viewer} may not know: choose a later --at, or the judge's view"
        )
    first = log[0]
    cards_seen = _all_cards(states[last], states[start])
    if start == 0:
        if not isinstance(first, MatchStarted):
            raise NotWritable("the match did not start from decks, and no position of its line can be written")
        setup = _decks_setup(first)
        hidden_names: dict[str, str | None] = {}
    else:
        hidden_names = _hidden_names(log, states, line, start, last, viewer)
        setup = _position(states[start], viewer, hidden_names)
    data: dict[str, Any] = {
        "name": _name(title or match, start, last),
        "rules": ["410"],  # replaced below, once the stretch's rules are known
        "question": "(written below)",
        "cards": _definitions(cards_seen, setup, viewer),
        "setup": setup,
        "actions": [],
    }
    actions = [(p, a) for p in line if start < p <= last and (a := _entry(log[p - 1])) is not None]
    played, state = _drive(data, actions, states, last, viewer, match)
    data["actions"] = played
    data["rules"] = _rules(log, line, start, last, states[start])
    data["question"] = _question(match, title, viewer, start, at, last, log)
    data["expect"] = _expect(state, viewer)
    if not data["cards"]:
        del data["cards"]
    _check(data, match)
    return Written(data, start, at, last, viewer)


# --- where the position is taken ------------------------------------------------------------


def _start(log: Sequence[Event], states: Sequence[GameState], line: list[int], at: int) -> int:
    """The latest event at or before ``at`` on the line of play whose
    position the format writes exactly (0: none, the decks)."""
    for p in reversed([q for q in line if q <= at]):
        if p < len(log) and not _starts_entry(log[p]):
            continue  # inside an entry (an action and the steps it caused): not a position anybody stood at
        state = states[p]
        if state.result is not None or current_decision(state) is None:
            continue
        if _writes_exactly(state):
            return p
    return 0


def _starts_entry(event: Event) -> bool:
    """Does ``event`` begin what a person entered (an action, a judge's
    correction, note or call, a result entered by hand)? The events up to
    the next one are the steps it caused."""
    return isinstance(event, (*ACTION_STARTS, JudgeCalled)) or (
        isinstance(event, GameEnded) and event.judge is not None
    )


def _entry_end(log: Sequence[Event], position: int) -> int:
    """The last event of the entry event ``position`` belongs to."""
    while position < len(log) and not _starts_entry(log[position]):
        position += 1
    return position


def _writes_exactly(state: GameState) -> bool:
    """Does the judge's position of ``state``, read back as a scenario, give
    ``state`` itself (every field the format writes)?"""
    if state.step != "306" or state.agenda or state.battle is not None or state.violations:
        return False  # what the format cannot hold, before building anything
    setup = _position(state, "judge", {})
    data: dict[str, Any] = {"name": "position", "rules": ["410"], "setup": setup}
    cards = _definitions(state.cards, setup, "judge")
    if cards:
        data["cards"] = cards
    try:
        built = _load(data, "").state
    except Exception:  # noqa: BLE001 - a position the format refuses is simply not written so
        return False
    return _same(built, state)


def _same(a: GameState, b: GameState) -> bool:
    for key in _COMPARED:
        if key == "zones":
            if any(a.zones[p].__dict__ != b.zones[p].__dict__ for p in PLAYERS):
                return False
        elif getattr(a, key) != getattr(b, key):
            return False
    # A character's ``since`` (when it entered the field) matters only to effects, which a written position has none of.
    return [c[:5] for c in a.field] == [c[:5] for c in b.field]


# --- the position -------------------------------------------------------------------------


def _position(state: GameState, viewer: str, hidden_names: dict[str, str | None]) -> dict[str, Any]:
    """``setup:`` of ``state`` as ``viewer`` may know it: every card with its
    id; for a player, a table-dealt position whose hidden cards carry
    ``hidden_names`` (a name the viewer learns by the end of the stretch, or
    None: a filler)."""
    deal = state.deal if viewer == "judge" else "table"
    setup: dict[str, Any] = {
        "turn": state.turn,
        "active": state.active,
        "first": state.first,
        "step": "main" if state.window_passed else "305",
        "characters_played": state.characters_played,
        "mode": state.mode,
        "deal": deal,
        "rulings": {k: state.rulings[k] for k in RULING_OPTIONS if k in state.rulings},
        "auto_pass": state.auto_pass,
        "names": dict(state.names),
    }
    if viewer == "judge":
        setup["seed"] = state.seed  # the seed decides shuffles: only a judge is told it
    seen = _visible(state, viewer)
    players: dict[str, Any] = {}
    for p in PLAYERS:
        mine: dict[str, Any] = {}
        field = []
        for ch in state.field:
            if ch.controller != p:
                continue
            entry = _card(state, ch.card, p, viewer, seen, hidden_names, deal)
            entry["ready"] = ch.ready
            if ch.items:
                entry["items"] = [_card(state, it, p, viewer, seen, hidden_names, deal) for it in ch.items]
            field.append(entry)
        if field:
            mine["field"] = field
        z = state.zones[p]
        for pile in PILES:
            cards = getattr(z, pile)
            if cards or pile == "castle":
                mine[pile] = [_card(state, c, p, viewer, seen, hidden_names, deal, pile) for c in cards]
        players[p] = mine
    setup["players"] = players
    grouped = [ch.card for p in PLAYERS for ch in state.field if ch.controller == p]
    if [ch.card for ch in state.field] != grouped:
        setup["field_order"] = [ch.card for ch in state.field]  # both players' characters, as they lie
    return setup


def _card(
    state: GameState,
    card: str,
    where: str,
    viewer: str,
    seen: set[str],
    hidden_names: dict[str, str | None],
    deal: str,
    pile: str | None = None,
) -> dict[str, Any]:
    """One card as a position writes it, with its id (and owner, where it lies
    with the other player)."""
    cd = state.cards[card]
    hidden = card not in seen or card in state.unknown
    name: str | None = cd.name
    if viewer != "judge" and hidden:
        name = hidden_names.get(card)
    if name is None or (cd.filler and name == cd.name):
        entry: dict[str, Any] = {"random": cd.random if name is not None else 0}
    else:
        entry = {"card": name}
    entry["id"] = card
    if card[0] != where:
        entry["owner"] = card[0]
    if deal == "table" and pile in HIDDEN_PILES and not hidden:
        entry["known"] = True
    return entry


def _visible(state: GameState, viewer: str) -> set[str]:
    """The cards ``viewer`` may see where they lie (rule 215), all in one walk."""
    out: set[str] = set()
    for ch in state.field:
        if sees_character(viewer, ch):
            out.add(ch.card)
        out.update(ch.items)
    out.update(state.orphans)
    for p, z in state.zones.items():
        for pile in PILES:
            if sees_pile(viewer, p, pile):
                out.update(getattr(z, pile))
    return out


def _hidden_names(
    log: Sequence[Event], states: Sequence[GameState], line: list[int], start: int, last: int, viewer: str
) -> dict[str, str | None]:
    """For a player's view: each card hidden from them at ``start``, and the
    name it is written with: its own where they see it by ``last`` (so the
    stretch can name it as the table does), else None (a filler)."""
    if viewer == "judge":
        return {}
    state = states[start]
    hidden = set(state.cards) - (_visible(state, viewer) - state.unknown)
    learned: dict[str, str | None] = {c: None for c in hidden}
    for p in line:
        if p <= start or p > last:
            continue
        s = states[p]
        # seen where it lies, or turned face up in place for everyone (a random number, the turn order: 215)
        for c in _visible(s, viewer) | _shown(log[p - 1]):
            if c in learned and learned[c] is None and c not in s.unknown:
                learned[c] = s.cards[c].name
    return learned


def _shown(event: Event) -> set[str]:
    """The cards ``event`` turns face up for everyone (its fields of
    audience ``SHOWN``, as its sentence declares them)."""
    from projections.harem_master import transcript  # noqa: F401 - declares what each event reveals

    out: set[str] = set()
    for name, audience in REVEALS.get(type(event), {}).items():
        if (audience(event) if callable(audience) else audience) != SHOWN:
            continue
        value = getattr(event, name, None)
        if isinstance(value, str):
            out.add(value)
        elif isinstance(value, (list, tuple)):
            out.update(v for v in value if isinstance(v, str))
    return out


def _decks_setup(first: MatchStarted) -> dict[str, Any]:
    """``setup:`` from both decks and the seed, as the match started (101)."""
    decks: dict[str, list[Any]] = {}
    for p in PLAYERS:
        entries: list[Any] = []
        for c in first.castles.get(p, []):
            cd = first.cards[c]
            entries.append({"random": cd.random} if cd.filler else cd.name)
        decks[p] = entries
    return {
        "seed": first.seed,
        "mode": first.mode,
        "deal": first.deal,
        "rulings": dict(first.rulings),
        "auto_pass": first.auto_pass,
        "names": dict(first.names),
        "decks": decks,
    }


def _all_cards(*states: GameState) -> dict[str, CardDef]:
    out: dict[str, CardDef] = {}
    for s in states:
        for c, cd in s.cards.items():
            out.setdefault(c, cd)
        for cd in s.pool:
            out.setdefault(f"pool:{cd.name}", cd)
    return out


def _definitions(cards: dict[str, CardDef], setup: dict[str, Any], viewer: str) -> list[dict[str, Any]]:
    """``cards:``: the definition of every card the file names (for the
    judge, of every card of the match, so a card the table shows later is
    known too), each once, fillers left out."""
    named = _names_in(setup)
    out: dict[str, dict[str, Any]] = {}
    for cd in cards.values():
        if cd.filler or cd.name in out or (viewer != "judge" and cd.name not in named):
            continue
        out[cd.name] = {"name": cd.name, **cd.model_dump(mode="json", exclude_defaults=True, exclude={"name"})}
    return list(out.values())


def _names_in(value: Any) -> set[str]:
    found: set[str] = set()
    if isinstance(value, dict):
        if isinstance(value.get("card"), str):
            found.add(value["card"])
        for v in value.values():
            found |= _names_in(v)
    elif isinstance(value, list):
        for v in value:
            found |= _names_in(v) if isinstance(v, (dict, list)) else ({v} if isinstance(v, str) else set())
    return found


# --- the actions -------------------------------------------------------------------------


def _entry(event: Event) -> dict[str, Any] | None:
    """What the scenario writes for one event of the line: a player's action
    as logged (cards by id; a reveal by the name the table said), a judge's
    action, or None (a step the rules take, or a rewind on the line, which
    restores the very state the line stood at)."""
    if isinstance(event, ActionTaken):
        return {"player": event.player, "do": event.do, **{k: v for k, v in event.args.items() if v is not None}}
    if isinstance(event, NoteAdded):
        return {"judge": True, "do": "note", "text": event.text, **({"by": event.judge} if event.judge else {})}
    if isinstance(event, JudgeCalled):
        return {
            "judge": True,
            "do": "call",
            **({"reason": event.reason} if event.reason else {}),
            **({"by": event.by} if event.by else {}),
        }
    if isinstance(event, ViolationsAccepted):
        return {"judge": True, "do": "accept", "reason": event.reason, **({"by": event.judge} if event.judge else {})}
    if isinstance(event, StepSkipped):
        return {
            "judge": True,
            "do": "skip_step",
            "rule": event.rule,
            **({"reason": event.reason} if event.reason else {}),
        }
    if isinstance(event, GameEnded) and event.judge is not None:
        out: dict[str, Any] = {"judge": True, "do": "result", "winner": event.winner or "draw", "rule": event.rule}
        return {**out, **({"reason": event.reason} if event.reason else {}), "by": event.judge}
    if isinstance(event, Rewound):
        return None
    return None


_CARD_ARGS = ("card", "target", "option")
_CARDS_ARGS = ("cards", "targets")


def _readable(state: GameState, raw: dict[str, Any]) -> dict[str, Any]:
    """The action with each card id written as its name wherever the name
    means that very card (known, and the only card of that name), so the
    file reads as people write it."""
    if raw.get("judge") is True or raw.get("do") == "reveal":
        return raw
    counts = Counter(cd.name for cd in state.cards.values())

    def name(ref: Any) -> Any:
        if not isinstance(ref, str) or not INSTANCE_ID.match(ref) or ref in state.unknown:
            return ref
        cd = state.cards.get(ref)
        if cd is None or cd.filler or counts[cd.name] != 1:
            return ref
        return cd.name

    out = dict(raw)
    for key in _CARD_ARGS:
        if key in out:
            out[key] = name(out[key])
    for key in _CARDS_ARGS:
        if key in out:
            out[key] = [name(c) for c in out[key]]
    return out


def _drive(
    data: dict[str, Any],
    actions: list[tuple[int, dict[str, Any]]],
    states: Sequence[GameState],
    last: int,
    viewer: str,
    match: str,
) -> tuple[list[dict[str, Any]], GameState]:
    """Play ``actions`` (each with its position in the log) on the file's
    position as ``scenario check`` will, writing them as they are played.
    For a player's view the file's position must say more than the log did:
    a reveal the referee made by itself (the card is unknown to that
    player), a window an unknown hand keeps open where the referee passed by
    itself; the action that says it is written before. Returns what is
    written and the state at the end."""
    from referee.scenario import judge_action

    sc = _load(data, match)
    state, log, labels = sc.state, list(sc.events), sc.labels
    played: list[dict[str, Any]] = []
    before: list[int] = []

    def play(raw: dict[str, Any], where: str) -> None:
        nonlocal state
        before.append(len(log))
        try:
            if raw.get("judge") is True:
                applied = judge_action(state, log, raw, before)
            else:
                action = with_unlisted(state, action_from_mapping(raw), sc.catalog.get)
                applied = game().apply(state, resolve(state, action, labels))
        except IllegalAction as exc:
            raise NotWritable(f"{where} cannot be played from the written position: {exc.refusal}") from None
        played.append(raw)
        log.extend(applied.events)
        state = applied.state

    def fill(
        player: str | None,
        target: GameState,
        reveal_of: frozenset[str] | None,
        do: str | None = None,
        kind: str | None = None,
    ) -> None:
        """A player's view: the reveals and passes the log has no action for,
        until the file stands where the match stood (``target``: its turn,
        step and active player) at ``player``'s decision; a reveal of a card
        in ``reveal_of`` is the log's own next action."""
        if viewer == "judge":
            return
        for _ in range(500):
            d = current_decision(state)
            if d is None:
                return
            there = (state.turn, state.step, state.active) == (target.turn, target.step, target.active)
            if kind is not None and there and d.player == player and d.kind == kind:
                return  # where the match stands at the end
            if d.kind == "reveal":
                place = _place(state)
                if reveal_of is not None and place in reveal_of:
                    return
                play({"player": d.player, "do": "reveal", "card": state.cards[place].name}, "a reveal")
                continue
            answers = do is None or do in KINDS[d.kind].actions or do in ANY_TIME
            if there and (d.player == player or player is None) and answers:
                return
            if d.kind in ("window", "respond", "end_window"):
                play({"player": d.player, "do": "pass"}, "a pass")  # the referee passed by itself there
            else:
                return

    for pos, raw in actions:
        target = states[pos - 1]
        if raw.get("judge") is True:
            fill(None, target, frozenset())
        else:
            fill(raw["player"], target, target.unknown if raw["do"] == "reveal" else None, raw["do"])
            if viewer != "judge" and raw["do"] == "pass" and _passes_by_itself(state, raw["player"]):
                continue  # the file's hidden hand holds nothing usable: the referee passes there itself
        play(_readable(state, raw), f"event {pos} ({raw.get('player', 'judge')} {raw['do']})")
    end = current_decision(states[last])
    fill(end.player if end is not None else None, states[last], None, kind=end.kind if end is not None else None)
    if not _same_at_end(state, states[last], viewer):
        raise NotWritable(
            f"the written position and actions do not lead to the state at event {last} "
            "(a stretch the scenario format cannot hold)"
        )
    return played, state


def _passes_by_itself(state: GameState, player: str) -> bool:
    """Is the decision no longer ``player``'s window (the referee passed it by itself)?"""
    d = current_decision(state)
    return d is None or d.player != player or "pass" not in KINDS[d.kind].actions


def _same_at_end(a: GameState, b: GameState, viewer: str) -> bool:
    """Do the file's end and the match's event K agree (for a player's view,
    on where every card lies, not on what the file may name)?"""
    if viewer == "judge" and any(a.zones[p].__dict__ != b.zones[p].__dict__ for p in PLAYERS):
        return False
    if any(len(getattr(a.zones[p], pile)) != len(getattr(b.zones[p], pile)) for p in PLAYERS for pile in PILES):
        return False
    field_a = [(c.controller, c.ready, len(c.items)) for c in a.field]
    field_b = [(c.controller, c.ready, len(c.items)) for c in b.field]
    if field_a != field_b or (viewer == "judge" and [c[:5] for c in a.field] != [c[:5] for c in b.field]):
        return False
    keys = ("turn", "active", "step", "characters_played", "window_passed", "to_move")
    if any(getattr(a, k) != getattr(b, k) for k in keys):
        return False
    if [v.rule for v in a.violations] != [v.rule for v in b.violations]:
        return False
    ra, rb = a.result, b.result
    if (ra is None) != (rb is None) or (ra and rb and (ra.winner, ra.draw, ra.rule) != (rb.winner, rb.draw, rb.rule)):
        return False
    return viewer != "judge" or a.unknown == b.unknown


def _place(state: GameState) -> str:
    """The card the table must name now (``hidden.pending``): the one card
    text turned face up, else the top card of the castle being turned or milled."""
    from referee.rules.harem_master.hidden import face_up, pending

    shown = face_up(state)
    if shown is not None:
        return shown
    found = pending(state)
    assert found is not None
    return state.zones[found.player].castle[0]


# --- the expectation ---------------------------------------------------------------------


def _token(state: GameState, card: str) -> Any:
    if card in state.unknown:
        return "?"
    cd = state.cards[card]
    return {"random": cd.random} if cd.filler else cd.name


def _expect(state: GameState, viewer: str) -> dict[str, Any]:
    """The state at the end as the file expects it: every zone (castles by
    count and top cards), every character's values, whose turn and decision
    it is, the result, the open violations, and in a table-dealt position
    the names each deck list has left."""
    from referee.rules.harem_master.characteristics import chars
    from referee.rules.harem_master.hidden import unaccounted

    zones: dict[str, Any] = {}
    for p in PLAYERS:
        field = [ch.card for ch in state.field if ch.controller == p]
        zones[f"{p}.field"] = {"count": len(field), "cards": [_token(state, c) for c in field]}
        for pile in PILES:
            cards = list(getattr(state.zones[p], pile))
            if pile == "castle":
                zones[f"{p}.castle"] = {"count": len(cards), "top": [_token(state, c) for c in cards[:CASTLE_TOP]]}
            else:
                zones[f"{p}.{pile}"] = {"count": len(cards), "cards": [_token(state, c) for c in cards]}
    names = Counter(state.cards[ch.card].name for ch in state.field)
    characters: dict[str, Any] = {}
    for ch in state.field:
        now = chars(state, ch.card)
        printed = state.cards[ch.card].name
        key = printed if names[printed] == 1 and ch.card not in state.unknown else ch.card
        characters[key] = {
            "ready": ch.ready,
            "physical": now.physical,
            "mental": now.mental,
            "controller": ch.controller,
            "items": [_token(state, c) for c in ch.items],
        }
        if now.name != printed:
            characters[key]["name"] = now.name  # a name card text gives it
    out: dict[str, Any] = {"zones": zones}
    if characters:
        out["characters"] = characters
    out["turn"] = state.turn
    out["active"] = state.active
    out["step"] = state.step
    out["player"] = current_player(state)
    if state.result is None:
        out["ongoing"] = True
    else:
        r = state.result
        result: dict[str, Any] = {"draw": True} if r.draw else {"winner": r.winner}
        result["rule"] = r.rule
        if r.scores:
            result["scores"] = dict(r.scores)
        out["result"] = result
    out["violations"] = [{"rule": v.rule} for v in state.violations]
    if state.deal == "table" and viewer == "judge":
        out["unaccounted"] = {p: dict(sorted(unaccounted(state, p).items())) for p in PLAYERS}
    return out


# --- the words around it --------------------------------------------------------------------


def _rules(log: Sequence[Event], line: list[int], start: int, last: int, state: GameState) -> list[str]:
    """The rules (and rulings) the log cites from the position to the end, in
    the order it first cites them; the rule of the decision at the position
    when it cites none."""
    out: list[str] = []
    for p in line:
        if not start < p <= last:
            continue
        e = log[p - 1]
        for rule in (e.rule, f"ruling:{e.ruling}" if e.ruling else None):
            if rule and rule not in ("judge", "scenario") and rule not in out:
                out.append(rule)
    if not out:
        d = current_decision(state)
        out.append(KINDS[d.kind].rule if d is not None else "410")
    return out


def _name(title: str, start: int, last: int) -> str:
    tail = f": events {start + 1} to {last}"
    head = (title or "match")[: TITLE_LENGTH - len(tail)]
    return head + tail


def _question(match: str, title: str | None, viewer: str, start: int, at: int, last: int, log: Sequence[Event]) -> str:
    whose = "as the judge sees it" if viewer == "judge" else f"as {viewer} knows it (rule 215: hidden cards unknown)"
    where = (
        "the two decks and the seed, as the match started (101)"
        if start == 0
        else f"the position just after event {start}"
    )
    moved = ""
    if start != at:
        moved = (
            f" (event {at} was asked for; the position there is not one a scenario can write, "
            f"so the file starts at the last one before it)"
        )
    origin = f"match {match}" + (f" ({title})" if title else "")
    kind = "a table-dealt match" if getattr(log[0], "deal", "seeded") == "table" else "a seeded match"
    return (
        f"Written from {origin}, {kind}, {whose}: {where}{moved}, then the actions of the log up to "
        f"event {last}. The expectation is the state at event {last}. Edit the actions or the position to ask "
        "what the rules say would follow instead."
    )


# --- loading and checking the file -------------------------------------------------------------


def _load(data: dict[str, Any], match: str) -> Any:
    from referee.scenario import read_scenario

    return read_scenario(Document(Path(f"<scenario from {match or 'the match'}>"), data))


def _check(data: dict[str, Any], match: str) -> None:
    """The file must pass as written: it is run before anyone gets it."""
    from referee.scenario import run_scenario

    report = run_scenario(_load(data, match))
    if not report.passed:
        raise NotWritable("the written scenario does not pass (" + "; ".join(report.failures[:3]) + ")")
