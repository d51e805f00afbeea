"""Stored matches: the mapper, the snapshot codec, transactions, concurrency, speed.

Tests that take ``database`` run on SQLite and on PostgreSQL (see conftest).
Games are random self-play on decks built here, so these tests depend on the
rules engine only through ``rules.start``, ``legal_actions`` and ``apply``.
"""

from __future__ import annotations

import json
import random
import re
import threading
from datetime import datetime, timezone

import pytest
from eventsourcing.persistence import IntegrityError, StoredEvent
from pydantic import BaseModel

import events as events_package
from events.harem_master.cards import CardDef
from events.harem_master.game import CardMovedToStack
from events.kernel import Event
from projections.harem_master.state import GameState, evolve, fold, initial_state
from referee.actions import IllegalAction
from referee.rules import harem_master as rules
from referee.rules.harem_master.actions import Action
from referee.store import (
    DEFAULT_URL,
    MatchEvent,
    MatchExists,
    MatchNotFound,
    MatchStore,
    PositionError,
    StaleVersion,
    StoreError,
    decode_state,
    encode_state,
    parse_url,
)
from referee.store.mapper import JSONBytes, PydanticEventMapper, StateSnapshot, resolve_event_topic
from referee.store.statecodec import IncompatibleSnapshot

ANY_TIME = ("concede", "propose_draw", "accept_draw")
NOW = datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc)


# --- games -------------------------------------------------------------------


def deck(player: str, rng: random.Random) -> dict[str, CardDef]:
    """51 cards: girls and males (six cost-1 characters at least), events
    (some [OT]), items, and a few [PA] characters, with factions."""
    cards: dict[str, CardDef] = {}
    for i in range(1, 52):
        kind = i % 5
        if i <= 6 or kind in (0, 1):
            girl = i <= 4 or kind == 0
            cards[f"{player}:{i}"] = CardDef(
                name=f"{player} {'girl' if girl else 'male'} {i}",
                type="character",
                cost=1 if i <= 6 else rng.randint(1, 3),
                gender="female" if girl else "male",
                factions=[rng.choice(["north", "south", "sea"])] if rng.random() < 0.6 else [],
                physical=rng.randint(0, 4),
                mental=rng.randint(0, 4),
                random=rng.randint(-2, 2),
                icons=["PA"] if i % 9 == 0 else [],
            )
        elif kind == 2:
            cards[f"{player}:{i}"] = CardDef(
                name=f"{player} event {i}",
                type="event",
                cost=rng.randint(0, 2),
                random=rng.randint(-2, 3),
                icons=["OT"] if i % 3 == 0 else [],
            )
        else:
            cards[f"{player}:{i}"] = CardDef(
                name=f"{player} item {i}", type="item", cost=rng.randint(0, 2), random=rng.randint(-2, 3)
            )
    return cards


def new_game(seed: int, *, auto_pass: bool = True):
    rng = random.Random(seed)
    cards = {**deck("A", rng), **deck("B", rng)}
    castles = {p: [c for c in cards if c.startswith(p + ":")] for p in "AB"}
    return rules.start(cards, castles, seed=seed, names={"A": "Alice", "B": "Bob"}, auto_pass=auto_pass)


def choose(state: GameState, rng: random.Random) -> Action | None:
    actions = [a for a in rules.legal_actions(state) if a.do not in ANY_TIME]
    return rng.choice(actions) if actions else None


def play(seed: int, *, auto_pass: bool = True, stop_at: int | None = None):
    """A random game on the engine alone: (first events, [(action, Applied)])."""
    start = new_game(seed, auto_pass=auto_pass)
    rng = random.Random(seed * 7919)
    state, steps = start.state, []
    while state.result is None and (stop_at is None or len(steps) < stop_at):
        action = choose(state, rng)
        applied = rules.apply(state, action)
        steps.append((action, applied))
        state = applied.state
    return start.events, steps


def log_of(first, steps) -> list[Event]:
    return list(first) + [e for _, applied in steps for e in applied.events]


def long_log(min_events: int) -> list[Event]:
    """Whole games one after another: ``MatchStarted`` starts the table afresh
    and ``evolve`` is total, so this is a log of any length to fold."""
    out: list[Event] = []
    seed = 100
    while len(out) < min_events:
        out += log_of(*play(seed))
        seed += 1
    return out


def states_after_120_events(seeds: tuple[int, ...] = (1, 2)) -> list[GameState]:
    """The state of each seed's game after its first 120 events: cards, a
    field and effects to write."""
    states = []
    for seed in seeds:
        state = initial_state()
        for event in log_of(*play(seed))[:120]:
            state = evolve(state, event)
        states.append(state)
    return states


def same(a, b, path: str = "state") -> None:
    """Equal AND of the same types all the way down (a tuple is not a list,
    a Character is not a plain tuple)."""
    assert type(a) is type(b), f"{path}: {type(a).__name__} != {type(b).__name__}"
    if isinstance(a, BaseModel):
        assert a == b, path
        for k in type(a).model_fields:
            same(getattr(a, k), getattr(b, k), f"{path}.{k}")
    elif hasattr(a, "__dict__") and not isinstance(a, type):
        assert vars(a).keys() == vars(b).keys(), path
        for k in vars(a):
            same(vars(a)[k], vars(b)[k], f"{path}.{k}")
    elif isinstance(a, tuple):
        assert len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b)):
            same(x, y, f"{path}[{i}]")
    elif isinstance(a, dict):
        assert a.keys() == b.keys(), path
        for k in a:
            same(a[k], b[k], f"{path}[{k!r}]")
    else:
        assert a == b, path


def mapper() -> PydanticEventMapper:
    return PydanticEventMapper(transcoder=JSONBytes())


# --- the mapper: stored events ARE the domain events -------------------------


def test_stored_topic_is_the_domain_event_classs_registered_name_and_state_its_json():
    """The topic is the name the class is registered under (``events.names``),
    the very name it was first stored under, wherever its module lives now."""
    event = CardMovedToStack(player="A", card="A:7")
    stored = mapper().to_stored_event(MatchEvent("m-00000001", 12, NOW, event))
    assert stored.topic == "events.game:CardMovedToStack" and CardMovedToStack.__module__ == "events.harem_master.game"
    assert (stored.originator_id, stored.originator_version) == ("m-00000001", 12)
    body = json.loads(stored.state)
    assert body == {**event.model_dump(mode="json"), "_timestamp": NOW.isoformat()}


def test_every_event_of_random_games_reads_back_equal():
    m = mapper()
    for seed, auto_pass in ((1, True), (2, False)):
        log = log_of(*play(seed, auto_pass=auto_pass))
        for position, event in enumerate(log, 1):
            stored = m.to_stored_event(MatchEvent("m-1", position, NOW, event, "x" if position == 1 else None))
            # Fresh bytes, as a database hands them back: no memo hit.
            back = m.to_domain_event(StoredEvent(stored.originator_id, position, stored.topic, bytes(stored.state)))
            assert type(back.event) is type(event)
            assert back.event == event
            assert (back.position, back.timestamp) == (position, NOW)
            assert back.name == ("x" if position == 1 else None)


def test_a_renamed_class_is_found_through_topic_aliases(monkeypatch):
    stored = mapper().to_stored_event(MatchEvent("m-1", 1, NOW, CardMovedToStack(player="B", card="B:3")))
    old = StoredEvent("m-1", 1, "events.harem_master.game:CardPutOnStack", stored.state)
    with pytest.raises(Exception, match="TOPIC_ALIASES"):
        mapper().to_domain_event(old)
    monkeypatch.setitem(
        events_package.TOPIC_ALIASES,
        "events.harem_master.game:CardPutOnStack",
        "events.harem_master.game:CardMovedToStack",
    )
    assert mapper().to_domain_event(old).event == CardMovedToStack(player="B", card="B:3")


def test_topics_never_import_what_a_row_names():
    with pytest.raises(LookupError):
        resolve_event_topic("os:system")
    with pytest.raises(LookupError):
        resolve_event_topic("projections.harem_master.state:GameState")


def test_an_event_class_outside_events_game_is_not_stored():
    class Homemade(Event):
        rule: str = "999"

    with pytest.raises(TypeError, match="never read back"):
        mapper().to_stored_event(MatchEvent("m-1", 1, NOW, Homemade()))


# --- snapshots: GameState to JSON and back, exactly --------------------------


def test_game_state_round_trip_is_exact_at_every_position():
    seen = dict.fromkeys(["battle_numbers", "result", "items", "face_down", "orphans"], False)
    first, steps = play(3)
    state = initial_state()
    for event in log_of(first, steps):
        state = evolve(state, event)
        for snapshot in (False, True):  # a rewind's restored state; the store's snapshot
            restored = decode_state(json.loads(json.dumps(encode_state(state, snapshot=snapshot))))
            assert restored == state
            same(restored, state)
        seen["battle_numbers"] |= bool(state.battle and state.battle.numbers)
        seen["result"] |= state.result is not None
        seen["items"] |= any(ch.items for ch in state.field)
        seen["face_down"] |= any(ch.face_down for ch in state.field)
        seen["orphans"] |= bool(state.orphans)
    assert all(seen.values()), f"the game did not reach every kind of value: {seen}"


def test_snapshots_of_ability_heavy_games_round_trip_exactly():
    """The snapshot's field-by-field models (``$fields``) hold card text in
    play too: abilities gained, effects, what left the field (403.2)."""
    from bench.figures import bench_pools, bundled_pool
    from referee.simulate import decks_for, game_seeds, play_game

    pool = bench_pools(bundled_pool())["ability-heavy"]
    kinds: set[str] = set()
    for seed in game_seeds(2, 5):
        state = initial_state()
        for i, event in enumerate(play_game(seed, decks_for(seed, pool, None)).events):
            state = evolve(state, event)
            if i % 3 == 0:
                data = json.loads(json.dumps(encode_state(state, snapshot=True)))
                restored = decode_state(data)
                assert restored == state
                same(restored, state)
                kinds |= {topic for topic in re.findall(r'"\$fields": \["([^"]+)"', json.dumps(data))}
    assert {"events.abilities:Static", "events.abilities:Triggered", "events.abilities:Activated"} <= kinds


def test_a_state_kept_inside_the_state_round_trips_without_its_cards():
    """306.5c: the state the referee passed an interception over in is kept
    (``passed_over``) until a player acts; a snapshot holds it without a
    second copy of the cards, and a rewind's restored state likewise."""
    from referee.rules.harem_master import apply
    from referee.rules.harem_master.notation import action_from_mapping, resolve
    from referee.scenario import load_scenario

    sc = load_scenario("scenarios/410-corrections/306.5d-record-late-interception-takes-back-the-castle-attack.yaml")
    raw, _ = sc.actions[0]
    state = apply(sc.state, resolve(sc.state, action_from_mapping(raw), sc.labels)).state
    assert state.passed_over is not None and state.passed_over.step == "306.5c"
    data = json.loads(json.dumps(encode_state(state)))
    assert "cards" not in data["fields"]["passed_over"]["$state"]
    restored = decode_state(data)
    assert restored == state and restored.passed_over.cards is restored.cards
    partial = decode_state(json.loads(json.dumps(encode_state(state, omit=("cards",)))), base=state)
    assert partial == state


def test_a_snapshot_writes_models_field_by_field_and_reads_them_without_validators(tmp_path):
    """A snapshot's models are read back with ``model_construct``: reading
    one builds no pydantic validator (the card definitions' was a fifth of a
    `referee act`), and a model whose class has other fields now makes the
    snapshot outdated, as a differently shaped state does."""
    import subprocess
    import sys

    state = new_game(1).state
    data = json.loads(json.dumps(encode_state(state, snapshot=True)))
    card = next(iter(data["fields"]["cards"].values()))
    assert set(card) == {"$fields"} and card["$fields"][0] == "events.cards:CardDef"  # its first topic
    assert "$model" not in json.dumps(data)
    rewind = json.dumps(encode_state(state))  # an event's restored state: as pydantic writes it
    assert '"$model"' in rewind and '"$fields"' not in rewind
    path = tmp_path / "snapshot.json"
    path.write_text(json.dumps(data))
    check = (
        "import json, sys; from referee.store import decode_state; "
        "from events.harem_master.cards import CardDef; "
        f"s = decode_state(json.load(open({str(path)!r}))); "
        "assert len(s.cards) == 102 and all(type(c) is CardDef for c in s.cards.values()); "
        "print(CardDef.__pydantic_complete__)"
    )
    built = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, check=True)
    assert built.stdout.strip() == "False"
    cards = decode_state(data).cards
    assert all(cards[c].model_fields_set == state.cards[c].model_fields_set for c in state.cards)
    card["$fields"][1]["colour"] = "red"  # written by a CardDef that had another field
    with pytest.raises(IncompatibleSnapshot, match="events.cards:CardDef no longer has the fields"):
        decode_state(data)


def test_a_young_match_loads_from_the_snapshot_of_its_start_without_validating_cards(tmp_path):
    """``create`` stores the state after the first events as a snapshot: a
    match shorter than the snapshot interval (most of a match's first turns)
    is then loaded from it, not by validating the card definitions of its
    first event, whose validator is the largest of all."""
    import subprocess
    import sys

    first, steps = play(4)
    url = f"sqlite:///{tmp_path / 'young.db'}"
    with MatchStore(url) as store:
        match = store.create(first)
        for action, _ in steps[:5]:
            store.act(match, action)
        state, version = store.load(match)
        assert [s.originator_version for s in store.application.snapshots.get(match)] == [len(first)]
    check = (
        "from referee.store import MatchStore; from events.harem_master.cards import CardDef; "
        f"store = MatchStore({url!r}); state, version = store.load({match!r}); "
        "print(version, store.last_folded, CardDef.__pydantic_complete__)"
    )
    done = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, check=True)
    assert done.stdout.split() == [str(version), str(version - len(first)), "False"]


def test_snapshot_encodings_kept_for_frozen_models_are_what_a_fresh_walk_writes():
    from projections import encoding

    states = states_after_120_events()
    encoding._kept.clear()
    fresh = [encode_state(s, snapshot=True) for s in states]
    kept = [encode_state(s, snapshot=True) for s in states]
    assert kept == fresh
    some = next(iter(states[0].cards))
    # The second walk took the card's encoding kept by the first.
    assert kept[0]["fields"]["cards"][some] is fresh[0]["fields"]["cards"][some]


def test_a_snapshot_of_a_differently_shaped_state_is_not_used():
    data = encode_state(new_game(1).state)
    del data["fields"]["turn"]
    with pytest.raises(IncompatibleSnapshot, match="turn"):
        decode_state(data)
    body = {"_timestamp": NOW.isoformat(), **data}
    snap = mapper().to_domain_event(
        StoredEvent("m-1", 100, "projections.harem_master.state:GameState", JSONBytes().encode(body))
    )
    assert isinstance(snap, StateSnapshot) and snap.state is None


# --- URLs and errors ----------------------------------------------------------


def test_sqlite_url_is_relative_to_the_working_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert DEFAULT_URL == "sqlite:///referee.db"
    assert parse_url(DEFAULT_URL).env["SQLITE_DBNAME"] == "referee.db"
    assert parse_url("sqlite:////abs/x.db").env["SQLITE_DBNAME"] == "/abs/x.db"
    with MatchStore("sqlite:///here.db") as store:
        store.create(new_game(1).events)
    assert (tmp_path / "here.db").is_file()


def test_the_url_configures_the_library_not_os_environ(tmp_path, monkeypatch):
    monkeypatch.setenv("PERSISTENCE_MODULE", "eventsourcing.popo")
    monkeypatch.setenv("SQLITE_DBNAME", str(tmp_path / "elsewhere.db"))
    url = f"sqlite:///{tmp_path / 'chosen.db'}"
    with MatchStore(url) as store:
        match = store.create(new_game(1).events)
    with MatchStore(url) as again:
        assert again.events(match) == list(new_game(1).events)
    assert not (tmp_path / "elsewhere.db").exists()


def test_the_command_line_url_comes_from_db_then_referee_db_then_the_default(monkeypatch):
    from referee.store import database_url

    monkeypatch.delenv("REFEREE_DB", raising=False)
    assert database_url() == "sqlite:///referee.db"
    monkeypatch.setenv("REFEREE_DB", "sqlite:///env.db")
    assert database_url() == "sqlite:///env.db"
    assert database_url("sqlite:///option.db") == "sqlite:///option.db"


def test_an_in_memory_store_is_private_to_it():
    with MatchStore("sqlite:///:memory:") as one, MatchStore("sqlite:///:memory:") as two:
        match = one.create(new_game(1).events)
        assert one.events(match) == list(new_game(1).events)
        assert two.list_matches() == []


def test_postgres_url_becomes_the_library_environment():
    db = parse_url("postgresql://judge:p%40ss@db.example:6543/tourney?schema=round1")
    assert db.env["PERSISTENCE_MODULE"] == "referee.store.pgfactory:RefereePostgresFactory"
    assert (db.env["POSTGRES_USER"], db.env["POSTGRES_PASSWORD"]) == ("judge", "p@ss")
    assert (db.env["POSTGRES_HOST"], db.env["POSTGRES_PORT"]) == ("db.example", "6543")
    assert (db.env["POSTGRES_DBNAME"], db.env["POSTGRES_SCHEMA"]) == ("tourney", "round1")
    assert db.display == "postgresql://judge:***@db.example:6543/tourney?schema=round1"
    assert "p@ss" not in repr(db)


@pytest.mark.parametrize(
    "url",
    [
        "mysql://u:hunter22@h/db",
        "sqlite://host/x.db",
        "sqlite:///",
        "postgresql://u:hunter22@h:notaport/db",
        "postgresql://u:hunter22@h:5432/",
        "postgresql://u:hunter22@h:5432/db?sslmode=sometimes",
        "postgresql://u:hunter22@h:5432/db?sslmod=require",
    ],
)
def test_unusable_urls_are_one_clear_line_without_the_password(url):
    with pytest.raises(StoreError) as info:
        MatchStore(url)
    message = str(info.value)
    assert "\n" not in message and "hunter22" not in message


def test_a_missing_sqlite_directory_is_a_store_error(tmp_path):
    with pytest.raises(StoreError, match="does not exist"):
        MatchStore(f"sqlite:///{tmp_path / 'no' / 'such' / 'dir.db'}")


def test_a_file_that_is_not_a_database_is_a_store_error(tmp_path):
    (tmp_path / "notes.db").write_text("not a database, just notes\n" * 200)
    with pytest.raises(StoreError, match="notes.db"):
        MatchStore(f"sqlite:///{tmp_path / 'notes.db'}")


def test_an_unreachable_postgres_is_one_line_without_the_password():
    with pytest.raises(StoreError) as info:
        MatchStore("postgresql://referee:s3cret-Pw@127.0.0.1:1/referee_test?connect_timeout=2")
    message = str(info.value)
    assert "\n" not in message
    assert "s3cret-Pw" not in message
    assert "postgresql://referee:***@127.0.0.1:1/referee_test" in message


def test_a_wrong_postgres_password_is_one_line_without_the_password(postgres_url):
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(postgres_url())
    netloc = f"{parts.username}:Wrong-Pass-123@{parts.hostname}:{parts.port or 5432}"
    with pytest.raises(StoreError) as info:
        MatchStore(urlunsplit(parts._replace(netloc=netloc)))
    message = str(info.value)
    assert "\n" not in message
    assert "Wrong-Pass-123" not in message
    assert "password authentication failed" in message
    assert ":***@" in message


# --- the store, on SQLite and PostgreSQL --------------------------------------


def test_a_whole_game_played_through_the_store(database):
    first, steps = play(5)
    store = database.open(snapshot_interval=50)
    match = store.create(first, name="Table 4")
    assert match.startswith("m-") and len(match) == 10
    for action, expected in steps:
        applied = store.act(match, action)
        assert applied.events == expected.events
    state, version = store.load(match)
    log = log_of(first, steps)
    assert version == len(log) and state == fold(log) and state.result is not None

    # Another station, with nothing cached, reads the very same events.
    other = database.open(snapshot_interval=50)
    stored = other.events(match)
    assert stored == log and [type(e) for e in stored] == [type(e) for e in log]
    assert other.events(match, upto=10) == log[:10]
    records = other.records(match)
    assert [r.position for r in records] == list(range(1, len(log) + 1))
    assert records[0].name == "Table 4" and records[1].name is None
    assert other.load(match) == (state, version)
    assert other.last_folded == version % 50  # from the last snapshot, not from zero
    snapshots = list(other.application.snapshots.get(match))
    # The start (what ``create`` stored), then every multiple of the interval.
    assert [s.originator_version for s in snapshots] == [len(first), *range(50, version + 1, 50)]

    [info] = other.list_matches()
    assert (info.id, info.name, info.players, info.seed) == (match, "Table 4", {"A": "Alice", "B": "Bob"}, 5)


def test_list_matches_shows_every_match_oldest_first(database):
    store = database.open()
    a = store.create(new_game(1).events, name="first")
    b = store.create(new_game(2).events)
    c = store.create(new_game(3).events, match_id="Final-1")
    assert c == "final-1" and store.exists("FINAL-1") and "m-00000000" not in store
    listed = store.list_matches()
    assert [(m.id, m.name) for m in listed] == [(a, "first"), (b, None), (c, None)]
    with pytest.raises(MatchExists):
        store.create(new_game(4).events, match_id="final-1")
    with pytest.raises(ValueError):
        store.create([CardMovedToStack(player="A", card="A:1")])


def test_unknown_matches_and_positions_are_store_errors(database):
    store = database.open()
    match = store.create(new_game(1).events)
    length = len(new_game(1).events)
    for call in (lambda: store.load("m-deadbeef"), lambda: store.events("nope"), lambda: store.state_at("x y", 1)):
        with pytest.raises(MatchNotFound):
            call()
    with pytest.raises(PositionError, match=f"has {length} events"):
        store.state_at(match, length + 1)
    with pytest.raises(PositionError):
        store.events(match, upto=length + 1)
    assert store.state_at(match, 0) == initial_state()
    assert store.events(match, upto=0) == []


def test_a_refused_action_writes_nothing(database):
    store = database.open()
    match = store.create(new_game(1).events)
    before = store.events(match)
    state, _ = store.load(match)
    wrong = "B" if rules.current_player(state) == "A" else "A"
    with pytest.raises(IllegalAction):
        store.act(match, Action(wrong, "choose_opening", card=f"{wrong}:1"))
    assert store.events(match) == before


def _trigger(database, fail_at: int) -> tuple[list[str], list[str]]:
    """SQL that makes the database itself fail on inserting event ``fail_at``,
    after the rows before it in the same statement or transaction went in."""
    if database.kind == "sqlite":
        return (
            [
                "CREATE TRIGGER crash BEFORE INSERT ON stored_events "
                f"WHEN NEW.originator_version = {fail_at} "
                "BEGIN SELECT RAISE(ABORT, 'simulated crash mid-write'); END;"
            ],
            ["DROP TRIGGER crash;"],
        )
    return (
        [
            "CREATE FUNCTION crash() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
            f"IF NEW.originator_version = {fail_at} THEN RAISE EXCEPTION 'simulated crash mid-write'; "
            "END IF; RETURN NEW; END $$",
            "CREATE TRIGGER crash BEFORE INSERT ON referee_events FOR EACH ROW EXECUTE FUNCTION crash()",
        ],
        ["DROP TRIGGER crash ON referee_events"],
    )


def test_one_action_is_one_transaction(database):
    """A failure in the middle of an action's events leaves none of them."""
    first, steps = play(6)
    store = database.open()
    match = store.create(first)
    index = next(i for i, (_, applied) in enumerate(steps) if len(applied.events) >= 4)
    for action, _ in steps[:index]:
        store.act(match, action)
    before_state, version = store.load(match)
    before = store.events(match)
    action, expected = steps[index]

    create, drop = _trigger(database, fail_at=version + 3)  # the third of >= 4 events
    for statement in create:
        database.sql(statement)
    with pytest.raises(StoreError) as info:
        store.act(match, action)
    assert "\n" not in str(info.value)
    assert store.events(match) == before
    assert store.load(match) == (before_state, version)
    assert database.open().load(match)[1] == version

    for statement in drop:
        database.sql(statement)
    applied = store.act(match, action)
    assert applied.events == expected.events
    assert store.events(match) == before + expected.events


def _race(stores, match, actions):
    """Each store acts at the same moment: all decide on the same version,
    then all write. Returns what each got (an Applied or the exception)."""
    barrier = threading.Barrier(len(stores))
    results: list = [None] * len(stores)

    def hold(_match: str, attempt: int) -> None:
        if attempt == 1:
            barrier.wait(timeout=60)

    def run(i: int) -> None:
        try:
            results[i] = stores[i].act(match, actions[i])
        except Exception as exc:  # noqa: BLE001 - the test inspects it
            results[i] = exc

    for store in stores:
        store.before_write = hold
    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(stores))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    return results


def test_the_loser_of_a_race_rechecks_its_action_and_is_refused(database):
    start = new_game(7)
    one, two = database.open(), database.open()
    match = one.create(start.events)
    openings = [a for a in rules.legal_actions(start.state) if a.do == "choose_opening"]
    assert len(openings) >= 2
    results = _race([one, two], match, openings[:2])

    winners = [i for i, r in enumerate(results) if not isinstance(r, Exception)]
    losers = [i for i, r in enumerate(results) if isinstance(r, Exception)]
    assert len(winners) == 1 and len(losers) == 1, results
    w, lose = winners[0], losers[0]
    assert isinstance(results[lose], IllegalAction)  # A already chose: B must choose now
    assert [one, two][lose].conflicts == 1 and [one, two][w].conflicts == 0
    assert one.events(match) == list(start.events) + results[w].events
    assert [one, two][lose].load(match) == [one, two][w].load(match)


def _two_commuting_actions(seed: int):
    """A position and two different actions, each still legal after the other."""
    first, steps = play(seed)
    log = list(first)
    state = fold(log)
    for action, applied in steps:
        legal = [a for a in rules.legal_actions(state) if a.do not in ANY_TIME]
        for a in legal:
            for b in legal:
                if a != b and a.do.startswith("play") and b.do.startswith("play"):
                    after_a = rules.apply(state, a).state
                    after_b = rules.apply(state, b).state
                    if rules.is_legal(after_a, b) is None and rules.is_legal(after_b, a) is None:
                        return log, state, a, b
        log += applied.events
        state = applied.state
    raise AssertionError("no position with two commuting actions")  # pragma: no cover


def test_the_loser_of_a_race_is_applied_after_the_winner_when_still_legal(database):
    log, state, a, b = _two_commuting_actions(8)
    one, two = database.open(), database.open()
    match = one.create(log)
    results = _race([one, two], match, [a, b])
    assert not any(isinstance(r, Exception) for r in results), results
    assert one.conflicts + two.conflicts == 1
    a_first = rules.apply(state, a)
    then_b = rules.apply(a_first.state, b)
    b_first = rules.apply(state, b)
    then_a = rules.apply(b_first.state, a)
    stored = one.events(match)
    if one.conflicts == 0:  # a won
        assert (results[0].events, results[1].events) == (a_first.events, then_b.events)
        assert stored == log + a_first.events + then_b.events
    else:
        assert (results[1].events, results[0].events) == (b_first.events, then_a.events)
        assert stored == log + b_first.events + then_a.events


def test_many_stations_lose_nothing_and_write_nothing_twice(database):
    start = new_game(9)
    stations = [database.open() for _ in range(3)]
    match = stations[0].create(start.events)
    done: list[list] = [[] for _ in stations]

    def station(i: int) -> None:
        rng = random.Random(i)
        store = stations[i]
        for _ in range(3000):
            state, _ = store.load(match)
            if state.result is not None:
                return
            action = choose(state, rng)
            try:
                done[i].append(store.act(match, action))
            except IllegalAction:
                continue  # another station moved the game on first

    threads = [threading.Thread(target=station, args=(i,)) for i in range(len(stations))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)

    log = stations[0].events(match)
    assert fold(log).result is not None
    # Every successful action's events appear once, contiguously, in write order.
    applied = sorted((a for per in done for a in per), key=lambda a: a.state.position)
    position = len(start.events)
    for a in applied:
        assert a.state.position == position + len(a.events)
        assert log[position : a.state.position] == a.events
        position = a.state.position
    assert position == len(log)
    for store in stations:
        assert store.load(match) == (fold(log), len(log))


def test_a_conflicting_write_is_the_librarys_integrity_error(database):
    one, two = database.open(), database.open()
    match = one.create(new_game(1).events)
    _, version = two.load(match)
    event = CardMovedToStack(player="A", card="A:1")
    one.application.save(MatchEvent(match, version + 1, NOW, event))
    with pytest.raises(IntegrityError):
        two.application.save(MatchEvent(match, version + 1, NOW, event))


def test_state_at_every_position_of_a_2000_event_log_starts_from_a_snapshot(database):
    log = long_log(2000)[:2000]
    writer = database.open(snapshot_interval=100)
    match = writer.create(log)
    reader = database.open(snapshot_interval=100)  # nothing cached
    state = initial_state()
    assert reader.state_at(match, 0) == state
    worst = 0
    for n, event in enumerate(log, 1):
        state = evolve(state, event)
        assert reader.state_at(match, n) == state, n
        assert reader.last_folded == n % 100, n
        worst = max(worst, reader.last_folded)
    assert worst == 99
    assert reader.load(match) == (state, len(log))
    assert reader.last_folded == len(log) % 100


def test_the_cache_folds_only_what_other_stations_wrote(database):
    first, steps = play(10)
    mine, theirs = database.open(), database.open()
    match = mine.create(first)
    mine.load(match)
    assert mine.last_folded == 0  # create left the state in the cache
    theirs.act(match, steps[0][0])
    written = theirs.act(match, steps[1][0])
    state, version = mine.load(match)
    assert mine.last_folded == len(steps[0][1].events) + len(steps[1][1].events)
    assert state == written.state
    mine.load(match)
    assert mine.last_folded == 0


def test_missing_snapshots_are_taken_when_a_read_finds_them_missing(database):
    log = long_log(450)[:450]
    match = database.open(snapshot_interval=100).create(log)
    database.sql("DELETE FROM " + ("stored_snapshots" if database.kind == "sqlite" else "referee_snapshots"))
    cold = database.open(snapshot_interval=100)
    assert cold.load(match)[1] == 450 and cold.last_folded == 450
    assert cold.snapshots_taken == 4
    again = database.open(snapshot_interval=100)
    assert again.state_at(match, 399) == fold(log[:399]) and again.last_folded == 99
    assert again.load(match)[0] == fold(log) and again.last_folded == 50


def _stored_game(database, seed: int = 3):
    """A whole game stored action by action with a snapshot every 100 events:
    (the store, the match, the log, the stored snapshot rows in order)."""
    first, steps = play(seed)
    writer = database.open(snapshot_interval=100)
    match = writer.create(first)
    for action, _ in steps:
        writer.act(match, action)
    rows = list(writer.application.snapshots.recorder.select_events(match))
    return writer, match, log_of(first, steps), rows


def test_later_snapshots_name_the_snapshot_holding_the_cards_instead_of_repeating_them(database):
    writer, match, log, rows = _stored_game(database)
    start, *later = rows
    assert start.originator_version == 1 and len(later) == len(log) // 100
    bodies = [json.loads(row.state) for row in rows]
    assert "cards" in bodies[0]["fields"] and "_cards_at" not in bodies[0]
    for body, row in zip(bodies[1:], later):
        assert body["_cards_at"] == 1 and "cards" not in body["fields"]
        assert len(row.state) * 4 < len(start.state)  # the cards were nine tenths of it
    # Another station reads them: the latest snapshot on the start's cards.
    fresh = database.open(snapshot_interval=100)
    state, version = fresh.load(match)
    same(state, fold(log))
    assert version == len(log) and fresh.last_folded == len(log) % 100
    for n in (later[0].originator_version, later[-1].originator_version - 1):
        reader = database.open(snapshot_interval=100)
        assert reader.state_at(match, n) == fold(log[:n]) and reader.last_folded == n % 100
    # A reader from before such snapshots finds the cards missing, so it
    # folds the events instead of using a state without them.
    body = {k: v for k, v in bodies[1].items() if not k.startswith("_")}
    with pytest.raises(IncompatibleSnapshot):
        decode_state(body)


def test_a_snapshot_whose_cards_snapshot_is_gone_is_passed_over(database):
    writer, match, log, rows = _stored_game(database, seed=5)
    table = "stored_snapshots" if database.kind == "sqlite" else "referee_snapshots"
    database.sql(f"DELETE FROM {table} WHERE originator_version = 1")
    cold = database.open(snapshot_interval=100)
    assert cold.load(match) == (fold(log), len(log))
    assert cold.last_folded == len(log)  # every event folded: nothing wrong read
    assert cold.state_at(match, 250) == fold(log[:250])


def _restore_snapshot(store, match: str, version: int, state, cards_at: int) -> None:
    """Put back the snapshot at ``version`` naming ``cards_at`` for its cards,
    as another station may have written it."""
    stored = store.application.mapper.to_stored_event(StateSnapshot(match, version, NOW, state, cards_at))
    store.application.snapshots.recorder.insert_events([stored])


def test_snapshots_naming_each_other_for_their_cards_are_followed_or_passed_over(database):
    writer, match, log, rows = _stored_game(database, seed=10)
    assert [r.originator_version for r in rows][:4] == [1, 100, 200, 300]
    table = "stored_snapshots" if database.kind == "sqlite" else "referee_snapshots"
    # 300 names 200, which names 100, which names 1: followed to the cards.
    database.sql(f"DELETE FROM {table} WHERE originator_version IN (200, 300)")
    _restore_snapshot(writer, match, 200, fold(log[:200]), 100)
    _restore_snapshot(writer, match, 300, fold(log[:300]), 200)
    reader = database.open(snapshot_interval=100)
    assert reader.state_at(match, 350) == fold(log[:350]) and reader.last_folded == 50
    # 100 and 200 name each other: never followed round, the events folded instead.
    database.sql(f"DELETE FROM {table} WHERE originator_version IN (100, 200)")
    _restore_snapshot(writer, match, 100, fold(log[:100]), 200)
    _restore_snapshot(writer, match, 200, fold(log[:200]), 100)
    cold = database.open(snapshot_interval=100)
    assert cold.state_at(match, 250) == fold(log[:250]) and cold.last_folded == 250


def test_an_unreadable_stored_event_is_a_store_error(database):
    store = database.open()
    match = store.create(new_game(1).events)
    table = "stored_events" if database.kind == "sqlite" else "referee_events"
    database.sql(f"UPDATE {table} SET topic = 'events.harem_master.game:NoSuchEvent' WHERE originator_version = 1")
    with pytest.raises(StoreError, match="TOPIC_ALIASES"):
        database.open().events(match)


def test_a_snapshot_that_cannot_be_written_warns_and_loses_no_event(tmp_path, monkeypatch):
    def broken(state, **kwargs):
        raise TypeError("a new kind of value")

    monkeypatch.setattr("referee.store.mapper.encode_state", broken)
    log = long_log(30)[:30]
    with MatchStore(f"sqlite:///{tmp_path / 'r.db'}", snapshot_interval=10) as store:
        with pytest.warns(RuntimeWarning, match="a new kind of value"):
            match = store.create(log)
        assert store.snapshot_failures == 3 and store.snapshots_taken == 0
        assert store.events(match) == log


def test_snapshots_of_an_older_state_shape_are_passed_over(tmp_path, monkeypatch):
    log = long_log(250)[:250]
    url = f"sqlite:///{tmp_path / 'r.db'}"
    with MatchStore(url, snapshot_interval=100) as store:
        match = store.create(log)
    monkeypatch.setattr("projections.harem_master.codec.FORMAT", 2)  # as if GameState had changed
    with MatchStore(url, snapshot_interval=100) as upgraded:
        assert upgraded.load(match) == (fold(log), 250)
        assert upgraded.last_folded == 250 and upgraded.snapshots_taken == 0
        assert upgraded.state_at(match, 120) == fold(log[:120])


# --- speed without shortcuts in correctness (issue 3) -------------------------


def _pragma(store: MatchStore, name: str):
    pool = store.application.recorder.datastore.pool
    conn = pool.get_connection()
    try:
        return conn._sqlite_conn.execute(f"PRAGMA {name}").fetchone()[0]
    finally:
        pool.put_connection(conn)


def test_sqlite_files_are_wal_with_synchronous_normal_unless_the_url_asks_full(tmp_path):
    with MatchStore(f"sqlite:///{tmp_path / 'a.db'}") as store:
        store.create(new_game(1).events)
        assert str(_pragma(store, "journal_mode")).lower() == "wal"
        assert _pragma(store, "synchronous") == 1  # NORMAL
    with MatchStore(f"sqlite:///{tmp_path / 'b.db'}?synchronous=full") as store:
        match = store.create(new_game(1).events)
        assert _pragma(store, "synchronous") == 2  # FULL
        assert store.events(match) == list(new_game(1).events)
    assert (tmp_path / "b.db").is_file() and not (tmp_path / "b.db?synchronous=full").exists()
    with pytest.raises(StoreError, match="synchronous"):
        MatchStore(f"sqlite:///{tmp_path / 'c.db'}?synchronous=off")


def test_an_actions_rows_are_the_bytes_of_its_events_one_by_one():
    m = mapper()
    log = log_of(*play(11))[:60]
    rows = m.to_stored_events("m-1", 40, NOW, log, "Täble 4")
    for i, (event, row) in enumerate(zip(log, rows)):
        one = m.to_stored_event(MatchEvent("m-1", 41 + i, NOW, event, "Täble 4" if i == 0 else None))
        assert row == one
        body = {**event.model_dump(mode="json"), "_timestamp": NOW.isoformat()}
        if i == 0:
            body["_name"] = "Täble 4"
        assert row.state == JSONBytes().encode(body)  # byte for byte what dump-then-json wrote
    assert [r.originator_version for r in rows] == list(range(41, 41 + len(log)))


def test_a_snapshot_is_the_plain_encoding_of_the_state_whatever_the_cards():
    m = mapper()

    def plain(state):
        return JSONBytes().encode({"_timestamp": NOW.isoformat(), **encode_state(state, snapshot=True)})

    def stored(state):
        return m.to_stored_event(StateSnapshot("m-1", state.position, NOW, state)).state

    states = states_after_120_events()
    for state in states + states:  # the second time from the encodings the walk kept
        assert stored(state) == plain(state)
        assert decode_state({k: v for k, v in json.loads(stored(state)).items() if k != "_timestamp"}) == state
    # A card replaced in the dict in place is written anew, not as the one kept.
    changed = states[0]
    some = next(iter(changed.cards))
    changed.cards[some] = changed.cards[some].model_copy(update={"name": "Renamed"})
    assert stored(changed) == plain(changed) and b"Renamed" in stored(changed)


def test_an_action_on_a_current_cache_writes_without_reading_first(database):
    first, steps = play(12)
    store = database.open()
    match = store.create(first)
    reads = []
    recorder = store.application.recorder
    select = recorder.select_events
    recorder.select_events = lambda *a, **k: reads.append(k) or select(*a, **k)
    for action, expected in steps[:20]:
        assert store.act(match, action).events == expected.events
    assert reads == []
    assert database.open().load(match)[0] == fold(log_of(first, steps[:20]))


def test_a_refusal_on_a_stale_cache_is_checked_on_the_current_state(database):
    start = new_game(7)
    one, two = database.open(), database.open()
    match = one.create(start.events)  # one caches the state where A chooses
    opening = next(a for a in rules.legal_actions(start.state) if a.do == "choose_opening")
    b_turn = two.act(match, opening)  # one does not know
    b_action = next(a for a in rules.legal_actions(b_turn.state) if a.do not in ANY_TIME)
    assert rules.is_legal(start.state, b_action) is not None  # refused on one's stale state...
    applied = one.act(match, b_action)  # ...but legal now: applied, not refused
    assert applied.events == rules.apply(b_turn.state, b_action).events
    assert one.conflicts == 0  # nothing was written on the stale state
    assert one.events(match) == list(start.events) + b_turn.events + applied.events

    # A refusal that stands on the current state is reported, nothing written
    # (two's cache is behind by one's action: it reads before refusing).
    reads = []
    select = two.application.recorder.select_events
    two.application.recorder.select_events = lambda *a, **k: reads.append(k) or select(*a, **k)
    with pytest.raises(IllegalAction):
        two.act(match, opening)
    assert reads
    assert two.events(match) == one.events(match)


def test_the_state_kept_after_a_write_is_the_one_decide_returned(database):
    first, steps = play(13)
    store = database.open(snapshot_interval=10)
    match = store.create(first)
    applied = store.act(match, steps[0][0])
    assert store.load(match)[0] is applied.state and store.last_folded == 0
    # A decision whose state is not the fold of its events' position is not
    # trusted: the store folds the events itself.
    action = steps[1][0]
    right = rules.apply(applied.state, action)
    store.update(match, lambda s: type(right)(right.events, None))
    assert store.load(match)[0] == right.state
    fresh = database.open(snapshot_interval=10)
    assert fresh.load(match)[0] == right.state
    # Snapshots were still taken at the start and every multiple of the interval.
    total = len(first) + len(steps[0][1].events) + len(right.events)
    taken = [s.originator_version for s in store.application.snapshots.get(match)]
    assert taken == [len(first), *range(10, total + 1, 10)]


def test_an_action_chosen_on_an_older_version_is_refused_and_writes_nothing(database):
    start = new_game(7)
    one, two = database.open(), database.open()
    match = one.create(start.events)
    chosen_on = len(start.events)
    openings = [a for a in rules.legal_actions(start.state) if a.do == "choose_opening"]
    two.act(match, openings[0], expected_version=chosen_on)  # another station logs first
    before = one.events(match)
    with pytest.raises(StaleVersion) as info:
        one.act(match, openings[0], expected_version=chosen_on)
    assert (info.value.chosen, info.value.current, info.value.rewound) == (chosen_on, len(before), False)
    assert "nothing was recorded" in str(info.value)
    assert one.events(match) == before
    # Chosen on the current version, the same station's action goes through.
    state, version = one.load(match)
    b = next(a for a in rules.legal_actions(state) if a.do == "choose_opening")
    assert one.act(match, b, expected_version=version).events


def test_an_action_decided_before_a_rewind_is_never_stored_after_it(database):
    """Station one holds the match in its cache; a judge at station two
    rewinds; station one's action, chosen on the old position, is refused even
    though the rewound position would allow it (it was chosen from another
    position's legal list)."""
    from referee import corrections

    start = new_game(7)
    one, two = database.open(), database.open()
    match = one.create(start.events)
    a = next(x for x in rules.legal_actions(start.state) if x.do == "choose_opening")
    one.act(match, a)
    state, version = one.load(match)  # station one now caches this version
    b = next(x for x in rules.legal_actions(state) if x.do == "choose_opening")
    two.update(
        match,
        lambda s: corrections.rewind(
            s, two.events(match), len(start.events), rule="410.1", reason="wrong card", judge="Kim"
        ),
    )
    rewound_log = two.events(match)
    assert rules.is_legal(two.load(match)[0], a) is None  # A's choice is open again
    with pytest.raises(StaleVersion) as info:
        one.act(match, a)  # no expected version: the rewind alone refuses it
    assert info.value.rewound and "rewind" in str(info.value)
    assert one.events(match) == rewound_log
    assert b.player != a.player  # (b was B's choice on the old position)
