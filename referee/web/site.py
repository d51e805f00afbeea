"""What every router of the board shares: the templates, rendering a page, the match page's context, reading a request.

``referee.web.app`` makes one ``Site`` for the application and hands it to
each router (``pages``: the match pages and their live stream; ``writes``:
the console's entries; ``judge``: rewinds, notes, forks and scenarios;
``tournament_pages``: the tables and event pages; ``signin``). A game's own
templates are found under its id (``harem-master/board.html``), from the
folder its ruleset names (``Ruleset.templates``), so the kernel's templates
name no game.
"""

from __future__ import annotations

import json
import re
import secrets
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from jinja2 import ChoiceLoader, Environment, FileSystemLoader, PrefixLoader, pass_context, select_autoescape
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.templating import Jinja2Templates

from referee import ruleset as registry
from referee.store import StoreError
from referee.web import anygame
from referee.web.auth import Role, check_csrf, csrf_token
from referee.web.board import VIOLATION_EVENTS
from referee.web.console import Outcome

if TYPE_CHECKING:
    from referee.web.app import Board, Settings
    from referee.web.tournament_pages import Reads

HERE = Path(__file__).resolve().parent


def templates_for_games() -> Jinja2Templates:
    """The kernel's templates, and each registered game's own under its id."""
    games = {game: registry.get(game).templates for game in registry.games()}
    loader = ChoiceLoader(
        [
            FileSystemLoader(str(HERE / "templates")),
            PrefixLoader({game: FileSystemLoader(str(folder)) for game, folder in games.items() if folder}),
        ]
    )
    return Jinja2Templates(env=Environment(loader=loader, autoescape=select_autoescape()))


class Site:
    """The board's shared parts: its state (``Board``), the tournaments' read
    models, the templates, and what more than one router does with a request."""

    def __init__(self, settings: Settings, board: Board, reads: Reads) -> None:
        self.settings = settings
        self.board = board
        self.reads = reads
        self.templates = templates_for_games()
        env = self.templates.env
        env.globals.update(VIOLATION_EVENTS=VIOLATION_EVENTS)
        for game_id in registry.games():  # the names a game's own board template uses
            parts = registry.get(game_id).board
            if parts is not None:
                env.globals.update(parts.TEMPLATE_GLOBALS)
        env.globals["link"] = _link
        env.globals["record_fingerprint"] = self.record_fingerprint
        env.globals["game_name"] = game_name
        env.globals["default_game"] = registry.DEFAULT_GAME
        env.filters["cite"] = lambda row: row["rule"] + (f" ruling:{row['ruling']}" if row.get("ruling") else "")
        env.filters["tojson_attr"] = lambda value: json.dumps(value, separators=(",", ":"), ensure_ascii=False)

    def record_fingerprint(self, match: str) -> str:
        """A match's short head fingerprint for paper (``chain.head_fingerprint``):
        what ``referee audit MATCH`` shows in full, so a slip anchors the record."""
        from referee.chain import head_fingerprint

        try:
            last = self.board.store.head_of(match)
        except StoreError:
            return "not started"
        return f"{head_fingerprint(last.hash)} at event {last.position}" if last.hash else "no chain"

    def render(self, request: Request, name: str, context: dict[str, Any], status: int = 200) -> Response:
        settings = self.settings
        base = {
            "protect": settings.protect,
            "store_url": None if settings.protect else self.board.store.url,
            "read_only": settings.read_only,
            "csrf": csrf_token(request),
            "signin_scope": signin_scope(request),
        }
        return self.templates.TemplateResponse(request, name, {**base, **context}, status_code=status)

    @staticmethod
    def fragment(request: Request) -> bool:
        """A request from the page's script, which wants the board alone."""
        return request.headers.get("x-requested-with") == "referee-console"

    def told(self, exc: Exception | str) -> str:
        """A store's message for a page: on a protected board, whoever asks
        learns nothing of where the store is (its URL, file or host)."""
        message = str(exc)
        if self.settings.protect:
            message = message.replace(self.board.store.url, "this board's store")
        return message

    # --- the match page ------------------------------------------------------------------

    def match_context(
        self, request: Request, params: Any = None, role: Role | None = None, notice: Outcome | None = None
    ) -> dict[str, Any]:
        """A match page's context for the viewer the request asks for (and
        may see): the position, the log, the decision and, for whoever may
        log it live, the console."""
        board, settings = self.board, self.settings
        params = params if params is not None else request.query_params
        match = match_key(request)
        role = role or board.role(request, match, params if params is not request.query_params else None)
        viewer = viewer_param(request, role, params, board.viewers(match))
        board.require(request, match, viewer, role)
        at = None if notice is not None else position_param(request)
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
                "forms": anygame.controls(game, actions, page["view"], seat, decision.get("moves"))
                if actions
                else None,
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

    # --- writing -----------------------------------------------------------------------------

    async def form(self, request: Request) -> Any:
        """The posted form, its CSRF token checked. (The body is at most
        ``MAX_FORM`` bytes by now, chunked or not: ``BodyLimit``.)"""
        form = await request.form(max_files=0, max_fields=200)
        check_csrf(request, form)
        return form

    def answer(self, request: Request, form: Any, role: Role, outcome: Outcome) -> Response:
        """The new board with the outcome's notice: the fragment for the page's
        script, else the whole page (a phone without JavaScript still logs)."""
        context = self.match_context(request, form, role, outcome)
        name = context["board_template"] if self.fragment(request) else "match.html"
        response = self.render(request, name, context, status=outcome.http)
        response.headers["X-Outcome"] = outcome.status
        return response

    async def writer(self, request: Request) -> tuple[str, Any, Role, str, int, str]:
        """A write to a match: its id, the form, who writes, as which viewer,
        the version the page showed and the entry's id; refused (403) for
        whoever may not log the match."""
        board = self.board
        if self.settings.read_only:
            raise HTTPException(403, "This board is read-only (referee serve --read-only): nothing can be logged.")
        match = match_key(request)
        form = await self.form(request)
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
        viewer = viewer_param(request, role, form, board.viewers(match))
        board.require(request, match, viewer, role)
        return match, form, role, viewer, int(number_field(form, "version") or 0), str(form.get("entry") or "")[:40]


# --- request parameters -----------------------------------------------------------


@pass_context
def _link(context: Any, path: str, **params: Any) -> str:
    """A URL on this server keeping the page's player token."""
    token = context.get("token")
    query = {k: v for k, v in params.items() if v is not None}
    if token and query.get("as") not in (None, "judge", "public"):  # a seat's page
        query["token"] = token
    return path + ("?" + urlencode(query) if query else "")


def match_key(request: Request) -> str:
    return str(request.path_params["match"]).strip().lower()


def viewer_param(request: Request, role: Role, params: Any = None, viewers: tuple[str, ...] = ()) -> str:
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


def position_param(request: Request, name: str = "at") -> int | None:
    text = request.query_params.get(name, "").strip()
    if not text:
        return None
    if not EVENT_NUMBER.fullmatch(text):
        raise HTTPException(400, f"{name}={text[:40]!r}: expected an event number (0 or more).")
    return int(text)


def number_field(form: Any, name: str, *, required: bool = True) -> int | None:
    text = str(form.get(name) or "").strip()
    if not text:
        if required:
            raise HTTPException(400, f"{name}: expected a number (the form is incomplete).")
        return None
    if not re.fullmatch(r"[0-9]{1,9}", text):  # ASCII digits: str.isdigit also takes "²"
        raise HTTPException(400, f"{name}={text[:20]!r}: expected a whole number.")
    return int(text)


def text_field(form: Any, name: str, limit: int = 500) -> str:
    from referee.inputs import printable

    text = str(form.get(name) or "").strip()
    if len(text) > limit:
        raise HTTPException(400, f"{name}: at most {limit} characters.")
    if printable(text) != text:
        raise HTTPException(400, f"{name}: plain text only (no control characters).")
    return text


def signin_scope(request: Request) -> str | None:
    """The scope a sign-in from this page is for (an event, or a match: a
    table's match also takes its event's password), so that a scorekeeper's
    printed password works on the page's own "sign in" link."""
    params = request.path_params
    found = params.get("event") or params.get("match")
    return str(found).strip().lower() if found else None


def safe_next(target: str | None, default: str = "/") -> str:
    target = target or default
    if not target.startswith("/") or target.startswith("//") or "\\" in target:
        return default  # only pages of this server
    return target


def game_name(game: str | None) -> str:
    """A game's name for people, from its id (the default game for rows written before matches named one)."""
    try:
        return registry.get(game).name
    except registry.UnknownGame:
        return str(game)


def rewind_rules(game: Any) -> list[tuple[str, str]]:
    """The rules a judge's rewind of a match of ``game`` may cite, each with
    what it is for in the game's words (none: the game has no corrections,
    and the form says so)."""
    rewinds = game.rewinds
    if rewinds is None:
        return []
    return [(r, rewinds.words.get(r, "")) for r in rewinds.rules]
