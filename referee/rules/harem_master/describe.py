"""What the rules say about a position for people: current values and how
they were reached, each card's abilities, and what is on the agenda.

``projections.harem_master.views`` decides what each viewer may see (rule 215); these
functions add what only the rules know (the characteristics function, the
agenda's meaning), for ``referee state``, ``referee legal`` and the board.
"""

from __future__ import annotations

from typing import Any

from events.harem_master.abilities import SITUATIONS, effect_key
from events.harem_master.cards import CardDef
from projections.harem_master.state import GameState, Proposal, Use, Window, other
from projections.harem_master.visibility import UNKNOWN, card_name
from referee.rules.harem_master.characteristics import explained, hand_maximum, has_text
from referee.rules.harem_master.common import name_of
from referee.rules.harem_master.effects import groups

# --- card text in words ------------------------------------------------------------------
#
# A card's printed ``text`` is for people and the referee never reads it; it
# runs ``abilities``. A judge settling a dispute must see both: what the card
# says and what the referee understood. ``ability_text`` writes an ability
# back in words, from the data the engine runs, for ``referee state``,
# ``referee legal`` and the board (one describer for all three).

_PILES = {
    "castle": "castle",
    "hand": "hand",
    "action_stack": "action-cost stack",
    "discard": "discard pile",
    "field": "field",
    "harem": "harem",
    "execution": "execution pile",
    "side": "side",
}
_UNTIL = {"end_of_turn": "until end of turn", "end_of_battle": "until end of battle"}
_NAMED = {
    "self": "this card",
    "this": "this card",
    "equipped": "the character it is attached to",
    "attacker": "the attacking character",
    "interceptor": "the intercepting character",
    "it": "that card",
}
_PLAYERS = {
    "you": "you",
    "opponent": "an opponent",
    "active": "the active player",
    "each": "each player",
    "any": "a player",
}
_POSSESSIVE = {
    "you": "your",
    "opponent": "an opponent's",
    "active": "the active player's",
    "each": "each player's",
    "any": "a player's",
}
_FORBIDDEN = {
    "attack": "attack",
    "intercept": "intercept",
    "play_character": "use character cards",
    "play_event": "use event cards",
    "play_item": "use item cards",
    "activate": "activate abilities",
}


def _filter_words(f: Any, plural: bool = False, det: str = "") -> str:
    """``{type: character, gender: female, controller: you}`` after ``det``
    ("a", "target", "every"): "a female character you control"."""
    words: list[str] = []
    if f.other:
        words.append(
            {"a": "another", "target": "another target", "": "other" if plural else "another"}.get(det, det + " other")
        )
    elif det:
        words.append(det)
    if f.ready is not None:
        words.append("ready" if f.ready else "tapped")
    if f.gender is not None:
        words.append(f.gender)
    if f.faction is not None:
        words.append(f.faction)
    noun = f.type or "card"
    words.append(noun + ("s" if plural else ""))
    if f.name is not None:
        words.append(f"named {f.name}")
    if f.cost_at_most is not None:
        words.append(f"with cost {f.cost_at_most} or less")
    if f.zone is not None and f.zone != "field":
        words.append(f"in a {_PILES[f.zone]}")
    if f.controller is not None:
        words.append("you control" if f.controller == "you" else "an opponent controls")
    if f.owner is not None:
        words.append("you own" if f.owner == "you" else "an opponent owns")
    return " ".join(words)


def _selector_words(sel: Any, name: str) -> str:
    from events.harem_master.abilities import All, Filter, Target, Top

    if isinstance(sel, str):
        return name if sel in ("self", "this") else _NAMED.get(sel, sel)
    if isinstance(sel, Target):
        return _filter_words(sel.target, det="target")
    if isinstance(sel, All):
        return _filter_words(sel.all, det="every")
    if isinstance(sel, Top):
        n = _amount_words(sel.top, name)
        whose = {"you": "your", "opponent": "an opponent's", None: "its owner's"}[sel.player]
        cards = "card" if n == "1" else f"{n} cards"
        return f"the top {cards} of {whose} {_PILES[sel.of]}"
    if isinstance(sel, Filter):
        return _filter_words(sel, det="a")
    return str(sel)


def _amount_words(amount: Any, name: str) -> str:
    from events.harem_master.abilities import Count, MentalOf, PhysicalOf

    if isinstance(amount, bool):
        return str(amount)
    if isinstance(amount, int) or amount == "n":
        return str(amount)
    times = f"{amount.times} times " if getattr(amount, "times", 1) != 1 else ""
    if isinstance(amount, Count):
        return f"{times}the number of {_filter_words(amount.count, plural=True)}"
    if isinstance(amount, PhysicalOf):
        return f"{times}the physical of {_selector_words(amount.physical, name)}"
    if isinstance(amount, MentalOf):
        return f"{times}the mental of {_selector_words(amount.mental, name)}"
    return str(amount)


def _signed(amount: Any, name: str) -> str:
    if isinstance(amount, int) and not isinstance(amount, bool):
        return f"{amount:+d}"
    return f"+({_amount_words(amount, name)})"


def _until(until: str | None) -> str:
    return f" {_UNTIL[until]}" if until else ""


def _condition_words(cond: Any, name: str) -> str:
    from events.harem_master.abilities import AllOf, AnyOf, BattleCondition, CountCondition, TurnCondition

    if isinstance(cond, CountCondition):
        if cond.at_most == 0:
            return f"there are no {_filter_words(cond.count, plural=True)}"
        bounds = []
        if cond.at_least is not None:
            bounds.append(f"at least {cond.at_least}")
        if cond.at_most is not None:
            bounds.append(f"at most {cond.at_most}")
        return f"there are {' and '.join(bounds)} {_filter_words(cond.count, plural=True)}"
    if isinstance(cond, TurnCondition):
        return "it is your turn" if cond.turn == "you" else "it is an opponent's turn"
    if isinstance(cond, BattleCondition):
        return {
            "combat": "the battle is a combat",
            "approach": "the battle is an approach",
            "castle": "the battle is a castle attack",
        }[cond.battle]
    if isinstance(cond, AllOf):
        return " and ".join(_condition_words(c, name) for c in cond.all)
    if isinstance(cond, AnyOf):
        return " or ".join(_condition_words(c, name) for c in cond.any)
    return str(cond)


def situation_words(sit: Any, name: str) -> str:
    """A situation (section 3 of docs/abilities.md) as a clause: "an opponent's character attacks"."""
    from events.harem_master.abilities import Filter

    card = sit.card
    if card is None:
        who = {"you": "a character you control", "opponent": "an opponent's character"}.get(sit.player, "a character")
    elif isinstance(card, Filter):
        who = _filter_words(card, det="a")
        if sit.player in ("you", "opponent") and card.controller is None:
            who += " you control" if sit.player == "you" else " an opponent controls"
    else:
        who = _selector_words(card, name)
    player = _PLAYERS.get(sit.player, "a player")
    whose = _POSSESSIVE.get(sit.player, "a player's")
    event = sit.event
    if event == "use":
        kind = {"character": "a character card", "event": "an event card", "item": "an item card"}.get(
            sit.card_type or "", "a card or an ability"
        )
        if sit.ability is True:
            kind = "an activated ability"
        return f"{player} uses {kind}" + (f" ({who})" if card is not None else "")
    if event == "trigger":
        return f"an ability of {whose} triggers" if sit.player != "any" else "an ability triggers"
    if event == "enter_field":
        return f"{who} enters the field"
    if event == "leave_field":
        return f"{who} leaves the field" + (f" for a {_PILES[sit.to]}" if sit.to else "")
    if event == "captured":
        return f"{who} is captured" + (
            f" into {'a harem' if sit.zone == 'harem' else 'an execution pile'}" if sit.zone else ""
        )
    if event == "attack":
        return f"{who} attacks"
    if event == "intercept":
        return f"{who} intercepts"
    if event == "no_intercept":
        return f"the attack of {who} is not intercepted"
    if event == "battle_type":
        return "a battle becomes " + (
            {"combat": "a combat", "approach": "an approach", "castle": "a castle attack"}.get(
                sit.type or "", "a battle of any type"
            )
        )
    if event == "castle_attack":
        return f"{who} makes a castle attack"
    if event == "random_number":
        return f"a random number is applied to {who}"
    if event == "win_battle":
        return f"{who} wins a battle"
    if event == "lose_battle":
        return f"{who} loses a battle"
    if event == "battle_end":
        return "a battle ends"
    if event == "turn_start":
        return "a turn starts" if sit.player == "any" else f"{whose} turn starts"
    if event == "turn_end":
        return "a turn ends" if sit.player == "any" else f"{whose} turn ends"
    if event == "discard":
        what = "a card" if card is None else who
        return f"{what} is put into {whose if sit.player != 'any' else 'a'} discard pile" + (
            f" from the {_PILES[sit.from_]}" if sit.from_ else ""
        )
    if event == "mill":
        return "a card is milled from " + ("a castle" if sit.player == "any" else f"{whose} castle")
    return SITUATIONS.get(event, event)


def effect_words(effect: Any, name: str) -> str:
    """One effect of the vocabulary as a clause: "target character gets +2 physical until end of turn"."""
    from events.harem_master.abilities import effect_body

    key = effect_key(effect)
    body = effect_body(effect)
    sel = lambda s: _selector_words(s, name)  # noqa: E731
    if key == "modify":
        parts = [
            f"{_signed(getattr(body, k), name)} {k}"
            for k in ("physical", "mental", "random")
            if getattr(body, k) is not None
        ]
        return f"{sel(body.what)} gets {' and '.join(parts)}{_until(body.until)}"
    if key == "move":
        whose = {"you": "your", "opponent": "an opponent's", None: "its owner's"}[body.player]
        if body.position == "bottom" and body.to in ("castle", "action_stack"):
            return f"put {sel(body.what)} on the bottom of {whose} {_PILES[body.to]}"
        return f"put {sel(body.what)} into {whose} {_PILES[body.to]}"
    if key in ("tap", "untap"):
        return f"{key} {sel(body)}"
    if key == "battle_type":
        return f"the battle becomes {'a combat' if body == 'combat' else 'an approach'}"
    if key == "no_random_number":
        return f"no random number is applied to {sel(body)}"
    if key == "counter":
        return "counter that card or ability"
    if key == "copy":
        return f"{sel(body.what)} takes the printed name and values of {sel(body.from_)}{_until(body.until)}"
    if key == "gain":
        gained = "; ".join(f'"{ability_text(a, "this character")}"' for a in body.abilities)
        return f"{sel(body.what)} gains {gained}{_until(body.until)}"
    if key == "lose_abilities":
        return f"{sel(body.what)} loses all its abilities{_until(body.until)}"
    if key == "control":
        return f"{_PLAYERS[body.player]} {'gain' if body.player == 'you' else 'gains'} control of {sel(body.what)}{_until(body.until)}"
    if key == "hand_max":
        whose = _POSSESSIVE[body.player]
        if body.set is not None:
            return f"{whose} hand maximum is {_amount_words(body.set, name)}{_until(body.until)}"
        return f"{whose} hand maximum changes by {_signed(body.by, name)}{_until(body.until)}"
    if key in ("win", "lose"):
        player = _PLAYERS[body]
        return f"{player} {key if body == 'you' else key + 's'} the game"
    if key == "may":
        return "you may " + _effects_words(body, name)
    if key == "then":
        return "then " + _effects_words(body, name)
    if key == "name":
        return f"{name} is also named {body}"
    if key == "forbid":
        who = _PLAYERS[body.who] if isinstance(body.who, str) and body.who in _PLAYERS else sel(body.who)
        return f"{who} cannot {_FORBIDDEN[body.action]}"
    return key


def _effects_words(effects: list[Any], name: str) -> str:
    return ", ".join(effect_words(e, name) for e in effects)


def ability_text(ability: Any, name: str = "this card") -> str:
    """An ability in words, from the data the engine runs (``name``: the card
    that has it, for "this card"):
    "[T][1]: target character gets +2 physical until end of turn."."""
    effects = _effects_words(list(ability.effects), name)
    when = f"if {_condition_words(ability.if_, name)}, " if getattr(ability, "if_", None) is not None else ""
    zone = getattr(ability, "zone", "field")
    where = f" It works from the {_PILES.get(zone, zone)}." if zone != "field" and ability.kind != "use" else ""
    limits = ""
    if getattr(ability, "only", None) is not None:
        limits = f", only when {situation_words(ability.only, name)}"
    elif getattr(ability, "also", None) is not None:
        limits = f", also when {situation_words(ability.also, name)}"
    if ability.kind == "activated":
        head = ability.cost + (" [OT]" if ability.ot else "") + limits
        text = f"{head}: {when}{effects}"
    elif ability.kind == "triggered":
        moment = "When" if ability.timing == "after" else "Just before"
        verb = situation_words(ability.on, name)
        text = f"{moment} {verb}, {when}{effects}"
    elif ability.kind == "replacement":
        text = f"Instead of this: {situation_words(ability.instead_of, name)} (409), {when}{effects}"
    elif ability.kind == "static":
        text = (f"As long as {_condition_words(ability.if_, name)}, " if ability.if_ is not None else "") + effects
    else:  # use: an event card
        text = (limits[2:].capitalize() + ": " if limits else "") + when + effects
    text = text[0].upper() + text[1:]
    return f"{text}.{where}"


def card_text(cd: CardDef) -> dict[str, Any]:
    """A card as printed and as the referee reads it: type, cost, values,
    icons, the printed text, and each ability in words (``ability_text``).
    The board shows it on a tap or hover; ``legal --json`` and ``state
    --json`` carry it for the cards they name."""
    out: dict[str, Any] = {"name": cd.name, "type": cd.type, "cost": cd.cost, "random": cd.random}
    if cd.type == "character":
        out.update(gender=cd.gender, factions=list(cd.factions), physical=cd.physical, mental=cd.mental)
    if cd.icons:
        out["icons"] = list(cd.icons)
    if cd.equip is not None:
        out["equip"] = _filter_words(cd.equip)
    if cd.text:
        out["text"] = cd.text
    if cd.abilities:
        out["abilities"] = [ability_text(a, cd.name) for a in cd.abilities]
    if cd.uncounterable:
        out["uncounterable"] = True
    return out


def definitions(state: GameState) -> dict[str, CardDef]:
    """Each card name of the match and its definition (copies of a name share one)."""
    found: dict[str, CardDef] = {}
    for cd in state.cards.values():
        found.setdefault(cd.name, cd)
    return found


def cards_named(state: GameState, names: Any) -> dict[str, dict[str, Any]]:
    """``card_text`` of each of ``names`` that is a card of this match (a "?"
    or a face-down card names nothing), in the order given. The caller
    passes only names its viewer may read (215)."""
    known = definitions(state)
    out: dict[str, dict[str, Any]] = {}
    for name in names:
        if isinstance(name, str) and name in known and name not in out:
            out[name] = card_text(known[name])
    return out


def card_line(cd: CardDef) -> str:
    """``card_text`` on one line, for the command line."""
    t = card_text(cd)
    head = f"{cd.name}: {cd.type}, cost {cd.cost}, random {cd.random:+d}"
    if cd.type == "character":
        head += f", {cd.gender}, P{cd.physical} M{cd.mental}" + (f", {'/'.join(cd.factions)}" if cd.factions else "")
    if cd.icons:
        head += " " + "".join(f"[{i}]" for i in cd.icons)
    parts = [head]
    if t.get("text"):
        parts.append(f"printed: {t['text']}")
    parts += [f"referee reads: {a}" for a in t.get("abilities", ())]
    return "; ".join(parts)


def character(state: GameState, card: str) -> dict[str, Any]:
    """A character's current name and values, how each was reached
    (``physical 4 = 2 printed +2 Fencing Master until end of turn``), and its abilities."""
    c = explained(state, card)
    out: dict[str, Any] = {"card": c.name, "physical": c.physical, "mental": c.mental}
    explain = {}
    for key in ("physical", "mental"):
        parts = list(c.notes.get(key, ()))
        if len(parts) > 1 or (parts and "printed" not in parts[0]):
            explain[key] = f"{getattr(c, key)} = " + " ".join(parts)
    if explain:
        out["explain"] = explain
    if c.abilities:
        out["abilities"] = [ability_text(a, c.name) for a in c.abilities]
    if c.name != state.cards[card].name:
        out["printed_name"] = state.cards[card].name
    return out


def _shown(state: GameState, card: str) -> str:
    """A card whose ability was used or triggered: shown to everyone (402, 403;
    see ``projections.harem_master.visibility``), unless nobody knows it yet."""
    return UNKNOWN if card in state.unknown else name_of(state, card)


def agenda(state: GameState, viewer: str = "judge") -> dict[str, Any] | None:
    """The agenda for people, as ``viewer`` may know it (215): what waits to
    resolve, open windows, fired triggers, continuous effects and carried
    triggers (None when all empty). The cards whose abilities these are were
    shown when used or triggered; any other card is named only where the
    viewer sees it (``projections.harem_master.visibility.card_name``)."""
    if not (state.agenda or state.triggers or state.effects or state.carried):
        return None
    rows = []
    for entry in reversed(state.agenda):  # the top first
        rows.append({"id": entry.id, "kind": type(entry).__name__.lower(), "text": _entry_text(state, entry, viewer)})
    out: dict[str, Any] = {"agenda": rows}
    out["triggers"] = [
        {"id": t.id, "player": t.player, "card": _shown(state, t.card), "ability": t.ability, "situation": t.situation}
        for t in state.triggers
    ]
    out["effects"] = [_effect_text(state, e, viewer) for e in state.effects]
    out["carried"] = [{"player": c.player, "card": _shown(state, c.card), "ability": c.ability} for c in state.carried]
    if has_text(state):
        out["hand_max"] = {p: hand_maximum(state, p) for p in ("A", "B")}
    return out


def _entry_text(state: GameState, entry: Any, viewer: str) -> str:
    if isinstance(entry, Use):
        what = {
            "event": "event",
            "activated": "ability",
            "triggered": "triggered ability",
            "replacement": "replacement",
        }[entry.kind]
        text = f"{entry.player}'s {what} of {_shown(state, entry.card)} (event {entry.id})"
        if entry.countered:
            text += ", countered"
        elif entry.stage == "resolving":
            steps = len(groups(entry.effects))
            text += f", resolving step {entry.group + 1} of {steps}"
        else:
            text += ", waiting to resolve"
        if entry.about is not None:
            text += f", in response to event {entry.about}"
        return text
    if isinstance(entry, Window):
        about = f"event {entry.about}" if entry.about is not None else SITUATIONS.get(entry.situation or "", "")
        kind = "changes of the battle type (306.5h)" if entry.kind == "battle_type" else f"responses to {about} (407.3)"
        turn = other(entry.first) if entry.passes == 1 and entry.last == entry.first else entry.first
        return f"a window for {kind}: {turn} to act, {entry.passes} pass(es) in a row"
    if isinstance(entry, Proposal):
        it = f" of {card_name(state, entry.it, viewer)}" if entry.it else ""
        return f"the moment before {SITUATIONS.get(entry.situation, entry.situation)}{it} (event {entry.id})"
    return str(entry)


def _effect_text(state: GameState, e: Any, viewer: str) -> dict[str, Any]:
    until = {"end_of_turn": "until end of turn", "end_of_battle": "until end of battle"}.get(e.until or "", "")
    target = card_name(state, e.target, viewer) if e.target else None
    if e.kind == "modify":
        what = ", ".join(f"{v:+d} {k}" for k, v in zip(("physical", "mental", "random"), e.values) if v)
    elif e.kind == "copy":
        what = f"copy of {card_name(state, e.values[0], viewer)}"
    elif e.kind == "gain":
        what = f"gains {len(e.values)} ability(ies)"
    elif e.kind == "lose":
        what = "loses its abilities"
    elif e.kind == "control":
        what = f"controlled by {e.values[0]}"
    elif e.kind == "hand_max":
        what = f"{e.values[0]}'s hand maximum " + (
            f"is {e.values[1]}" if e.values[1] is not None else f"{e.values[2]:+d}"
        )
    else:
        what = "no random number"
    return {"id": e.id, "source": _shown(state, e.source), "target": target, "effect": what, "until": until}


def cost_of(state: GameState, action: Any) -> str | None:
    """What an action costs, as the card prints it: ``[T][1]``, ``2``, ``1 + n=2``."""
    card = action.card
    if card is None or card not in state.cards:
        return None
    if action.do == "activate":
        from referee.rules.harem_master.abilities import activated

        for i, a in activated(state, card):
            if action.ability in (None, i):
                return a.cost + (f" n={action.n}" if action.n is not None else "")
        return None
    if action.do in ("play_character", "play_event", "play_item"):
        cost = str(state.cards[card].cost)
        return cost + (f" + n={action.n}" if action.n is not None else "")
    return None
