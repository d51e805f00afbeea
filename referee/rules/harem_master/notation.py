"""The action notation of the scenario format (section 3), read by people.

People name cards by name, by a scenario label, or by instance id (``A:12``);
the engine wants instance ids. ``resolve`` finds the card an action means:
where a name matches several cards that are all valid for the action, the
first in zone order is taken (scenario format, section 1), so the search
looks for a legal reading before settling on an illegal one to refuse.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import replace
from typing import Any, Callable, Iterable, Mapping

from projections.harem_master.state import PILES, GameState
from referee.actions import IllegalAction, Refusal
from referee.rules.harem_master.actions import Action
from referee.rules.harem_master.engine import current_decision
from referee.rules.harem_master.procedure import game
from referee.rules.harem_master.registry import ACTIONS

PLAYER_DOS = tuple(ACTIONS)  # every player action, as the rules declare them (``registry.ACTIONS``)

INSTANCE_ID = re.compile(r"^[AB]:[0-9]+$")


def _hand(state: GameState, p: str) -> list[str]:
    """The hand, and in a table-dealt match, while the hand holds unknown
    cards, every unknown card of the player: a card named as it is used from
    the hand is one of the copies its deck still has unaccounted for."""
    hand = list(state.zones[p].hand)
    unknown = state.unknown
    if unknown and any(c in unknown for c in hand):
        z = state.zones[p]
        hand += [c for c in z.castle + z.action_stack if c in unknown]
    return hand


def _own_field(state: GameState, p: str) -> list[str]:
    return [ch.card for ch in state.field if ch.controller == p]


def _field(state: GameState, p: str) -> list[str]:
    return [ch.card for ch in state.field]


def _castle(state: GameState, p: str) -> list[str]:
    return list(state.zones[p].castle)


# Where an action's ``card`` comes from (``ActionKind.card_from``), in zone order.
CARD_ZONES = {"hand": _hand, "castle": _castle, "own_field": _own_field}


def everywhere(state: GameState) -> list[str]:
    """Every card of the match in a fixed order: field first, then the piles."""
    out = []
    for ch in state.field:
        out.append(ch.card)
        out.extend(ch.items)
    out.extend(state.orphans)
    for p in ("A", "B"):
        z = state.zones[p]
        for pile in PILES:
            out.extend(getattr(z, pile))
    return out


def matches(state: GameState, card: str, ref: str, labels: dict[str, str]) -> bool:
    """Does the reference (a label, an instance id, or a name) mean this card?"""
    if ref in labels:
        return labels[ref] == card
    if INSTANCE_ID.match(ref):
        return ref == card
    cd = state.cards.get(card)
    return cd is not None and cd.name == ref and card not in state.unknown


def _hidden_matches(state: GameState, ref: str, pool: Iterable[str], labels: dict[str, str]) -> list[str]:
    """Unknown cards of ``pool`` that could be the card named ``ref``."""
    return [c for c in pool if c in state.unknown and state.cards[c].name == ref and ref not in labels]


def candidates(state: GameState, ref: str, pool: Iterable[str], labels: dict[str, str]) -> list[str]:
    return [c for c in pool if matches(state, c, ref, labels)]


def _card_pool(state: GameState, action: Action) -> list[str]:
    kind = ACTIONS.get(action.do)
    zone = CARD_ZONES.get(kind.card_from) if kind is not None and kind.card_from else None
    return zone(state, action.player) if zone and action.player else everywhere(state)


def _cards_pool(state: GameState, action: Action) -> list[str]:
    """Where an action's ``cards`` are looked for (``ActionKind.cards_from``);
    a discard the 214.2e decision asks for names characters on the field."""
    kind = ACTIONS.get(action.do)
    zone = CARD_ZONES.get(kind.cards_from) if kind is not None and kind.cards_from else None
    if zone is None or not action.player:
        return everywhere(state)
    d = current_decision(state)
    if d is not None and d.kind == "same_name":
        return _own_field(state, action.player)
    return zone(state, action.player)


def _missing_rule(do: str) -> str:
    """The rule a refusal cites when a named card is not where the action needs it."""
    kind = ACTIONS.get(do)
    return kind.refusal_rule if kind is not None else "406.1"


def resolve(state: GameState, raw: Action, labels: Mapping[str, str] | None = None) -> Action:
    """The action with every card reference turned into an instance id.

    Raises ``IllegalAction`` when a named card is nowhere it could be used
    from, citing the rule of the action (e.g. 306.1: not in the hand)."""
    labels = dict(labels or {})
    if raw.player is None:
        return raw
    card_opts: list[str] | list[None] = [None]  # the readings of ``card``, or None when it names none
    target_opts: list[str] | list[None] = [None]
    kind = ACTIONS.get(raw.do)
    if kind is not None and kind.names_cards:
        return raw  # names what the table saw (a reveal): the engine finds the copy (100.2)
    if raw.card is not None:
        pool = _card_pool(state, raw)
        card_opts = candidates(state, raw.card, pool, labels)
        if state.unknown and kind is not None and kind.card_from == "hand":
            card_opts += _hidden_matches(state, raw.card, pool, labels)
            if not card_opts and any(c in state.unknown for c in state.zones[raw.player].hand):
                if not INSTANCE_ID.match(raw.card) and raw.card not in labels:
                    # No copy the deck list has left: the engine refuses it
                    # citing 100.2 (or, in record mode, records it).
                    return raw
        if not card_opts:
            card_opts = candidates(state, raw.card, everywhere(state), labels)
        if not card_opts:
            raise IllegalAction(Refusal(_missing_rule(raw.do), f"There is no {raw.card} in the game to use."), raw)
    if raw.target is not None:
        target_opts = candidates(state, raw.target, _field(state, raw.player), labels) or candidates(
            state, raw.target, everywhere(state), labels
        )
        if not target_opts:
            raise IllegalAction(Refusal(_missing_rule(raw.do), f"There is no {raw.target} in the game."), raw)
    cards_opts: list[tuple[str, ...] | None] = [None]
    if raw.cards is not None:
        cards_opts = list(_resolve_many(state, raw, labels))
    targets: tuple[str, ...] | None = None
    if raw.targets is not None:
        targets = tuple((candidates(state, t, everywhere(state), labels) or [t])[0] for t in raw.targets)
    first: Action | None = None
    for card, target, cards in itertools.product(card_opts, target_opts, cards_opts):
        action = replace(raw, card=card, target=target, cards=cards, targets=targets)
        if first is None:
            first = action
        if game().is_legal(state, action) is None:
            return action
    assert first is not None
    return first


def _resolve_many(state: GameState, raw: Action, labels: dict[str, str]) -> Iterable[tuple[str, ...]]:
    """Readings of a ``cards`` list: each reference a distinct card, first in
    zone order; a few alternatives are offered where names repeat."""
    kind = ACTIONS.get(raw.do)
    from_hand = kind is not None and kind.cards_from == "hand"
    pool = _cards_pool(state, raw)
    options: list[list[str]] = []
    for ref in raw.cards or ():
        opts = candidates(state, ref, pool, labels)
        if from_hand and kind is not None and kind.takes("cards") and state.unknown:
            opts += _hidden_matches(state, ref, pool, labels)
            if not opts and any(cd.name == ref for cd in raw.definitions):
                opts = [ref]  # on neither deck list: the engine refuses it citing 100.2 (or records it)
        opts = opts or candidates(state, ref, everywhere(state), labels)
        if not opts:
            raise IllegalAction(Refusal(_missing_rule(raw.do), f"There is no {ref} in the game."), raw)
        options.append(opts)
    produced = 0
    for combo in itertools.product(*options):
        if len(set(combo)) == len(combo):
            yield tuple(combo)
            produced += 1
            if produced >= 64:
                return
    if produced == 0:
        yield tuple(o[0] for o in options)


def with_unlisted(state: GameState, action: Action, lookup: Callable[[str], Any]) -> Action:
    """In a table-dealt match, the action with the definitions (from a pool:
    ``lookup``) of the cards it names that are on neither deck list, so that
    the rules can refuse such a card citing 100.2, or record mode record it
    with that violation. Other actions and matches are returned as they are."""
    if state.deal != "table" or action.player is None:
        return action
    names = {cd.name for cd in state.cards.values()}
    found = []
    for ref in (action.card, *(action.cards or ())):
        if ref is None or ref in names or INSTANCE_ID.match(ref):
            continue
        cd = lookup(ref)
        if cd is not None:
            found.append(cd)
    return replace(action, definitions=tuple(found)) if found else action


def action_from_mapping(data: Mapping[str, Any]) -> Action:
    """An ``Action`` from a notation mapping whose keys were already checked;
    ``definitions`` (cards on no deck list of a table-dealt match, the
    ``Decks.unlisted_cards``) go with it to the rules (100.2)."""

    def tup(v: Any) -> tuple[str, ...] | None:
        return tuple(str(x) for x in v) if v is not None else None

    return Action(
        player=data.get("player"),
        do=data["do"],
        card=None if data.get("card") is None else str(data["card"]),
        cards=tup(data.get("cards")),
        target=None if data.get("target") is None else str(data["target"]),
        targets=tup(data.get("targets")),
        order=data.get("order"),
        n=data.get("n"),
        option=data.get("option"),
        ability=data.get("ability"),
        definitions=tuple(data.get("definitions") or ()),
    )


def action_line(a: dict[str, Any]) -> str:
    """A described action (``describe_action``) as people type it after
    ``referee act MATCH``, one line per distinct action: what ``referee
    legal`` prints (without its number and bracketed ids) and what the
    board's controls carry as ``data-action`` (spec: console.md)."""
    words = [a["player"], a["do"]]
    if "card" in a:
        words.append(f'"{a["card"]}"')
    if "cards" in a:
        words += [f'"{c}"' for c in a["cards"]]
    if "target" in a:
        words.append(f'--target "{a["target"]}"')
    if "ability" in a:
        words.append(f"--ability {a['ability']}")
    if "n" in a:
        words.append(f"--n {a['n']}")
    if "option" in a:
        words.append(f"--option {a['option']}")
    if "order" in a:
        words.append(f"--order {a['order']}")
    if a.get("cost"):
        words.append(f"(cost {a['cost']})")
    return " ".join(words)


def action_of_line(a: dict[str, Any]) -> Action:
    """The action a described action stands for, named as the line names it
    (so the board logs a line exactly as ``referee act`` would log it typed
    out): card names, or instance ids where the line shows "?"."""

    def ref(name: str, ident: str | None) -> str:
        return ident if name == "?" and ident else name

    def refs(names: list[str] | None, idents: list[str | None] | None) -> tuple[str, ...] | None:
        if names is None:
            return None
        idents = list(idents or [None] * len(names))
        return tuple(ref(n, i) for n, i in zip(names, idents))

    return Action(
        a["player"],
        a["do"],
        card=ref(a["card"], a.get("card_id")) if "card" in a else None,
        cards=refs(a.get("cards"), a.get("cards_ids")),
        target=ref(a["target"], a.get("target_id")) if "target" in a else None,
        targets=refs(a.get("targets"), a.get("targets_ids")),
        order=a.get("order"),
        n=a.get("n"),
        option=a.get("option"),
        ability=a.get("ability"),
    )


def describe_action(state: GameState, action: Action, viewer: str = "judge") -> dict[str, Any]:
    """An action with card names instead of ids, as people write it, for
    ``viewer`` (215): a card the viewer may not see where it lies is
    ``"a card"``, its id withheld too (ids follow the deck list's order)."""
    from projections.harem_master.state import owner
    from projections.harem_master.visibility import HIDDEN, sees_card

    out: dict[str, Any] = {"player": action.player, "do": action.do}

    # A table-dealt match: an unknown card is "?" unless the action names it
    # (a play or a discard from the hand, a reveal: one copy the deck list has left).
    kind = ACTIONS.get(action.do)
    said = kind is not None and kind.names_cards  # a reveal says aloud what the table saw
    names_it = said or (kind is not None and (kind.card_from == "hand" or kind.cards_from == "hand"))

    def seen(c: str) -> bool:
        # A player choosing among their own cards looks at them, wherever they
        # lie (an opening character from their castle, 101.1; a search).
        return said or sees_card(state, c, viewer) or (viewer == action.player and owner(c) == viewer)

    def name(c: str) -> str:
        if not seen(c):
            return HIDDEN
        if c in state.unknown and not names_it:
            return "?"
        cd = state.cards.get(c)
        return cd.name if cd is not None else c

    value: Any  # card and target are ids, cards and targets lists of ids (Action.arguments)
    for key, value in action.arguments().items():
        if key in ("card", "target"):
            out[key] = name(value)
            out[key + "_id"] = value if seen(value) else None
        elif key in ("cards", "targets"):
            out[key] = [name(c) for c in value]
            out[key + "_ids"] = [c if seen(c) else None for c in value]
        else:
            out[key] = value
    from referee.rules.harem_master.describe import cost_of

    cost = cost_of(state, action)
    if cost:
        out["cost"] = cost
    return out


def action_lines(described: Iterable[Mapping[str, Any]]) -> list[tuple[str, list[str]]]:
    """One line per action as ``referee act`` takes it (``action_line``), with
    the ids of the copies of one card it stands for: ``referee legal`` and the
    board's list."""
    lines: dict[str, list[str]] = {}
    for a in described:
        ids = lines.setdefault(action_line(dict(a)), [])
        if ACTIONS[a["do"]].names_cards:
            continue  # a reveal: a name the deck list has left, not yet any one card
        if a.get("card_id"):
            ids.append(a["card_id"] + (f" on {a['target_id']}" if a.get("target_id") else ""))
        elif a.get("cards_ids") and all(a["cards_ids"]):
            ids.append("+".join(a["cards_ids"]))
    return [(line, ids or [""]) for line, ids in lines.items()]
