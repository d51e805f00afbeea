"""The board's web application (Starlette): routes, templates, who may see and do what.

The board shows every match at any event, per viewer, and is the console a
scorekeeper or a judge logs a paper match with (``console``). Who may see
and do what is ``auth``'s (judge, scorekeeper, player, public):

- On a loopback address without ``REFEREE_JUDGE_PASSWORD`` (the default,
  a judge's own machine), everyone is the judge: whoever can reach the
  server can already read and write the database file.
- Protected (a judge password is set; ``referee serve`` requires one for any
  other address): the judge view, the rewind preview and every correction
  need the judge (password by HTTP Basic or the sign-in form); a
  scorekeeper signed in for an event logs its tables; a player's view needs
  that player's link; the public view and the tables page are open, and
  show only what 215 lets anyone see.

Every change is a POST with the session's CSRF token and the version of the
board it was chosen on (spec: console.md). The server answers only the host
names it was given (``Settings.allowed_hosts``; on every address, any
address literal too: ``venue``), so a page elsewhere cannot rebind a name
of its own to this address. Nothing is kept in the process
that another server of the same store needs: sessions are signed with a
shared key, the board and the live updates are read from the store.

A page never shows the database URL's password: the store's messages hide it,
and the store's URL is shown only on an unprotected server, password masked.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import secrets
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from eventsourcing.persistence import PersistenceError
from jinja2 import pass_context
from sse_starlette import EventSourceResponse
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.sessions import SessionMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from referee import ruleset as registry
from referee.actions import Action, IllegalAction
from referee.store import MatchNotFound, MatchStore, PositionError, StoreError
from referee.store.matches import WRITE_GATE, WriteGate
from referee.tournament.store import TournamentNotFound
from referee.web import anygame, live, tournament_pages
from referee.web.auth import (
    REALM,
    Attempts,
    Guard,
    Role,
    SessionCheck,
    Sessions,
    check_csrf,
    covers,
    csrf_token,
    event_of,
)
from referee.web.board import VIOLATION_EVENTS, BoardReader
from referee.web.console import Console, Outcome
from referee.web.live import POLL_SECONDS, Watcher
from referee.web.tokens import session_secret
from referee.web.venue import HostCheck

HERE = Path(__file__).resolve().parent
SESSION_COOKIE = "referee_session"
SESSION_SECONDS = 24 * 3600  # a day at the venue
MAX_FORM = 64 * 1024  # a pasted scenario position is a few KB
CALLS_PER_MINUTE = 3  # judge calls one link may make in a minute
CALL_REASON = 200  # characters of a judge call's reason
# Everything the pages load comes from this server: no inline script, no
# framing, no referrer (a player's link carries its token).
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; "
    "form-action 'self'; base-uri 'none'",
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
}


@dataclass(frozen=True)
class Settings:
    """How a board server runs; ``referee serve`` makes it from its options."""

    url: str
    protect: bool = False  # ask for the judge password and the player tokens
    judge_password: str | None = None
    token_key: bytes | None = None  # None: player views need the judge password
    poll_seconds: float = POLL_SECONDS
    # The Host names this server answers (None: any, for an app embedded in
    # tests or tools; ``referee serve`` always gives a list).
    allowed_hosts: tuple[str, ...] | None = None
    any_address: bool = False  # listening on every address: any address literal is answered too (``venue``)
    read_only: bool = False  # a spectators' screen: nothing can be logged
    https: bool = False  # cookies are then sent over HTTPS only
    session_key: str | None = None  # None: ``tokens.session_secret(token_key)``
    session_seconds: float = 24 * 3600  # how long a sign-in lasts (``referee serve --session-hours``)
    # The addresses of the reverse proxies whose X-Forwarded-For is believed (``--proxy``).
    proxies: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.protect and not self.judge_password:
            raise ValueError("a protected board needs a judge password")


def open_store(url: str, read_only: bool = False) -> MatchStore:
    """The store the board reads and the console writes (``read_only``: a
    spectators' board, which never writes, so a read-only file or role serves)."""
    return MatchStore(url, read_only=read_only, create=False)


class Board:
    """The application's state: settings, store, reader, console, guard, live watcher."""

    def __init__(self, settings: Settings, store: MatchStore | None = None) -> None:
        self.settings = settings
        self.store = store if store is not None else open_store(settings.url, settings.read_only)
        self.reader = BoardReader(self.store)
        self.console = Console(self.store)
        self.probe = live.Probe(self.store.database)  # busy is not down: a short connection of its own
        self.watcher = Watcher(self.store.application.recorder, settings.poll_seconds, self.probe)
        secret, self.shared_sessions = (
            (settings.session_key, True) if settings.session_key else session_secret(settings.token_key)
        )
        self.secret = secret
        side = self.store.side
        self.guard = Guard(
            protect=settings.protect,
            judge_password=settings.judge_password,
            token_key=settings.token_key,
            secret=secret,
            attempts=Attempts(side=side),
            sessions=Sessions(side, settings.session_seconds),
            proxies=settings.proxies,
        )
        if settings.protect and side.available:
            # A judge password changed on the server ends the sessions made with
            # the old one; sessions past their expiry are forgotten.
            import time

            side.end_sessions("judge", unless_proof=self.guard._fingerprint())
            side.drop_expired_sessions(time.time())
        # Judge calls from one link: a few a minute, each recorded (``call_judge``).
        self.calls = Attempts(per_client=CALLS_PER_MINUTE, side=side)
        # Writes whose answer could not wait for them (``StoreDeadline``): entry -> the request's task.
        self.pending: dict[str, asyncio.Future[Any]] = {}

    # --- who may see and do what -----------------------------------------------------

    def viewers(self, match: str) -> tuple[str, ...]:
        """Who may look at ``match`` (its game's viewers: ``MatchNotFound`` if there is no such match)."""
        return tuple(self.reader.ruleset(match).viewers)

    def is_judge(self, request: Request) -> bool:
        return self.guard.is_judge(request)

    def role(self, request: Request, match: str | None = None, form: Any = None) -> Role:
        params = form if form is not None else request.query_params
        seat = params.get("as") if params.get("as") not in (None, "judge", "public") else None
        return self.guard.role(request, match, seat, params.get("token"))

    def may_see(self, request: Request, match: str, viewer: str, role: Role | None = None) -> bool:
        role = role or self.role(request, match)
        if viewer == "public" or role.kind == "judge":
            return True
        if role.kind == "scorekeeper":
            return covers(role.scope or "", match)
        return role.kind == "player" and role.scope == match and role.seat == viewer

    def require(self, request: Request, match: str, viewer: str, role: Role | None = None) -> None:
        if self.may_see(request, match, viewer, role):
            return
        if viewer == "judge":
            raise HTTPException(
                401,
                "The judge view needs the judge password (or a scorekeeper's link).",
                headers={"WWW-Authenticate": REALM},
            )
        raise HTTPException(
            403,
            f"Player {viewer}'s view shows {viewer}'s hand: open it with {viewer}'s own link "
            f"(printed by `referee new`), or log in as a judge.",
        )

    def players_log(self, match: str) -> bool:
        """Does the match's event let players log their own decisions?"""
        event = event_of(match)
        if event is None:
            return False
        from referee.tournament.store import Tournaments

        try:
            return Tournaments(self.store).load(event).players_log
        except TournamentNotFound:
            return False

    def may_log(self, role: Role, match: str) -> bool:
        if self.settings.read_only:
            return False
        if role.kind == "judge":
            return True
        if role.kind == "scorekeeper":
            return covers(role.scope or "", match)
        return role.kind == "player" and role.scope == match and self.players_log(match)


class StoreDeadline:
    """A page the store cannot answer says so within a few seconds; a page
    a busy store answers slowly is waited for.

    While the live watcher knows the store is not answering (its health
    check, a connection of its own, could not reach it), requests that
    need it get a 503 at once (the page asks again by itself). A read
    still waiting after ``seconds`` gets its 503 only if the store is down
    by then (its thread finishes in the background and its answer is
    dropped); while the store answers, however slowly, it is waited for. A
    write still waiting after ``seconds`` is answered then, with the truth
    about it (``WriteGate``).
    The live streams, the static files and ``/health`` pass."""

    PASS = ("/static/", "/health")

    def __init__(self, app: ASGIApp, board: "Board", seconds: float = 6.0) -> None:
        self.app = app
        self.board = board
        self.seconds = seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = str(scope.get("path", ""))
        if scope["type"] != "http" or path.startswith(self.PASS) or path.endswith("/live") or path == "/live":
            await self.app(scope, receive, send)
            return
        down = self.board.watcher.down
        if down and scope.get("method") == "GET":
            await self._unavailable(scope, receive, send, down)
            return
        started = False
        late = False

        async def guarded(message: Message) -> None:
            nonlocal started
            if late:
                return  # answered already: the store came back too late for this request
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        # A write may start only while the answer can still wait for it
        # (``WriteGate``): the store asks the gate just before it writes.
        gate = WriteGate() if scope.get("method") == "POST" else None
        token = WRITE_GATE.set(gate)
        try:
            task = asyncio.ensure_future(self.app(scope, receive, guarded))
        finally:
            WRITE_GATE.reset(token)
        done, _ = await asyncio.wait({task}, timeout=self.seconds)
        # Busy is not down: a page read waits while the store answers, however
        # slowly. A write is answered at the deadline, truthfully (the gate:
        # never started, so nothing was recorded; or started, outcome not known
        # yet, which the page then learns by its entry), so that nobody at the
        # table is left waiting on a lock without knowing what was logged.
        while not done and not started and gate is None and not self.board.watcher.down:
            done, _ = await asyncio.wait({task}, timeout=0.5)
        if done:
            task.result()
            return
        if started:
            await task
            return
        late = True
        task.add_done_callback(_finished_late)
        why = self.board.watcher.down or "the match store is not answering"
        entry = None
        if gate is not None and gate.close():  # the write had started: its outcome is not known yet
            entry = gate.entry or ""
            if entry:
                self.board.pending[entry] = task
                task.add_done_callback(lambda _: self.board.pending.pop(entry, None))
        await self._unavailable(scope, receive, send, why, entry)

    async def _unavailable(
        self, scope: Scope, receive: Receive, send: Send, why: str, entry: str | None = None
    ) -> None:
        headers = {k.decode().lower(): v.decode() for k, v in scope.get("headers", [])}
        message = f"The match store is not answering ({why}): nothing was recorded. This page tries again by itself."
        refresh = "5"
        outcome = "unavailable"
        if entry is not None:
            # One truth: the write reached the store and may yet be stored.
            path = str(scope.get("path", ""))
            match = path.split("/")[2] if path.startswith("/matches/") else ""
            outcome = "unknown"
            message = (
                f"The match store is slow ({why}): this entry reached it, but whether it was recorded is not "
                f"known yet. Do not enter it again: this page finds out (submission {entry})."
                + (
                    f" At a terminal, `referee act {match} ... --entry {entry}` records it only if it was not."
                    if match
                    else ""
                )
            )
            if match and entry:
                refresh = f"5; url=/matches/{match}/entries/{entry}"
        if headers.get("x-requested-with") == "referee-console":
            response: Response = Response(message, status_code=503, media_type="text/plain")
        else:
            html = (
                f"<!doctype html><html lang=en><head><meta charset=utf-8><meta http-equiv=refresh content='{_escape(refresh)}'>"
                "<meta name=viewport content='width=device-width, initial-scale=1'>"
                "<link rel=stylesheet href=/static/board.css><title>referee · 503</title></head><body><main>"
                f"<h1>503</h1><p class=error role=alert>{_escape(message)}</p></main></body></html>"
            )
            response = Response(html, status_code=503, media_type="text/html")
        response.headers["Retry-After"] = "5"
        if scope.get("method") == "POST":
            response.headers["X-Outcome"] = outcome
        if entry:
            response.headers["X-Entry"] = entry
        await response(scope, receive, send)


def _finished_late(task: asyncio.Future[Any]) -> None:
    """A request answered before it finished: whatever it raised is not news
    (the client was answered already; a client that left mid-form is
    ``ClientDisconnect``), and must not be logged as a task nobody awaited."""
    if not task.cancelled():
        task.exception()


class BodyLimit:
    """A request's body is read here, up to ``limit`` bytes, before anything
    parses it: a longer one, whether it says its length or comes in chunks,
    is answered 413 at once and the rest is never read (so a stranger's
    endless form holds ``limit`` bytes of memory, not its size). A client that
    leaves in the middle of its body gets no answer and raises nothing."""

    def __init__(self, app: ASGIApp, limit: int = MAX_FORM) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") in ("GET", "HEAD", "OPTIONS"):
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers", []))
        length = headers.get(b"content-length", b"").decode("latin-1").strip()
        if length and (not length.isdigit() or int(length) > self.limit):
            await self._too_large(scope, receive, send)
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return  # the client left: nobody to answer
            body = message.get("body", b"")
            size += len(body)
            if size > self.limit:
                await self._too_large(scope, receive, send)
                return
            chunks.append(body)
            if not message.get("more_body", False):
                break
        whole = b"".join(chunks)
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": whole, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    async def _too_large(self, scope: Scope, receive: Receive, send: Send) -> None:
        response = Response(
            f"The form is too large (at most {self.limit // 1024} KB): nothing was recorded.",
            status_code=413,
            media_type="text/plain",
            headers={"Connection": "close", "X-Outcome": "invalid"},
        )
        await response(scope, receive, send)


class OutcomeHeader:
    """Every answer to a console POST says its outcome in ``X-Outcome``
    (docs/console.md), also those refused before the console saw them: 400
    and 413 ``invalid``, 401, 403 and 429 ``refused``, 409 ``stale``, 503
    ``unavailable`` (nothing was recorded) or ``unknown`` (``StoreDeadline``)."""

    CODES = {
        400: "invalid",
        413: "invalid",
        422: "refused",
        401: "refused",
        403: "refused",
        429: "refused",
        409: "stale",
    }

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] != "http"
            or scope.get("method") != "POST"
            or not str(scope.get("path", "")).startswith("/matches/")
        ):
            await self.app(scope, receive, send)
            return

        async def with_outcome(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                if not any(k.lower() == b"x-outcome" for k, _ in headers):
                    status = int(message["status"])
                    outcome = self.CODES.get(status, "unavailable" if status >= 500 else "invalid")
                    headers.append((b"x-outcome", outcome.encode()))
                    message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, with_outcome)


def _escape(text: str) -> str:
    from html import escape

    return escape(text)


class SecurityHeaders:
    """Adds ``SECURITY_HEADERS`` to every response, and ``no-store`` to all but
    the static files (a shared phone keeps no hand in its cache). Plain ASGI,
    so the live streams pass through untouched."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        static = str(scope.get("path", "")).startswith("/static/")

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                extra = dict(SECURITY_HEADERS)
                if not static:
                    extra["Cache-Control"] = "no-store"
                headers += [(k.lower().encode(), v.encode()) for k, v in extra.items()]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)


# --- request parameters -----------------------------------------------------------


def _match_key(request: Request) -> str:
    return str(request.path_params["match"]).strip().lower()


def _viewer(request: Request, role: Role, params: Any = None, viewers: tuple[str, ...] = ()) -> str:
    params = params if params is not None else request.query_params
    if role.kind in ("judge", "scorekeeper"):
        default = "judge"
    elif role.kind == "player":
        default = str(role.seat)
    else:
        default = "public"
    viewer = params.get("as") or default
    if viewer not in viewers:
        raise HTTPException(400, f"Unknown viewer {viewer!r}: expected one of {', '.join(viewers)}.")
    return viewer


EVENT_NUMBER = re.compile(r"[0-9]{1,12}")  # ASCII digits only: str.isdigit also takes "²"


def _position(request: Request, name: str = "at") -> int | None:
    text = request.query_params.get(name, "").strip()
    if not text:
        return None
    if not EVENT_NUMBER.fullmatch(text):
        raise HTTPException(400, f"{name}={text[:40]!r}: expected an event number (0 or more).")
    return int(text)


def _number(form: Any, name: str, *, required: bool = True) -> int | None:
    text = str(form.get(name) or "").strip()
    if not text:
        if required:
            raise HTTPException(400, f"{name}: expected a number (the form is incomplete).")
        return None
    if not re.fullmatch(r"[0-9]{1,9}", text):  # ASCII digits: str.isdigit also takes "²"
        raise HTTPException(400, f"{name}={text[:20]!r}: expected a whole number.")
    return int(text)


def _text(form: Any, name: str, limit: int = 500) -> str:
    from referee.inputs import printable

    text = str(form.get(name) or "").strip()
    if len(text) > limit:
        raise HTTPException(400, f"{name}: at most {limit} characters.")
    if printable(text) != text:
        raise HTTPException(400, f"{name}: plain text only (no control characters).")
    return text


def _signin_scope(request: Request) -> str | None:
    """The scope a sign-in from this page is for (an event, or a match: a
    table's match also takes its event's password), so that a scorekeeper's
    printed password works on the page's own "sign in" link."""
    params = request.path_params
    found = params.get("event") or params.get("match")
    return str(found).strip().lower() if found else None


def _safe_next(target: str | None, default: str = "/") -> str:
    target = target or default
    if not target.startswith("/") or target.startswith("//") or "\\" in target:
        return default  # only pages of this server
    return target


# --- the application --------------------------------------------------------------


def create_app(settings: Settings, store: MatchStore | None = None) -> Starlette:
    """The board application; ``store`` lets a caller share an open store."""
    board = Board(settings, store)
    reads = tournament_pages.Reads(board.store)
    templates = Jinja2Templates(directory=str(HERE / "templates"))
    env = templates.env
    env.globals.update(VIOLATION_EVENTS=VIOLATION_EVENTS)
    for game_id in registry.games():  # the names a game's own board template uses
        parts = registry.get(game_id).board
        if parts is not None:
            env.globals.update(parts.TEMPLATE_GLOBALS)

    @pass_context
    def link(context: Any, path: str, **params: Any) -> str:
        """A URL on this server keeping the page's player token."""
        token = context.get("token")
        query = {k: v for k, v in params.items() if v is not None}
        if token and query.get("as") not in (None, "judge", "public"):  # a seat's page
            query["token"] = token
        return path + ("?" + urlencode(query) if query else "")

    env.globals["link"] = link

    def record_fingerprint(match: str) -> str:
        """A match's short head fingerprint for paper (``chain.head_fingerprint``):
        what ``referee audit MATCH`` shows in full, so a slip anchors the record."""
        from referee.chain import head_fingerprint

        try:
            last = board.store.head_of(match)
        except StoreError:
            return "not started"
        return f"{head_fingerprint(last.hash)} at event {last.position}" if last.hash else "no chain"

    env.globals["record_fingerprint"] = record_fingerprint
    env.globals["game_name"] = game_name
    env.globals["default_game"] = registry.DEFAULT_GAME
    env.filters["cite"] = lambda row: row["rule"] + (f" ruling:{row['ruling']}" if row.get("ruling") else "")
    env.filters["tojson_attr"] = lambda value: json.dumps(value, separators=(",", ":"), ensure_ascii=False)

    def render(request: Request, name: str, context: dict[str, Any], status: int = 200) -> Response:
        base = {
            "protect": settings.protect,
            "store_url": None if settings.protect else board.store.url,
            "read_only": settings.read_only,
            "csrf": csrf_token(request),
            "signin_scope": _signin_scope(request),
        }
        return templates.TemplateResponse(request, name, {**base, **context}, status_code=status)

    def fragment(request: Request) -> bool:
        """A request from the page's script, which wants the board alone."""
        return request.headers.get("x-requested-with") == "referee-console"

    # --- reading ------------------------------------------------------------------

    def match_context(
        request: Request, params: Any = None, role: Role | None = None, notice: Outcome | None = None
    ) -> dict[str, Any]:
        params = params if params is not None else request.query_params
        match = _match_key(request)
        role = role or board.role(request, match, params if params is not request.query_params else None)
        viewer = _viewer(request, role, params, board.viewers(match))
        board.require(request, match, viewer, role)
        at = None if notice is not None else _position(request)
        page = board.reader.page(match, at, viewer)
        game = page["game"]
        token = params.get("token") if viewer in game.seats else None
        tabs = [v for v in game.viewers if board.may_see(request, match, v, role)]
        console: dict[str, Any] | None = None
        decision = page["decision"]
        logs = page["live"] and board.may_log(role, match) and (role.kind != "player" or viewer == role.seat)
        if logs and game.board is None:
            seat = role.seat if role.kind == "player" else None
            actions = decision["actions"] if decision else None
            console = {
                "forms": anygame.controls(game, actions, page["view"], seat) if actions else None,
                "entry": secrets.token_urlsafe(12),
                "record": False,
                "menus": None,
                "judge": role.kind == "judge",
                "call": True,
            }
        elif logs:
            shows_actions = viewer == "judge" or (decision is not None and viewer == decision["player"])
            state = page["state"]
            console = {
                "controls": game.board.controls(
                    state, role.seat if role.kind == "player" else None, decision["actions"] if decision else None
                )
                if shows_actions
                else None,
                "entry": secrets.token_urlsafe(12),  # one per board shown: a second tap is the same entry
                "record": state.mode == "record" and role.kind != "player",
                "menus": game.board.entry_menus(state) if state.mode == "record" and role.kind != "player" else None,
                "judge": role.kind == "judge",
                "call": True,
            }
        if (
            console is None
            and page["live"]
            and not settings.read_only
            and role.kind == "player"
            and role.scope == match
            and viewer == role.seat
        ):
            # A player who does not log their own decisions may still call a judge.
            console = {
                "controls": None,
                "forms": None,
                "entry": secrets.token_urlsafe(12),
                "record": False,
                "menus": None,
                "judge": False,
                "call": True,
            }
        if console is not None:
            # The one who logged the last entry may take it back (spec: console.md, 10).
            console["undo"] = board.console.undoable(match, role, page["state"], viewer)
        rewinds_to = None
        if role.kind == "judge" and viewer == "judge" and page["live"] and (page["view"].get("violations") or []):
            rewinds_to = board.console.before_violations(match, page["view"]["violations"])
        return {
            **page,
            "token": token,
            "tabs": tabs,
            "judge": role.kind == "judge" and viewer == "judge",
            "role": role,
            "console": console,
            "notice": notice,
            "violation_rewinds": rewinds_to,
        }

    def match_page(request: Request) -> Response:
        return render(request, "match.html", match_context(request))

    def board_fragment(request: Request) -> Response:
        context = match_context(request)
        return render(request, context["board_template"], context)

    def full_log(request: Request) -> Response:
        match = _match_key(request)
        role = board.role(request, match)
        viewer = _viewer(request, role, None, board.viewers(match))
        board.require(request, match, viewer, role)
        page = board.reader.full_log(match, viewer, _position(request, "from"))
        token = request.query_params.get("token") if viewer in board.reader.ruleset(match).seats else None
        judge = role.kind == "judge" and viewer == "judge"  # a judge's tools on each event
        return render(request, "log.html", {**page, "token": token, "judge": judge})

    def rewind_preview(request: Request) -> Response:
        match = _match_key(request)
        role = board.role(request, match)
        if role.kind != "judge":
            if role.kind == "scorekeeper" and covers(role.scope or "", match):
                raise HTTPException(403, "Only a judge rewinds (410): call a judge.")
            raise HTTPException(
                401, "The rewind preview needs the judge password.", headers={"WWW-Authenticate": REALM}
            )
        to = _position(request, "to")
        if to is None or to < 1:
            raise HTTPException(400, "to: expected the event to rewind to (1 or more).")
        preview = board.reader.rewind_preview(match, to)
        may = not settings.read_only
        rules = rewind_rules(board.reader.ruleset(match))
        return render(
            request,
            "rewind.html",
            {**preview, "version": board.reader.logs.get(match).version, "may_rewind": may, "rules": rules},
        )

    # Tournament pages read the read models (referee.web.tournament_pages).
    def tables_page(request: Request) -> Response:
        role = board.role(request)
        return render(request, "index.html", {**tournament_pages.tables_context(reads, request), "role": role})

    def event_context(request: Request) -> dict[str, Any]:
        """The event page's context with the viewer's role: a judge, or a
        scorekeeper of this event, opens and logs its tables from it."""
        page = tournament_pages.event_context(reads, request.path_params["event"], request)
        role = board.role(request)
        logs = not settings.read_only and (
            role.kind == "judge" or (role.kind == "scorekeeper" and role.scope == page["event"])
        )
        return {**page, "role": role, "logs": logs}

    def event_page(request: Request) -> Response:
        return render(request, "event.html", event_context(request))

    def event_fragment(request: Request) -> Response:
        return render(request, "event_tables.html", event_context(request))

    def tables_fragment(request: Request) -> Response:
        return render(request, "tables.html", tournament_pages.tables_context(reads, request))

    async def health(request: Request) -> Response:
        """Is the store answering? (The pages' script asks when the live
        stream drops.) A health check of its own (``live.Probe``: a short
        connection, one trivial query), so it answers within a few seconds
        whether the store is gone or only busy."""
        why = await board.probe.answering()
        if why is not None:
            return JSONResponse({"store": "down", "message": why}, status_code=503)
        return JSONResponse({"store": "ok"})

    # --- signing in -------------------------------------------------------------------

    async def login(request: Request) -> Response:
        """The sign-in form (judge password, or a scorekeeper's token for the
        page's event or match); HTTP Basic works as before."""
        target = _safe_next(request.query_params.get("next"))
        scope = request.query_params.get("scope") or None
        if request.method == "GET":
            if board.is_judge(request) and settings.protect and request.headers.get("authorization"):
                return RedirectResponse(target, status_code=303)
            if request.query_params.get("basic") and settings.protect:
                # The browser's own password box (HTTP Basic), then back to the page.
                raise HTTPException(401, "Log in with the judge password.", headers={"WWW-Authenticate": REALM})
            # The form: a page with a Basic challenge would be the browser's
            # box instead, which a phone shows badly and a scorekeeper cannot use.
            return render(request, "login.html", {"next": target, "scope": scope, "failed": False})
        form = await _form(request)
        target = _safe_next(form.get("next"))
        scope = str(form.get("scope") or "") or None
        password, name = str(form.get("password") or ""), _text(form, "name", 60)
        role = await asyncio.to_thread(board.guard.sign_in, request, password, name, scope)
        if role is None:
            return render(request, "login.html", {"next": target, "scope": scope, "failed": True}, status=401)
        return RedirectResponse(target, status_code=303)

    async def logout(request: Request) -> Response:
        form = await _form(request)
        await asyncio.to_thread(board.guard.sign_out, request)
        return RedirectResponse(_safe_next(form.get("next")), status_code=303)

    def scorekeeper_link(request: Request) -> Response:
        """A scorekeeper's link (``referee serve --scorekeeper SCOPE``): signs
        in for the scope and opens its page, or the page named in the link."""
        scope = str(request.path_params["scope"]).strip().lower()
        params = request.query_params
        name = params.get("name", "")
        if not board.guard.enter_by_link(request, scope, params.get("token", ""), name):
            raise HTTPException(
                403,
                "This scorekeeper link is not valid for this board (a typo, or another "
                "store's key): ask the judge for a new one.",
            )
        default = f"/events/{scope}" if scope.startswith("e-") and "." not in scope else f"/matches/{scope}"
        return RedirectResponse(_safe_next(params.get("next"), default), status_code=303)

    # --- writing ------------------------------------------------------------------------

    async def _form(request: Request) -> Any:
        # The body is at most MAX_FORM bytes by now, chunked or not (``BodyLimit``).
        form = await request.form(max_files=0, max_fields=200)
        check_csrf(request, form)
        return form

    def answer(request: Request, form: Any, role: Role, outcome: Outcome) -> Response:
        """The new board with the outcome's notice: the fragment for the page's
        script, else the whole page (a phone without JavaScript still logs)."""
        context = match_context(request, form, role, outcome)
        name = context["board_template"] if fragment(request) else "match.html"
        response = render(request, name, context, status=outcome.http)
        response.headers["X-Outcome"] = outcome.status
        return response

    async def writer(request: Request) -> tuple[str, Any, Role, str, int, str]:
        if settings.read_only:
            raise HTTPException(403, "This board is read-only (referee serve --read-only): nothing can be logged.")
        match = _match_key(request)
        form = await _form(request)
        role = board.role(request, match, form)
        if not board.may_log(role, match):
            # 403, never a Basic challenge: a page's background post would
            # hang on the browser's password box.
            if role.kind == "public":
                raise HTTPException(403, "Logging needs the judge password or a scorekeeper's link: sign in first.")
            raise HTTPException(
                403,
                "Players of this event do not log their own decisions: the scorekeeper or a judge does."
                if role.kind == "player"
                else "You may not log this match.",
            )
        viewer = _viewer(request, role, form, board.viewers(match))
        board.require(request, match, viewer, role)
        return match, form, role, viewer, int(_number(form, "version") or 0), str(form.get("entry") or "")[:40]

    async def act(request: Request) -> Response:
        """Log one action: a legal line of the controls (``line``), or in record
        mode what the table did (``do`` with its cards: ``player``, ``card``,
        ``cards``, ``target``, ``targets``, ``n``, ``option``, ``order``, ``ability``)."""
        match, form, role, viewer, version, entry = await writer(request)
        game = await asyncio.to_thread(board.reader.ruleset, match)
        line = str(form.get("line") or "")
        if line:
            outcome = await asyncio.to_thread(board.console.act_line, match, version, line, role, entry, viewer)
        elif game.board is None:
            try:
                data = anygame.action_data(game, form)
            except anygame.BadForm as exc:
                raise HTTPException(400, str(exc)) from None
            outcome = await asyncio.to_thread(board.console.act_any, match, version, data, role, entry, viewer)
        else:
            if role.kind == "player":
                raise HTTPException(403, "Players log from their legal actions only.")
            raw = _free_action(form, game)
            outcome = await asyncio.to_thread(
                board.console.act_free, match, version, raw, role, entry, viewer, form.get("confirm") == "yes"
            )
            if outcome.status == "preview":
                outcome.confirm = _confirm(request, form)
        return answer(request, form, role, outcome)

    async def skip_step(request: Request) -> Response:
        match, form, role, viewer, version, entry = await writer(request)
        if role.kind == "player":
            raise HTTPException(403, "Only the scorekeeper or a judge records a skipped step.")
        rule = str(form.get("rule") or "")
        outcome = await asyncio.to_thread(
            board.console.skip_step,
            match,
            version,
            rule,
            _text(form, "reason"),
            role,
            entry,
            viewer,
            form.get("confirm") == "yes",
        )
        if outcome.status == "preview":
            outcome.confirm = _confirm(request, form)
        return answer(request, form, role, outcome)

    async def call_judge(request: Request) -> Response:
        from referee import corrections

        match = _match_key(request)
        form = await _form(request)
        role = board.role(request, match, form)
        if role.kind == "public" or settings.read_only:
            raise HTTPException(403, "Calling a judge from the board needs a player's link or the scorekeeper's.")
        viewer = _viewer(request, role, form, board.viewers(match))
        board.require(request, match, viewer, role)
        version, entry, reason = (
            int(_number(form, "version") or 0),
            str(form.get("entry") or "")[:40],
            _text(form, "reason", CALL_REASON),
        )
        caller = f"call {match} {role.by}"  # bounded per link (a seat, a scorekeeper); judges are not
        if role.kind != "judge":
            wait = await asyncio.to_thread(board.calls.wait, caller)
            if wait:
                raise HTTPException(
                    429,
                    f"A judge was called from here {CALLS_PER_MINUTE} times in the last minute, and every call "
                    f"is in the log: a judge is on the way. Call again in {int(wait) + 1} seconds if need be.",
                    headers={"Retry-After": str(int(wait) + 1)},
                )
        outcome = await asyncio.to_thread(
            board.console.correction,
            match,
            version,
            role,
            entry,
            viewer,
            lambda s, log: corrections.call(s, reason, role.caller),
        )
        if outcome.status == "logged" and role.kind != "judge":
            await asyncio.to_thread(board.calls.failed, caller)  # counted once recorded
        return answer(request, form, role, outcome)

    async def judged(request: Request, what: str, change: Callable[[Any, Role], Any]) -> Response:
        """A judge's correction (410): ``change(form, role)`` reads the form
        (a bad field is a 400 before anything runs) and gives the correction
        the console applies at the version the page showed."""
        match, form, role, viewer, version, entry = await writer(request)
        if role.kind != "judge":
            raise HTTPException(403, f"Only a judge {what}: call a judge.")
        correct = change(form, role)
        outcome = await asyncio.to_thread(board.console.correction, match, version, role, entry, viewer, correct)
        return answer(request, form, role, outcome)

    async def note(request: Request) -> Response:
        from referee import corrections

        def change(form: Any, role: Role) -> Any:
            text = _text(form, "text")
            return lambda s, log: corrections.note(s, text, role.name)

        return await judged(request, "writes notes in the log", change)

    async def accept(request: Request) -> Response:
        from referee import corrections

        def change(form: Any, role: Role) -> Any:
            reason = _text(form, "reason")
            at = _number(form, "at", required=False)  # one violation (the board's way); none: every open one
            return lambda s, log: corrections.accept(s, reason, role.name, at=at)

        return await judged(request, "accepts violations (410)", change)

    async def undo(request: Request) -> Response:
        """Whoever logged the match's last entry takes it back (spec: console.md, 10)."""
        match, form, role, viewer, version, entry = await writer(request)
        undoing = str(form.get("undo") or "")[:40]
        if not undoing:
            raise HTTPException(400, "undo: expected the entry to take back (the form is incomplete).")
        outcome = await asyncio.to_thread(board.console.undo, match, version, undoing, role, entry, viewer)
        return answer(request, form, role, outcome)

    async def rewind(request: Request) -> Response:
        from referee import corrections

        def change(form: Any, role: Role) -> Any:
            to = int(_number(form, "to") or 0)
            rule = str(form.get("rule") or "")
            rules = rewind_rules(board.reader.ruleset(_match_key(request)))
            if rule not in dict(rules):
                raise HTTPException(400, "rule: expected " + " or ".join(f"{r} ({w})" for r, w in rules) + ".")
            reason, replay = _text(form, "reason"), str(form.get("replay") or "")
            return lambda s, log: corrections.rewind(
                s,
                log,
                to,
                rule=rule,
                reason=reason,
                judge=role.name,
                replay=replay in ("yes", "after"),
                after=replay == "after",
            )

        return await judged(request, "rewinds (410)", change)

    def judge_only(request: Request, match: str, what: str) -> Role:
        role = board.role(request, match)
        if role.kind != "judge":
            raise HTTPException(401, f"{what} needs the judge password.", headers={"WWW-Authenticate": REALM})
        return role

    def scenario_from(request: Request) -> Response:
        """A stretch of the match as a scenario file (``referee scenario from``), to download."""
        from referee.scenario import dump_scenario, scenario_from

        match = _match_key(request)
        judge_only(request, match, "Writing a scenario from the match")
        viewer = request.query_params.get("as") or "judge"
        if viewer not in board.viewers(match):
            raise HTTPException(400, f"as: expected one of {', '.join(board.viewers(match))}.")
        at, to = _position(request), _position(request, "to")
        if at is None:
            raise HTTPException(400, "at: expected the event the position is taken just after.")
        records = board.store.records(match)
        try:
            written = scenario_from([r.event for r in records], at, to, viewer, records[0].match_id, records[0].name)
        except ValueError as exc:
            raise HTTPException(400, str(exc)) from None
        text = dump_scenario(
            written.data, f"referee scenario from {records[0].match_id} --at {at} --to {written.to} --as {viewer}"
        )
        name = f"{records[0].match_id}-{written.start + 1}-{written.to}.yaml"
        return Response(
            text,
            media_type="application/yaml; charset=utf-8",
            headers={"Content-Disposition": f'attachment; filename="{name}"'},
        )

    async def fork(request: Request) -> Response:
        """A judge's what-if fork of the match just after event ``at`` (``referee new --from``)."""
        from referee import corrections

        if settings.read_only:
            raise HTTPException(403, "This board is read-only.")
        match = _match_key(request)
        form = await _form(request)
        role = board.role(request, match, form)
        if role.kind != "judge":
            raise HTTPException(403, "Only a judge forks a match.")
        at, seen = int(_number(form, "fork_at") or 0), int(_number(form, "version") or 0)

        def run() -> str:
            records = board.store.records(match)
            if not at <= seen <= len(records):
                raise HTTPException(409, f"The board showed version {seen}; the match has {len(records)} events.")
            try:
                events = corrections.fork([r.event for r in records], at, records[0].match_id, role.name)
            except IllegalAction as exc:
                raise HTTPException(409, f"{exc.refusal.reason} ({exc.refusal.rule})") from None
            except ValueError as exc:
                raise HTTPException(400, str(exc)) from None
            name = f"What-if: {records[0].name or records[0].match_id} from event {at}"
            return board.store.create(events, name=name)

        mid = await asyncio.to_thread(run)
        return RedirectResponse(f"/matches/{mid}", status_code=303)

    async def new_match(request: Request) -> Response:
        """A judge starts a match from a pasted scenario position (its setup;
        its actions are not applied): "what should happen now" for a game
        nobody logged."""
        if request.method == "GET":
            if not board.is_judge(request):
                raise HTTPException(
                    401, "Starting a match needs the judge password.", headers={"WWW-Authenticate": REALM}
                )
            return render(request, "new_match.html", {"error": None, "text": "", "title": ""})
        if settings.read_only:
            raise HTTPException(403, "This board is read-only.")
        form = await _form(request)
        if not board.is_judge(request):
            raise HTTPException(401, "Starting a match needs the judge password.", headers={"WWW-Authenticate": REALM})
        text, title = str(form.get("scenario") or ""), _text(form, "title", 120)
        try:
            setup = await asyncio.to_thread(_position_from_text, text, board.store)
        except ValueError as exc:
            return render(request, "new_match.html", {"error": str(exc), "text": text, "title": title}, status=400)
        mid = await asyncio.to_thread(board.store.create, setup.events, name=title or setup.name)
        return RedirectResponse(f"/matches/{mid}", status_code=303)

    def print_links(request: Request) -> Response:
        """The judges' sheet of scorekeepers' links: one QR code per table of
        the round (each signs a phone in for that table's match), and one for
        every table of the event. Judges only: a code is a scorekeeper's key."""
        from referee.web.tokens import scorekeeper_link
        from referee.web.venue import qr_svg

        if not board.is_judge(request):
            raise HTTPException(
                401, "The scorekeepers' links need the judge password.", headers={"WWW-Authenticate": REALM}
            )
        key = settings.token_key
        if key is None:
            raise HTTPException(
                400, "No key for scorekeeper links on this board: set REFEREE_TOKEN_KEY (PostgreSQL stores need it)."
            )
        event = str(request.path_params["event"]).strip().lower()
        page = tournament_pages.print_context(reads, event, request)
        base = str(request.base_url).rstrip("/")  # the address this sheet was opened by: the venue's
        keeper = _text(request.query_params, "name", 60)
        tables = [
            {
                "table": p.table,
                "match": p.match,
                "A": p.A,
                "B": p.B,
                "svg": qr_svg(base + scorekeeper_link(key, p.match)),
            }
            for p in page["pairings"]
        ]
        return render(
            request,
            "print_links.html",
            {
                **page,
                "tables": tables,
                "board_url": base + "/",
                "keeper": keeper,
                "event_svg": qr_svg(base + scorekeeper_link(key, page["event"], keeper)),
            },
        )

    async def open_tables(request: Request) -> Response:
        """Create the current round's matches that do not exist yet (a station
        stopped half-way), so every table opens ready to log."""
        from referee.tournament.service import Station, ensure_matches

        event = str(request.path_params["event"]).strip().lower()
        form = await _form(request)
        role = board.role(request)
        if settings.read_only or not (role.kind == "judge" or (role.kind == "scorekeeper" and role.scope == event)):
            raise HTTPException(403, "Only the event's scorekeeper or a judge opens its tables.")

        def run() -> None:
            station = Station(board.store)
            try:
                ensure_matches(station, station.tournaments.load(event))
            finally:
                station.close()

        await asyncio.to_thread(run)
        return RedirectResponse(_safe_next(form.get("next"), f"/events/{event}"), status_code=303)

    def entry_status(request: Request) -> Response:
        """What became of a submission whose answer could not wait for the
        store (``StoreDeadline``): recorded (at which event), still being
        written by this server, or not recorded. For whoever may log the match."""
        match = _match_key(request)
        entry = str(request.path_params["entry"])[:40]
        role = board.role(request, match)
        if not board.may_log(role, match) and role.kind != "judge":
            raise HTTPException(403, "Only whoever logs this match may ask what became of its entries.")
        if entry in board.pending:
            doc: dict[str, Any] = {"entry": entry, "status": "pending", "position": None}
        else:
            position = board.store.entered(match, entry)
            doc = {"entry": entry, "status": "recorded" if position else "not recorded", "position": position}
        if fragment(request) or "json" in request.headers.get("accept", ""):
            return JSONResponse(doc)
        said = {
            "pending": "is still being written: this page looks again in a few seconds",
            "recorded": f"was recorded (event {doc['position']})",
            "not recorded": "was not recorded: enter it again",
        }[doc["status"]]
        message = f"Submission {entry} {said}."
        return render(
            request,
            "error.html",
            {"status": 200, "message": message, "retry": doc["status"] == "pending", "next": f"/matches/{match}"},
        )

    # --- live -----------------------------------------------------------------------------

    async def match_live(request: Request) -> Response:
        match = _match_key(request)
        # Watch first, then read the version now (it may have moved while the
        # page loaded): a write in between is then announced, not lost. An
        # unknown match is a 404 here, before the stream starts; a store that
        # fails or stalls is not (a browser never reconnects a stream that
        # answered with an error): the page hears how the store is instead.
        watch = board.watcher.subscribe(match)
        version = None
        try:
            if not board.watcher.down:  # else the page hears "down" now, and "ok" when the store is back
                load = asyncio.ensure_future(asyncio.to_thread(board.store.load, match))
                done, _ = await asyncio.wait({load}, timeout=live.DOWN_AFTER)
                if done:
                    try:
                        _, version = load.result()
                    except MatchNotFound:
                        raise
                    except StoreError:
                        pass  # failing as the page opens: the watcher says so
                else:
                    # The store is slow to answer, as when it is going down: the
                    # stream starts now, so the page hears what the watcher finds
                    # (a page that waited for this read heard nothing at all), and
                    # the version follows if the read answers.
                    load.add_done_callback(lambda read: _late_version(read, watch))
        except BaseException:
            board.watcher.unsubscribe(watch)
            raise

        async def stream() -> AsyncIterator[dict[str, str]]:
            try:
                if version is not None:
                    yield {"event": "version", "data": json.dumps({"version": version})}
                yield {"event": "store", "data": json.dumps(board.watcher.health())}
                while True:
                    message = await watch.queue.get()
                    if "store" in message:
                        yield {"event": "store", "data": json.dumps(message)}
                    else:
                        yield {"event": "version", "data": json.dumps({"version": message["version"]})}
            finally:
                board.watcher.unsubscribe(watch)

        return EventSourceResponse(stream(), ping=5)

    async def tables_live(request: Request) -> Response:
        watch = board.watcher.subscribe(None)

        async def stream() -> AsyncIterator[dict[str, str]]:
            try:
                yield {"event": "hello", "data": "{}"}
                yield {"event": "store", "data": json.dumps(board.watcher.health())}
                while True:
                    message = await watch.queue.get()
                    if "store" in message:
                        yield {"event": "store", "data": json.dumps(message)}
                    else:
                        yield {"event": "tables", "data": json.dumps(message["matches"])}
            finally:
                board.watcher.unsubscribe(watch)

        return EventSourceResponse(stream(), ping=5)

    # --- errors ------------------------------------------------------------------------------

    def told(exc: Exception | str) -> str:
        """A store's message for a page: on a protected board, whoever asks
        learns nothing of where the store is (its URL, file or host)."""
        message = str(exc)
        if settings.protect:
            message = message.replace(board.store.url, "this board's store")
        return message

    async def not_found(request: Request, exc: Exception) -> Response:
        return render(request, "error.html", {"status": 404, "message": told(exc)}, status=404)

    async def store_failed(request: Request, exc: Exception) -> Response:
        from referee.tournament.store import only_reads

        if only_reads(exc):  # the store answered: this board's role may not write
            said = "This board's database role may only read: nothing was recorded (log with a role that may write)."
            if fragment(request):
                return Response(said, status_code=403, media_type="text/plain")
            return render(request, "error.html", {"status": 403, "message": said}, status=403)
        message = told(_store_message(exc))
        if fragment(request):
            return Response(message, status_code=503, media_type="text/plain", headers={"Retry-After": "5"})
        return render(request, "error.html", {"status": 503, "message": message, "retry": True}, status=503)

    async def refused_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, IllegalAction)
        r = exc.refusal
        return render(request, "error.html", {"status": 422, "message": f"refused ({r.rule}): {r.reason}"}, status=422)

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        if fragment(request):
            # The page's script asked: no Basic challenge (the browser's
            # password box would hold the request), the sentence alone.
            response: Response = Response(str(exc.detail), status_code=exc.status_code, media_type="text/plain")
            headers = {k: v for k, v in (exc.headers or {}).items() if k.lower() != "www-authenticate"}
            response.headers.update(headers)
            return response
        else:
            response = render(
                request,
                "error.html",
                {"status": exc.status_code, "message": exc.detail, "next": request.url.path},
                status=exc.status_code,
            )
        response.headers.update(exc.headers or {})
        return response

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        task = asyncio.create_task(board.watcher.run())
        # The read models read before the first page is asked for, so it is as fast
        # as the next (a store that does not answer at start delays it a few seconds at most).
        warm = asyncio.ensure_future(asyncio.to_thread(reads.warm))
        await asyncio.wait({warm}, timeout=tournament_pages.WARM_SECONDS)
        try:
            yield
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            with contextlib.suppress(Exception):
                await warm  # never close the store under it
            reads.close()
            if store is None:
                board.store.close()

    middleware = []
    if settings.allowed_hosts is not None:
        middleware.append(Middleware(HostCheck, names=settings.allowed_hosts, any_address=settings.any_address))
    middleware += [
        Middleware(SecurityHeaders),
        Middleware(BodyLimit),
        Middleware(OutcomeHeader),
        Middleware(StoreDeadline, board=board),
        Middleware(
            SessionMiddleware,
            secret_key=board.secret,
            session_cookie=SESSION_COOKIE,
            max_age=int(settings.session_seconds),
            same_site="lax",
            https_only=settings.https,
        ),
        Middleware(SessionCheck, sessions=board.guard.sessions),
    ]
    app = Starlette(
        routes=[
            Route("/", tables_page),
            Route("/tables", tables_fragment),
            Route("/live", tables_live),
            Route("/health", health),
            Route("/login", login, methods=["GET", "POST"]),
            Route("/logout", logout, methods=["POST"]),
            Route("/scorekeeper/{scope}", scorekeeper_link),
            Route("/events/{event}", event_page),
            Route("/events/{event}/tables", event_fragment),
            *tournament_pages.routes(reads, render),
            Route("/events/{event}/print/links", print_links),
            Route("/events/{event}/open", open_tables, methods=["POST"]),
            Route("/new", new_match, methods=["GET", "POST"]),
            Route("/matches/{match}", match_page),
            Route("/matches/{match}/board", board_fragment),
            Route("/matches/{match}/log", full_log),
            Route("/matches/{match}/rewind", rewind_preview),
            Route("/matches/{match}/live", match_live),
            Route("/matches/{match}/entries/{entry}", entry_status),
            Route("/matches/{match}/act", act, methods=["POST"]),
            Route("/matches/{match}/skip-step", skip_step, methods=["POST"]),
            Route("/matches/{match}/call", call_judge, methods=["POST"]),
            Route("/matches/{match}/note", note, methods=["POST"]),
            Route("/matches/{match}/accept", accept, methods=["POST"]),
            Route("/matches/{match}/rewind", rewind, methods=["POST"]),
            Route("/matches/{match}/undo", undo, methods=["POST"]),
            Route("/matches/{match}/scenario", scenario_from),
            Route("/matches/{match}/fork", fork, methods=["POST"]),
            Mount("/static", StaticFiles(directory=str(HERE / "static")), name="static"),
        ],
        exception_handlers={
            PersistenceError: store_failed,
            MatchNotFound: not_found,
            TournamentNotFound: not_found,
            PositionError: not_found,
            StoreError: store_failed,
            IllegalAction: refused_error,
            HTTPException: http_error,
        },
        middleware=middleware,
        lifespan=lifespan,
    )
    app.state.board = board
    app.state.reads = reads
    app.state.templates = templates
    return app


def _confirm(request: Request, form: Any) -> dict[str, Any]:
    """What the preview's confirming form sends again: the same fields, to the same place."""
    return {
        "action": request.url.path,
        "fields": [(k, str(v)) for k, v in form.multi_items() if k not in ("csrf", "confirm")],
    }


def _late_version(read: asyncio.Future[Any], watch: live.Watch) -> None:
    """A live stream's first read of its match, answered after the stream
    started: its version goes to the page like any other (a failed read says
    nothing: the watcher tells the page how the store is)."""
    if read.cancelled() or read.exception() is not None:
        return
    with contextlib.suppress(asyncio.QueueFull):
        watch.queue.put_nowait({"version": read.result()[1]})


def _store_message(exc: Exception) -> str:
    """A store failure in one line without secrets (``StoreError`` hides the
    password already; a library error is not shown at all)."""
    return str(exc) if isinstance(exc, StoreError) else "The match store is not answering: try again in a moment."


# What each rewind rule is for, in the rewind form's words (the rules
# themselves are the game's: ``RewindRules.rules``).
REWIND_WORDS = {
    "410.1": "an action that was impossible",
    "410.2": "a forgotten mandatory step",
    "4": "an instruction no process gave: chapter 4 has no correction rule of its own (ruling:S13)",
}


def rewind_rules(game: Any) -> list[tuple[str, str]]:
    """The rules a judge's rewind of a match of ``game`` may cite, each with
    what it is for (none: the game has no corrections, and the form says so)."""
    rules = game.rewinds.rules if game.rewinds is not None else ()
    return [(r, REWIND_WORDS.get(r, "")) for r in rules]


def game_name(game: str | None) -> str:
    """A game's name for people, from its id (Harem Master for rows written before matches named one)."""
    try:
        return registry.get(game).name
    except registry.UnknownGame:
        return str(game)


def _free_action(form: Any, game: Any) -> Action:
    """A record-mode entry: whatever the table did, from the form's menus."""
    player, do = str(form.get("player") or ""), str(form.get("do") or "")
    if player not in game.seats:
        raise HTTPException(400, f"player: expected {' or '.join(game.seats)}.")
    if do not in game.actions:
        raise HTTPException(
            400, f"do: {do[:30]!r} is not an action; expected one of {', '.join(sorted(game.actions))}."
        )

    def one(name: str) -> str | None:
        value = _text(form, name, 120)
        return value or None

    def many(name: str) -> tuple[str, ...] | None:
        values = tuple(v for v in (str(x).strip() for x in form.getlist(name)) if v)
        return values[:60] or None

    order = one("order")
    if order is not None and order not in ("first", "second"):
        raise HTTPException(400, "order: expected first or second.")
    return Action(
        player,
        do,
        card=one("card"),
        cards=many("cards"),
        target=one("target"),
        targets=many("targets"),
        order=order,
        n=_number(form, "n", required=False),
        option=one("option"),
        ability=_number(form, "ability", required=False),
    )


def _position_from_text(text: str, store: MatchStore | None = None) -> Any:
    """A scenario's setup from pasted YAML (``referee new --position``'s
    input). Its cards come from its own ``cards:``, the bundled pool, and
    ``pool:`` naming a match of the store (that match's cards), never a file
    on the server (``_pool_of_match``)."""
    import tempfile

    from referee.inputs import InputError, load_document
    from referee.scenario import ruleset_of

    if not text.strip():
        raise ValueError("Paste a scenario position (YAML: name, rules, setup...), as `referee new --position` reads.")
    with tempfile.TemporaryDirectory() as folder:
        name = str(Path(folder) / "position.yaml")
        Path(name).write_text(text, encoding="utf-8")
        try:
            doc = load_document(name)
            _no_files(doc.data)
            if isinstance(doc.data, dict) and "pool" in doc.data:
                doc.data["pool"] = _pool_of_match(doc.data["pool"], store, Path(folder))
            return ruleset_of(doc).load_scenario(doc)
        except InputError as exc:
            raise ValueError(str(exc).replace(name, "the pasted position")) from None


def _pool_of_match(value: Any, store: MatchStore | None, folder: Path) -> str:
    """A pasted position's ``pool:``: the id of a stored match, whose card
    definitions become the position's pool (written to ``folder``, where the
    pasted text is read from). Anything else, a path above all, is refused
    without a word about the server's files."""
    from referee.store.matches import MATCH_ID

    refused = ValueError(
        "pool: a pasted position names a stored match whose cards it uses (pool: m-1a2b3c4d), never a file "
        "on the server; or write the cards it needs in its own `cards:` list."
    )
    if not isinstance(value, str) or store is None or not MATCH_ID.match(value.strip().lower()):
        raise refused
    try:
        state, _ = store.load(value.strip().lower())
    except MatchNotFound:
        raise refused from None
    cards: dict[str, Any] = {}
    for card in getattr(state, "cards", {}).values():
        name = getattr(card, "name", None)
        if name and name not in cards and not getattr(card, "filler", False) and hasattr(card, "model_dump"):
            cards[name] = card.model_dump(mode="json", by_alias=True, exclude_defaults=True)
    import yaml

    (folder / "pool.yaml").write_text(yaml.safe_dump(list(cards.values()), allow_unicode=True), encoding="utf-8")
    return "pool.yaml"


def _no_files(data: Any) -> None:
    """A pasted position names no deck file on the server: its decks are
    written in it. (A path would let whoever pastes read any file the server
    can, or learn whether it exists.)"""
    if not isinstance(data, dict):
        return
    setup = data.get("setup")
    decks = setup.get("decks") if isinstance(setup, dict) else None
    if isinstance(decks, dict) and any(isinstance(d, str) for d in decks.values()):
        raise ValueError(
            "setup.decks: a pasted position cannot name a deck file on the server; write each deck as a list."
        )
