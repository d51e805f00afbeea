"""The board's web application (Starlette): its state, its middleware, and its routers put together.

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
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eventsourcing.persistence import PersistenceError
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.sessions import SessionMiddleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Mount
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from referee.actions import IllegalAction
from referee.store import MatchNotFound, MatchStore, PositionError, StoreError
from referee.store.matches import WRITE_GATE, WriteGate
from referee.tournament.store import TournamentNotFound
from referee.web import judge, live, pages, signin, tournament_pages, writes
from referee.web.auth import (
    REALM,
    Attempts,
    Guard,
    Role,
    SessionCheck,
    Sessions,
    covers,
    event_of,
)
from referee.web.board import BoardReader
from referee.web.console import Console
from referee.web.live import POLL_SECONDS, Watcher
from referee.web.site import Site
from referee.web.tokens import session_secret
from referee.web.venue import HostCheck

HERE = Path(__file__).resolve().parent
SESSION_COOKIE = "referee_session"
SESSION_SECONDS = 24 * 3600  # a day at the venue
MAX_FORM = 64 * 1024  # a pasted scenario position is a few KB
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
        self.calls = Attempts(per_client=writes.CALLS_PER_MINUTE, side=side)
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


# --- the application --------------------------------------------------------------


def create_app(settings: Settings, store: MatchStore | None = None) -> Starlette:
    """The board application; ``store`` lets a caller share an open store.

    Its routes are the routers' by concern (``pages``: the match pages;
    ``writes``: the console's entries; ``judge``: a judge's tools;
    ``tournament_pages``: the tables and event pages; ``signin``), each
    given the ``Site`` they share (its templates, rendering, the match
    page's context)."""
    board = Board(settings, store)
    reads = tournament_pages.Reads(board.store)
    site = Site(settings, board, reads)
    render, told = site.render, site.told

    # --- errors ------------------------------------------------------------------------------

    async def not_found(request: Request, exc: Exception) -> Response:
        return render(request, "error.html", {"status": 404, "message": told(exc)}, status=404)

    async def store_failed(request: Request, exc: Exception) -> Response:
        from referee.tournament.store import only_reads

        if only_reads(exc):  # the store answered: this board's role may not write
            said = "This board's database role may only read: nothing was recorded (log with a role that may write)."
            if site.fragment(request):
                return Response(said, status_code=403, media_type="text/plain")
            return render(request, "error.html", {"status": 403, "message": said}, status=403)
        message = told(_store_message(exc))
        if site.fragment(request):
            return Response(message, status_code=503, media_type="text/plain", headers={"Retry-After": "5"})
        return render(request, "error.html", {"status": 503, "message": message, "retry": True}, status=503)

    async def refused_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, IllegalAction)
        r = exc.refusal
        return render(request, "error.html", {"status": 422, "message": f"refused ({r.rule}): {r.reason}"}, status=422)

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        if site.fragment(request):
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
            *tournament_pages.routes(site),
            *pages.routes(site),
            *signin.routes(site),
            *writes.routes(site),
            *judge.routes(site),
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
    app.state.templates = site.templates
    return app


def _store_message(exc: Exception) -> str:
    """A store failure in one line without secrets (``StoreError`` hides the
    password already; a library error is not shown at all)."""
    return str(exc) if isinstance(exc, StoreError) else "The match store is not answering: try again in a moment."
