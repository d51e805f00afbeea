"""The bundled rules-test pool's cards with abilities: together they use every
kind of ability, every situation and every effect of the abilities contract
(docs/abilities.md), and each has its own scenario in scenarios/cards/, so
that the whole vocabulary is exercised by real cards and not only by unit
tests of the engine."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, get_args

from pydantic import BaseModel

from events.harem_master.abilities import EFFECT_KEYS, Situation, effect_key, walk
from referee.rules.harem_master.pool import bundled_pool, load_pool
from referee.scenario import load_scenario, run_scenario

ROOT = Path(__file__).resolve().parent.parent
CARD_SCENARIOS = ROOT / "scenarios" / "cards"

KINDS = {"activated", "triggered", "static", "replacement", "use"}
SITUATIONS = {get_args(m.model_fields["event"].annotation)[0] for m in get_args(get_args(Situation)[0])}


def _slug(name: str) -> str:
    """The file name of a card's scenario: lower case, words joined by '-'."""
    return re.sub(r"[^a-z0-9]+", "-", name.lower().replace("'", "")).strip("-")


def _situations(ability: BaseModel) -> set[str]:
    """The situations an ability names (``on``, ``only``, ``also``,
    ``instead_of``), those of the abilities its effects give included."""
    found = {getattr(ability, k).event for k in ("on", "only", "also", "instead_of") if getattr(ability, k, None)}
    for e in walk(ability.effects):
        if effect_key(e) == "gain":
            for given in e.gain.abilities:
                found |= _situations(given)
    return found


def _ability_cards() -> list[Any]:
    return [c for c in bundled_pool().values() if c.abilities]


def test_at_least_forty_invented_cards_have_abilities_and_text() -> None:
    cards = _ability_cards()
    assert len(cards) >= 40
    assert all(c.text and c.text.strip() for c in cards)


def test_every_kind_situation_and_effect_is_on_some_card() -> None:
    kinds: set[str] = set()
    situations: set[str] = set()
    effects: set[str] = set()
    for card in _ability_cards():
        for ability in card.abilities:
            kinds.add(ability.kind)
            situations |= _situations(ability)
            effects |= {effect_key(e) for e in walk(ability.effects)}
    assert len(SITUATIONS) == 18  # the contract's table (section 3)
    assert KINDS - kinds == set()
    assert SITUATIONS - situations == set()
    assert set(EFFECT_KEYS) - effects == set()


def test_every_card_with_abilities_has_a_passing_scenario_citing_rules() -> None:
    missing = []
    for card in _ability_cards():
        path = CARD_SCENARIOS / f"{_slug(card.name)}.yaml"
        if not path.is_file():
            missing.append(path.name)
            continue
        sc = load_scenario(path)
        assert sc.rules, path
        assert card.name in path.read_text(encoding="utf-8"), f"{path.name} does not name {card.name}"
        report = run_scenario(sc)
        assert report.passed, (path.name, report.failures)
    assert missing == []


def test_the_documented_examples_are_the_pools_own_cards(tmp_path: Path) -> None:
    """docs/harem-master.md's "Card text as data" shows three cards as the
    pool writes them: each must be the bundled card, value for value, not an
    illustration that drifted from it."""
    page = (ROOT / "docs" / "harem-master.md").read_text(encoding="utf-8")
    section = page.split("## Card text as data", 1)[1].split("\n## ", 1)[0]
    block = section.split("```yaml\n", 1)[1].split("```", 1)[0]
    shown = load_pool(_write(tmp_path / "readme-cards.yaml", block))
    assert len(shown) == 3
    pool = bundled_pool()
    for name, card in shown.items():
        assert card == pool[name], name


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path
