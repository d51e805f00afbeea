"""Card pools: where card names written by people get their definitions.

Decks, scenarios and match records name cards; the definitions behind those
names come from an ordered list of sources, first match wins (scenario format,
section 1): a scenario's own ``cards:`` list, the pool file named by
``pool:``, and the rules-test pool bundled with the referee. Every problem
with a pool is an ``InputError`` that says which file, where in it and what
was expected, because pools are written by hand.
"""

from __future__ import annotations

import difflib
import re
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable, Mapping

from pydantic import ValidationError

from events.harem_master.cards import CardDef
from referee.inputs import NAME_LENGTH, Document, check_card_numbers, format_path, kind_of, load_document, text_problem

BUNDLED_POOL_PATH = Path(__file__).with_name("data") / "rules-test-pool.yaml"

# Instance ids (scenario format, section 1) are looked up alongside names, so a
# card *named* like one would make notation ambiguous.
_INSTANCE_ID = re.compile(r"^[A-Z]:\d+$")

_EXPECTED_POOL = "expected a list of card definitions, or a mapping whose only key is cards:"


def parse_cards(entries: Any, doc: Document, path: Iterable[Any] = ()) -> dict[str, CardDef]:
    """Card definitions written inline (a pool file's list, a scenario's
    ``cards:``), checked where they stand so errors point into ``doc``."""
    base = tuple(path)
    if not isinstance(entries, list):
        raise doc.error(base, f"expected a list of card definitions, got {kind_of(entries)}")
    cards: dict[str, CardDef] = {}
    where: dict[str, int] = {}
    for i, entry in enumerate(entries):
        here = base + (i,)
        if not isinstance(entry, dict):
            raise doc.error(
                here,
                f"expected a card definition (a mapping with name, type, cost, ...), got {kind_of(entry)}",
            )
        # `filler` marks the anonymous `{random: N}` cards; a pool card that
        # claimed it would escape the same-name limit of 100.2.
        if "filler" in entry:
            raise doc.error(
                here + ("filler",),
                "unknown key (fillers are written {random: N} where a card is expected, not defined in a card list)",
            )
        check_card_numbers(doc, entry, here)
        try:
            card = CardDef.model_validate(entry)
        except ValidationError as exc:
            raise doc.validation_error(exc, here) from None
        problem = text_problem(card.name, NAME_LENGTH)
        if problem is not None:
            raise doc.error(here + ("name",), f"the card name {card.name[:40]!r} {problem}")
        if card.name != card.name.strip():
            raise doc.error(here + ("name",), f"a card name may not start or end with spaces (got {card.name!r})")
        if _INSTANCE_ID.match(card.name):
            raise doc.error(
                here + ("name",),
                f"{card.name!r} looks like an instance id (A:12); choose another card name",
            )
        if card.name in cards:
            first = base + (where[card.name],)
            line = doc.line_of(first)
            also = format_path(first) + (f", line {line}" if line is not None else "")
            raise doc.error(
                here + ("name",),
                f"duplicate card name {card.name!r} (also at {also}); names must be unique within a pool",
            )
        cards[card.name] = card
        where[card.name] = i
    return cards


def load_pool(path: str | Path) -> dict[str, CardDef]:
    """A card pool file (YAML or JSON): a list of card definitions, or a
    mapping whose only key is ``cards:``."""
    doc = load_document(path)
    data = doc.data
    if isinstance(data, list):
        return parse_cards(data, doc, ())
    if isinstance(data, dict):
        for key in data:
            if key != "cards":
                raise doc.error((key,), "unknown key (a card pool mapping holds only cards:)")
        if "cards" not in data:
            raise doc.error((), f"{_EXPECTED_POOL}; the mapping has no cards:")
        return parse_cards(data["cards"], doc, ("cards",))
    if data is None:
        raise doc.error((), f"is empty; {_EXPECTED_POOL}")
    raise doc.error((), f"{_EXPECTED_POOL}; got {kind_of(data)}")


@lru_cache(maxsize=1)
def bundled_pool() -> dict[str, CardDef]:
    """The rules-test pool shipped with the referee, read once per process.

    Callers get the cached dict itself: CardDef is frozen, but the dict is
    shared, so treat it as read-only (copy it before changing it).
    """
    return load_pool(BUNDLED_POOL_PATH)


class CardCatalog:
    """Name -> definition through ordered sources, first match wins
    (scenario cards, then the named pool, then the bundled pool)."""

    def __init__(self, *pools: Mapping[str, CardDef]) -> None:
        self.pools: tuple[Mapping[str, CardDef], ...] = pools

    @classmethod
    def with_bundled(cls, *pools: Mapping[str, CardDef]) -> "CardCatalog":
        """The usual catalog: the given sources, then the bundled pool last."""
        return cls(*pools, bundled_pool())

    def get(self, name: str) -> CardDef | None:
        for pool in self.pools:
            card = pool.get(name)
            if card is not None:
                return card
        return None

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.get(name) is not None

    def names(self) -> list[str]:
        """Every name the catalog resolves, each once, in source order."""
        seen: dict[str, None] = {}
        for pool in self.pools:
            for name in pool:
                seen.setdefault(name, None)
        return list(seen)

    def require(self, name: str, doc: Document, path: Iterable[Any]) -> CardDef:
        """The definition of ``name``, or an error placed where it was written."""
        card = self.get(name)
        if card is not None:
            return card
        message = f"unknown card {name!r} (not in the scenario's cards, the pool, or the bundled rules-test pool)"
        close = difflib.get_close_matches(name, self.names(), n=1)
        if close:
            message += f"; did you mean {close[0]!r}?"
        raise doc.error(tuple(path), message)


__all__ = ["BUNDLED_POOL_PATH", "CardCatalog", "bundled_pool", "kind_of", "load_pool", "parse_cards"]
