"""Harem Master as a ``referee.ruleset.Ruleset``: the interface, answered by the existing modules.

Every member delegates to the module that does the work today (the engine,
``projections.harem_master.state``, ``projections.harem_master.codec``, the views, the transcript,
``rewinds`` (410), the notation, decks, pools and the scenario runner),
so the kernel can move to the interface one caller at a time while the rules
stay where they are. ``tests/test_ruleset.py`` plays random games through
both and checks they agree event for event.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, cast

from events.harem_master.cards import CardDef
from events.harem_master.game import MatchStarted, PositionSetUp
from events.kernel import Event
from projections.harem_master import codec, state as fold_module, transcript, views as projection_views
from projections.harem_master.state import GameState
from referee.actions import Action, Applied, Refusal
from referee.inputs import Document
from referee.rules.harem_master import (
    decks as deck_rules,
    engine,
    notation,
    views as referee_views,
)
from referee.rules.harem_master.registry import ACTIONS, KINDS
from referee.rules.harem_master.rewinds import REWINDS
from referee.rules.harem_master.settings import RECORD_KEYS, RULING_OPTIONS
from referee.ruleset import ActionSpec, Decision, Outcome, RecordDecks, RecordHeader, Setup, Started, StartOption


class HaremMasterRuleset:
    """The whole game, rules 100-506 (``referee.rules.harem_master``)."""

    id = "harem-master"
    name = "Harem Master"
    rules_document = "Harem Master comprehensive rules, 100-506"
    complete = True
    seats: tuple[str, ...] = ("A", "B")
    viewers: tuple[str, ...] = projection_views.VIEWERS
    record_format: str | None = "harem-master-record/1"
    rulings: Mapping[str, tuple[str, ...]] = RULING_OPTIONS  # docs/rulings.md
    first_events: tuple[type, ...] = (MatchStarted, PositionSetUp)
    event_modules: tuple[str, ...] = ("events.harem_master.game",)
    outside = "100.1"  # nothing is outside: the referee knows every rule of the game
    card_type: type = CardDef
    state_type: type = GameState
    rewinds = REWINDS  # rule 410 (``rewinds``)
    playout_skips: frozenset[str] = frozenset({"concede", "propose_draw", "accept_draw"})  # 102.7, 102.8

    # --- cards and decks ------------------------------------------------------

    def parse_cards(self, entries: Any, doc: Document, path: Iterable[Any] = ()) -> dict[str, CardDef]:
        from referee.rules.harem_master.pool import parse_cards

        return parse_cards(entries, doc, path)

    def deck_problems(self, cards: Sequence[CardDef]) -> list[str]:
        return deck_rules.deck_problems(cards)

    def bundled_cards(self) -> Mapping[str, CardDef]:
        from referee.rules.harem_master.pool import bundled_pool

        return bundled_pool()

    def random_deck(self, rng: random.Random, cards: Mapping[str, CardDef]) -> list[CardDef]:
        return deck_rules.random_deck(rng, cards)

    def load_pool(self, file: str | Path) -> dict[str, CardDef]:
        from referee.rules.harem_master.pool import load_pool

        return load_pool(file)

    def load_deck(self, file: str | Path, pools: Sequence[Mapping[str, CardDef]]) -> list[CardDef]:
        from referee.rules.harem_master.pool import CardCatalog

        return deck_rules.load_deck(file, CardCatalog(*pools))

    # --- starting ---------------------------------------------------------------

    def start(
        self,
        decks: Mapping[str, Sequence[CardDef]],
        *,
        seed: int,
        deal: str = "seeded",
        names: Mapping[str, str] | None = None,
        mode: str = "strict",
        options: Mapping[str, Any] | None = None,
    ) -> Applied:
        options = dict(options or {})
        cards, castles = deck_rules.deal(decks)
        return engine.start(
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

    def load_decks(self, files: Mapping[str, str], pool: str | None) -> dict[str, list[CardDef]]:
        """Deck files (``docs/deck-format.md``) read with the pool file's cards,
        then the bundled pool's, each checked against 100.2."""
        from referee.rules.harem_master.pool import CardCatalog, bundled_pool, load_pool

        catalog = CardCatalog(*([load_pool(pool)] if pool else []), bundled_pool())
        return {seat: deck_rules.load_deck(files[seat], catalog) for seat in self.seats}

    def setup_of(self, first_event: Event) -> Setup | None:
        if not isinstance(first_event, MatchStarted):
            return None
        decks = {seat: [first_event.cards[c] for c in ids] for seat, ids in first_event.castles.items()}
        options: dict[str, Any] = {"rulings": dict(first_event.rulings), "auto_pass": first_event.auto_pass}
        if first_event.pool:  # a table-dealt match's pool: a record writes it inline (``pool:``)
            options["pool"] = [_card_entry(cd) for cd in first_event.pool]
        return Setup(decks, first_event.seed, first_event.deal, dict(first_event.names), first_event.mode, options)

    def start_from_position(self, data: Mapping[str, Any], doc: Document) -> Started:
        from referee.rules.harem_master import scenario
        from referee.scenario import Reader

        reader = Reader(doc, self.seats)
        catalog = scenario._catalog(reader, dict(data))
        events, state, labels = scenario.build_setup(reader, dict(data), catalog)
        return Started(events, state, labels)

    # --- the state and its fold -----------------------------------------------

    def initial_state(self) -> GameState:
        return fold_module.initial_state()

    def evolve(self, state: GameState, event: Event) -> GameState:
        return fold_module.evolve(state, event)

    def fold(self, events: Iterable[Event], state: GameState | None = None) -> GameState:
        return fold_module.fold(events, state)

    def encode_state(self, state: GameState, omit: tuple[str, ...] = ()) -> dict[str, Any]:
        return codec.encode_state(state, omit)

    def encode_snapshot(self, state: GameState, omit: tuple[str, ...] = ()) -> dict[str, Any]:
        """The store's snapshot: its card definitions read back without building their validator."""
        return codec.encode_state(state, omit, snapshot=True)

    def decode_state(self, data: Mapping[str, Any], base: GameState | None = None) -> GameState:
        return codec.decode_state(dict(data), base)

    # --- the procedure ----------------------------------------------------------

    @property
    def actions(self) -> Mapping[str, ActionSpec]:
        """Every ``do`` the engine's rule modules declared, with its rule and arguments."""
        return {do: ActionSpec(do, kind.rule, kind.args, kind.help) for do, kind in ACTIONS.items()}

    def decision(self, state: GameState) -> Decision | None:
        found = engine.current_decision(state)
        if found is None:
            return None
        kind = KINDS[found.kind]
        if found.kind == "reveal":  # a table-dealt match: the table names a hidden card
            from referee.rules.harem_master.hidden import pending

            why = pending(state)
            if why is None:
                return Decision(found.player, found.kind, kind.rule, kind.text, chance=True)
            reveal = {"player": why.player, "rule": why.rule, "why": why.why, "at_most": why.count}
            text = f"{kind.text}: {why.why}"
            return Decision(found.player, found.kind, why.rule, text, chance=True, extra={"reveal": reveal})
        return Decision(found.player, found.kind, kind.rule, kind.text)

    def legal_actions(self, state: GameState) -> list[Action]:
        return engine.legal_actions(state)

    def chance_outcomes(self, state: GameState) -> list[tuple[Action, float]]:
        """A table-dealt match's reveal: each unknown card of the owner is
        equally likely to be the one turned (the true card of a shuffled paper
        castle), as ``referee.simulate.random_action`` draws it."""
        found = self.decision(state)
        if found is None or not found.chance:
            return []
        from referee.rules.harem_master.hidden import pending, unknown_of

        why = pending(state)
        owner = why.player if why is not None else found.player
        seen = [a for a in engine.legal_actions(state) if a.do == "reveal" and a.card in state.seen]
        if seen:  # seen before a rewind (ruling A36): it is that card
            return [(seen[0], 1.0)]
        cards = sorted(unknown_of(state, owner))  # type: ignore[arg-type]  # a reveal is a player's: owner is a seat
        return [(Action(found.player, "reveal", card=c), 1 / len(cards)) for c in cards]

    def decide(self, state: GameState, action: Action) -> list[Event]:
        return engine.decide(state, action)

    def is_legal(self, state: GameState, action: Action) -> Refusal | None:
        return engine.is_legal(state, action)

    def canonical(self, state: GameState, action: Action) -> Action:
        return engine.canonical(state, action)

    def own_events(self, state: GameState, action: Action, *, strict: bool = False) -> list[Event]:
        return engine.own_events(state, action, strict=strict)

    def advance(self, state: GameState, out: list[Event] | None = None) -> tuple[list[Event], GameState]:
        return engine.advance(state, out)

    def apply(self, state: GameState, action: Action, *, strict: bool = False) -> Applied:
        return engine.apply(state, action, strict=strict)

    def action_from_mapping(self, data: Mapping[str, Any]) -> Action:
        """The notation's action; ``definitions`` (cards on no deck list of a
        table-dealt match, ``unlisted_cards``) go with it to the rules (100.2)."""
        action = notation.action_from_mapping(dict(data))
        definitions = data.get("definitions")
        return replace(action, definitions=tuple(definitions)) if definitions else action

    def resolve(self, state: GameState, action: Action, labels: Mapping[str, str] | None = None) -> Action:
        return notation.resolve(state, action, dict(labels) if labels is not None else None)

    def describe_action(self, state: GameState, action: Action, viewer: str = "judge") -> dict[str, Any]:
        return notation.describe_action(state, action, viewer)

    def list_actions(self, described: Sequence[Mapping[str, Any]]) -> list[tuple[str, list[str]]]:
        """As ``referee act`` takes them (``notation.action_line``): copies of
        one card are one line, listing their ids."""
        return notation.action_lines(described)

    def unlisted_cards(self, state: GameState, pool: str | None) -> Mapping[str, CardDef]:
        """At a table-dealt match, the pool's cards (the file's, then those of
        the pool the match was started with, then the bundled ones): a card on
        neither deck list is the table's deck-list problem, refused citing
        100.2 or, in record mode, recorded with it."""
        if state.deal != "table":
            return {}
        from referee.rules.harem_master.pool import CardCatalog, bundled_pool, load_pool

        stored = {cd.name: cd for cd in state.pool}
        catalog = CardCatalog(*([load_pool(pool)] if pool else []), stored, bundled_pool())
        # every name the catalog lists has its card
        return cast("dict[str, CardDef]", {name: catalog.get(name) for name in catalog.names()})

    def scores(self, state: GameState) -> Mapping[str, int]:
        """102.3/103.2's count without the castle bonus (ruling A26)."""
        return {seat: state.score(seat) for seat in self.seats}

    def result(self, state: GameState) -> Outcome | None:
        r = state.result
        if r is None:
            return None
        return Outcome(r.winner, r.draw, r.rule, r.ruling, dict(r.scores) if r.scores is not None else None, r.reason)

    # --- what people see ------------------------------------------------------

    def view(self, state: GameState, viewer: str) -> dict[str, Any]:
        return referee_views.state_view(state, viewer)

    def render_view(self, view: Mapping[str, Any]) -> str:
        return projection_views.render_state(dict(view))

    def describe(self, event: Event, state_before: GameState, viewer: str = "judge") -> str:
        return transcript.describe(event, state_before, viewer)

    @property
    def board(self) -> Any:
        """Its own parts of the board's pages (castles, harems, stacks, the
        console's lines): ``referee.rules.harem_master.board``, imported when
        a board first asks (a command never does)."""
        from referee.rules.harem_master import board

        return board

    def describe_log(
        self, events: Sequence[Event], state: GameState, viewer: str = "judge", retracted: Iterable[int] = ()
    ) -> list[dict[str, Any]]:
        """Each action's events read to its end (what it reveals, 215)."""
        return transcript.log_rows(list(events), state, viewer, retracted=frozenset(retracted))

    def card_texts(
        self,
        state: GameState,
        view: Mapping[str, Any] | None = None,
        actions: Sequence[Mapping[str, Any]] | None = None,
    ) -> dict[str, Any] | None:
        """Only names the viewer's view or actions show (215)."""
        names = (
            referee_views.names_in_view(dict(view))
            if view is not None
            else referee_views.action_names([dict(a) for a in actions or ()])
        )
        return referee_views.card_texts(state, names)

    # --- match records ----------------------------------------------------------

    record_keys: tuple[str, ...] = RECORD_KEYS
    action_args: tuple[str, ...] = ("card", "cards", "target", "targets", "order", "n", "option", "ability")

    def read_record_header(self, reader: Any, data: Mapping[str, Any]) -> RecordHeader:
        from referee.rules.harem_master import records

        return records.read_header(reader, dict(data))

    def record_decks(self, setup: Setup, log: Sequence[Event]) -> RecordDecks:
        from referee.rules.harem_master import records

        return records.record_decks(setup, log)

    def read_action(self, reader: Any, raw: Any, path: tuple[Any, ...]) -> tuple[dict[str, Any], dict | None]:
        from referee.rules.harem_master import scenario

        return scenario.read_action(reader, raw, path)

    def with_unlisted(self, state: GameState, action: Action, lookup: Any) -> Action:
        return notation.with_unlisted(state, action, lookup)

    # --- scenarios --------------------------------------------------------------

    def load_scenario(self, doc: Document) -> Any:
        from referee.rules.harem_master import scenario

        return scenario.load(doc)

    def run_scenario(self, scenario: Any) -> Any:
        from referee.rules.harem_master.scenario import run

        return run(scenario)

    def write_scenario(
        self, log: Sequence[Event], at: int, to: int | None, viewer: str, match: str, title: str | None
    ) -> Any:
        """A stretch of a stored match as a scenario file (``referee scenario
        from``; ``referee.rules.harem_master.written``): ``ValueError`` when it
        cannot be written."""
        from referee.rules.harem_master import written

        return written.write(log, at, to, viewer, match, title)


HAREM_MASTER = HaremMasterRuleset()


def _pool_cards(given: Any) -> tuple[CardDef, ...]:
    """The ``pool`` start option: a pool file's path (``referee new --pool``),
    or the card definitions themselves (a record's ``pool:``), as CardDefs."""
    if not given:
        return ()
    if isinstance(given, (str, Path)):
        from referee.rules.harem_master.pool import load_pool

        return tuple(load_pool(given).values())
    return tuple(cd if isinstance(cd, CardDef) else CardDef.model_validate(cd) for cd in given)


def _card_entry(cd: CardDef) -> dict[str, Any]:
    """A card definition as a file writes it: its name first, defaults left out."""
    return {"name": cd.name, **cd.model_dump(mode="json", exclude_defaults=True, exclude={"name"})}
