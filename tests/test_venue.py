"""Getting the venue's phones onto the board (issue 27, item 9) without a
browser: the Host names a board answers (every address of the machine on
0.0.0.0; --allowed-host adds), links printed with the store alone and
naming the venue's address, a scorekeeper's name fixed by the organiser,
sign-in links that carry their scope. The browser half (a phone-like client
reaching the board on the machine's own address, the QR print-out as a PDF)
is tests/browser/test_venue_browser.py."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient

from referee.cli import cli
from referee.web import tokens
from referee.web.app import Settings, create_app
from referee.web.venue import HostCheck, default_names, machine_addresses
from tests.test_console import KEY, app_for, form_of, hidden_hands, new_table_match, records_of
from tests.test_web import PASSWORD


@pytest.fixture
def db(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'venue.db'}"


def test_on_every_address_the_board_answers_any_address_and_its_names_but_no_stranger(db: str, tmp_path: Path) -> None:
    match = hidden_hands(db, tmp_path)
    names = (*default_names("0.0.0.0"), "board.venue.example")
    settings = Settings(db, protect=True, judge_password=PASSWORD, token_key=KEY, allowed_hosts=names, any_address=True)
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as http:
        for host in ("127.0.0.1", "localhost", "10.20.30.40:8000", "[fe80::1]:8000", "board.venue.example"):
            page = http.get(f"/matches/{match}", headers={"Host": host})
            assert page.status_code == 200, (host, page.text[:200])
        for address in machine_addresses():
            assert http.get("/", headers={"Host": f"{address}:8000"}).status_code == 200
        stranger = http.get(f"/matches/{match}", headers={"Host": "attacker.example"})
        assert stranger.status_code == 400 and "Queen Regent" not in stranger.text
        assert "--allowed-host" in stranger.text and "board.venue.example" in stranger.text


def test_a_board_on_one_address_answers_no_other_address() -> None:
    check = HostCheck(lambda *a: None, ("127.0.0.1", "localhost", "*.venue.example"), any_address=False)
    assert check.allowed("localhost") and check.allowed("table3.venue.example")
    assert not check.allowed("10.20.30.40") and not check.allowed("venue.example.attacker.org")


def invoke(db: str, *args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(cli, [*args, "--db", db], env={"REFEREE_JUDGE_PASSWORD": None, **(env or {})})
    return result.exit_code, result.output


def test_links_for_the_venue_print_with_the_store_alone(db: str, tmp_path: Path) -> None:
    match = hidden_hands(db, tmp_path)
    # No judge password anywhere: printing a link is not serving the board.
    code, out = invoke(db, "serve", "--host", "0.0.0.0", "--port", "8000", "--scorekeeper", match, "--name", "Sam")
    assert code == 0, out
    venue = machine_addresses()
    shown = venue[0] if venue else "0.0.0.0"
    assert f"http://{shown}:8000/scorekeeper/{match}?" in out
    # The printed password is the link's token: the name's own.
    token = re.search(r"token=([^&\s]+)", out).group(1)  # type: ignore[union-attr]
    assert f'with the name "Sam" and the password {token}' in out
    code, out = invoke(db, "serve", "--host", "0.0.0.0", "--port", "8000", "--links", match)
    assert code == 0 and f"http://{shown}:8000/matches/{match}?as=A&token=" in out


def test_a_scorekeepers_name_is_the_organisers_not_typed_at_sign_in(db: str) -> None:
    match = new_table_match(db)
    sams = tokens.scorekeeper_token(KEY, match, "Sam")
    shared = tokens.scorekeeper_token(KEY, match, "")

    def sign_in(http: TestClient, password: str, name: str) -> int:
        csrf = form_of(http.get(f"/login?scope={match}").text)["csrf"]
        done = http.post(
            "/login",
            data={"csrf": csrf, "password": password, "name": name, "scope": match, "next": f"/matches/{match}"},
            follow_redirects=False,
        )
        return done.status_code

    with app_for(db) as http:
        assert sign_in(http, sams, "Kim") == 401  # Sam's password is not Kim's
    with app_for(db) as http:
        assert sign_in(http, sams, "Sam") == 303
        page = http.get(f"/matches/{match}").text
        fields = form_of(page)
        fields.pop("undo", None)
        http.post(f"/matches/{match}/act", data={**fields, "line": 'A reveal "Kitchen Maid"'})
    assert records_of(db, match)[-1].by == f"scorekeeper Sam of {match}"
    with app_for(db) as http:
        assert sign_in(http, shared, "Kim") == 303  # the shared password: the typed name is not recorded
        page = http.get(f"/matches/{match}").text
        fields = form_of(page)
        fields.pop("undo", None)
        line = next(a for a in re.findall(r'data-action="([^"]*)"', page) if " reveal " in a)
        http.post(f"/matches/{match}/act", data={**fields, "line": line.replace("&#34;", '"')})
    assert records_of(db, match)[-1].by == f"scorekeeper of {match}"


def test_every_sign_in_link_carries_its_scope(db: str, tmp_path: Path) -> None:
    match = hidden_hands(db, tmp_path)
    with app_for(db) as http:
        page = http.get(f"/matches/{match}").text
        assert f"/login?next=/matches/{match}&amp;scope={match}" in page
