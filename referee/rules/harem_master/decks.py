"""Decklists: reading them, checking them against 100.2, dealing instance ids; the game's ``decks`` capability.

A deck is written by hand, as a file or as a list inside a match record or a
scenario, so entries are short (``Iron Knight``, ``{card: Iron Knight,
count: 3}``, ``{random: 2, count: 47}``) and every problem is an
``InputError`` placed in the file. A deck that breaks 100.2 is refused
before the match starts (scenario format, section 4), because the rules
engine assumes legal decks (101.1 needs a cost-1 character to open with).
"""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence, cast

from events.harem_master.cards import CardDef, filler
from events.kernel import Event
from projections.harem_master.state import PILES, GameState
from referee.capabilities import StartOption
from referee.inputs import MAX_CARDS, Document, InputError, card_number_problem, format_path, kind_of, load_document
from referee.rules.harem_master.engine import match_started
from referee.rules.harem_master.notation import with_unlisted
from referee.rules.harem_master.pool import CardCatalog
from referee.rules.harem_master.settings import RULING_OPTIONS

DECK_SIZE = 51  # 100.2
SAME_NAME_LIMIT = 3  # 100.2

_ENTRY_HELP = "expected a card name, {card: NAME, count: N} or {random: N, count: M}"


def _is_int(value: Any) -> bool:
    # YAML `yes`/`true` load as bool, which Python counts as an int.
    return isinstance(value, int) and not isinstance(value, bool)


def _count(entry: dict[str, Any], doc: Document, here: tuple[Any, ...]) -> int:
    count = entry.get("count", 1)
    # A count above 51 can never make a legal deck, and a typo such as
    # 1000000 should fail here rather than build a huge list first.
    if not _is_int(count) or not 1 <= count <= DECK_SIZE:
        raise doc.error(
            here + ("count",),
            f"count must be a whole number from 1 to {DECK_SIZE} (got {count!r})",
        )
    return count


def parse_deck(entries: Any, catalog: CardCatalog, doc: Document, path: Iterable[Any] = ()) -> list[CardDef]:
    """The cards of a decklist in order (top first), entries expanded.

    ``doc``/``path`` say where the list stands, so an inline deck inside a
    match record reports errors at e.g. ``players.A.deck[3].card``.
    """
    base = tuple(path)
    if not isinstance(entries, list):
        raise doc.error(base, f"expected a deck: a list of entries ({_ENTRY_HELP}); got {kind_of(entries)}")
    cards: list[CardDef] = []
    for i, entry in enumerate(entries):
        here = base + (i,)
        if len(cards) >= MAX_CARDS:
            raise doc.error(here, f"the deck lists more than {MAX_CARDS:,} cards; a deck has {DECK_SIZE} (100.2)")
        if isinstance(entry, str):
            cards.append(catalog.require(entry, doc, here))
            continue
        if not isinstance(entry, dict):
            raise doc.error(here, f"{_ENTRY_HELP}; got {kind_of(entry)}")
        if "card" in entry and "random" in entry:
            raise doc.error(here, "an entry has card: or random:, not both")
        if "card" in entry:
            allowed = ("card", "count")
        elif "random" in entry:
            allowed = ("random", "count")
        else:
            raise doc.error(here, f"{_ENTRY_HELP}; this mapping has neither card: nor random:")
        for key in entry:
            if key not in allowed:
                hint = " (labels belong in a scenario setup, not in a deck)" if key == "label" else ""
                raise doc.error(
                    here + (key,),
                    f"unknown key (a deck entry has only {' and '.join(allowed)}){hint}",
                )
        count = _count(entry, doc, here)
        if "card" in entry:
            name = entry["card"]
            if not isinstance(name, str):
                raise doc.error(here + ("card",), f"expected a card name, got {kind_of(name)}")
            card = catalog.require(name, doc, here + ("card",))
            cards.extend([card] * count)
        else:
            rnd = entry["random"]
            if not _is_int(rnd):
                raise doc.error(
                    here + ("random",), f"expected a whole number (the filler's random number), got {kind_of(rnd)}"
                )
            problem = card_number_problem(rnd)
            if problem is not None:
                raise doc.error(here + ("random",), problem)
            cards.extend(filler(rnd) for _ in range(count))
    return cards


def load_deck(file: str | Path, catalog: CardCatalog, *, check: bool = True) -> list[CardDef]:
    """A deck file: a YAML list of entries, checked against 100.2 unless
    ``check`` is False (the check is the default everywhere; the flag exists
    for tools that inspect a deck under construction)."""
    doc = load_document(file)
    cards = parse_deck(doc.data, catalog, doc, ())
    if check:
        check_deck(cards, doc)
    return cards


def deck_problems(cards: Sequence[CardDef]) -> list[str]:
    """Every 100.2 failure of ``cards``, one sentence each (empty if legal)."""
    problems: list[str] = []
    if len(cards) != DECK_SIZE:
        problems.append(f"100.2: a deck has exactly {DECK_SIZE} cards; this one has {len(cards)}")
    # Fillers are anonymous: each one is a distinct card (scenario format, 1).
    names = Counter(card.name for card in cards if not card.filler)
    for name, n in names.items():
        if n > SAME_NAME_LIMIT:
            problems.append(
                f"100.2: a deck has at most {SAME_NAME_LIMIT} cards of one name; this one has {n} of {name!r}"
            )
    if not any(card.type == "character" and card.cost == 1 for card in cards):
        problems.append(
            "100.2: a deck has at least one cost-1 character (the opening character of 101.1); this one has none"
        )
    return problems


def check_deck(cards: Sequence[CardDef], where: Document | str | Path | None = None, path: Iterable[Any] = ()) -> None:
    """Refuse a deck that breaks 100.2, naming every failure at once so the
    deck's author can fix them in one go.

    ``where`` is the document the deck came from (the error then carries its
    line), or just a file name, or None for a deck built in code.
    """
    problems = deck_problems(cards)
    if not problems:
        return
    message = ". ".join(problems)
    place = tuple(path)
    if isinstance(where, Document):
        raise where.error(place, message)
    raise InputError(where, format_path(place), message)


def deal(decks: Mapping[str, Sequence[CardDef]]) -> tuple[dict[str, CardDef], dict[str, list[str]]]:
    """Instance ids for every card, as ``referee.rules.harem_master.start`` takes them.

    Ids are the owner's letter, a colon and the index from 1 in deck order
    (``A:1`` is A's top card), so a card keeps one id for the whole match and
    people can name it (scenario format, section 1). Players are dealt in
    sorted order so the same decks always give the same first event.
    """
    cards: dict[str, CardDef] = {}
    castles: dict[str, list[str]] = {}
    for owner in sorted(decks):
        ids = []
        for i, card in enumerate(decks[owner], start=1):
            cid = f"{owner}:{i}"
            cards[cid] = card
            ids.append(cid)
        castles[owner] = ids
    return cards, castles


def random_deck(rng: random.Random, pool: Mapping[str, CardDef]) -> list[CardDef]:
    """A legal deck (100.2) for self-play and the bench: at least one cost-1
    character, at most three of a name, exactly 51 cards, drawn from ``pool``
    with vanilla fillers if the pool is too small."""
    cards = sorted(pool.values(), key=lambda c: c.name)
    openers = [c for c in cards if c.type == "character" and c.cost == 1]
    if not openers:
        raise ValueError("the pool has no cost-1 character, so no deck can be legal (100.2)")
    deck = [rng.choice(openers)]
    counts = Counter(c.name for c in deck)
    slots = [c for c in cards for _ in range(SAME_NAME_LIMIT)]
    rng.shuffle(slots)
    for c in slots:
        if len(deck) >= DECK_SIZE:
            break
        if counts[c.name] < SAME_NAME_LIMIT:
            deck.append(c)
            counts[c.name] += 1
    while len(deck) < DECK_SIZE:
        deck.append(filler(rng.randint(-4, 3)))
    rng.shuffle(deck)
    return deck


def conservation_errors(state: GameState, deck_size: int = DECK_SIZE) -> list[str]:
    """Each player's cards each in exactly one zone (digest 1.10): the
    invariant self-play tests hold every Harem Master game to."""
    seen: Counter[str] = Counter()
    for ch in state.field:
        seen[ch.card] += 1
        seen.update(ch.items)
    seen.update(state.orphans)
    for z in state.zones.values():
        for pile in PILES:
            seen.update(getattr(z, pile))
    errors = [f"{c} is in {n} places" for c, n in seen.items() if n > 1]
    for p in ("A", "B"):
        owned = [c for c in state.cards if c.startswith(p + ":")]
        missing = [c for c in owned if seen[c] == 0]
        if missing:
            errors.append(f"{p}: {len(missing)} cards are nowhere: {missing[:5]}")
        if len(owned) != deck_size:
            errors.append(f"{p} owns {len(owned)} cards, not {deck_size}")
    return errors


__all__ = [
    "DECK_SIZE",
    "SAME_NAME_LIMIT",
    "check_deck",
    "conservation_errors",
    "deal",
    "deck_problems",
    "load_deck",
    "parse_deck",
    "random_deck",
]


# --- the game's ``decks`` capability -------------------------------------------------------


def _pool_cards(given: Any) -> tuple[CardDef, ...]:
    """The ``pool`` start option: a pool file's path (``referee new --pool``),
    or the card definitions themselves (a record's ``pool:``), as CardDefs."""
    if not given:
        return ()
    if isinstance(given, (str, Path)):
        from referee.rules.harem_master.pool import load_pool

        return tuple(load_pool(given).values())
    return tuple(cd if isinstance(cd, CardDef) else CardDef.model_validate(cd) for cd in given)


_dealt = deal  # ``start`` takes the way of dealing as its ``deal`` argument


class HaremMasterDecks:
    """Card pools, deck files checked by 100.2, and a match dealt from two decks."""

    card_type: type = CardDef
    deck_problems = staticmethod(deck_problems)
    random_deck = staticmethod(random_deck)

    @property
    def start_options(self) -> tuple[StartOption, ...]:
        """The selectable rulings (docs/rulings.md) and whether the referee
        passes the non-active player's windows (``auto_pass``)."""
        rulings = ", ".join(f"{k}={'|'.join(v)}" for k, v in RULING_OPTIONS.items())
        return (
            StartOption(
                "rulings", "--ruling", "pairs", f"A selectable ruling: {rulings}.", RULING_OPTIONS, "ID=CHOICE"
            ),
            StartOption(
                "auto_pass", "--no-auto-pass", "off", "The non-active player must pass every window explicitly."
            ),
        )

    def parse_cards(self, entries: Any, doc: Document, path: Iterable[Any] = ()) -> dict[str, CardDef]:
        from referee.rules.harem_master.pool import parse_cards

        return parse_cards(entries, doc, path)

    def bundled_cards(self) -> Mapping[str, CardDef]:
        from referee.rules.harem_master.pool import bundled_pool

        return bundled_pool()

    def load_pool(self, file: str | Path) -> dict[str, CardDef]:
        from referee.rules.harem_master.pool import load_pool

        return load_pool(file)

    def load_deck(self, file: str | Path, pools: Sequence[Mapping[str, CardDef]]) -> list[CardDef]:
        """A deck file read against ``pools`` in order, checked by 100.2."""
        return load_deck(file, CardCatalog(*pools))

    def load_decks(self, files: Mapping[str, str], pool: str | None) -> dict[str, list[CardDef]]:
        """Deck files (``docs/deck-format.md``) read with the pool file's cards,
        then the bundled pool's, each checked against 100.2."""
        from referee.rules.harem_master.pool import bundled_pool, load_pool

        catalog = CardCatalog(*([load_pool(pool)] if pool else []), bundled_pool())
        return {seat: load_deck(files[seat], catalog) for seat in ("A", "B")}

    def start(
        self,
        decks: Mapping[str, Sequence[CardDef]],
        *,
        seed: int,
        deal: str,
        names: Mapping[str, str] | None,
        mode: str,
        options: Mapping[str, Any],
    ) -> list[Event]:
        """101's first event from two checked decks: the instance ids dealt
        (``deal``), the seed, the rulings selected and automatic passing;
        at a table-dealt match the pool's cards on neither deck list, where
        a card the table shows that no deck lists is found (100.2)."""
        cards, castles = _dealt(decks)
        first = match_started(
            cards,
            castles,
            seed=seed,
            names=dict(names) if names is not None else None,
            mode=mode,
            rulings=dict(options.get("rulings") or {}),
            auto_pass=bool(options.get("auto_pass", True)),
            deal=deal,
            pool=_pool_cards(options.get("pool")),
        )
        return [first]

    def unlisted_cards(self, state: GameState, pool: str | None) -> Mapping[str, CardDef]:
        """At a table-dealt match, the pool's cards (the file's, then those of
        the pool the match was started with, then the bundled ones): a card on
        neither deck list is the table's deck-list problem, refused citing
        100.2 or, in record mode, recorded with it."""
        if state.deal != "table":
            return {}
        from referee.rules.harem_master.pool import bundled_pool, load_pool

        stored = {cd.name: cd for cd in state.pool}
        catalog = CardCatalog(*([load_pool(pool)] if pool else []), stored, bundled_pool())
        # every name the catalog lists has its card
        return cast("dict[str, CardDef]", {name: catalog.get(name) for name in catalog.names()})

    with_unlisted = staticmethod(with_unlisted)


DECKS = HaremMasterDecks()
