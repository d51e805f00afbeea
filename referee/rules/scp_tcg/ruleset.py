"""SCP-TCG-JP-J 購買部版, chapter 4 (zones), as a ``referee.ruleset.Ruleset``: a fragment that says so.

It answers what chapter 4 decides (where a card a process moves ends up,
who may see and reorder what, protection and breach, the order of
Decommissioned) and refuses everything else citing ``4``, "outside the
zone rules of chapter 4": no decks, no turns, no result, nothing of the
rest of the game invented under its name. A judge's rewinds work through
``referee.corrections`` (``rewinds``), stored matches through the CLI's
match commands; records and the board come
once the kernel reaches games only through the interface (docs/rulesets.md).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from events.kernel import Event
from events.scp_tcg.cards import ScpCard
from events.scp_tcg.zones import GAME, ZonesSetUp
from projections.scp_tcg import sentences, state as zone_state, views
from projections.scp_tcg.state import ZoneState
from referee.actions import Applied, Refusal
from referee.inputs import Document, InputError, load_document
from referee.rules.scp_tcg import engine, position, records, resolve as resolving, scenario as scenarios
from referee.rules.scp_tcg.common import (
    ARGUMENTS,
    KINDS,
    OUTSIDE,
    OUTSIDE_WORDS,
    Instruction,
    outside as refuse_outside,
)
from referee.rules.scp_tcg.rewinds import REWINDS
from referee.ruleset import (
    ActionSpec,
    BoardParts,
    Decision,
    Outcome,
    RecordDecks,
    RecordHeader,
    RewindRules,
    Setup,
    Started,
    StartOption,
    rows_by_event,
)
from referee.scenario import JUDGE_ACTION_KEYS, read_judge_action


class ScpTcgZones:
    """Chapter 4 of the SCP-TCG-JP-J 購買部版 comprehensive rules, and nothing more."""

    id = GAME
    name = "SCP-TCG-JP-J 購買部版, chapter 4 (zones)"
    rules_document = "SCP-TCG-JP-J 購買部版 comprehensive rules, chapter 4 (400-406)"
    complete = False
    seats: tuple[str, ...] = zone_state.SEATS
    viewers: tuple[str, ...] = views.VIEWERS
    record_format: str | None = records.FORMAT
    rulings: Mapping[str, tuple[str, ...]] = {}  # chapter 4 has no selectable rulings
    first_events: tuple[type, ...] = (ZonesSetUp,)
    event_modules: tuple[str, ...] = ("events.scp_tcg.zones",)
    outside = OUTSIDE
    card_type: type = ScpCard
    state_type: type = ZoneState
    rewinds: RewindRules | None = REWINDS  # a judge's rewinds (``rewinds``, ruling:S13)
    # drawn from this interface alone (referee.web.anygame: its zones, forms from ``actions``)
    board: BoardParts | None = None
    playout_skips: frozenset[str] = frozenset()
    start_options: tuple[StartOption, ...] = ()  # its matches start from a position, which has its own

    def parse_cards(self, entries: Any, doc: Document, path: Iterable[Any] = ()) -> dict[str, ScpCard]:
        return position.parse_cards(entries, doc, tuple(path))

    def deck_problems(self, cards: Sequence[ScpCard]) -> list[str]:
        """Chapter 4 says nothing of decks, so no deck can be checked."""
        return [f"what makes a legal deck is {OUTSIDE_WORDS} (start from a position instead)"]

    def bundled_cards(self) -> Mapping[str, ScpCard]:
        return {}  # no card list of the game is public: a scenario defines its cards

    def random_deck(self, rng: random.Random, cards: Mapping[str, ScpCard]) -> list[ScpCard]:
        raise refuse_outside("what makes a legal deck is for other chapters.")

    def load_pool(self, file: str | Path) -> dict[str, ScpCard]:
        """A list of cards in the position format's ``cards:`` shape (docs/scp-tcg.md)."""
        doc = load_document(file)
        return position.parse_cards(doc.data, doc, ())

    def load_deck(self, file: str | Path, pools: Sequence[Mapping[str, ScpCard]]) -> list[ScpCard]:
        """Chapter 4 says nothing of decks, so no deck file can be read."""
        raise InputError(file, "", f"what makes a legal deck is {OUTSIDE_WORDS} (start from a position instead)")

    def start(
        self,
        decks: Mapping[str, Sequence[ScpCard]],
        *,
        seed: int,
        deal: str = "seeded",
        names: Mapping[str, str] | None = None,
        mode: str = "strict",
        options: Mapping[str, Any] | None = None,
    ) -> Applied:
        raise refuse_outside(
            "how a game starts from decks is for other chapters; start from a position (docs/scp-tcg.md)."
        )

    def load_decks(self, files: Mapping[str, str], pool: str | None) -> dict[str, list[ScpCard]]:
        raise refuse_outside("what makes a legal deck is for other chapters; start from a position (docs/scp-tcg.md).")

    def setup_of(self, first_event: Event) -> Setup | None:
        """Every match of this ruleset starts from a position, which its record writes."""
        return records.setup_of(first_event) if isinstance(first_event, ZonesSetUp) else None

    def start_from_position(self, data: Mapping[str, Any], doc: Document) -> Started:
        return position.start_from_position(data, doc)

    def initial_state(self) -> ZoneState:
        return zone_state.initial_state()

    def evolve(self, state: ZoneState, event: Event) -> ZoneState:
        return zone_state.evolve(state, event)

    def fold(self, events: Iterable[Event], state: ZoneState | None = None) -> ZoneState:
        return zone_state.fold(events, state)

    def encode_state(self, state: ZoneState, omit: tuple[str, ...] = ()) -> dict[str, Any]:
        return zone_state.encode_state(state, omit)

    def decode_state(self, data: Mapping[str, Any], base: ZoneState | None = None) -> ZoneState:
        return zone_state.decode_state(dict(data), base)

    @property
    def actions(self) -> Mapping[str, ActionSpec]:
        return {do: kind.spec for do, kind in KINDS.items()}

    def decision(self, state: ZoneState) -> Decision | None:
        found = engine.decision(state)
        return replace(found, extra={"rule": found.rule})  # `legal --json` cites it

    def legal_actions(self, state: ZoneState) -> list[Instruction]:
        return engine.legal_actions(state)

    def chance_outcomes(self, state: ZoneState) -> list[tuple[Instruction, float]]:
        return []  # the referee shuffles from the seed (402.7); the table is never asked

    def decide(self, state: ZoneState, action: Instruction) -> list[Event]:
        return engine.decide(state, action)

    def is_legal(self, state: ZoneState, action: Instruction) -> Refusal | None:
        return engine.is_legal(state, action)

    def canonical(self, state: ZoneState, action: Instruction) -> Instruction:
        return engine.canonical(state, action)

    def own_events(self, state: ZoneState, action: Instruction, *, strict: bool = False) -> list[Event]:
        return engine.own_events(state, action, strict=strict)

    def advance(self, state: ZoneState, out: list[Event] | None = None) -> tuple[list[Event], ZoneState]:
        return engine.advance(state, out)

    def apply(self, state: ZoneState, action: Instruction, *, strict: bool = False) -> Applied:
        return engine.apply(state, action, strict=strict)

    def action_from_mapping(self, data: Mapping[str, Any]) -> Instruction:
        return resolving.instruction_from_mapping(data)

    def resolve(self, state: ZoneState, action: Instruction, labels: Mapping[str, str] | None = None) -> Instruction:
        return resolving.resolve(state, action, labels)

    def describe_action(self, state: ZoneState, action: Instruction, viewer: str = "judge") -> dict[str, Any]:
        """A card the viewer may not see is named as hidden to anyone (402.2), the judge included."""
        return resolving.describe(state, action)

    def list_actions(self, described: Sequence[Mapping[str, Any]]) -> list[tuple[str, list[str]]]:
        """Each argument as NAME=VALUE, a card's id beside its name (so no ids after the line)."""
        lines = []
        for a in described:
            words = " ".join(
                f"{k}={','.join(map(str, v)) if isinstance(v, list) else v}"
                + (
                    f" [{','.join(map(str, a[k + '_ids'])) if k + '_ids' in a else a.get(k + '_id', '')}]"
                    if k + "_id" in a or k + "_ids" in a
                    else ""
                )
                for k, v in a.items()
                if k not in ("player", "do") and not k.endswith(("_id", "_ids"))
            )
            lines.append((f"{a['player']} {a['do']} {words}".rstrip(), [""]))
        return lines

    def unlisted_cards(self, state: ZoneState, pool: str | None) -> Mapping[str, ScpCard]:
        return {}  # a position defines every card of its match

    def describe_log(
        self, events: Sequence[Event], state: ZoneState, viewer: str = "judge", retracted: Iterable[int] = ()
    ) -> list[dict[str, Any]]:
        # Ruleset declares ``actions`` a settable attribute, this a property (see the report)
        return rows_by_event(self, events, state, viewer, retracted)

    def card_texts(
        self,
        state: ZoneState,
        view: Mapping[str, Any] | None = None,
        actions: Sequence[Mapping[str, Any]] | None = None,
    ) -> dict[str, Any] | None:
        return None  # a position's cards have no text the referee reads

    def result(self, state: ZoneState) -> Outcome | None:
        """Chapter 4 ends no game."""
        return None

    def scores(self, state: ZoneState) -> None:
        """Chapter 4 counts no score."""
        return None

    def view(self, state: ZoneState, viewer: str) -> dict[str, Any]:
        return views.state_view(state, viewer)

    def render_view(self, view: Mapping[str, Any]) -> str:
        return views.render_state(dict(view))

    def describe(self, event: Event, state_before: ZoneState, viewer: str = "judge") -> str:
        return sentences.describe(event, state_before, viewer)

    # --- match records: the position, then the instructions (``records``) ------

    record_keys: tuple[str, ...] = records.RECORD_KEYS
    action_args: tuple[str, ...] = ARGUMENTS

    def read_record_header(self, reader: Any, data: Mapping[str, Any]) -> RecordHeader:
        return records.read_header(reader, dict(data))

    def record_decks(self, setup: Setup, log: Sequence[Event]) -> RecordDecks:
        return records.record_decks(setup, log)

    def read_action(self, reader: Any, raw: Any, path: tuple[Any, ...]) -> tuple[dict[str, Any], dict | None]:
        """A player's instruction as a scenario has it, or a judge's action (``judge: true``)."""
        if isinstance(raw, dict) and raw.get("judge") is True:
            a = reader.mapping(raw, path, ("judge", "do", *JUDGE_ACTION_KEYS), ("do",))
            do = reader.str_(a["do"], path + ("do",))
            only_players = tuple(k for k in ARGUMENTS if k not in JUDGE_ACTION_KEYS)  # ``to`` is both's
            read_judge_action(reader, a, do, path, only_players, REWINDS.rules)
            return a, None
        return scenarios._read_action(reader, raw, path)

    def with_unlisted(self, state: ZoneState, action: Any, lookup: Any) -> Any:
        """Chapter 4 has no deck lists, so no card is shown that one lacks."""
        return action

    def load_scenario(self, doc: Document) -> scenarios.ScpScenario:
        return scenarios.load(doc)

    def run_scenario(self, scenario: Any) -> Any:
        return scenarios.run(scenario)


SCP_TCG_ZONES = ScpTcgZones()
