"""Rule 215 everywhere: no sentence, JSON document or page names a card its viewer may not know.

Random matches, seeded and dealt at the table, are played with the ability
decks and cards that choose from a hidden hand; every copy has a name of its
own (``tests/hiddenkit.py``), so any name in any output says which very card
it is, and the oracle there says whether that viewer may know it. Checked:
the log of every viewer (``projections.harem_master.transcript``), every position and
decision (``referee.rules.harem_master.views``), the command line (``log/state/legal/act --as
VIEWER --json``, ``export --names``) and the board (match pages, board
fragments, log pages, the tables page, the live streams).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hiddenkit import VIEWERS, hidden_choices, knowledge, leaks, random_match, tokens

import events.harem_master
from events.kernel import ActionTaken
from projections.harem_master.transcript import declarations, transcript
from projections.harem_master.visibility import AUDIENCES, REVEALS
from referee.cli import cli
from referee.rules.harem_master.views import decision_view, state_view

# Fields that hold card ids, by name, in any event kind.
CARD_FIELDS = {
    "card",
    "cards",
    "target",
    "targets",
    "it",
    "character",
    "source",
    "identity",
    "returned",
    "drawn",
    "orders",
    "castles",
    "zones",
    "args",
    "targets_left",
}


@pytest.fixture(scope="module")
def matches() -> list[tuple[str, list, Any]]:
    out = []
    for seed, mode in ((1, "seeded"), (2, "table"), (3, "seeded"), (4, "table")):
        events_, _spans = random_match(seed, mode)
        out.append((mode, events_, knowledge(events_)))
    assert sum(hidden_choices(e) for _, e, _ in out) >= 5, "the matches must choose cards from hidden hands"
    return out


def test_every_event_kind_declares_what_it_reveals() -> None:
    declared = declarations()
    assert set(declared) == set(events.harem_master.EVENT_TYPES.values())
    for event_type, fields in declared.items():
        holding = CARD_FIELDS & set(event_type.model_fields)
        assert holding == set(fields), f"{event_type.__name__}: declare {sorted(holding - set(fields))}"
        for audience in fields.values():
            assert callable(audience) or audience in AUDIENCES
    assert REVEALS is declared


def _check(text: str, allowed: frozenset[str], where: str) -> None:
    leaked = leaks(text, allowed)
    assert not leaked, f"{where} names {sorted(leaked)} to a viewer who may not know them: {text[:400]}"


def test_no_sentence_names_a_card_its_viewer_may_not_know(matches) -> None:
    for mode, log, known in matches:
        for viewer in VIEWERS + ("judge",):
            for row in transcript(log, viewer):
                _check(row["text"], known.allowed[viewer][row["position"] - 1], f"{mode} log as {viewer}")


def test_the_old_leak_is_caught_by_the_oracle(matches) -> None:
    """A card chosen from a hidden hand, written as the log used to write it,
    is a leak for the opponent: the oracle is not blind to it."""
    for _, log, known in matches:
        for i, e in enumerate(log):
            if isinstance(e, ActionTaken) and e.do == "choose" and e.args.get("cards"):
                card = e.args["cards"][0]
                opponent = "B" if e.player == "A" else "A"
                if card not in known.allowed[opponent][i]:
                    name = known.states[i].cards[card].name
                    assert leaks(f"{e.player}: choose {name}.", known.allowed[opponent][i]) == {card}
                    return
    pytest.fail("no card was chosen from a hand the opponent could not see")


def _own_deck_names(state, viewer: str) -> frozenset[str]:
    """A player knows their own deck list: a reveal decision lists its names."""
    return frozenset(c for c in state.unknown if c[0] == viewer) if viewer in ("A", "B") else frozenset()


def test_no_position_or_decision_names_a_card_its_viewer_may_not_know(matches) -> None:
    for mode, log, known in matches:
        for i in range(0, len(log), 7):
            state = known.states[i + 1]
            for viewer in VIEWERS:
                allowed = known.allowed[viewer][i]
                _check(json.dumps(state_view(state, viewer)), allowed, f"{mode} state at {i + 1} as {viewer}")
                decision = decision_view(state, viewer)
                _check(
                    json.dumps(decision),
                    allowed | _own_deck_names(state, viewer),
                    f"{mode} decision at {i + 1} as {viewer}",
                )


# --- the command line and the board, on a stored match ---------------------------------


def _argv(action) -> list[str]:
    argv = [action.player, action.do]
    if action.card:
        argv.append(action.card)
    argv += list(action.cards or ())
    for t in ([action.target] if action.target else []) + list(action.targets or ()):
        argv += ["--target", t]
    for key in ("order", "n", "ability", "option"):
        value = getattr(action, key)
        if value is not None:
            argv += [f"--{key}", str(value)]
    return argv


class Referee:
    def __init__(self, db: str) -> None:
        self.db = db
        self.runner = CliRunner()

    def __call__(self, *args: str) -> str:
        result = self.runner.invoke(cli, [*args, "--db", self.db], catch_exceptions=False)
        assert result.exit_code == 0, result.output
        return result.stdout


@pytest.mark.parametrize("mode,seed", [("seeded", 5), ("table", 6)])
def test_the_command_line_and_the_board_name_no_card_their_viewer_may_not_know(
    tmp_path: Path, mode: str, seed: int
) -> None:
    import random

    from hiddenkit import unique_decks
    from starlette.testclient import TestClient

    from referee.rules.harem_master import legal_actions, start
    from referee.rules.harem_master.decks import deal
    from referee.simulate import random_action
    from referee.store import MatchStore
    from referee.web.app import Settings, create_app

    db = f"sqlite:///{tmp_path / 'referee.db'}"
    referee = Referee(db)
    rng = random.Random(seed)
    cards, castles = deal(unique_decks())
    outputs: list[tuple[str, str, int, str]] = []  # (where, viewer, log length it may know, text)
    with MatchStore(db, create=True) as store:
        match = store.create(start(cards, castles, seed=seed, deal=mode).events)
        for k in range(4000):
            state, version = store.load(match)
            if state.result is not None:
                break
            action = random_action(state, legal_actions(state), rng)
            if k % 12:
                store.act(match, action)
                continue
            for viewer in VIEWERS:
                outputs.append(("legal", viewer, version, referee("legal", match, "--as", viewer, "--json")))
            viewer = VIEWERS[k // 12 % 3]
            text = referee("act", match, *_argv(action), "--as", viewer, "--json")
            store.load(match)  # this process's cache catches up with the command's write
            outputs.append(("act", viewer, len(store.events(match)), text))
        log = store.events(match)
    known = knowledge(log)
    final = known.states[-1]

    def allowed(viewer: str, upto: int) -> frozenset[str]:
        return known.allowed[viewer][max(0, upto - 1)] if viewer != "judge" else frozenset(final.cards)

    for where, viewer, upto, text in outputs:
        extra = _own_deck_names(known.states[upto], viewer) if where == "legal" else frozenset()
        _check(text, allowed(viewer, upto) | extra, f"{mode}: {where} as {viewer}")
    for viewer in VIEWERS:
        for row in json.loads(referee("log", match, "--as", viewer, "--json"))["events"]:
            _check(row["text"], allowed(viewer, row["position"]), f"{mode}: log as {viewer}")
        for at in range(1, len(log) + 1, max(1, len(log) // 4)):
            _check(
                referee("state", match, "--at", str(at), "--as", viewer, "--json"),
                allowed(viewer, at),
                f"{mode}: state --at {at} as {viewer}",
            )
        _check(referee("state", match, "--as", viewer), allowed(viewer, len(log)), f"{mode}: state as {viewer}")

    # The judge's record: with --names, a card is named only once someone knows it
    # (in a table-dealt match, an unknown card stays an id).
    exported = referee("export", match, "--names")
    entries = [
        line for line in exported.split("\nactions:\n", 1)[1].split("\nchain:")[0].split("\nentries:")[0].splitlines()
    ]
    starts = [i for i, e in enumerate(log) if isinstance(e, ActionTaken)]
    assert len(entries) == len(starts)
    for entry, i in zip(entries, starts):
        _check(entry, known.allowed["judge"][i], f"{mode}: export --names")

    # The board, each viewer's pages, fragments, log pages and streams.
    with TestClient(create_app(Settings(url=db))) as http:
        for viewer in VIEWERS:
            for at in list(range(0, len(log) + 1, max(1, len(log) // 5))) + [len(log)]:
                shown = min(len(log), at + 10)  # the page's log runs a few events past its position
                for path in (f"/matches/{match}", f"/matches/{match}/board"):
                    page = http.get(path, params={"as": viewer, "at": str(at)})
                    assert page.status_code == 200
                    _check(
                        page.text,
                        allowed(viewer, shown) | _own_deck_names(known.states[at], viewer),
                        f"{mode}: {path}?at={at} as {viewer}",
                    )
            start_ = 1
            while True:
                page = http.get(f"/matches/{match}/log", params={"as": viewer, "from": str(start_)})
                assert page.status_code == 200
                positions = [int(p) for p in re.findall(r'<a class="pos" href="[^"]*">(\d+)</a>', page.text)]
                assert positions and positions[0] == start_
                _check(page.text, allowed(viewer, positions[-1]), f"{mode}: log page from {start_} as {viewer}")
                if 'data-page="newer"' not in page.text:
                    break
                start_ = positions[-1] + 1
            assert positions[-1] == len(log)
        for path in ("/", "/tables"):
            _check(http.get(path).text, allowed("public", len(log)), f"{mode}: {path}")
        with http.stream("GET", f"/matches/{match}/live") as stream:
            for line in stream.iter_lines():
                if line.startswith("data:"):
                    assert json.loads(line[5:]) == {"version": len(log)}
                    break
    assert tokens(exported)  # the record names cards at all: the checks above had something to find
