"""Each action kind is declared once: its rule, its arguments, the one check
that refuses it and the candidates the legal list is filtered from.

The legal list is the candidates each action kind's check accepts (as
python-chess filters its pseudo-legal moves through ``is_legal``), so a
listed action is accepted by construction; the self-play probes
(``tests/test_selfplay.py``) try actions built from positions and require
the refused ones never to be listed. Here: every declaration is whole, the
scenario format's table of actions is the declaration, and the command
line's help and argument handling come from it.
"""

from __future__ import annotations

import random
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from test_contract_vocabulary import format_vocabulary

from referee.actions import IllegalAction
from referee.cli import cli
from referee.commands.matches import action_arguments
from referee.rules.harem_master import ACTIONS, ANY_TIME, KINDS, current_decision, decide, legal_actions
from referee.rules.harem_master.actions import Action
from referee.rules.harem_master.game import HAREM_MASTER
from referee.rules.harem_master.pool import bundled_pool
from referee.rules.harem_master.registry import Context
from referee.simulate import decks_for, play_game


def test_every_decision_is_answered_by_declared_actions() -> None:
    answered = {do for kind in KINDS.values() for do in kind.actions}
    assert answered - set(ACTIONS) == set()
    assert set(ACTIONS) - answered == set(ANY_TIME)
    for kind in ACTIONS.values():
        assert callable(kind.check) and callable(kind.candidates), kind.do
        assert kind.help and kind.help[0].islower(), kind.do


def test_the_scenario_format_lists_each_action_with_its_declared_arguments() -> None:
    documented = format_vocabulary().player_dos
    assert set(documented) == set(ACTIONS)
    declared = {do: {a.name for a in kind.args} for do, kind in ACTIONS.items()}
    assert declared == {do: set(args) for do, args in documented.items()}


def test_the_help_of_act_lists_every_action_with_its_rule() -> None:
    out = CliRunner().invoke(cli, ["act", "--help"]).output
    listed = out.split("Actions (DO):", 1)[1].split("Options:", 1)[0]
    import re

    # One entry per action: its name at the margin, its help wrapped below it.
    entries = re.split(r"\n  (?=\S)", listed)[1:]
    assert [e.split()[0] for e in entries] == list(ACTIONS)
    for entry, (do, kind) in zip(entries, ACTIONS.items()):
        assert f"[{kind.rule}]" in entry, (do, entry)


@pytest.mark.parametrize("do", list(ACTIONS))
def test_act_gives_each_argument_the_shape_its_declaration_takes(do: str) -> None:
    """`act`'s CARD... and --target become the arguments the action declares
    (through the ruleset's ActionSpec, as for any game); one it does not
    take is bad input (exit 2), not left for the rules to refuse."""
    kind = ACTIONS[do]

    def given(cards: tuple[str, ...] = (), targets: tuple[str, ...] = (), **own: object) -> dict:
        return action_arguments(HAREM_MASTER, do, cards, targets, own)

    one, several = ("Iron Knight",), ("Iron Knight", "Court Lady")
    if kind.takes("card"):
        assert given(one) == {"card": "Iron Knight"}
    elif kind.takes("cards"):
        assert given(one) == {"cards": ["Iron Knight"]}
    else:
        with pytest.raises(click.BadParameter, match="takes no card"):
            given(one)
    if kind.takes("cards"):
        assert given(several) == {"cards": list(several)}
    else:
        with pytest.raises(click.BadParameter, match="takes (one|no) card"):
            given(several)
    if kind.takes("target"):
        assert given(targets=one) == {"target": "Iron Knight"}
        with pytest.raises(click.BadParameter, match="one target"):
            given(targets=several)
    elif kind.takes("targets"):
        assert given(targets=several) == {"targets": list(several)}
    else:
        with pytest.raises(click.BadParameter, match="takes no target"):
            given(targets=one)
    for name, value in {"order": "first", "n": 2, "ability": 1, "option": "yes"}.items():
        if kind.takes(name):
            assert given(**{name: value}) == {name: value}
        else:
            with pytest.raises(click.BadParameter, match=f"takes no {name}"):
                given(**{name: value})


def test_the_legal_list_is_the_candidates_the_checks_accept() -> None:
    """Along a whole game: each decision's list is exactly its action kinds'
    candidates that ``decide`` accepts, and the any-time ones."""
    pool = bundled_pool()
    record = play_game(7, decks_for(7, pool, None))
    from projections.harem_master.state import evolve, initial_state

    state, seen = initial_state(), 0
    rng = random.Random(7)
    for event in record.events:
        state = evolve(state, event)
        d = current_decision(state)
        if d is None or rng.random() > 0.3:
            continue
        seen += 1
        ctx = Context(d.kind)
        expected = []
        for do in (*KINDS[d.kind].actions, *ANY_TIME):
            for candidate in ACTIONS[do].candidates(state, d.player, ctx):
                try:
                    decide(state, candidate)
                except IllegalAction:
                    continue
                expected.append(candidate)
        listed = legal_actions(state)
        assert sorted(map(repr, listed)) == sorted(map(repr, expected))
        assert len(set(listed)) == len(listed)
    assert seen > 20


def test_a_refused_candidate_cites_its_rule() -> None:
    """A character played when one was already played this turn: a candidate
    (it is in the hand) the check refuses with 306.1a, never listed."""
    pool = bundled_pool()
    record = play_game(3, decks_for(3, pool, None))
    from projections.harem_master.state import evolve, initial_state

    state = initial_state()
    for event in record.events:
        state = evolve(state, event)
        d = current_decision(state)
        if d is None or d.kind != "main" or state.characters_played < 1:
            continue
        cards = state.cards
        hand = [c for c in state.zones[d.player].hand if cards[c].type == "character"]
        if not hand:
            continue
        action = Action(d.player, "play_character", card=hand[0])
        with pytest.raises(IllegalAction) as refused:
            decide(state, action)
        assert refused.value.refusal.rule in ("306.1a", "215.4c", "103.1")
        assert action not in legal_actions(state)
        return
    pytest.fail("no position with a second character in hand")


def test_no_action_is_changed_once_made(monkeypatch: pytest.MonkeyPatch) -> None:
    """An action is a value (``Action`` is not frozen only for speed): along
    self-play, seeded and table-dealt, and every scenario, nothing sets a
    field of an action after its ``__init__``; and the check itself catches
    a change."""
    from referee.scenario import run_scenario, scenario_files

    making: list[Action] = []
    init = Action.__init__

    def watched_init(self: Action, *args: object, **kwargs: object) -> None:
        making.append(self)
        try:
            init(self, *args, **kwargs)
        finally:
            making.pop()

    def guarded_setattr(self: Action, name: str, value: object) -> None:
        if not making or making[-1] is not self:
            raise AssertionError(f"an action's {name} was changed after it was made: {self!r}")
        object.__setattr__(self, name, value)

    monkeypatch.setattr(Action, "__init__", watched_init)
    monkeypatch.setattr(Action, "__setattr__", guarded_setattr)
    pool = bundled_pool()
    for seed, deal in ((3, "seeded"), (4, "table")):
        assert play_game(seed, decks_for(seed, pool, None), deal_mode=deal).actions
    paths = scenario_files([str(Path(__file__).resolve().parent.parent / "scenarios")])
    assert len(paths) >= 50
    for path in paths:
        assert run_scenario(path).passed, path
    made = Action("A", "end_turn")
    with pytest.raises(AssertionError, match="changed after it was made"):
        made.card = "A:1"
