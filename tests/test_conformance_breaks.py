"""The conformance suite fails a game that breaks any one of its promises: each break planted here, one at a time.

Each broken game is a registered one (or the toy game) with one part
replaced (``dataclasses.replace``): a fold in place that forgets an event,
a check that answers differently when asked again, a refusal without a
rule, a view that names the cards it hides, a sentence that cannot be said
to the public, a codec that loses the zones a rewind restores, a record
that writes a different position. ``tests/conformance.py``'s check for
that promise must find it, so a suite that checks nothing cannot pass.
"""

from __future__ import annotations

import itertools
from dataclasses import replace
from typing import Any

from referee import ruleset as registry
from referee.capabilities import RecordDecks
from referee.moves import Moves, refuse
from tests.conformance import conformance, position
from tests.test_conformance import TOY_POSITIONS
from tests.toygame.events import CountersTaken
from tests.toygame.game import TOY


def _toy(game: Any, check: str) -> list[str]:
    return conformance(game, [position(game, text) for text in TOY_POSITIONS], checks=(check,))[check]


def test_a_fold_that_forgets_an_event_breaks_fold() -> None:
    class Forgetful:
        @staticmethod
        def copy(state: Any) -> Any:
            return replace(state)

        @staticmethod
        def record(state: Any, event: Any) -> None:
            after = TOY.evolve(state, event) if not isinstance(event, CountersTaken) else state
            object.__setattr__(state, "__dict__", {**after.__dict__, "position": state.position + 1})

    assert _toy(replace(TOY, in_place=Forgetful()), "fold")


def _moves_with(check: Any) -> Moves[Any, Any, Any]:
    moves: Moves[Any, Any, Any] = Moves(strict_arguments=True)
    take = TOY.moves["take"]
    moves.move("take", take.rule, args=take.args, help=take.help, candidates=take.candidates)(check)
    return moves


def test_a_check_that_answers_twice_differently_breaks_listed() -> None:
    asked = itertools.count()

    def fickle(state: Any, a: Any, ctx: Any) -> Any:
        if next(asked) % 2:
            raise refuse("1", "Not this time.")
        return TOY.moves["take"].check(state, a, ctx)

    assert _toy(replace(TOY, moves=_moves_with(fickle)), "listed")


def test_a_refusal_without_a_rule_breaks_listed() -> None:
    moves = _moves_with(TOY.moves["take"].check)

    def silent(state: Any, action: Any, d: Any, ctx: Any) -> Any:
        raise refuse("", "")

    moves.elsewhere = silent
    assert any("without a rule" in f for f in _toy(replace(TOY, moves=moves), "listed"))


def test_a_sentence_the_public_cannot_be_told_breaks_sentences() -> None:
    def describe(event: Any, state: Any, viewer: str = "judge") -> str:
        if viewer == "public":
            raise KeyError(viewer)
        return TOY.describe(event, state, viewer)

    assert _toy(replace(TOY, describe=describe), "sentences")


SCP = "scp-tcg-s4"


def test_a_view_that_shows_a_seat_what_it_keeps_from_everyone_breaks_views() -> None:
    """A seat's view that is the judge's: the other seat's sandboxes face up."""
    game = registry.get(SCP)

    def leaky(state: Any, viewer: str) -> dict[str, Any]:
        return game.view(state, "judge" if viewer in game.seats else viewer)

    found = conformance(replace(game, view=leaky), checks=("views",))["views"]
    assert any("which the public does not" in f for f in found)


def test_a_view_that_names_a_hidden_card_in_its_own_words_breaks_views() -> None:
    game = registry.get(SCP)

    def chatty(state: Any, viewer: str) -> dict[str, Any]:
        view = game.view(state, viewer)
        judge = game.view(state, "judge")
        if viewer != "judge":
            hidden = [n for z, zone in judge["zones"].items() for n in zone.get("cards") or () if n]
            view["result"] = f"Somewhere: {', '.join(hidden)}" if hidden else None
        return view

    found = conformance(replace(game, view=chatty), checks=("views",))["views"]
    assert any("which it hides" in f or "in no judge's view" in f or "where the judge's" in f for f in found)


def test_a_codec_that_loses_the_zones_breaks_rewinds() -> None:
    game = registry.get(SCP)
    codec = game.codec

    class Lossy:
        @staticmethod
        def encode_state(state: Any, omit: tuple[str, ...] = ()) -> dict[str, Any]:
            return codec.encode_state(state, (*omit, "zones"))

        encode_snapshot = encode_state

        @staticmethod
        def decode_state(data: Any, base: Any = None) -> Any:
            return codec.decode_state(data, base if base is not None else game.initial_state())

    variant = replace(game, codec=Lossy())
    registry._loaded[SCP] = variant  # corrections find the game by its first event's id
    try:
        found = conformance(variant, checks=("rewind",))["rewind"]
    finally:
        registry._loaded[SCP] = game
    assert found


def test_a_record_of_another_position_breaks_records() -> None:
    game = registry.get(SCP)
    records = game.records

    class Forger:
        format = records.format
        keys = records.keys
        action_args = records.action_args
        setup_of = staticmethod(records.setup_of)
        read_header = staticmethod(records.read_header)

        @staticmethod
        def record_decks(setup: Any, log: Any) -> RecordDecks:
            written = records.record_decks(setup, log)
            players = dict(written.more["setup"]["players"])
            players.pop(next(iter(players)))  # one seat's zones left out
            return RecordDecks(written.cards, written.decks, written.unlisted, {"setup": {"players": players}})

    variant = replace(game, records=Forger())
    registry._loaded[SCP] = variant  # the records module finds the game by the format's id
    try:
        found = conformance(variant, checks=("records",))["records"]
    finally:
        registry._loaded[SCP] = game
    assert found
