"""The board of a game other than Harem Master (SCP-TCG chapter 4), drawn
from its ruleset alone (``referee.web.anygame``), through the HTTP
interface: its zones as each viewer may see them (402.2: nobody but the
judge reads a sandbox; 405.3: anyone reads Decommissioned), its log in its
sentences, who must act, the controls generated from its ``ActionSpec``s
and what they log (authenticated, CSRF-protected, version-checked,
recorded with who entered it), a judge's note and rewind citing ``4``, and
the match list naming its game. The browser test is in tests/browser/."""

from __future__ import annotations

import json
import re
from html import unescape
from pathlib import Path

import pytest

from referee.store import MatchStore
from referee.web import tokens
from tests.test_console import KEY, app_for, form_of, records_of, version_of
from tests.test_web import judge_auth, referee

ROOT = Path(__file__).resolve().parent.parent
POSITION = """
game: scp-tcg-s4
name: Zones on the board
rules: ["402.2", "405.3"]
pool: {pool}
setup:
  players:
    A: {{site: [Euclid object], decommissioned: [Test tale]}}
    B: {{keter: [Keter object, Keter object 2], safe: [Safe object]}}
"""
HIDDEN = ("Keter object", "Safe object")  # in B's sandboxes: the judge's alone (402.2)
SHOWN = ("Euclid object", "Test tale")  # A's site (ruling:S1) and Decommissioned (405.3): everyone's


@pytest.fixture
def db(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'zones.db'}"


def new_zones_match(db: str, tmp_path: Path, mid: str = "s1") -> str:
    position = tmp_path / "zones.yaml"
    position.write_text(POSITION.format(pool=ROOT / "scenarios/scp-tcg/pools/cards.yaml"))
    referee(db, "new", "--position", str(position), "--id", mid, "--title", "Table 3")
    return mid


def forms(html: str) -> dict[str, str]:
    """Each action form of the page: its ``do`` and its HTML."""
    return dict(re.findall(r'data-action-form="([a-z_]+)">(.*?)</form>', html, re.S))


def fields_of(html: str) -> dict[str, str]:
    """The hidden fields of the console's first form (csrf, version, entry, as)."""
    return form_of(html)


def test_each_viewer_sees_the_zones_the_view_shows_them_and_no_more(db: str, tmp_path: Path) -> None:
    match = new_zones_match(db, tmp_path)
    with app_for(db) as http:
        judge = http.get(f"/matches/{match}", headers=judge_auth())
        assert judge.status_code == 200
        assert 'data-game="scp-tcg-s4"' in judge.text
        for name in (*HIDDEN, *SHOWN):
            assert name in judge.text, name
        assert "protection <b>12</b>/12" in judge.text  # B's Keter sandbox (402.4)
        assert "402.2: face down, nobody looks, anyone counts" in judge.text
        # Either seat may enter what a process does (the decision is nobody's in particular).
        assert "<b>Either player</b> must enter the next thing a process does" in judge.text
        # What the view holds beyond its zones, drawn as data (401.4's partners, 402.6b's breaches...).
        extras = re.search(r'<section class="extras"><h3>More of this position</h3>(.*?)</section>', judge.text, re.S)
        assert extras and '<span class="k">breaches</span>' in extras.group(1)
        assert '<span class="k">zones</span>' not in extras.group(1)  # drawn above, not again
        for viewer in ("public", "A", "B"):
            token = f"&token={tokens.player_token(KEY, match, viewer)}" if viewer != "public" else ""
            page = http.get(f"/matches/{match}?as={viewer}{token}")
            assert page.status_code == 200, (viewer, page.text)
            text = unescape(page.text)
            for name in HIDDEN:
                assert name not in text, (viewer, name)
            for name in SHOWN:
                assert name in text, (viewer, name)
            # B's Keter sandbox: two cards, counted, shown face down.
            keter = re.search(r'data-zone="B.keter">(.*?)</div>\s*</div>', page.text, re.S)
            assert keter and '<span class="count">2</span>' in keter.group(1)
            assert keter.group(1).count('class="card back"') == 2
    with app_for(db) as fresh:  # no session yet
        # A player's page without the player's link is refused; the judge's needs the password.
        assert fresh.get(f"/matches/{match}?as=A").status_code == 403
        assert fresh.get(f"/matches/{match}?as=judge").status_code == 401


def test_the_log_reads_in_the_games_sentences_and_the_match_list_names_the_game(db: str, tmp_path: Path) -> None:
    match = new_zones_match(db, tmp_path)
    referee(db, "act", match, "A", "count", "--arg", "zone=B.keter")
    with app_for(db) as http:
        log = http.get(f"/matches/{match}/log")
        assert log.status_code == 200
        assert "A position is set up by hand" in log.text
        counted = [t for t in re.findall(r'<span class="text">(.*?)</span>', log.text) if "count" in t]
        assert counted and all("Keter object" not in t for t in counted)
        cli = json.loads(referee(db, "log", match, "--as", "public", "--json"))
        assert [unescape(t) for t in re.findall(r'<span class="text">(.*?)</span>', log.text)] == [
            e["text"] for e in cli["events"]
        ]
        tables = http.get("/")
        row = re.search(rf'<tr data-match="{match}">(.*?)</tr>', tables.text, re.S)
        assert row, tables.text
        assert 'data-game="scp-tcg-s4"' in row.group(1) and "chapter 4 (zones)" in row.group(1)
        assert "Either player must enter the next thing" in row.group(1)


def test_the_controls_are_one_form_per_legal_kind_with_the_declared_arguments(db: str, tmp_path: Path) -> None:
    from referee import ruleset

    game = ruleset.get("scp-tcg-s4")
    match = new_zones_match(db, tmp_path)
    with MatchStore(db, read_only=True) as store:
        state = store.load(match)[0]
    legal_kinds = {a.do for a in game.legal_actions(state)}
    with app_for(db) as http:
        page = http.get(f"/matches/{match}", headers=judge_auth())
        found = forms(page.text)
        assert set(found) == legal_kinds and "count" in found and "damage" in found
        for do, html in found.items():
            for arg in game.actions[do].args or ():
                assert f'name="{arg.name}"' in html, (do, arg.name)
        damage = found["damage"]
        assert re.search(r'<select name="zone" data-arg="zone" required>', damage)
        assert 'name="n" data-arg="n" inputmode="numeric"' in damage
        # The judge's labels name the cards (the judge's view does); a seat's never a hidden one.
        assert re.search(r'<option value="(B:\d+)">Keter object \(\1\)</option>', found["move"])
    with app_for(db) as fresh:
        public = fresh.get(f"/matches/{match}")
        assert "data-action-form" not in public.text  # the public neither logs nor reads the legal list
        assert "legal actions are shown to the judge" in public.text


def test_a_form_logs_through_the_ruleset_with_who_entered_it(db: str, tmp_path: Path) -> None:
    match = new_zones_match(db, tmp_path)
    with app_for(db) as http:
        page = http.get(f"/matches/{match}", headers=judge_auth())
        fields = fields_of(page.text)
        before = version_of(db, match)
        done = http.post(
            f"/matches/{match}/act",
            headers={**judge_auth(), "X-Requested-With": "referee-console"},
            data={**fields, "do": "damage", "player": "A", "zone": "B.keter", "n": "5"},
        )
        assert done.status_code == 200, done.text
        assert done.headers["x-outcome"] == "logged"
        assert "protection <b>7</b>/12" in done.text
        after = version_of(db, match)
        assert after == before + 2  # the instruction's record and the damage (402.5)
        assert f'data-version="{after}"' in done.text
        written = records_of(db, match)[before:]
        assert {r.by for r in written} == {"judge"} and len({r.entry for r in written}) == 1
        # The same entry sent again is recognised, not logged twice.
        again = http.post(
            f"/matches/{match}/act",
            headers=judge_auth(),
            data={**fields, "do": "damage", "player": "A", "zone": "B.keter", "n": "5"},
        )
        assert again.headers["x-outcome"] == "repeat" and version_of(db, match) == after


def test_refusals_bad_forms_stale_pages_and_missing_tokens_record_nothing(db: str, tmp_path: Path) -> None:
    match = new_zones_match(db, tmp_path)
    with app_for(db) as http:
        fields = fields_of(http.get(f"/matches/{match}", headers=judge_auth()).text)
        version = version_of(db, match)

        def post(**data: str):
            return http.post(f"/matches/{match}/act", headers=judge_auth(), data={**fields, **data})

        # 402.2: nobody looks into a sandbox unless a process says so.
        refused = post(do="look", player="A", zone="B.keter")
        assert refused.status_code == 422 and refused.headers["x-outcome"] == "refused"
        assert "Refused (402.2)" in refused.text
        assert post(do="fly", player="A").status_code == 400  # not an action of the game
        assert post(do="damage", player="C", zone="B.keter", n="1").status_code == 400  # no such seat
        missing = post(do="damage", player="A", zone="B.keter")
        assert missing.status_code == 400 and "damage needs n" in missing.text
        assert post(do="damage", player="A", zone="B.keter", n="²").status_code == 400
        assert post(do="move", player="A", card="Nobody", to="A.site").status_code == 422
        no_csrf = http.post(
            f"/matches/{match}/act",
            headers=judge_auth(),
            data={**{k: v for k, v in fields.items() if k != "csrf"}, "do": "count", "player": "A", "zone": "B.keter"},
        )
        assert no_csrf.status_code == 403
        with app_for(db) as fresh:
            csrf = re.search(r'data-csrf="([^"]+)"', fresh.get(f"/matches/{match}").text).group(1)
            public = fresh.post(
                f"/matches/{match}/act", data={**fields, "csrf": csrf, "do": "count", "player": "A", "zone": "B.keter"}
            )
            assert public.status_code == 403 and "Logging needs the judge password" in public.text
        assert version_of(db, match) == version
        # Logged at a terminal meanwhile: the page's version is stale, nothing is recorded.
        referee(db, "act", match, "B", "count", "--arg", "zone=A.keter")
        stale = post(do="count", player="A", zone="B.keter")
        assert stale.status_code == 409 and stale.headers["x-outcome"] == "stale"
        assert "was logged meanwhile" in unescape(stale.text)
        assert version_of(db, match) == version + 2


def test_a_judge_notes_and_rewinds_citing_the_games_own_rule(db: str, tmp_path: Path) -> None:
    match = new_zones_match(db, tmp_path)
    referee(db, "act", match, "A", "damage", "--arg", "zone=B.keter", "--arg", "n=3")
    with app_for(db) as http:
        page = http.get(f"/matches/{match}", headers=judge_auth())
        assert 'data-preview="1"' in page.text  # "rewind here?" on each log line, for the judge
        fields = fields_of(page.text)
        noted = http.post(
            f"/matches/{match}/note", headers=judge_auth(), data={**fields, "text": "B disputes the damage"}
        )
        assert noted.headers["x-outcome"] == "logged" and "B disputes the damage" in noted.text
        preview = http.get(f"/matches/{match}/rewind?to=1", headers=judge_auth())
        assert preview.status_code == 200
        assert 'name="rule" value="4" checked' in preview.text and "410.1" not in preview.text
        version = version_of(db, match)
        form = {**form_of(preview.text), "to": "1", "reason": "no process dealt that damage"}
        wrong = http.post(f"/matches/{match}/rewind", headers=judge_auth(), data={**form, "rule": "410.1"})
        assert wrong.status_code == 400 and "expected 4 (" in wrong.text
        assert version_of(db, match) == version
        done = http.post(f"/matches/{match}/rewind", headers=judge_auth(), data={**form, "rule": "4"})
        assert done.status_code == 200 and done.headers["x-outcome"] == "logged", done.text
        assert "protection <b>12</b>/12" in done.text  # the damage is undone
    with app_for(db) as sam:  # only a judge rewinds: a scorekeeper of the match is refused
        keeper = sam.get(tokens.scorekeeper_link(KEY, match, "Sam"), follow_redirects=True)
        assert "data-action-form" in keeper.text  # the scorekeeper logs instructions
        denied = sam.post(
            f"/matches/{match}/rewind", data={**form_of(keeper.text), "to": "1", "rule": "4", "reason": "x"}
        )
        assert denied.status_code == 403 and "Only a judge rewinds" in denied.text
    rewound = [r for r in records_of(db, match) if type(r.event).__name__ == "Rewound"]
    assert len(rewound) == 1 and rewound[0].event.rule == "4" and rewound[0].by == "judge"


def test_a_judge_starts_a_match_of_the_game_from_a_pasted_position(db: str, tmp_path: Path) -> None:
    new_zones_match(db, tmp_path)  # the store exists, with a match of the cards
    text = POSITION.format(pool="s1")  # that match's cards: a pasted position names no file on the server
    with app_for(db) as http:
        page = http.get("/new", headers=judge_auth())
        csrf = re.search(r'name="csrf" value="([^"]+)"', page.text).group(1)  # type: ignore[union-attr]
        for pool in (ROOT / "scenarios/scp-tcg/pools/cards.yaml", "/etc/passwd", "/no/such/file", "m-00000000"):
            refused = http.post(
                "/new", headers=judge_auth(), data={"csrf": csrf, "scenario": POSITION.format(pool=pool), "title": "x"}
            )
            assert refused.status_code == 400 and "never a file on the server" in refused.text
            assert "root:" not in refused.text and "no such file" not in refused.text.lower()
        made = http.post(
            "/new",
            headers=judge_auth(),
            data={"csrf": csrf, "scenario": text, "title": "Pasted"},
            follow_redirects=False,
        )
        assert made.status_code == 303
        match = made.headers["location"].rsplit("/", 1)[-1]
        shown = http.get(f"/matches/{match}", headers=judge_auth())
        assert 'data-game="scp-tcg-s4"' in shown.text and "Keter object" in shown.text
    with MatchStore(db, read_only=True) as store:
        assert store.ruleset(match).id == "scp-tcg-s4"


def test_a_judge_call_shows_as_a_banner_until_a_judge_answers(db: str, tmp_path: Path) -> None:
    """A call stays open on the game's page (and in its JSON view) until a
    judge comes: a note answers it, as on Harem Master's board."""
    match = new_zones_match(db, tmp_path)
    with app_for(db) as http:
        page = http.get(tokens.scorekeeper_link(KEY, match, "Sam"), follow_redirects=True)
        assert "data-judge-call" not in page.text
        called = http.post(f"/matches/{match}/call", data={**form_of(page.text), "reason": "B looked into a sandbox"})
        assert called.headers["x-outcome"] == "logged", called.text
        assert "JUDGE CALLED by the scorekeeper Sam: B looked into a sandbox" in unescape(called.text)
    with MatchStore(db, read_only=True) as store:
        view = store.ruleset(match).view(store.load(match)[0], "public")
    assert view["judge_call"] == "the scorekeeper Sam: B looked into a sandbox"
    with app_for(db) as http:
        judge = http.get(f"/matches/{match}", headers=judge_auth())
        assert "data-judge-call" in judge.text
        noted = http.post(
            f"/matches/{match}/note", headers=judge_auth(), data={**form_of(judge.text), "text": "nobody looked"}
        )
        assert noted.headers["x-outcome"] == "logged" and "data-judge-call" not in noted.text
    with MatchStore(db, read_only=True) as store:
        assert "judge_call" not in store.ruleset(match).view(store.load(match)[0], "public")


def test_every_line_referee_legal_lists_is_one_button_that_logs_it(db: str, tmp_path: Path) -> None:
    """The console contract (spec: console.md, 1-2) for a game drawn from its
    ruleset alone: each action `referee legal` lists, without its number and
    card ids, is a ``data-action`` button on the page, and tapping it logs
    exactly that action; a line that is not legal now logs nothing."""
    match = new_zones_match(db, tmp_path)
    printed = re.findall(r"(?m)^\s*\d+\. (.*)$", referee(db, "legal", match))  # each action (not the headings)
    lines = [re.sub(r" \[[A-Z]:\d+(?:,[A-Z]:\d+)*\]", "", p) for p in printed]
    assert len(lines) > 100 and lines[0].startswith("A move card=")
    assert len(set(lines)) == len(lines)  # one line per action, two face-down cards told apart by where they lie
    with app_for(db) as http:
        page = http.get(f"/matches/{match}", headers=judge_auth())
        shown = {unescape(a) for a in re.findall(r'data-action="([^"]*)"', page.text)}
        assert set(lines) <= shown
        line = next(x for x in lines if x.startswith("A damage ") and "zone=B.keter" in x and "n=3" in x)
        version = version_of(db, match)
        wrong = http.post(
            f"/matches/{match}/act",
            headers=judge_auth(),
            data={**form_of(page.text), "line": "A damage zone=B.keter n=99"},
        )
        assert wrong.status_code == 422 and version_of(db, match) == version
        done = http.post(f"/matches/{match}/act", headers=judge_auth(), data={**form_of(page.text), "line": line})
        assert done.headers["x-outcome"] == "logged", done.text
        assert "protection <b>9</b>/12" in done.text
    taken = [r.event for r in records_of(db, match) if type(r.event).__name__ == "ActionTaken"]
    assert [(t.player, t.do, t.args.get("zone"), t.args.get("n")) for t in taken] == [("A", "damage", "B.keter", 3)]
