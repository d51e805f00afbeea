"""Harem Master's scenario files: its position, its actions and its expectations (docs/scenario-format.md).

``referee.scenario`` reads and runs every game's scenario files (``game:``
absent means Harem Master's); the loop, the reader, the judge's actions and
the report are the kernel's. Harem Master's own parts are here: the
position (``setup``: piles, the field, castles, fillers, rulings,
``auto_pass``; the core's ``position``), its own top keys (``cards``,
``pool``, ``format``), the player's actions (``PLAYER_DOS``, the core's
``read_action``) and the expectations (zones, characters'
characteristics, hidden cards still unaccounted for, 215 views: the
``Scenarios`` capability, ``SCENARIOS``).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal, cast

from events.harem_master.cards import CardDef, filler
from events.harem_master.game import FieldCard, Player, PositionSetUp, WindowPassed
from events.kernel import Event
from projections.harem_master.state import PILES, PLAYERS, GameState, evolve
from referee.actions import Refusal
from referee.capabilities import Started
from referee.inputs import MAX_CARDS, NAME_LENGTH, Document, card_number_problem
from referee.rules.harem_master.engine import current_decision, current_player, start
from referee.rules.harem_master.notation import INSTANCE_ID, PLAYER_DOS, matches
from referee.rules.harem_master.procedure import game
from referee.rules.harem_master.rewinds import REWINDS
from referee.rules.harem_master.settings import RULING_OPTIONS
from referee.scenario import JUDGE_ACTION_KEYS, Reader, read_judge_action, zone_checks

GAME = "harem-master"
Path_ = tuple[Any, ...]

# --- cards --------------------------------------------------------------------------


def _catalog(reader: Reader, data: dict) -> Any:
    from referee.rules.harem_master.pool import CardCatalog, bundled_pool, load_pool, parse_cards

    pools: list[dict[str, CardDef]] = []
    if "cards" in data:
        pools.append(parse_cards(data["cards"], reader.doc, ("cards",)))
    if "pool" in data:
        pool_path = Path(reader.str_(data["pool"], ("pool",)))
        if not pool_path.is_absolute():
            pool_path = reader.doc.file.parent / pool_path
        pools.append(load_pool(pool_path))
    pools.append(bundled_pool())
    return CardCatalog(*pools)


class Dealer:
    """Gives each card of a hand-written position its instance id (owner:index):
    the ``id`` it is written with (``referee scenario from`` writes every
    card's, so that the position is the match's to the card), else the
    owner's next number that no card of the file is written with."""

    def __init__(self, reader: Reader, catalog: Any, reserved: frozenset[str] = frozenset()) -> None:
        self.reader = reader
        self.catalog = catalog
        self.cards: dict[str, CardDef] = {}
        self.labels: dict[str, str] = {}
        self.count = {"A": 0, "B": 0}
        self.reserved = reserved  # the ids some card of the file is written with
        self.known: list[str] = []  # table deal: cards of a hidden pile written ``known: true``

    def room(self, n: int, path: Path_) -> None:
        """Refuse a position of more cards than ``MAX_CARDS`` before dealing them."""
        if len(self.cards) + n > MAX_CARDS:
            raise self.reader.err(
                path, f"the position holds more than {MAX_CARDS:,} cards; a whole game has 102 (100.2)"
            )

    def new(self, owner: str, cd: CardDef, path: Path_ = ("setup",), card_id: str | None = None) -> str:
        self.room(1, path)
        if card_id is None:
            self.count[owner] += 1
            while f"{owner}:{self.count[owner]}" in self.reserved:
                self.count[owner] += 1
            card_id = f"{owner}:{self.count[owner]}"
        elif card_id in self.cards:
            raise self.reader.err(path + ("id",), f"the id {card_id} is given to two cards")
        self.cards[card_id] = cd
        return card_id

    def _id(self, value: dict, path: Path_, owner: str) -> str | None:
        """A card's own ``id`` (``A:12``): its letter is its owner's (215.1b)."""
        if "id" not in value:
            return None
        card_id = self.reader.str_(value["id"], path + ("id",))
        if not INSTANCE_ID.match(card_id) or card_id.endswith(":0") or card_id.partition(":")[2].startswith("0"):
            raise self.reader.err(path + ("id",), f"expected an instance id such as {owner}:12, got {card_id!r}")
        if card_id[0] != owner:
            raise self.reader.err(path + ("id",), f"{card_id} is a card of {card_id[0]}'s, but this card is {owner}'s")
        return card_id

    def _known(self, value: dict, path: Path_, card_id: str) -> str:
        if "known" in value and self.reader.bool_(value["known"], path + ("known",)):
            self.known.append(card_id)
        return card_id

    def card(self, value: Any, path: Path_, owner: str) -> str:
        """A card entry: a name, ``{random: N, id: ID}``, or ``{card: NAME, label: TEXT, owner: A|B, id: ID, known: true}``."""
        r = self.reader
        if isinstance(value, dict) and "random" in value:
            r.mapping(value, path, ("random", "id", "known", "owner"), ("random",))
            rnd = r.int_(value["random"], path + ("random",))
            problem = card_number_problem(rnd)
            if problem is not None:
                raise r.err(path + ("random",), problem)
            if "owner" in value:
                owner = r.player(value["owner"], path + ("owner",))
            return self._known(value, path, self.new(owner, filler(rnd), path, self._id(value, path, owner)))
        if isinstance(value, dict):
            r.mapping(value, path, ("card", "label", "owner", "id", "known"), ("card",))
            name = r.str_(value["card"], path + ("card",))
            if "owner" in value:
                owner = r.player(value["owner"], path + ("owner",))
            card_id = self.new(
                owner, self.catalog.require(name, r.doc, path + ("card",)), path, self._id(value, path, owner)
            )
            self._known(value, path, card_id)
            if "label" in value:
                label = r.str_(value["label"], path + ("label",))
                if label in self.labels:
                    raise r.err(path + ("label",), f"the label {label!r} is used twice")
                self.labels[label] = card_id
            return card_id
        name = r.str_(value, path)
        return self.new(owner, self.catalog.require(name, r.doc, path), path)

    def pile(self, value: Any, path: Path_, owner: str, integer_fillers: bool) -> list[str]:
        r = self.reader
        if integer_fillers and not isinstance(value, (list, dict)):
            n = r.int_(value, path, 0)
            self.room(n, path)
            return [self.new(owner, filler(0)) for _ in range(n)]
        entries = r.seq(value, path, MAX_CARDS, "cards")
        self.room(len(entries), path)
        return [self.card(v, path + (i,), owner) for i, v in enumerate(entries)]

    def castle(self, value: Any, path: Path_, owner: str) -> list[str]:
        r = self.reader
        if isinstance(value, dict):
            r.mapping(value, path, ("top", "count"))
            top = self.pile(value.get("top", []), path + ("top",), owner, False)
            total = r.int_(value.get("count", len(top)), path + ("count",), 0)
            if total < len(top):
                raise r.err(path + ("count",), f"count {total} is smaller than the {len(top)} cards on top")
            self.room(total - len(top), path + ("count",))
            return top + [self.new(owner, filler(0)) for _ in range(total - len(top))]
        return self.pile(value, path, owner, True)


SETUP_KEYS = (
    "turn",
    "active",
    "first",
    "step",
    "characters_played",
    "mode",
    "rulings",
    "players",
    "seed",
    "decks",
    "auto_pass",
    "names",
    "deal",
    "field_order",
)
PLAYER_KEYS = ("field", "hand", "action_stack", "castle", "discard", "harem", "execution", "side")
# Where a position stands: `main` at 306 with 301-305 done (the active player
# acts), `"305"` with the 305 window open (the non-active player first),
# `start` at 301 (the referee runs the turn up to its first decision).
SETUP_STEPS = ("main", "305", "start")


def _rulings(reader: Reader, value: Any, path: Path_) -> dict[str, str]:
    reader.mapping(value, path, tuple(RULING_OPTIONS))
    return {k: reader.choice(v, path + (k,), RULING_OPTIONS[k]) for k, v in value.items()}


def build_setup(reader: Reader, data: dict, catalog: Any) -> tuple[list[Event], GameState, dict[str, str]]:
    """The events that set the scenario's position up, the state, and the labels."""
    path: Path_ = ("setup",)
    setup = reader.mapping(data.get("setup", {}), path, SETUP_KEYS)
    mode = reader.choice(setup.get("mode", "strict"), path + ("mode",), ("strict", "record"))
    rulings = _rulings(reader, setup.get("rulings", {}), path + ("rulings",))
    auto_pass = reader.bool_(setup.get("auto_pass", True), path + ("auto_pass",))
    seed = reader.int_(setup.get("seed", 0), path + ("seed",), -(2**63), 2**63 - 1)  # as `new --seed`
    deal_mode = reader.choice(setup.get("deal", "seeded"), path + ("deal",), ("seeded", "table"))
    names = {"A": "A", "B": "B"}
    if "names" in setup:
        for p, n in reader.mapping(setup["names"], path + ("names",), ("A", "B")).items():
            names[p] = reader.text(n, path + ("names", p), NAME_LENGTH)
    if "decks" in setup:
        for key in ("players", "turn", "active", "step", "characters_played"):
            if key in setup:
                raise reader.err(path + (key,), "a setup with decks starts at 101.1; give either decks or a position")
        first_key = "first"
        if first_key in setup:
            raise reader.err(path + ("first",), "with decks, 101.3 decides who goes first")
        from referee.rules.harem_master.decks import check_deck, deal, load_deck, parse_deck

        decks = reader.mapping(setup["decks"], path + ("decks",), ("A", "B"), ("A", "B"))
        built: dict[str, list[CardDef]] = {}
        for p in ("A", "B"):
            dpath = path + ("decks", p)
            src = decks[p]
            if isinstance(src, str):
                deck_file = Path(src)
                if not deck_file.is_absolute():
                    deck_file = reader.doc.file.parent / deck_file
                built[p] = load_deck(deck_file, catalog)
            else:
                built[p] = parse_deck(reader.seq(src, dpath), catalog, reader.doc, dpath)
                check_deck(built[p], reader.doc, dpath)
        cards, castles = deal(built)
        applied = start(
            cards, castles, seed=seed, names=names, mode=mode, rulings=rulings, auto_pass=auto_pass, deal=deal_mode
        )
        return list(applied.events), applied.state, {}

    dealer = Dealer(reader, catalog, _written_ids(setup.get("players")))
    players = reader.mapping(setup.get("players", {}), path + ("players",), ("A", "B"))
    zones: dict[str, list[str]] = {}
    field: list[FieldCard] = []
    for p in ("A", "B"):
        ppath = path + ("players", p)
        if p not in players:
            zones[f"{p}.castle"] = [dealer.new(p, filler(0), ppath) for _ in range(40)]
            continue
        pdata = reader.mapping(players[p] or {}, ppath, PLAYER_KEYS)
        for i, entry in enumerate(reader.seq(pdata.get("field", []), ppath + ("field",))):
            epath = ppath + ("field", i)
            if isinstance(entry, dict) and "random" not in entry:
                reader.mapping(entry, epath, ("card", "ready", "items", "label", "owner", "id"), ("card",))
                card_id = dealer.card({k: entry[k] for k in ("card", "label", "owner", "id") if k in entry}, epath, p)
                ready = reader.bool_(entry.get("ready", True), epath + ("ready",))
                items = [
                    dealer.card(it, epath + ("items", j), p)
                    for j, it in enumerate(reader.seq(entry.get("items", []), epath + ("items",)))
                ]
            else:
                card_id, ready, items = dealer.card(entry, epath, p), True, []
            if dealer.cards[card_id].type != "character":
                raise reader.err(epath, f"{dealer.cards[card_id].name} is not a character card")
            field.append(FieldCard(card=card_id, controller=cast(Player, p), ready=ready, items=items))  # p: A or B
        for pile in PILES:
            if pile == "castle":
                zones[f"{p}.castle"] = dealer.castle(pdata.get("castle", []), ppath + ("castle",), p)
            elif pile in pdata:
                zones[f"{p}.{pile}"] = dealer.pile(
                    pdata[pile], ppath + (pile,), p, integer_fillers=(pile == "action_stack")
                )
    if "field_order" in setup:
        field = _in_field_order(reader, setup["field_order"], path + ("field_order",), field)
    first = reader.player(setup.get("first", "A"), path + ("first",))
    turn = reader.int_(setup.get("turn", 1), path + ("turn",), 1)
    active = reader.player(
        setup.get("active", first if turn % 2 == 1 else ("B" if first == "A" else "A")), path + ("active",)
    )
    step = reader.choice(str(setup.get("step", "main")), path + ("step",), SETUP_STEPS)
    played = reader.int_(setup.get("characters_played", 0), path + ("characters_played",), 0)
    # the reader checked the seats (A or B) and the deal (seeded or table)
    event = PositionSetUp(
        seed=seed,
        names=names,
        cards=dealer.cards,
        zones=zones,
        field=field,
        turn=turn,
        active=cast(Player, active),
        first=cast(Player, first),
        step="301" if step == "start" else "306",
        characters_played=played,
        mode=mode,
        rulings=rulings,
        auto_pass=auto_pass,
        log_format=2,
        deal=cast(Literal["seeded", "table"], deal_mode),
        known=[c for c in dealer.known if deal_mode == "table"],
    )
    applied = game().begin([event])
    events, state = applied.events, applied.state
    if step == "main":
        # `main`: steps 301-305 are done, so the active player acts (306). A
        # 305 window that would ask the non-active player (who holds a usable
        # [OT] card, or passes by hand with automatic passing off) is recorded
        # as passed; one that passes by itself needs no event, so the log of
        # such a position is what it always was. `"305"` leaves it open.
        decision = current_decision(state)
        if decision is not None and decision.kind == "window" and state.step == "306":
            passed = WindowPassed(rule="305", player=cast(Player, decision.player))  # a seat: A or B
            events, state = game().advance(evolve(state, passed), events + [passed])
    return events, state, dealer.labels


def _in_field_order(reader: Reader, value: Any, path: Path_, field: list[FieldCard]) -> list[FieldCard]:
    """``field_order``: the characters of both players' fields in the order
    they lie on the table, by id (the order their ``field:`` lists give
    between one player's characters, and A's before B's, when absent)."""
    ids = [reader.str_(v, path + (i,)) for i, v in enumerate(reader.seq(value, path))]
    by_id = {f.card: f for f in field}
    if sorted(ids) != sorted(by_id):
        raise reader.err(path, "expected the id of every character on the field, each once")
    return [by_id[c] for c in ids]


def _written_ids(players: Any) -> frozenset[str]:
    """Every ``id`` a card of the position is written with, so that the cards
    written without one are numbered around them (read before any is dealt)."""
    found: set[str] = set()

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            if isinstance(value.get("id"), str) and ("card" in value or "random" in value):
                found.add(value["id"])
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    walk(players)
    return frozenset(found)


# --- actions -----------------------------------------------------------------------

PLAYER_KEYS_ONLY = ("card", "cards", "target", "targets", "order", "n", "option", "ability")
# Every key an action of a Harem Master scenario may have: a player's
# (``PLAYER_KEYS_ONLY``) or a judge's (``referee.scenario.JUDGE_ACTION_KEYS``).
ACTION_KEYS = ("player", "judge", "do", *PLAYER_KEYS_ONLY, "expect", *JUDGE_ACTION_KEYS)


def read_action(reader: Reader, raw: Any, path: Path_) -> tuple[dict[str, Any], dict | None]:
    """A checked action mapping and its per-step expectation (if any)."""
    a = reader.mapping(raw, path, ACTION_KEYS, ("do",))
    do = reader.str_(a["do"], path + ("do",))
    if a.get("judge") is True:
        read_judge_action(reader, a, do, path, PLAYER_KEYS_ONLY, REWINDS.rules)
    else:
        if "judge" in a:
            reader.bool_(a["judge"], path + ("judge",))
        if "player" not in a:
            raise reader.err(path, "missing required key 'player' (A or B), or judge: true")
        reader.player(a["player"], path + ("player",))
        if do not in PLAYER_DOS:
            raise reader.err(path + ("do",), f"unknown action {do!r}; expected one of: {', '.join(PLAYER_DOS)}")
        for key in JUDGE_ACTION_KEYS:
            if key in a:
                raise reader.err(path + (key,), f"{key!r} belongs to a judge's action (judge: true), not to a player's")
    for key in ("card", "target", "option"):  # a judge's keys are checked by ``read_judge_action``
        if key in a:
            reader.str_(a[key], path + (key,))
    for key in ("cards", "targets"):
        if key in a:
            for i, v in enumerate(reader.seq(a[key], path + (key,))):
                reader.str_(v, path + (key, i))
    if "order" in a:
        reader.choice(a["order"], path + ("order",), ("first", "second"))
    for key, most in (("n", MAX_CARDS), ("ability", 99)):  # as `act --n` and `--ability` take them
        if key in a:
            reader.int_(a[key], path + (key,), 0, most)
    expect = a.get("expect")
    if expect is not None:
        check_expect_shape(reader, expect, path + ("expect",))
    return a, expect


# --- expectations ------------------------------------------------------------------

EXPECT_KEYS = (
    "zones",
    "characters",
    "active",
    "turn",
    "result",
    "ongoing",
    "events",
    "violations",
    "refused",
    "step",
    "player",
    "view",
    "unaccounted",
)
ZONE_CHECK_KEYS = ("count", "cards", "contains", "top", "bottom", "excludes")
CHARACTER_KEYS = ("ready", "physical", "mental", "items", "controller", "name", "abilities")
ZONE_NAMES = tuple(f"{p}.{z}" for p in ("A", "B") for z in (*PILES, "field"))


def check_expect_shape(reader: Reader, expect: Any, path: Path_) -> None:
    e = reader.mapping(expect, path, EXPECT_KEYS)
    for zone, check in reader.mapping(e.get("zones", {}), path + ("zones",), ZONE_NAMES).items():
        zpath = path + ("zones", zone)
        c = reader.mapping(check, zpath, ZONE_CHECK_KEYS)
        if "count" in c:
            reader.int_(c["count"], zpath + ("count",), 0)
        for key in ("cards", "contains", "top", "bottom", "excludes"):
            if key in c:
                reader.seq(c[key], zpath + (key,))
    chars = e.get("characters", {})
    if not isinstance(chars, dict):
        raise reader.err(path + ("characters",), "expected a mapping from character names to checks")
    for name, check in chars.items():
        reader.mapping(check, path + ("characters", name), CHARACTER_KEYS)
    if "active" in e:
        reader.player(e["active"], path + ("active",))
    if "player" in e:
        if e["player"] is not None:
            reader.player(e["player"], path + ("player",))
    if "turn" in e:
        reader.int_(e["turn"], path + ("turn",), 0)
    if "result" in e:
        r = reader.mapping(e["result"], path + ("result",), ("winner", "draw", "rule", "scores", "ruling"))
        if "winner" in r:
            reader.player(r["winner"], path + ("result", "winner"))
        if "scores" in r:
            reader.mapping(r["scores"], path + ("result", "scores"), ("A", "B"))
    if "ongoing" in e:
        reader.bool_(e["ongoing"], path + ("ongoing",))
    for key in ("events", "violations"):
        if key in e:
            for i, item in enumerate(reader.seq(e[key], path + (key,))):
                reader.mapping(item, path + (key, i), ("rule", "type", "ruling", "player", "card"))
    if "view" in e:
        v = reader.mapping(e["view"], path + ("view",), ("as", "hidden", "shown"), ("as",))
        reader.choice(v["as"], path + ("view", "as"), ("A", "B", "public", "judge"))
        for key in ("hidden", "shown"):
            for i, zone in enumerate(reader.seq(v.get(key, []), path + ("view", key))):
                reader.choice(zone, path + ("view", key, i), ZONE_NAMES)
    if "refused" in e:
        reader.mapping(e["refused"] or {}, path + ("refused",), ("rule",))
    if "unaccounted" in e:
        for p, names in reader.mapping(e["unaccounted"], path + ("unaccounted",), ("A", "B")).items():
            if not isinstance(names, dict):
                raise reader.err(path + ("unaccounted", p), "expected a mapping from card names to counts")
            for name, n in names.items():
                reader.int_(n, path + ("unaccounted", p, name), 0)


def _tokens(state: GameState, card: str, labels: dict[str, str]) -> set[str]:
    out = {card}
    cd = state.cards.get(card)
    if card in state.unknown:
        out.add("?")  # a table-dealt match's unknown card: it has no name yet
    elif cd is not None:
        out.add(cd.name)
    out.update(label for label, cid in labels.items() if cid == card)
    return out


def _entry_matches(state: GameState, card: str, expected: Any, labels: dict[str, str]) -> bool:
    if isinstance(expected, dict):
        if "random" in expected:
            cd = state.cards.get(card)
            return cd is not None and cd.filler and cd.random == expected["random"]
        if "card" in expected:
            expected = expected["card"]
    return str(expected) in _tokens(state, card, labels)


def _show(state: GameState, cards: list[str]) -> str:
    return (
        "["
        + ", ".join("?" if c in state.unknown else state.cards[c].name if c in state.cards else c for c in cards)
        + "]"
    )


def zone_cards(state: GameState, zone: str) -> list[str]:
    p, _, pile = zone.partition(".")
    if pile == "field":
        return [ch.card for ch in state.field if ch.controller == p]
    return list(getattr(state.zones[p], pile))


def _rule_covers(expected: str, actual: str | None) -> bool:
    if actual is None:
        return False
    return Refusal(actual, "").cites(expected)


def _event_matches(state_cards: dict[str, CardDef], ev: Event, want: dict, labels: dict[str, str]) -> bool:
    rule = want.get("rule")
    if rule is not None:
        rule = str(rule)
        if rule.startswith("ruling:"):
            if ev.ruling != rule[len("ruling:") :]:
                return False
        elif not _rule_covers(rule, ev.rule):
            return False
    if "type" in want and type(ev).__name__ != want["type"]:
        return False
    if "ruling" in want and ev.ruling != str(want["ruling"]).removeprefix("ruling:"):
        return False
    if "player" in want and getattr(ev, "player", None) != want["player"]:
        return False
    if "card" in want:
        card = getattr(ev, "card", None)
        if card is None:
            return False
        tokens = {card, state_cards[card].name if card in state_cards else card}
        tokens.update(label for label, cid in labels.items() if cid == card)
        if str(want["card"]) not in tokens:
            return False
    return True


def _check_abilities(ref: str, want: Any, have: tuple[Any, ...]) -> list[str]:
    """``abilities:`` a count, or a list of the kinds the character has now, in order."""
    kinds = [a.kind for a in have]
    if isinstance(want, int):
        return [] if len(have) == want else [f"character {ref}: expected {want} abilities, found {len(have)} {kinds}"]
    if list(want) != kinds:
        return [f"character {ref}: expected abilities {list(want)}, found {kinds}"]
    return []


def check_expect(
    expect: dict, state: GameState, log: list[Event], refusal: Refusal | None, labels: dict[str, str]
) -> list[str]:
    """Every way the state differs from the expectation, as sentences."""
    from referee.rules.harem_master.characteristics import chars

    fails: list[str] = []
    fails += zone_checks(
        expect.get("zones") or {},
        lambda zone: zone_cards(state, zone),
        lambda cards: _show(state, cards),
        lambda card, entry: _entry_matches(state, card, entry, labels),
    )
    for ref, check in (expect.get("characters") or {}).items():
        ch = next((c for c in state.field if matches(state, c.card, str(ref), labels)), None)
        if ch is None:
            fails.append(f"character {ref}: not on the field")
            continue
        now = chars(state, ch.card)
        values = {
            "ready": ch.ready,
            "physical": now.physical,
            "mental": now.mental,
            "controller": ch.controller,
            "name": now.name,
        }
        for key in ("ready", "physical", "mental", "controller", "name"):
            if key in check and check[key] != values[key]:
                fails.append(f"character {ref}: expected {key} {check[key]}, found {values[key]}")
        if "abilities" in check:
            fails += _check_abilities(ref, check["abilities"], now.abilities)
        if "items" in check:
            want = check["items"]
            if len(want) != len(ch.items) or not all(
                _entry_matches(state, c, w, labels) for c, w in zip(ch.items, want)
            ):
                fails.append(f"character {ref}: expected items {want}, found {_show(state, list(ch.items))}")
    if "active" in expect and state.active != expect["active"]:
        fails.append(f"active player: expected {expect['active']}, found {state.active}")
    if "player" in expect and current_player(state) != expect["player"]:
        fails.append(f"player to act: expected {expect['player']}, found {current_player(state)}")
    if "turn" in expect and state.turn != expect["turn"]:
        fails.append(f"turn: expected {expect['turn']}, found {state.turn}")
    for p, names in (expect.get("unaccounted") or {}).items():
        from referee.rules.harem_master.hidden import unaccounted

        unseen = unaccounted(state, p)
        for name, n in names.items():
            if unseen.get(str(name), 0) != n:
                fails.append(f"unaccounted {p}.{name}: expected {n}, found {unseen.get(str(name), 0)}")
    if "step" in expect and state.step != str(expect["step"]):
        fails.append(f"step: expected {expect['step']}, found {state.step}")
    if "ongoing" in expect and (state.result is None) != expect["ongoing"]:
        fails.append(
            "expected the game to go on, but it ended: " + _result_text(state)
            if expect["ongoing"]
            else "expected the game to have ended, but it goes on"
        )
    if "result" in expect:
        fails += _check_result(expect["result"], state)
    if "events" in expect:
        fails += _check_events(expect["events"], state, log, labels)
    if "view" in expect:
        fails += _check_view(expect["view"], state)
    if "violations" in expect:
        want = [str(v.get("rule", "")) for v in expect["violations"]]
        have = [v.rule for v in state.violations]
        if len(want) != len(have) or not all(not w or _rule_covers(w, h) for w, h in zip(want, have)):
            fails.append(f"open violations: expected {want or 'none'}, found {have or 'none'}")
    return fails


def _check_view(want: dict, state: GameState) -> list[str]:
    """Rule 215: what a player (or the public) may see of each zone. A zone is
    hidden when none of its cards are named to that viewer (its count always
    is), shown when all of them are."""
    from referee.rules.harem_master.views import state_view

    view = state_view(state, want["as"])
    fails = []
    for zone in want.get("hidden", []):
        cards = view["zones"][zone]["cards"]
        if cards is not None and any(c is not None for c in cards):
            fails.append(f"view as {want['as']}: expected {zone} hidden, but it shows {cards}")
    for zone in want.get("shown", []):
        cards = view["zones"][zone]["cards"]
        if cards is None or any(c is None for c in cards):
            fails.append(f"view as {want['as']}: expected {zone} shown, but its cards are hidden")
    return fails


def _result_text(state: GameState) -> str:
    r = state.result
    if r is None:
        return "no result"
    who = "a draw" if r.draw else f"{r.winner} wins"
    scores = f", scores {r.scores}" if r.scores else ""
    return f"{who} ({r.rule}{', ruling:' + r.ruling if r.ruling else ''}){scores}"


def _check_result(want: dict, state: GameState) -> list[str]:
    r = state.result
    if r is None:
        return [f"expected a result {want}, but the game goes on (step {state.step})"]
    fails = []
    if "winner" in want and r.winner != want["winner"]:
        fails.append(f"result: expected winner {want['winner']}, found {_result_text(state)}")
    if "draw" in want and r.draw != bool(want["draw"]):
        fails.append(f"result: expected draw {want['draw']}, found {_result_text(state)}")
    if "rule" in want and not _rule_covers(str(want["rule"]), r.rule):
        fails.append(f"result: expected rule {want['rule']}, found {_result_text(state)}")
    if "ruling" in want and r.ruling != str(want["ruling"]).removeprefix("ruling:"):
        fails.append(f"result: expected ruling {want['ruling']}, found {_result_text(state)}")
    if "scores" in want:
        for p, score in want["scores"].items():
            if not r.scores or r.scores.get(p) != score:
                fails.append(f"result: expected {p} to score {score}, found {_result_text(state)}")
    return fails


def _check_events(wanted: list[dict], state: GameState, log: list[Event], labels: dict[str, str]) -> list[str]:
    i = 0
    for want in wanted:
        while i < len(log) and not _event_matches(state.cards, log[i], want, labels):
            i += 1
        if i == len(log):
            seen = ", ".join(e.rule for e in log[-40:])
            return [f"events: expected {want} (in this order) in the log; rules in the log: {seen}"]
        i += 1
    return []


# A scenario may say `format: 1` or `format: 2`; neither changes anything now
# (format 2 once made `step: main` mean what it always means now).
SCENARIO_FORMATS = (1, 2)


def position(data: Mapping[str, Any], doc: Document) -> Started:
    """A position written by hand (a scenario's or ``referee new
    --position``'s ``setup``, its cards from ``cards``, ``pool`` and the
    bundled pool), checked, as the events that set it up."""
    reader = Reader(doc, PLAYERS)
    events, state, labels = build_setup(reader, dict(data), _catalog(reader, dict(data)))
    return Started(events, state, labels)


class HaremMasterScenarios:
    """Harem Master's part of its scenario files (``referee.scenario`` reads the rest)."""

    keys: tuple[str, ...] = ("format", "cards", "pool")

    def read(self, reader: Reader, data: Mapping[str, Any]) -> tuple[Started, Any]:
        """The position, and the catalog its actions' card names are read against."""
        catalog = _catalog(reader, dict(data))
        fmt = data.get("format", 1)
        if fmt not in SCENARIO_FORMATS or isinstance(fmt, bool):
            raise reader.err(("format",), f"expected a scenario format, 1 or 2, got {fmt!r}")
        events, state, labels = build_setup(reader, dict(data), catalog)
        return Started(events, state, labels), catalog

    check_shape = staticmethod(check_expect_shape)
    check = staticmethod(check_expect)


SCENARIOS = HaremMasterScenarios()
