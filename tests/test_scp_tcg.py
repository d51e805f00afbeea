"""SCP-TCG-JP-J 購買部版, chapter 4 (zones): the second ruleset.

Its scenarios cite every numbered rule of the chapter; every event has its
fold and its sentence; every rule number belongs to one module; random
instructions from random positions keep every zone rule true at every step
(OpenSpiel's random-simulation test), with the listed instructions exactly
the accepted ones; nothing hidden leaks into a view or a sentence; and
what chapter 4 does not decide is refused as such."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from events.kernel import ActionTaken
from events.scp_tcg import EVENT_TYPES
from projections.scp_tcg import sentences, state
from projections.scp_tcg.state import SANDBOXES, SEATS, ZONES, ZoneState, kind_of
from projections.scp_tcg.views import state_view
from referee import ruleset
from referee.actions import IllegalAction
from referee.cli import cli
from referee.inputs import Document, InputError
from referee.rules import scp_tcg
from referee.rules.scp_tcg import engine, instructions
from referee.rules.scp_tcg.common import MOVES, OUTSIDE, Instruction
from referee.rules.scp_tcg.position import start_from_position
from referee.scenario import load_scenario, run_scenario, scenario_files

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT.parent / "shared" / "rules" / "scp-tcg-s4-zones.ja.txt"
PRINTED = ROOT / "tests" / "data" / "scp-tcg-s4-rules.txt"
LIBRARY = ROOT / "scenarios" / "scp-tcg"
SCP = ruleset.get("scp-tcg-s4")


def _from_text(text: str) -> list[str]:
    """Rule numbers as printed at the start of the text's lines (the contents list's start with "- ")."""
    ids = []
    for line in text.splitlines():
        m = re.match(r"^(\d{3}(?:\.\d+[a-z]?)?)(?:[ .]|$)", line)
        if m:
            ids.append(m.group(1))
    return ids


def printed() -> list[str]:
    return [line for line in PRINTED.read_text(encoding="utf-8").splitlines() if line and not line.startswith("#")]


# --- coverage and the rule map ------------------------------------------------------


def test_the_kept_rule_list_is_the_rules_text() -> None:
    if not RULES.exists():
        pytest.skip(f"no rules text at {RULES}: the list in {PRINTED.name} is used as kept")
    assert printed() == _from_text(RULES.read_text(encoding="utf-8"))


def _scenarios() -> list:
    return [load_scenario(p) for p in scenario_files([str(LIBRARY)])]


def test_the_scenarios_cite_every_numbered_rule_of_chapter_4() -> None:
    """Every rule of chapter 4 but the section titles (400, 401, ... 406, which
    only head their rules) is cited by a scenario of this game."""
    ids = printed()
    assert len(ids) == 46
    cited = {rule for sc in _scenarios() for rule in sc.rules}
    missing = [r for r in ids if r not in cited and not re.fullmatch(r"\d{3}", r)]
    assert missing == []
    assert sorted(cited - set(ids) - {OUTSIDE} - {r for r in cited if r.startswith("ruling:S")}) == []


def test_the_scenarios_are_this_games_and_pass() -> None:
    found = _scenarios()
    assert len(found) >= 30
    for sc in found:
        assert sc.game == "scp-tcg-s4"
        report = run_scenario(sc)
        assert report.passed, (report.file, report.failures)


def test_every_rule_belongs_to_exactly_one_module() -> None:
    owners = {rule: scp_tcg.module_of(rule) for rule in printed()}
    assert {rule: mods for rule, mods in owners.items() if len(mods) != 1} == {}
    for module in scp_tcg.RULE_MAP:
        text = (ROOT / "referee" / "rules" / "scp_tcg" / f"{module}.py").read_text(encoding="utf-8")
        for rule, mods in owners.items():
            if mods == [module] and not re.fullmatch(r"\d{3}", rule):
                assert rule in text, f"{rule} is {module}'s, but {module}.py never names it"


def test_every_event_has_a_fold_and_a_sentence() -> None:
    classes = [*EVENT_TYPES.values(), ActionTaken]
    assert state.MUTATORS.missing(classes) == []
    assert sentences.SENTENCES.missing(classes) == []


# --- random positions and random instructions -----------------------------------------

CLASSES = ("Safe", "Euclid", "Keter")


def random_position(rng: random.Random) -> tuple[ZoneState, list]:
    cards = [{"name": f"{c} object {i}", "type": "object", "class": c} for c in CLASSES for i in range(2)]
    cards += [{"name": "Tale 1", "type": "tale"}, {"name": "Incident 1", "type": "incident"}]
    cards += [{"name": f"Personnel {i}", "type": "personnel"} for i in range(2)]
    players: dict = {}
    for seat in SEATS:
        mine: dict = {k: [] for k in ("site", "safe", "euclid", "keter", "tale", "decommissioned", "outside")}
        for c in CLASSES:
            for i in range(2):
                name = f"{c} object {i}"
                place = rng.choice(["site", c.lower(), c.lower(), "decommissioned", "outside"])
                mine[place].append(name)
        if mine["site"] and rng.random() < 0.6:
            mine["site"][0] = {"card": mine["site"][0], "partner": True}
        if len(mine["site"]) > 1:
            host = mine["site"][-1]
            mine["site"][-1] = {"card": host, "above": ["Tale 1"], "below": [f"Safe object {rng.randrange(2)}"]}
        mine["tale"] = ["Incident 1"]
        mine["personnel"] = [{"card": f"Personnel {rng.randrange(2)}", "face_down": rng.random() < 0.5}]
        mine["damage"] = {k: rng.randrange(state.INITIAL_PROTECTION[v]) for k, v in SANDBOXES.items()}
        players[seat] = mine
    data = {"cards": cards, "setup": {"seed": rng.randrange(1000), "players": players}}
    started = start_from_position(data, Document(Path("<random>"), data))
    return started.state, list(started.events)


def zone_errors(s: ZoneState) -> list[str]:
    """What chapter 4 never allows, found in ``s``."""
    errors = []
    places = Counter(s.everywhere())
    errors += [f"{c} is in {n} places" for c, n in places.items() if n > 1]
    errors += [f"{c} is nowhere" for c in s.cards if c not in places]
    for zone in ZONES:
        kind = kind_of(zone)
        for c in s.zones[zone]:
            cd = s.cards[c]
            if kind != "site" and c[0] != zone[0]:
                errors.append(f"400.2: {c} in {zone}")
            if kind == "site" and cd.type != "object":
                errors.append(f"401.1: {c} on {zone}")
            if kind in SANDBOXES and s.object_class(c) != SANDBOXES[kind]:
                errors.append(f"402.1c: {c} in {zone}")
            if kind == "tale" and cd.type not in ("tale", "incident"):
                errors.append(f"403.2: {c} in {zone}")
            if kind == "personnel" and cd.type != "personnel":
                errors.append(f"404.2: {c} in {zone}")
        if kind == "personnel" and len(s.zones[zone]) > 1:
            errors.append(f"404.1b: {zone}")
        if kind in SANDBOXES and s.protection(zone) <= 0:
            errors.append(f"402.6: {zone} at {s.protection(zone)}")
        if kind in SANDBOXES and s.protection(zone) > state.INITIAL_PROTECTION[SANDBOXES[kind]]:
            errors.append(f"402.4: {zone} above its maximum")
    for c in s.partners:
        if c not in s.zones[f"{c[0]}.site"]:
            errors.append(f"401.4a: partner {c} left its site")
    for table in (s.above, s.below):
        for host in table:
            if s.on_site(host) is None and not s.arriving:
                errors.append(f"401.5c: {host} left the site with cards on it")
    for c in s.terminated:
        where = s.place(c)
        if not (where and (where.arriving or kind_of(where.zone or "") == "decommissioned")):
            errors.append(f"405.2a: {c} terminated but not in Decommissioned")
    return errors


def _junk(rng: random.Random, s: ZoneState) -> Instruction:
    """A random instruction, legal or not."""
    cards = list(s.cards)
    do = rng.choice([*MOVES, "draw", "attack"])
    return Instruction(
        rng.choice(SEATS),
        do,
        card=rng.choice(cards) if rng.random() < 0.8 else None,
        to=rng.choice(ZONES) if rng.random() < 0.6 else None,
        at=rng.choice(["top", "bottom", "above", "below", None]),
        host=rng.choice(cards) if rng.random() < 0.3 else None,
        zone=rng.choice(ZONES) if rng.random() < 0.5 else None,
        n=rng.randrange(0, 14) if rng.random() < 0.5 else None,
        instructed=rng.choice([True, None]),
        object_class=rng.choice([None, None, None, "Safe", "Keter", "Thaumiel"]),
    )


def _listed_in_full(a: Instruction, s: ZoneState) -> bool:
    """Accepted instructions the legal list holds (all but the unbounded arguments it bounds)."""
    if a.object_class is not None:
        return False
    if a.do in ("damage", "raise_protection"):
        return a.n is not None and a.n <= 12 and a.n <= instructions.sandbox.maximum(a.zone or "")
    if a.do == "reorder":
        return a.zone is not None and len(s.zones[a.zone]) <= instructions.MAX_ORDERED
    if a.do == "look" and a.instructed is False:
        return False
    return True


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_instructions_keep_every_zone_rule(seed: int) -> None:
    rng = random.Random(seed)
    s, log = random_position(rng)
    assert zone_errors(s) == []
    for _ in range(30):
        legal = SCP.legal_actions(s)
        assert legal, "the table can always enter an instruction"
        listed = set(legal)
        for _ in range(25):
            junk = _junk(rng, s)
            refusal = SCP.is_legal(s, junk)
            if refusal is not None:
                assert junk not in listed, (junk, refusal)
            elif _listed_in_full(junk, s):
                assert SCP.canonical(s, junk) in listed, junk
        action = rng.choice(legal)
        applied = SCP.apply(s, action)
        before = s
        for event in applied.events:
            for viewer in ("judge", "A", "B", "public"):
                assert sentences.describe(event, before, viewer)
            before = state.evolve(before, event)
        s = applied.state
        log.extend(applied.events)
        assert zone_errors(s) == [], (action, zone_errors(s))
        d = engine.decision(s)
        assert (d.player is None) == (not s.arriving)
    assert state.fold(log) == s
    assert SCP.decode_state(SCP.encode_state(s)) == s


def test_the_log_never_names_a_card_nobody_may_see() -> None:
    """215's promise for this game: a sentence names a card only to a viewer
    who may see it before or after the event (a name a visible card also has
    may appear, of course)."""
    rng = random.Random(7)
    s, _ = random_position(rng)
    for _ in range(40):
        action = rng.choice(SCP.legal_actions(s))
        before = s
        for event in SCP.apply(s, action).events:
            after = state.evolve(before, event)
            for viewer in ("A", "B", "public"):
                text = sentences.describe(event, before, viewer)
                seen = _shown(before, viewer) | _shown(after, viewer)
                seen_names = {s.cards[c].name for c in seen}
                secret = {cd.name for c, cd in s.cards.items() if c not in seen} - seen_names
                assert [n for n in secret if n in text] == [], (viewer, text)
            before = after
        s = before


def _shown(s: ZoneState, viewer: str) -> set[str]:
    from projections.scp_tcg.views import sees

    return {c for c in s.cards if sees(s, c, viewer)}


def test_views_hide_what_chapter_4_hides() -> None:
    rng = random.Random(11)
    s, _ = random_position(rng)
    for viewer in ("A", "B", "public"):
        view = state_view(s, viewer)
        for zone in ZONES:
            cards = view["zones"][zone]["cards"]
            assert view["zones"][zone]["count"] == len(s.zones[zone])  # 402.2: anyone counts
            kind = kind_of(zone)
            if kind in SANDBOXES:
                assert all((c is None) == (cid not in s.face_up) for c, cid in zip(cards, s.zones[zone]))
            elif kind in ("tale", "outside"):
                assert set(cards) <= {None}
            elif kind == "personnel":
                assert all((c is None) == (cid in s.face_down) for c, cid in zip(cards, s.zones[zone]))
            else:
                assert None not in cards
        assert "ids" not in view["zones"]["A.site"]
    judge = state_view(s, "judge")
    assert all(None not in judge["zones"][z]["cards"] for z in ZONES)


# --- what chapter 4 does not decide ------------------------------------------------------


def _position() -> ZoneState:
    return random_position(random.Random(5))[0]


@pytest.mark.parametrize("do", ["draw", "attack", "play", "breach"])
def test_what_chapter_4_does_not_decide_is_refused_as_such(do: str) -> None:
    refusal = SCP.is_legal(_position(), Instruction("A", do))
    assert refusal is not None and refusal.rule == OUTSIDE
    assert "outside the zone rules of chapter 4" in refusal.reason


def test_a_fragment_starts_from_a_position_only() -> None:
    """Chapter 4 has no decks: the ruleset lacks the capability, and the
    kernel says so in one line citing 4 when asked to deal a match."""
    assert SCP.decks is None and SCP.tournaments is None and SCP.result(_position()) is None
    with pytest.raises(IllegalAction, match="has no decks or card pools: start from a position instead") as refused:
        SCP.start({"A": [], "B": []}, seed=1)
    assert refused.value.refusal.rule == OUTSIDE


def test_a_site_is_for_objects_and_chapter_4_says_no_more() -> None:
    s = _position()
    tale = next(c for c in s.zones["A.tale"])
    refusal = SCP.is_legal(s, Instruction("A", "move", card=tale, to="A.site"))
    assert refusal is not None and refusal.rule == OUTSIDE and "401.1" in refusal.reason


def _ordering() -> ZoneState:
    """B's process has terminated two of A's objects at once: A must order them (405.4)."""
    data = {
        "pool": str(LIBRARY / "pools" / "cards.yaml"),
        "setup": {
            "players": {
                "A": {"site": ["Safe object", "Keter object"], "keter": ["Keter object 2"]},
                "B": {"decommissioned": ["Test tale"]},
            }
        },
    }
    started = start_from_position(data, Document(LIBRARY / "ordering.yaml", data))
    s = started.state
    return SCP.apply(s, SCP.resolve(s, Instruction("B", "terminate", cards=("Safe object", "Keter object")))).state


def test_counting_and_looking_at_decommissioned_stay_open_while_an_owner_orders() -> None:
    """402.2 and 405.3 say "at any time": while A orders arriving cards
    (405.4) either seat's count of a sandbox and look at a Decommissioned
    zone are listed and taken; a process's instruction (a move, a look it
    tells a player to take) waits for the order, citing 405.4."""
    s = _ordering()
    d = SCP.decision(s)
    assert d is not None and (d.player, d.kind) == ("A", "order_decommissioned")
    legal = [a.to_dict() for a in SCP.legal_actions(s)]
    for seat in SEATS:
        for zone in ("A.keter", "B.safe"):
            assert {"player": seat, "do": "count", "zone": zone} in legal
            assert SCP.is_legal(s, Instruction(seat, "count", zone=zone)) is None
        for zone in ("A.decommissioned", "B.decommissioned"):
            assert {"player": seat, "do": "look", "zone": zone} in legal
            assert SCP.is_legal(s, Instruction(seat, "look", zone=zone)) is None
    assert {a["do"] for a in legal} == {"order", "count", "look"}
    # Read by people, the owner's order comes first (`referee legal`, the board's controls).
    assert list(ruleset.kind_order(SCP, d))[:3] == ["order", "count", "look"]
    counted = SCP.apply(s, Instruction("B", "count", zone="A.keter"))
    assert [type(e).__name__ for e in counted.events] == ["ActionTaken", "SandboxCounted"]
    assert SCP.decision(counted.state) == d  # still A's order
    for refused in (
        Instruction("B", "move", card="B:1", to="B.outside"),
        Instruction("A", "look", zone="B.decommissioned", instructed=True),
        Instruction("B", "look", zone="A.keter", instructed=True),
        Instruction("B", "count", zone="A.keter", card="A:3"),
    ):
        refusal = SCP.is_legal(s, refused)
        assert refusal is not None and refusal.rule in ("405.4", "402.2"), (refused, refusal)
    unasked = SCP.is_legal(s, Instruction("B", "look", zone="A.keter"))
    assert unasked is not None and unasked.rule == "402.2"  # nobody looks into a sandbox unasked, ever


# --- the scenario files, read by the same command ------------------------------------------


def test_referee_scenario_check_runs_both_games(tmp_path: Path) -> None:
    hm = next(p for p in scenario_files([str(ROOT / "scenarios" / "215-zones")]))
    scp = next(iter(scenario_files([str(LIBRARY)])))
    result = CliRunner().invoke(cli, ["scenario", "check", str(hm), str(scp), "--json"])
    assert result.exit_code == 0, result.output
    assert '"passed": 2' in result.output


@pytest.mark.parametrize(
    ("text", "where", "words"),
    [
        ("game: chess\nname: x\nrules: [x]\nsetup: {}\n", "game", "expected one of harem-master, scp-tcg-s4"),
        (
            "game: scp-tcg-s4\nname: x\nrules: ['400.1']\ncards: [{name: K, type: object, class: Keter}]\n"
            "setup: {players: {A: {safe: [K]}}}\n",
            "setup.players.A.safe[0]",
            "402.1c",
        ),
        (
            "game: scp-tcg-s4\nname: x\nrules: ['400.1']\ncards: [{name: T, type: tale}]\n"
            "setup: {players: {A: {tale: [T]}}}\nactions: [{player: A, do: move, card: T, to: A.graveyard}]\n",
            "actions[0].to",
            "expected one of A.site, A.safe",
        ),
        (  # a typo gets the zone it is probably a typo of, not the list of every zone
            "game: scp-tcg-s4\nname: x\nrules: ['400.1']\ncards: [{name: T, type: tale}]\n"
            "setup: {players: {A: {tale: [T]}}}\nactions: [{player: A, do: count, zone: A.KETER}]\n",
            "actions[0].zone",
            "no zone 'A.KETER' in this game; did you mean A.keter?",
        ),
        (
            "game: scp-tcg-s4\nname: x\nrules: ['400.1']\ncards: [{name: T, type: tale}]\n"
            "setup: {players: {A: {tale: [T]}}}\nactions: [{player: A, do: damage, zone: A.safe}]\n",
            "actions[0]",
            "missing required key 'n'",
        ),
        (
            "game: scp-tcg-s4\nname: x\nrules: ['400.1']\ncards: [{name: O, type: object}]\nsetup: {}\n",
            "cards[0]",
            "needs class",
        ),
    ],
)
def test_a_bad_scenario_file_is_an_error_naming_the_place(tmp_path: Path, text: str, where: str, words: str) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_scenario(path)
    message = caught.value.describe()
    assert where in message and words in message, message


def test_the_command_reports_a_bad_file_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("game: scp-tcg-s4\nname: x\nrules: ['400.1']\nsetup: {players: {C: {}}}\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "referee.cli", "scenario", "check", str(path)], capture_output=True, text=True, cwd=ROOT
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("error: ") and "setup.players" in done.stderr and "Traceback" not in done.stderr


def test_described_instructions_keep_face_down_cards_face_down() -> None:
    s = _position()
    hidden = next(c for z in ZONES if kind_of(z) in SANDBOXES for c in s.zones[z] if c not in s.face_up)
    shown = next(c for c in s.zones["A.decommissioned"] + s.zones["B.decommissioned"])
    assert SCP.describe_action(s, Instruction("A", "exile", card=hidden))["card"] == "face-down"
    assert SCP.describe_action(s, Instruction("A", "exile", card=shown))["card"] == s.cards[shown].name


def test_a_stored_match_is_worked_from_the_command_line(tmp_path: Path) -> None:
    """`referee new --position` stores a chapter-4 position; `act` takes its
    instructions (arguments by --arg, as its ActionSpec.args declare them);
    `state`, `log` and `legal` speak through the ruleset; `rewind` cites 4."""
    path = LIBRARY / "402.6-a-sandbox-at-zero-protection-is-restored-and-breached.yaml"
    db = ["--db", f"sqlite:///{tmp_path / 'm.db'}"]

    def run(*args: str, code: int = 0) -> Any:
        result = CliRunner().invoke(cli, [*args, *db])
        assert result.exit_code == code, result.output
        return result

    assert run("new", "--position", str(path), "--id", "s1").output.splitlines()[0] == "s1"
    assert "A.safe              1  Safe object  protection 1/4" in run("state", "s1").output
    legal = json.loads(run("legal", "s1", "--json").output)
    assert legal["player"] is None and legal["version"] == 1 and legal["actions"]
    acted = json.loads(run("act", "s1", "B", "damage", "--arg", "zone=A.safe", "--arg", "n=1", "--json").output)
    assert [r["rule"] for r in acted["events"]] == ["402.5", "402.5", "402.6a", "402.6b"]
    out = run("act", "s1", "A", "move", "Safe object", "--arg", "to=A.decommissioned").output
    assert "Safe object goes from A's Safe sandbox to A's Decommissioned zone." in out
    # A typo, an unknown argument and a missing one are bad input; a refusal cites its rule.
    assert (
        "did you mean 'Safe object'" in run("act", "s1", "A", "move", "Safe objec", "--arg", "to=A.site", code=2).output
    )
    assert "expected NAME=VALUE" in run("act", "s1", "A", "move", "Safe object", "--arg", "too=x", code=2).output
    assert "needs to" in run("act", "s1", "A", "move", "Safe object", code=2).output
    refusal = run("act", "s1", "A", "look", "--arg", "zone=B.keter", code=1).output
    assert "refused (402.2)" in refusal
    # A mistyped zone is bad input with the zone it probably means; "a sandbox"
    # (402.1a) is a word of the notation, which the rules answer as a scenario's do.
    typo = run("act", "s1", "B", "damage", "--arg", "zone=A.Keter", "--arg", "n=1", code=2).output
    assert "no zone 'A.Keter' in this game; did you mean 'A.keter'?" in typo and "A.site" not in typo
    named = run("act", "s1", "B", "damage", "--arg", "zone=A.sandbox", "--arg", "n=1", code=1).output
    assert "refused (402.1a)" in named and "Nothing was recorded." in named
    events = json.loads(run("log", "s1", "--json").output)["events"]
    assert len(events) == 7 and events[-1]["type"] == "CardMoved"
    # A rewind cites 4 (ruling:S13), not Harem Master's 410.
    assert "not one of '4'" in run("rewind", "s1", "--to", "5", "--rule", "410.1", "--reason", "x", code=2).output
    dry = json.loads(run("rewind", "s1", "--to", "5", "--rule", "4", "--reason", "x", "--dry-run", "--json").output)
    assert [r["position"] for r in dry["undo"]] == [7, 6] and dry["reveals"]
    run("rewind", "s1", "--to", "5", "--rule", "4", "--reason", "the move was not instructed", "--by", "Kim")
    rows = json.loads(run("log", "s1", "--json").output)["events"]
    assert [r["retracted"] for r in rows[5:7]] == [True, True] and rows[7]["rule"] == "4"
    assert "A.safe              1  Safe object" in run("state", "s1").output
    assert "Safe object" not in run("state", "s1", "--as", "B").output  # a sandbox is hidden (402.2)
    assert "Judge Kim notes: B called a judge." in run("note", "s1", "B called a judge", "--by", "Kim").output
    assert "refused (4)" in run("skip-step", "s1", "301", code=1).output


THIRTEEN = ROOT / "tests" / "data" / "scp-tcg-13-cards.yaml"


def test_legal_reads_each_instruction_apart_and_groups_a_long_list(tmp_path: Path) -> None:
    """13 cards give about 1,300 legal instructions: `referee legal` prints
    one line per instruction, no two alike (a card says where it lies, so
    two face-down cards of one sandbox read apart), under headings a person
    can follow (the counts by kind, then each kind and each card or zone
    with its count); `--json` keeps every instruction, in the referee's order.
    A seat reads a face-down card by where it lies, never by its id."""
    db = ["--db", f"sqlite:///{tmp_path / 'm.db'}"]

    def run(*args: str) -> str:
        result = CliRunner().invoke(cli, [*args, *db])
        assert result.exit_code == 0, result.output
        return result.output

    run("new", "--position", str(THIRTEEN), "--id", "t13")
    listed = json.loads(run("legal", "t13", "--json"))["actions"]
    text = run("legal", "t13")
    numbered = re.findall(r"(?m)^\s+(\d+)\. (.*)$", text)
    assert len(listed) > 1_200 and [int(n) for n, _ in numbered] == list(range(1, len(listed) + 1))
    lines = [line for _, line in numbered]
    assert len(set(lines)) == len(lines)
    kinds = Counter(a["do"] for a in listed)
    summary = text.splitlines()[1]
    assert summary.startswith(f"{len(listed)} legal actions: move {kinds['move']}, exile {kinds['exile']},")
    assert f"\nmove (400.2): {kinds['move']}\n" in text and f"\ncount (402.2): {kinds['count']}\n" in text
    keter_2 = [a for a in listed if a["do"] == "move" and a.get("card_at") == "A.keter #2"]
    assert keter_2 and {a["card"] for a in keter_2} == {"face-down"} and {a["card_id"] for a in keter_2} == {"A:6"}
    assert f"\n  card=face-down (A.keter #2): {len(keter_2)}\n" in text
    assert "B move card=face-down (A.keter #2) [A:6] to=A.decommissioned" in lines
    assert "B move card=face-down (A.keter #1) [A:5] to=A.decommissioned" in lines
    # A seat: the same instructions, the face-down cards by where they lie only.
    seat = json.loads(run("legal", "t13", "--as", "A", "--json"))["actions"]
    assert len(seat) == len(listed)
    hidden = {"A:4", "A:5", "A:6"}  # A's Safe and Keter sandboxes
    assert not [a for a in seat if a.get("card_id") in hidden or a.get("host_id") in hidden]
    seat_text = run("legal", "t13", "--as", "A")
    assert "B move card=face-down (A.keter #2) to=A.decommissioned\n" in seat_text
    assert "Keter object 2" not in seat_text and "[A:6]" not in seat_text


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_no_two_legal_instructions_read_alike_along_random_play(seed: int) -> None:
    """Whatever the play leads to (stacks, arrivals, shuffles, a partner
    that stays), every legal instruction has a line of its own for every
    viewer, so the board's one control per instruction logs exactly it."""
    from referee.web.anygame import line_of

    rng = random.Random(seed)
    s, _ = random_position(rng)
    for _ in range(12):
        legal = SCP.legal_actions(s)
        if not legal:
            break
        for viewer in ("judge", "A", "public"):
            lines = Counter(line_of(SCP, SCP.describe_action(s, a, viewer)) for a in legal)
            assert [line for line, n in lines.items() if n > 1] == [], viewer
        s = SCP.apply(s, rng.choice(legal)).state


# --- the documentation a user has ------------------------------------------------------


def test_the_docs_describe_every_instruction_key_event_and_reading() -> None:
    from referee.rules.scp_tcg import position, scenario

    doc = (ROOT / "docs" / "games" / "scp-tcg-s4.md").read_text(encoding="utf-8")
    for do, kind in MOVES.items():
        row = next((line for line in doc.splitlines() if line.startswith(f"| `{do}` |")), None)
        assert row is not None, do
        for arg in kind.args:
            assert f"`{arg.name}`" in row, (do, arg.name)
    keys = [*scenario.EXPECT_KEYS, *scenario.ZONE_CHECK_KEYS, *scenario.SCENARIOS.keys, *position.SETUP_KEYS]
    keys += [*position.PLAYER_KEYS, *position.ENTRY_KEYS, *{k for ks in position.EXTRA_KEYS.values() for k in ks}]
    assert [k for k in keys if not re.search(rf"(?<![\w-]){re.escape(k)}(?![\w-])", doc)] == []
    assert [name for name in EVENT_TYPES if f"`{name}`" not in doc] == []
    rulings = (ROOT / "docs" / "rulings.md").read_text(encoding="utf-8")
    cited = set(re.findall(r"S\d+", " ".join(r for sc in _scenarios() for r in sc.rules if r.startswith("ruling:"))))
    for path in [
        *(ROOT / "referee" / "rules" / "scp_tcg").glob("*.py"),
        *(ROOT / "projections" / "scp_tcg").glob("*.py"),
    ]:
        cited.update(re.findall(r"\bS(\d+)\b", path.read_text(encoding="utf-8")))
    cited = {c if c.startswith("S") else f"S{c}" for c in cited}
    assert cited and [s for s in sorted(cited) if f"**{s}. " not in rulings] == []


# --- a judge's rewinds (referee.corrections through ``rewinds``, ruling:S13) ---------------


def _played() -> tuple[list, ZoneState]:
    """A position and five instructions, some showing hidden cards, one
    setting off 402.6's automatic steps: the log and the state after it."""
    cards = [{"name": f"{c} object {i}", "type": "object", "class": c} for c in CLASSES for i in range(2)]
    cards += [{"name": "Personnel 0", "type": "personnel"}]
    empty = {k: [] for k in ("site", "safe", "euclid", "keter", "tale", "decommissioned", "outside")}
    players = {
        "A": {
            **empty,
            "site": ["Euclid object 0"],
            "safe": ["Safe object 0", "Safe object 1"],
            "euclid": ["Euclid object 1"],
            "keter": ["Keter object 0"],
            "personnel": [{"card": "Personnel 0", "face_down": True}],
        },
        "B": {**empty, "keter": ["Keter object 1"]},
    }
    data = {"cards": cards, "setup": {"seed": 3, "players": players}}
    started = start_from_position(data, Document(Path("<rewinds>"), data))
    log, s = list(started.events), started.state
    for raw in (
        {"player": "A", "do": "reveal_top", "zone": "A.safe"},
        {"player": "A", "do": "look", "zone": "A.euclid", "instructed": True},
        {"player": "A", "do": "move", "card": "Safe object 1", "to": "A.decommissioned"},
        {"player": "B", "do": "damage", "zone": "A.keter", "n": 13},
        {"player": "A", "do": "reveal_personnel"},
    ):
        applied = SCP.apply(s, SCP.resolve(s, SCP.action_from_mapping(raw), started.labels))
        log += applied.events
        s = applied.state
    return log, s


def _without_position(s: ZoneState) -> dict:
    return {k: v for k, v in s.__dict__.items() if k != "position"}


def test_a_rewind_shows_what_it_undoes_and_restores_the_fold_up_to_its_target() -> None:
    from referee import corrections

    log, s = _played()
    assert any(type(e).__name__ == "SandboxBreached" for e in log)  # 402.6 ran by itself
    states = corrections.states_along(log)
    assert states[-1] == s
    to = corrections.position_before_action(log, 2)  # just before the instructed look
    rows = corrections.impact(log, to, states)
    assert [r["position"] for r in rows] == list(range(len(log), to, -1))
    for row in rows:
        event = log[row["position"] - 1]
        assert row["type"] == type(event).__name__ and row["text"] == SCP.describe(event, states[row["position"] - 1])
    shown = {r["type"]: r["revealed"] for r in rows if r["reveals"]}
    assert set(shown) == {"ZoneLooked", "CardMoved", "PersonnelRevealed"}
    assert "Safe object 1 left a hidden zone face up" in shown["CardMoved"]
    assert "personnel Personnel 0 was turned face up (404.1a)" in shown["PersonnelRevealed"]
    assert not any(r["reveals"] for r in rows if r["type"] in ("ActionTaken", "SandboxDamaged", "SandboxBreached"))
    # Back to before the first instruction: the top card turned is one the rewind cannot hide.
    first = corrections.impact(log, corrections.position_before_action(log, 1), states)
    assert any("Safe object 0, the top card of A.safe, was turned face up" in (r["revealed"] or "") for r in first)

    done = corrections.rewind(s, log, to, rule="4", reason="the look was not instructed", judge="Kim", states=states)
    assert done.undone == rows
    assert _without_position(done.state) == _without_position(SCP.fold(log[:to]))
    assert done.state.position == len(log) + 1
    after = [*log, *done.events]
    assert SCP.fold(after) == done.state
    assert corrections.rewinds_consistent(after) == []
    assert SCP.describe(done.events[0], s) == (
        f"Judge Kim rewinds to just after event {to} (4): the look was not instructed; "
        f"events {to + 1} to {len(log)} are retracted."
    )


def test_a_rewind_with_replay_enters_the_later_instructions_again() -> None:
    from referee import corrections

    log, s = _played()
    to = corrections.position_before_action(log, 3)
    done = corrections.rewind(s, log, to, rule="4", reason="entered twice", replay=True)
    assert done.replay is not None and (done.replay.attempted, done.replay.replayed) == (3, 3)
    assert _without_position(done.state) == _without_position(s)


def test_a_rewind_cites_what_chapter_4_leaves_to_the_judge() -> None:
    from referee import corrections

    log, s = _played()
    to = corrections.position_before_action(log, 2)
    refusals = []
    for wrong in (
        lambda: corrections.rewind(s, log, to, rule="410.1", reason="x"),
        lambda: corrections.rewind(s, log, to + 1, rule="4", reason="x"),  # inside the look's own events
        lambda: corrections.skip_step(s, log, "402.7"),
        lambda: corrections.position_of_step(log, 1, "402.6"),
    ):
        with pytest.raises(IllegalAction) as caught:
            wrong()
        refusals.append(caught.value.refusal)
    assert [r.rule for r in refusals] == [OUTSIDE] * 4
    assert refusals[0].reason == "A rewind cites 4, not '410.1'."
    assert "(chapter 5 has them)" in refusals[3].reason and "no record mode" in refusals[2].reason
