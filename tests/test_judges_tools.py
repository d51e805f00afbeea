"""Judges' tools (issue 30): a dispute written as a scenario (`referee scenario
from`), what-if forks (`referee new --from`), entry times and who entered each
event (`log --times`, `--slow`, the board's log), a match that remembers its
pool, and a replay of what came after the undone action."""

from __future__ import annotations

import copy
import json
import random
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from events.kernel import ActionTaken, Rewound
from projections.harem_master.state import GameState, fold
from referee import corrections
from referee.cli import cli
from referee.inputs import Document
from referee.rules.harem_master import legal_actions
from referee.rules.harem_master.pool import bundled_pool
from referee.ruleset import get
from referee.scenario import dump_scenario, read_scenario, run_scenario, scenario_from
from referee.simulate import decks_for, play_game, random_action
from referee.store import MatchStore
from tests.test_console import app_for, form_of
from tests.test_web import DECKS, PASSWORD, judge_auth

ROOT = Path(__file__).resolve().parent.parent
HM = get()


def run_cli(db: str, *args: str) -> Any:
    return CliRunner().invoke(cli, [*args, "--db", db])


def ok(db: str, *args: str) -> str:
    result = run_cli(db, *args)
    assert result.exit_code == 0, (args, result.output)
    return result.stdout


def stored_game(db: str, seed: int, deal: str = "seeded", match: str | None = None) -> str:
    """A random legal game (the bundled pool's cards, abilities included) stored action by action."""
    decks = decks_for(seed, bundled_pool(), None)
    game = play_game(seed, decks, deal_mode=deal)
    with MatchStore(db) as store:
        mid = store.create(HM.start(decks, seed=seed, deal=deal).events, name=f"Table {seed}", match_id=match)
        for action in game.actions:
            store.act(mid, action)
    return mid


@pytest.fixture
def db(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'judges.db'}"


def passes(data: dict[str, Any]) -> tuple[bool, list[str]]:
    report = run_scenario(read_scenario(Document(Path("<written>"), data)))
    return report.passed, report.failures


# --- a dispute as a scenario ---------------------------------------------------------------


@pytest.mark.parametrize("deal", ["seeded", "table"])
def test_a_random_match_at_random_n_and_k_gives_a_scenario_that_passes_and_fails_when_a_count_changes(
    deal: str,
) -> None:
    rng = random.Random(30)
    for seed in (3, 11):
        log = play_game(seed, decks_for(seed, bundled_pool(), None), deal_mode=deal).events
        for _ in range(3):
            n = rng.randrange(1, len(log) - 1)
            k = rng.randrange(n + 1, len(log) + 1)
            written = scenario_from(log, n, k, "judge", "m-x")
            assert written.start <= n < written.to
            data = written.data
            good, failures = passes(data)
            assert good, (seed, n, k, failures)
            # The file as text, read back, passes too (it is what a judge gets).
            assert passes(yaml.safe_load(dump_scenario(data)))[0]
            # It is the match: the state at K, as the log folds it.
            at_k = fold(log[: written.to])
            zone = "A.hand" if rng.random() < 0.5 else "B.castle"
            assert data["expect"]["zones"][zone]["count"] == len(getattr(at_k.zones[zone[0]], zone[2:]))
            changed = copy.deepcopy(data)
            changed["expect"]["zones"][zone]["count"] += 1
            bad, failures = passes(changed)
            assert not bad and any(zone in f for f in failures)


def test_a_players_scenario_names_no_card_that_player_does_not_see(db: str) -> None:
    """As A: B's hand and both castles are unknown cards; a card of B's is
    named only where A sees it by the end of the stretch."""
    log = play_game(5, decks_for(5, bundled_pool(), None)).events
    states = corrections.states_along(log)
    for n in (150, 250, 350):
        written = scenario_from(log, n, min(n + 80, len(log)), "A", "m-x")
        good, failures = passes(written.data)
        assert good, failures
        start = states[written.start]
        text = json.dumps(written.data)
        assert written.data["setup"]["deal"] == "table" and "seed" not in written.data["setup"]
        seen_by_a: set[str] = set()
        for log_state in states[written.start : written.to + 1]:
            seen_by_a |= {c for c in log_state.cards if _a_sees(log_state, c)}
        for card in start.zones["B"].hand:
            name = start.cards[card].name
            if all(start.cards[c].name != name for c in seen_by_a) and name not in _public_names(log[: written.to]):
                assert f'"{name}"' not in text, (n, name)


def _a_sees(state: GameState, card: str) -> bool:
    from projections.harem_master.visibility import sees_card

    return sees_card(state, card, "A")


def _public_names(log: list[Any]) -> set[str]:
    """Every card name the log shows A (its sentences as A reads them)."""
    rows = HM.log_rows(log, HM.initial_state(), "A")
    return {m for r in rows for m in re.findall(r"[A-Z][\w' ]+", r["text"])}


def test_scenario_from_the_command_line_writes_a_file_that_scenario_check_passes(db: str, tmp_path: Path) -> None:
    mid = stored_game(db, 7)
    out = tmp_path / "dispute.yaml"
    ok(db, "scenario", "from", mid, "--at", "200", "--to", "260", "--out", str(out))
    checked = CliRunner().invoke(cli, ["scenario", "check", str(out), "--json"])
    assert checked.exit_code == 0, checked.output
    assert json.loads(checked.stdout)["passed"] == 1
    doc = json.loads(ok(db, "scenario", "from", mid, "--at", "200", "--as", "B", "--json"))
    assert doc["viewer"] == "B" and doc["start"] <= 200 and doc["scenario"]["setup"]["deal"] == "table"
    text = ok(db, "scenario", "from", mid, "--at", "200", "--to", "230")
    assert text.startswith("# referee scenario from") and "expect:" in text
    # Bad input: one line, exit 2.
    assert run_cli(db, "scenario", "from", mid, "--at", "300", "--to", "200").exit_code == 2
    assert run_cli(db, "scenario", "from", mid, "--at", "5", "--to", "99999").exit_code == 2
    early = run_cli(db, "scenario", "from", mid, "--at", "1", "--as", "A")
    assert early.exit_code == 2 and "setup of the match" in early.output


def test_a_position_may_give_each_card_its_id_and_known_cards_of_a_table_deal(tmp_path: Path) -> None:
    path = tmp_path / "ids.yaml"
    path.write_text(
        yaml.safe_dump(
            {
                "name": "ids",
                "rules": ["100"],
                "setup": {
                    "deal": "table",
                    "players": {
                        "A": {"hand": [{"card": "Iron Knight", "id": "A:7", "known": True}, "Court Lady"]},
                        "B": {"castle": [{"random": 2, "id": "B:3"}, {"random": 0}]},
                    },
                    "field_order": [],
                },
            }
        )
    )
    from referee.scenario import load_scenario

    sc = load_scenario(path)
    assert sc.state.zones["A"].hand == ("A:7", "A:1") and "A:7" not in sc.state.unknown
    assert "A:1" in sc.state.unknown and sc.state.zones["B"].castle == ("B:3", "B:1")
    path.write_text(path.read_text().replace("id: A:7", "id: B:7"))
    with pytest.raises(Exception, match="a card of B's, but this card is A's"):
        load_scenario(path)


# --- what-if forks ------------------------------------------------------------------------------


def test_a_fork_offers_exactly_the_legal_actions_of_the_match_and_never_changes_it(db: str) -> None:
    mid = stored_game(db, 9)
    with MatchStore(db) as store:
        log = store.events(mid)
        head = store.head(mid, len(log))
        audit = run_cli(db, "audit", mid, "--json")
        boundaries = [p for p in range(1, len(log)) if isinstance(log[p], ActionTaken)]
        rng = random.Random(9)
        for n in rng.sample(boundaries, 3):
            fork_id = json.loads(ok(db, "new", "--from", mid, "--at", str(n), "--by", "Kim", "--json"))["match"]
            forked, version = store.load(fork_id)
            original = store.state_at(mid, n)
            assert version == n
            assert legal_actions(forked) == legal_actions(original)
            # Play the fork on: the original's log, chain and audit do not move.
            state = forked
            for _ in range(12):
                if HM.result(state) is not None:
                    break
                store.act(fork_id, random_action(state, legal_actions(state), rng, HM))
                state = store.load(fork_id)[0]
        assert store.events(mid) == log and store.head(mid, len(log)) == head
    assert run_cli(db, "audit", mid, "--json").stdout == audit.stdout
    listed = json.loads(ok(db, "matches", "--json"))["matches"]
    forks = [m for m in listed if m["origin"] is not None]
    assert len(forks) == 3 and all(m["origin"]["match"] == mid for m in forks)
    assert "forked from " + mid in ok(db, "matches")
    inside = run_cli(db, "new", "--from", mid, "--at", str(boundaries[2] + 1))
    assert inside.exit_code == 2 and "inside one action" in inside.output
    assert run_cli(db, "new", "--from", mid, "--at", "5", *DECKS).exit_code == 2


def test_a_fork_of_a_table_dealt_match_names_no_hidden_card_to_a_player(db: str) -> None:
    mid = stored_game(db, 4, deal="table")
    n = len(json.loads(ok(db, "log", mid, "--json"))["events"]) // 2
    while True:
        with MatchStore(db, read_only=True) as store:
            log = store.events(mid)
        if isinstance(log[n], ActionTaken):
            break
        n += 1
    fork_id = json.loads(ok(db, "new", "--from", mid, "--at", str(n), "--json"))["match"]
    with MatchStore(db, read_only=True) as store:
        forked = store.load(fork_id)[0]
        original = store.state_at(mid, n)
    assert forked.unknown == original.unknown and forked.unknown  # nothing the table has not revealed is known
    b_hand = [forked.cards[c].name for c in forked.zones["B"].hand if c not in forked.unknown]
    seen = json.loads(ok(db, "state", fork_id, "--as", "A", "--json"))
    assert all(c is None for c in seen["zones"]["B.hand"]["cards"] or [None])
    a_log = ok(db, "log", fork_id, "--as", "A")
    hidden = {forked.cards[c].name for c in forked.zones["B"].hand} - set(b_hand)
    for name in hidden:
        # an unknown card's id carries a name that means nothing: it is never shown
        assert f" {name}" not in json.dumps(seen)
    assert "what-if fork of match " + mid in a_log


# --- entry times, who entered each event, slow play ---------------------------------------------------


def test_the_log_shows_when_and_by_whom_each_entry_was_made_and_lists_slow_decisions(db: str) -> None:
    mid = json.loads(ok(db, "new", *DECKS, "--seed", "3", "--json"))["match"]
    ok(db, "act", mid, "A", "choose_opening", "Little Page")
    with app_for(db) as http:
        fields = {"csrf": form_of(http.get("/login").text)["csrf"]}
        http.post("/login", data={**fields, "password": PASSWORD, "name": "Kim", "next": "/"})
        page = http.get(f"/matches/{mid}")
        console = form_of(page.text)
        line = next(a for a in re.findall(r'data-action="([^"]*)"', page.text) if "choose_opening" in a)
        done = http.post(f"/matches/{mid}/act", data={**console, "line": line.replace("&#34;", '"')})
        assert done.status_code == 200
        board_log = http.get(f"/matches/{mid}/log").text
        assert "judge Kim at the board" in board_log and "a command-line station" in board_log
        assert re.search(r'<time class="when" datetime="\d{4}-\d\d-\d\dT', board_log)
    rows = json.loads(ok(db, "log", mid, "--json"))["events"]
    assert all(r["time"] and r["station"] in ("board", "command line") for r in rows)
    assert {r["by"] for r in rows} == {None, "judge Kim"}
    text = ok(db, "log", mid, "--times")
    assert re.search(r"^\s+1  \d{4}-\d\d-\d\d \d\d:\d\d:\d\d  100\.2", text, flags=re.MULTILINE)
    assert "[judge Kim at the board]" in text and "[a command-line station]" in text
    # The decisions' times come from the stored times: make B's take 200 s.
    with MatchStore(db) as store:
        records = store.records(mid)
    b_action = next(r for r in records if isinstance(r.event, ActionTaken) and r.event.player == "B")
    from projections import entries

    slow = entries.slow_decisions(
        [r if r is not b_action else _later(r, records[b_action.position - 2].timestamp, 200) for r in records],
        120,
        ("A", "B"),
    )
    assert [d["position"] for d in slow["B"]["slow"]] == [b_action.position] and slow["A"]["slow"] == []
    report = json.loads(ok(db, "log", mid, "--slow", "0", "--json"))
    assert report["players"]["A"]["decisions"] == 1 and report["players"]["B"]["decisions"] == 1
    assert "slow play, IPG 3.3" in ok(db, "log", mid, "--slow", "120")


def _a_quiet_turn_with_two_characters() -> tuple[int, list[Any], list[str]]:
    """A seed of the vanilla sample decks (record mode) and random actions up
    to a main phase where the active player could play two characters, the
    other player having nothing to answer either with."""
    from referee.rules.harem_master.decks import load_deck
    from referee.rules.harem_master.pool import CardCatalog

    catalog = CardCatalog(bundled_pool())
    decks = {p: load_deck(ROOT / f"scenarios/decks/vanilla-{p.lower()}.yaml", catalog) for p in ("A", "B")}
    for seed in range(1, 40):
        state = HM.start(decks, seed=seed, mode="record").state
        rng = random.Random(seed)
        played: list[Any] = []
        while HM.result(state) is None and len(played) < 3000:
            if state.step == "306" and state.window_passed and state.characters_played == 0 and state.active:
                characters = _two_characters(state, state.active)
                if characters:
                    return seed, played, characters
            legal = [a for a in legal_actions(state) if a.do not in ("play_character", *HM.selfplay.playout_skips)]
            action = random_action(state, legal or legal_actions(state), rng, HM)
            played.append(action)
            state = HM.apply(state, action).state
    raise AssertionError("no seed gives a quiet turn with two characters to play")


def _two_characters(state: GameState, player: str) -> list[str]:
    """Two characters of different names, not on the field, that ``player``
    can pay for one after the other, with room on the field (214.2e)."""
    on_field = {state.cards[ch.card].name for ch in state.field if ch.controller == player}
    if len(on_field) > 4:
        return []
    stack = len(state.zones[player].action_stack)
    found: dict[str, int] = {}
    for c in state.zones[player].hand:
        cd = state.cards[c]
        if cd.type == "character" and cd.name not in on_field and "PA" not in cd.icons:
            found.setdefault(cd.name, cd.cost)
    names = sorted(found, key=found.__getitem__)
    return names[:2] if len(names) >= 2 and found[names[0]] + found[names[1]] <= stack else []


def _later(record: Any, since: Any, seconds: float) -> Any:
    from dataclasses import replace
    from datetime import timedelta

    return replace(record, timestamp=since + timedelta(seconds=seconds))


# --- the board's judge tools --------------------------------------------------------------------------


def test_the_board_offers_a_judge_a_scenario_and_a_fork_on_each_event(db: str) -> None:
    mid = stored_game(db, 7, match="m-board")
    with MatchStore(db, read_only=True) as store:
        log = store.events(mid)
    n = next(p for p in range(300, len(log)) if isinstance(log[p], ActionTaken))
    with app_for(db) as stranger:
        assert stranger.get(f"/matches/{mid}/scenario?at={n}").status_code == 401
        public = stranger.get(f"/matches/{mid}?at={n}&as=public")
        assert "fork here" not in public.text and "/scenario?" not in public.text
        fields = {"csrf": form_of(stranger.get("/login").text)["csrf"], "version": str(len(log)), "fork_at": str(n)}
        assert stranger.post(f"/matches/{mid}/fork", data=fields, follow_redirects=False).status_code == 403
    with app_for(db) as http:
        page = http.get(f"/matches/{mid}?at={n}", headers=judge_auth())
        assert f"/matches/{mid}/scenario?at={n}" in page.text and "fork here" in page.text
        got = http.get(f"/matches/{mid}/scenario?at={n}", headers=judge_auth())
        assert got.status_code == 200 and "attachment" in got.headers["content-disposition"]
        assert passes(yaml.safe_load(got.text))[0]
        fields = {"csrf": form_of(page.text)["csrf"], "version": str(len(log)), "fork_at": str(n)}
        assert http.post(f"/matches/{mid}/fork", data={**fields, "csrf": "x"}, headers=judge_auth()).status_code == 403
        stale = http.post(f"/matches/{mid}/fork", data={**fields, "version": str(n - 1)}, headers=judge_auth())
        assert stale.status_code == 409
        made = http.post(f"/matches/{mid}/fork", data=fields, headers=judge_auth(), follow_redirects=False)
        assert made.status_code == 303
        fork_id = made.headers["location"].rsplit("/", 1)[1]
    with MatchStore(db, read_only=True) as store:
        first = store.events(fork_id)[0]
        assert first.origin.match == mid and first.origin.at == n and store.load(fork_id)[1] == n
        assert store.events(mid) == log


# --- a match remembers its pool; replay after the undone action ---------------------------------------


def test_a_table_dealt_match_remembers_its_pool(db: str, tmp_path: Path) -> None:
    pool = tmp_path / "extra.yaml"
    pool.write_text("- {name: Dragon Hatchling, type: character, cost: 1, gender: male, physical: 1}\n")
    for mode, code in (("strict", 1), ("record", 0)):
        mid = json.loads(
            ok(db, "new", *DECKS, "--seed", "3", "--deal", "table", "--mode", mode, "--pool", str(pool), "--json")
        )["match"]
        ok(db, "act", mid, "A", "choose_opening", "Little Page")
        ok(db, "act", mid, "B", "choose_opening", "Stable Boy")
        done = run_cli(db, "act", mid, "A", "reveal", "Dragon Hatchling", "--json")  # no --pool
        assert done.exit_code == code, done.output
        if code == 1:
            assert json.loads(done.stdout)["refused"]["rule"] == "100.2"
        else:
            assert json.loads(done.stdout)["violations"] == ["100.2"]
            record = tmp_path / "record.yaml"
            record.write_text(ok(db, "export", mid))
            assert "Dragon Hatchling" in record.read_text()
            assert run_cli(db, "audit", str(record)).exit_code in (0, 1)
            assert "differ" not in run_cli(db, "audit", str(record)).output
    assert "no card 'Dragon Hatchlin'" in run_cli(db, "act", mid, "A", "reveal", "Dragon Hatchlin").output


def test_a_rewind_can_replay_what_came_after_the_undone_action(db: str, tmp_path: Path) -> None:
    seed, played, characters = _a_quiet_turn_with_two_characters()
    mid = json.loads(ok(db, "new", *DECKS, "--seed", str(seed), "--mode", "record", "--json"))["match"]
    with MatchStore(db) as store:
        for action in played:
            store.act(mid, action)
        state = store.load(mid)[0]
    assert characters, "no position to play two characters from"
    active = state.active
    other = "B" if active == "A" else "A"

    def then(*args: str) -> None:
        ok(db, "act", mid, *args)
        while json.loads(ok(db, "legal", mid, "--json"))["player"] == other:
            ok(db, "act", mid, other, "pass")  # the other player's 305 window

    then(active, "play_character", characters[0])
    before = len(json.loads(ok(db, "log", mid, "--json"))["events"])
    then(active, "play_character", characters[1])  # a 306.1a violation, recorded
    ok(db, "act", mid, active, "end_turn")
    done = json.loads(
        ok(
            db,
            "rewind",
            mid,
            "--to",
            str(before),
            "--rule",
            "410.1",
            "--reason",
            "second character",
            "--replay-after",
            "--json",
        )
    )
    report = done["replay"]
    assert report["stopped_at"] is None and report["replayed"] >= 1
    assert report["attempted"] == report["replayed"] + report.get("left_out", 0)
    with MatchStore(db, read_only=True) as store:
        rewind = next(e for e in reversed(store.events(mid)) if isinstance(e, Rewound))
        assert rewind.replay and rewind.after
        state = store.load(mid)[0]
    # What came after the violation was replayed (the end of the turn), not the violation itself.
    assert (state.active == other or state.step == "307") and not state.violations
    assert characters[1] in [state.cards[c].name for c in state.zones[active].hand]
    record = tmp_path / "after.yaml"
    record.write_text(ok(db, "export", mid))
    assert "replay: after" in record.read_text()
    assert run_cli(db, "audit", str(record)).exit_code == 0


# --- 306.1a counts a character card when it is used -----------------------------------------------


def test_a_character_card_counts_once_when_used_whether_or_not_it_is_countered(tmp_path: Path) -> None:
    """A character held at the moment before it is used (someone could answer
    it) counts when it is used: once when it then enters the field, once when
    it is countered instead (306.1a, 411.1a, ruling A28)."""
    from referee.scenario import load_scenario

    text = (ROOT / "scenarios/300-turn/306.1a-A28-countered-character-card-still-counts.yaml").read_text()
    path = tmp_path / "count.yaml"
    for b_does, on_field in (("pass", 1), ("play_event", 0)):
        data = yaml.safe_load(text)
        answer = {"player": "B", "do": b_does, **({"card": "Dispel"} if b_does == "play_event" else {})}
        data["actions"] = [data["actions"][0], answer]
        data["expect"] = {}
        path.write_text(yaml.safe_dump(data))
        sc = load_scenario(path)
        from referee.rules.harem_master import apply
        from referee.rules.harem_master.notation import action_from_mapping, resolve

        state = sc.state
        for raw, _ in sc.actions:
            state = apply(state, resolve(state, action_from_mapping(raw), sc.labels)).state
        assert state.characters_played == 1, b_does
        assert len([ch for ch in state.field if ch.controller == "A"]) == on_field


def test_a_match_of_a_game_whose_first_event_names_no_origin_is_not_forked(db: str) -> None:
    mid = json.loads(
        ok(
            db,
            "new",
            "--position",
            str(ROOT / "scenarios/scp-tcg/4-refused-drawing-is-outside-chapter-4.yaml"),
            "--json",
        )
    )["match"]
    refused = run_cli(db, "new", "--from", mid, "--at", "1")
    assert refused.exit_code == 2 and "cannot be forked yet" in refused.output
