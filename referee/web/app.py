"""The board's web application (Starlette): routes, templates, who may see what.

Pages are read-only: nothing here writes to the store. Who may see what:

- On a loopback address without ``REFEREE_JUDGE_PASSWORD`` (the default,
  a judge's own machine), every view is open: whoever can reach the server
  can already read the database file.
- Protected (a judge password is set; ``referee serve`` requires one for any
  other address): the judge view and the rewind preview need the password
  (HTTP Basic, any user name); a player's view needs that player's token for
  that match (``tokens``) or the judge password; the public view and the
  tables page are open, and show only what 215 lets anyone see.

A page never shows the database URL's password: the store's messages hide it,
and the store's URL is shown only on an unprotected server, password masked.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import hmac
import json
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from jinja2 import pass_context
from sse_starlette import EventSourceResponse
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from projections.views import SHOWN_PER_PILE, VIEWERS
from referee.store import MatchNotFound, MatchStore, PositionError, StoreError
from referee.tournament.store import TournamentNotFound
from referee.commands.matches import _grouped as action_lines  # the CLI's `legal` lines
from referee.web.board import CHARACTER_KEYS, VIEW_KEYS, VIOLATION_EVENTS, BoardReader
from referee.web.live import POLL_SECONDS, Watcher
from referee.web import tournament_pages
from referee.web.tokens import check_token

HERE = Path(__file__).resolve().parent
REALM = 'Basic realm="referee judges", charset="UTF-8"'
# Everything the pages load comes from this server: no inline script, no
# framing, no referrer (a player's link carries its token).
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'",
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

    def __post_init__(self) -> None:
        if self.protect and not self.judge_password:
            raise ValueError("a protected board needs a judge password")


def open_store(url: str) -> MatchStore:
    """The store for reading: read-only where the store offers it (pages never
    write, so a read-only SQLite file or a role without write rights serves)."""
    import inspect

    if "read_only" in inspect.signature(MatchStore).parameters:
        return MatchStore(url, read_only=True)  # type: ignore[call-arg]
    return MatchStore(url)


class Board:
    """The application's state: settings, store, reader, live watcher."""

    def __init__(self, settings: Settings, store: MatchStore | None = None) -> None:
        self.settings = settings
        self.store = store if store is not None else open_store(settings.url)
        self.reader = BoardReader(self.store)
        self.watcher = Watcher(self.store.application.recorder, settings.poll_seconds)

    # --- who may see what -------------------------------------------------------

    def is_judge(self, request: Request) -> bool:
        if not self.settings.protect:
            return True
        scheme, _, value = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "basic":
            return False
        try:
            _, _, password = base64.b64decode(value, validate=True).decode("utf-8").partition(":")
        except (binascii.Error, UnicodeDecodeError):
            return False
        return hmac.compare_digest(password.encode(), (self.settings.judge_password or "").encode())

    def may_see(self, request: Request, match: str, viewer: str) -> bool:
        if viewer == "public" or self.is_judge(request):
            return True
        token = request.query_params.get("token")
        return viewer in ("A", "B") and check_token(self.settings.token_key, match, viewer, token)

    def require(self, request: Request, match: str, viewer: str) -> None:
        if self.may_see(request, match, viewer):
            return
        if viewer == "judge":
            raise HTTPException(401, "The judge view needs the judge password.", headers={"WWW-Authenticate": REALM})
        raise HTTPException(
            403,
            f"Player {viewer}'s view shows {viewer}'s hand: open it with {viewer}'s own link "
            f"(printed by `referee new`), or log in as a judge.",
        )


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


def _viewer(request: Request, board: Board) -> str:
    default = "public" if board.settings.protect else "judge"
    viewer = request.query_params.get("as") or default
    if viewer not in VIEWERS:
        raise HTTPException(400, f"Unknown viewer {viewer!r}: expected one of {', '.join(VIEWERS)}.")
    return viewer


EVENT_NUMBER = re.compile(r"[0-9]{1,12}")  # ASCII digits only: str.isdigit also takes "²"


def _position(request: Request, name: str = "at") -> int | None:
    text = request.query_params.get(name, "").strip()
    if not text:
        return None
    if not EVENT_NUMBER.fullmatch(text):
        raise HTTPException(400, f"{name}={text[:40]!r}: expected an event number (0 or more).")
    return int(text)


# --- the application --------------------------------------------------------------


def create_app(settings: Settings, store: MatchStore | None = None) -> Starlette:
    """The board application; ``store`` lets a caller share an open store."""
    board = Board(settings, store)
    reads = tournament_pages.Reads(board.store)
    templates = Jinja2Templates(directory=str(HERE / "templates"))
    env = templates.env
    env.globals.update(VIEWERS=VIEWERS, VIEW_KEYS=VIEW_KEYS, CHARACTER_KEYS=CHARACTER_KEYS,
                       VIOLATION_EVENTS=VIOLATION_EVENTS, SHOWN_PER_PILE=SHOWN_PER_PILE,
                       action_lines=action_lines)

    @pass_context
    def link(context: Any, path: str, **params: Any) -> str:
        """A URL on this server keeping the page's player token."""
        token = context.get("token")
        query = {k: v for k, v in params.items() if v is not None}
        if token and query.get("as") in ("A", "B"):
            query["token"] = token
        return path + ("?" + urlencode(query) if query else "")

    env.globals["link"] = link
    env.filters["cite"] = lambda row: row["rule"] + (f" ruling:{row['ruling']}" if row.get("ruling") else "")

    def render(request: Request, name: str, context: dict[str, Any], status: int = 200) -> Response:
        base = {"protect": settings.protect, "store_url": None if settings.protect else board.store.url}
        return templates.TemplateResponse(request, name, {**base, **context}, status_code=status)

    def match_context(request: Request) -> dict[str, Any]:
        match = _match_key(request)
        viewer = _viewer(request, board)
        board.require(request, match, viewer)
        page = board.reader.page(match, _position(request), viewer)
        token = request.query_params.get("token") if viewer in ("A", "B") else None
        tabs = [v for v in VIEWERS if board.may_see(request, match, v)]
        return {**page, "token": token, "tabs": tabs, "judge": viewer == "judge"}

    def match_page(request: Request) -> Response:
        return render(request, "match.html", match_context(request))

    def board_fragment(request: Request) -> Response:
        return render(request, "board.html", match_context(request))

    def full_log(request: Request) -> Response:
        match = _match_key(request)
        viewer = _viewer(request, board)
        board.require(request, match, viewer)
        page = board.reader.full_log(match, viewer, _position(request, "from"))
        token = request.query_params.get("token") if viewer in ("A", "B") else None
        return render(request, "log.html", {**page, "token": token, "judge": viewer == "judge"})

    def rewind_preview(request: Request) -> Response:
        match = _match_key(request)
        board.require(request, match, "judge")
        to = _position(request, "to")
        if to is None or to < 1:
            raise HTTPException(400, "to: expected the event to rewind to (1 or more).")
        return render(request, "rewind.html", board.reader.rewind_preview(match, to))

    # Tournament pages read the read models (referee.web.tournament_pages).
    def tables_page(request: Request) -> Response:
        return render(request, "index.html", tournament_pages.tables_context(reads, request))

    def event_page(request: Request) -> Response:
        return render(request, "event.html", tournament_pages.event_context(reads, request.path_params["event"], request))

    def event_fragment(request: Request) -> Response:
        return render(request, "event_tables.html", tournament_pages.event_context(reads, request.path_params["event"], request))

    def tables_fragment(request: Request) -> Response:
        return render(request, "tables.html", tournament_pages.tables_context(reads, request))

    def login(request: Request) -> Response:
        """Ask for the judge password, then go back where the judge was."""
        if not board.is_judge(request):
            raise HTTPException(401, "Log in with the judge password.", headers={"WWW-Authenticate": REALM})
        target = request.query_params.get("next", "/")
        if not target.startswith("/") or target.startswith("//"):
            target = "/"  # only pages of this server
        return RedirectResponse(target, status_code=303)

    async def match_live(request: Request) -> Response:
        match = _match_key(request)
        # Watch first, then read the version now (it may have moved while the
        # page loaded): a write in between is then announced, not lost. An
        # unknown match is a 404 here, before the stream starts.
        watch = board.watcher.subscribe(match)
        try:
            _, version = await asyncio.to_thread(board.store.load, match)
        except BaseException:
            board.watcher.unsubscribe(watch)
            raise

        async def stream() -> AsyncIterator[dict[str, str]]:
            try:
                yield {"event": "version", "data": json.dumps({"version": version})}
                while True:
                    message = await watch.queue.get()
                    yield {"event": "version", "data": json.dumps({"version": message["version"]})}
            finally:
                board.watcher.unsubscribe(watch)

        return EventSourceResponse(stream(), ping=15)

    async def tables_live(request: Request) -> Response:
        watch = board.watcher.subscribe(None)

        async def stream() -> AsyncIterator[dict[str, str]]:
            try:
                yield {"event": "hello", "data": "{}"}
                while True:
                    message = await watch.queue.get()
                    yield {"event": "tables", "data": json.dumps(message["matches"])}
            finally:
                board.watcher.unsubscribe(watch)

        return EventSourceResponse(stream(), ping=15)

    def told(exc: Exception) -> str:
        """A store's message for a page: on a protected board, whoever asks
        learns nothing of where the store is (its URL, file or host)."""
        message = str(exc)
        if settings.protect:
            message = message.replace(board.store.url, "this board's store")
        return message

    async def not_found(request: Request, exc: Exception) -> Response:
        return render(request, "error.html", {"status": 404, "message": told(exc)}, status=404)

    async def store_failed(request: Request, exc: Exception) -> Response:
        message = "The match store cannot be read just now; try again." if settings.protect else str(exc)
        return render(request, "error.html", {"status": 503, "message": message}, status=503)

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        response = render(request, "error.html", {"status": exc.status_code, "message": exc.detail}, status=exc.status_code)
        response.headers.update(exc.headers or {})
        return response

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        task = asyncio.create_task(board.watcher.run())
        try:
            yield
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            reads.close()
            if store is None:
                board.store.close()

    app = Starlette(
        routes=[
            Route("/", tables_page),
            Route("/tables", tables_fragment),
            Route("/live", tables_live),
            Route("/login", login),
            Route("/events/{event}", event_page),
            Route("/events/{event}/tables", event_fragment),
            *tournament_pages.routes(reads, render),
            Route("/matches/{match}", match_page),
            Route("/matches/{match}/board", board_fragment),
            Route("/matches/{match}/log", full_log),
            Route("/matches/{match}/rewind", rewind_preview),
            Route("/matches/{match}/live", match_live),
            Mount("/static", StaticFiles(directory=str(HERE / "static")), name="static"),
        ],
        exception_handlers={
            MatchNotFound: not_found,
            TournamentNotFound: not_found,
            PositionError: not_found,
            StoreError: store_failed,
            HTTPException: http_error,
        },
        middleware=[Middleware(SecurityHeaders)],
        lifespan=lifespan,
    )
    app.state.board = board
    app.state.templates = templates
    return app
