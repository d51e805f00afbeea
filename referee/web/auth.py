"""Who is asking, and what they may do: roles, sign-in, CSRF, and the limit on password attempts.

Roles, from the most to the least:

- **judge**: the judge password, by HTTP Basic (any user name) or the
  sign-in form (a session cookie). Sees everything, logs, rewinds (410),
  accepts violations, writes notes, starts matches. On an unprotected board
  (loopback, no password: a judge's own machine) everyone is the judge.
- **scorekeeper** of a scope (an event, or one match outside any event):
  signed in by a link (``referee serve --scorekeeper SCOPE [--name NAME]``
  prints it) or by typing its token as the password. The name it records
  is the one the organiser printed the link for: a password printed for a
  name signs in only with that name, the scope's shared one with none. Sees the judge's view of that
  event's tables (a paper table holds nothing the store hides from its
  scorekeeper) and logs every decision there, violations and skipped steps
  included, but never rewinds or accepts.
- **player** A or B of one match: the player link (a token per match and
  seat). Sees their own view only; logs their own decisions only, and only
  where the event allows players to log.
- **public**: the public view.

Every change is a POST carrying a CSRF token: a random value kept in the
session (Starlette's ``SessionMiddleware``: a cookie signed with
itsdangerous under the session key, ``HttpOnly``, ``SameSite=Lax`` (a
scorekeeper's link opened from another site still signs in; no other site
can post with it),
``Secure`` over HTTPS), sent back as the form field ``csrf`` or the header
``X-CSRF-Token``, and compared in constant time. A page of another site
cannot read it, so it cannot forge a write, not even with a judge's HTTP
Basic credentials that the browser would send along. The session key is
shared by every server of a store (``tokens.session_secret``), so any of
them accepts a session another signed.

Password attempts (the judge password, a scorekeeper token typed as one)
are limited per client address, counted in the store (``referee.store.side``)
so every server of it counts alike: a few wrong guesses, then refusals from
that address until the window has passed. There is no overall limit, so
strangers guessing from many addresses cannot lock a judge out, and a
signed-in judge is never asked again. The client address is the
connection's; ``X-Forwarded-For`` is believed only from a proxy the
organiser named (``referee serve --proxy``), and then only its last hop.

Sign-ins are kept in the store too: the cookie holds the session's id, its
row says who it is and until when (``referee serve --session-hours``).
Signing out deletes the row, on every server at once; a judge password
changed on the server ends every judge session made with the old one.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import hashlib
import hmac
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request

from referee.web.tokens import check_scorekeeper, check_token

REALM = 'Basic realm="referee judges", charset="UTF-8"'
CSRF_FIELD = "csrf"
CSRF_HEADER = "x-csrf-token"


@dataclass(frozen=True)
class Role:
    """Who a request comes from (see the module's docstring)."""

    kind: str  # judge | scorekeeper | player | public
    scope: str | None = None  # scorekeeper: the event or match kept; player: the match
    seat: str | None = None  # player: A or B
    name: str | None = None  # as given at sign-in, for the log

    @property
    def by(self) -> str:
        """Who entered an event, as its envelope records it (``_by``)."""
        if self.kind == "judge":
            return f"judge {self.name}" if self.name else "judge"
        if self.kind == "scorekeeper":
            return f"scorekeeper {self.name} of {self.scope}" if self.name else f"scorekeeper of {self.scope}"
        if self.kind == "player":
            return f"player {self.seat}"
        return "public"

    @property
    def caller(self) -> str:
        """Who calls a judge, as the table says it."""
        if self.kind == "player":
            return str(self.seat)
        if self.kind == "scorekeeper":
            return f"the scorekeeper{' ' + self.name if self.name else ''}"
        return f"judge {self.name}" if self.name else "a judge"


PUBLIC = Role("public")


def event_of(match: str) -> str | None:
    """The event a table's match belongs to: ``e-1a2b3c4d.r3.t1`` is a table
    of ``e-1a2b3c4d`` (its ids are decided when the round is paired)."""
    head, dot, _ = match.partition(".")
    return head if dot and head.startswith("e-") else None


def covers(scope: str, match: str) -> bool:
    """Does a scorekeeper of ``scope`` keep ``match``? A scope is an event
    (every table), a table's match (that table, its later games
    ``MATCH.g2``... included: the per-table links of ``/events/E/print/links``)
    or a match outside any event."""
    return scope == match or scope == event_of(match) or match.startswith(scope + ".g")


class Attempts:
    """Failed password attempts in a sliding window, per client address: in
    the store's ``referee_attempts`` (``side``: every server of the store
    counts the same attempts), else in this process. ``overall`` (off by
    default) also limits all clients together, which lets strangers lock a
    judge out: only for a single-user board."""

    def __init__(
        self,
        per_client: int = 5,
        overall: int | None = None,
        window: float = 60.0,
        clock: Callable[[], float] = time.time,
        side: Any = None,
    ) -> None:
        self.per_client = per_client
        self.overall = overall
        self.window = window
        self.clock = clock
        self.side = side if side is not None and getattr(side, "available", False) else None
        self._failed: deque[tuple[float, str]] = deque()
        self._lock = threading.Lock()

    def _trim(self, now: float) -> None:
        while self._failed and self._failed[0][0] <= now - self.window:
            self._failed.popleft()

    def wait(self, client: str) -> float:
        """Seconds until ``client`` may try again (0: now)."""
        now = self.clock()
        if self.side is not None:
            mine = self.side.recent(client, now - self.window)
        else:
            with self._lock:
                self._trim(now)
                mine = [t for t, c in self._failed if c == client]
        if len(mine) >= self.per_client:
            return max(1.0, mine[-self.per_client] + self.window - now)
        if self.overall is not None:
            with self._lock:
                self._trim(now)
                if len(self._failed) >= self.overall:
                    return max(1.0, self._failed[-self.overall][0] + self.window - now)
        return 0.0

    def failed(self, client: str) -> None:
        now = self.clock()
        if self.side is not None:
            self.side.failed(client, now, self.window)
            if self.overall is None:
                return
        with self._lock:
            self._trim(now)
            self._failed.append((now, client))


class SessionCheck:
    """Looks the cookie's session up in the store before the route runs, in
    a worker thread (a store that hangs must not hang the server: the pages
    then answer 503), so ``Sessions.alive`` reads the answer from the request."""

    def __init__(self, app: Any, sessions: Sessions) -> None:
        self.app = app
        self.sessions = sessions

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and self.sessions.side is not None:
            sid = (scope.get("session") or {}).get("sid")
            if sid:
                from starlette.responses import PlainTextResponse

                from referee.store.errors import StoreError

                try:
                    scope["referee.sid"] = await asyncio.to_thread(self.sessions.lookup, str(sid))
                except StoreError:
                    # Who this is cannot be told now: nothing is done, and the page says so.
                    response = PlainTextResponse(
                        "The match store is not answering: nothing was recorded. Try again in a moment.",
                        status_code=503,
                        headers={"Retry-After": "5"},
                    )
                    await response(scope, receive, send)
                    return
        await self.app(scope, receive, send)


def client_of(request: Request, proxies: tuple[str, ...] = ()) -> str:
    """The client's address: the connection's, or, when the connection comes
    from a proxy the organiser named, the last address that proxy added to
    ``X-Forwarded-For`` (whatever a client puts there itself comes before it)."""
    host = request.client.host if request.client else "unknown"
    if host in proxies:
        forwarded = request.headers.get("x-forwarded-for", "")
        last = forwarded.rsplit(",", 1)[-1].strip()
        if last:
            return last[:64]
    return host


def too_many(wait: float) -> HTTPException:
    return HTTPException(
        429,
        f"Too many wrong passwords: try again in {int(wait) + 1} seconds.",
        headers={"Retry-After": str(int(wait) + 1)},
    )


class Sessions:
    """Sign-ins kept in the store (``side``); None: only in the signed cookie
    (a read-only store, an app embedded without one), as before."""

    def __init__(self, side: Any, seconds: float, clock: Callable[[], float] = time.time) -> None:
        self.side = side if side is not None and getattr(side, "available", False) else None
        self.seconds = seconds
        self.clock = clock

    def start(self, request: Request, kind: str, proof: str) -> None:
        """A new session row for this browser, its id in the cookie."""
        if self.side is None or "session" not in request.scope:
            return
        old = request.session.get("sid")
        if old:
            self.side.end_session(str(old))
        request.session["sid"] = self.side.new_session(kind, proof, self.clock() + self.seconds)

    def lookup(self, sid: str) -> bool:
        return self.side is not None and self.side.session(sid, self.clock()) is not None

    def alive(self, request: Request) -> bool:
        """Does the cookie name a session the store still holds?"""
        if self.side is None:
            return True
        sid = (request.scope.get("session") or {}).get("sid")
        if not sid:
            return False
        cached = request.scope.get("referee.sid")
        if cached is None:
            cached = request.scope["referee.sid"] = self.side.session(str(sid), self.clock()) is not None
        return bool(cached)

    def end(self, request: Request) -> None:
        sid = (request.scope.get("session") or {}).get("sid")
        if self.side is not None and sid:
            self.side.end_session(str(sid))
        request.scope["referee.sid"] = False


class Guard:
    """Answers "who is this?" for one board server."""

    def __init__(
        self,
        *,
        protect: bool,
        judge_password: str | None,
        token_key: bytes | None,
        secret: str,
        attempts: Attempts | None = None,
        sessions: Sessions | None = None,
        proxies: tuple[str, ...] = (),
    ) -> None:
        self.protect = protect
        self.judge_password = judge_password or ""
        self.token_key = token_key
        self.secret = secret.encode()
        self.attempts = attempts or Attempts()
        self.sessions = sessions or Sessions(None, 0)
        self.proxies = proxies

    def client(self, request: Request) -> str:
        return client_of(request, self.proxies)

    # --- the judge ---------------------------------------------------------------

    def _fingerprint(self) -> str:
        """What a judge's session holds: changes with the password, so a new
        password signs every judge out."""
        return hmac.new(self.secret, b"judge\x00" + self.judge_password.encode(), hashlib.sha256).hexdigest()[:32]

    def _basic_password(self, request: Request) -> str | None:
        scheme, _, value = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "basic":
            return None
        try:
            _, _, password = base64.b64decode(value, validate=True).decode("utf-8").partition(":")
        except (binascii.Error, UnicodeDecodeError):
            return ""
        return password

    def is_judge(self, request: Request) -> bool:
        if not self.protect:
            return True
        session = request.scope.get("session") or {}
        if (
            session.get("judge")
            and hmac.compare_digest(str(session["judge"]), self._fingerprint())
            and self.sessions.alive(request)
        ):
            return True  # signed in: never asked for a password again, so never locked out
        password = self._basic_password(request)
        if password is None:
            return False
        client = self.client(request)
        wait = self.attempts.wait(client)
        if wait:
            raise too_many(wait)
        if self.judge_password and hmac.compare_digest(password.encode(), self.judge_password.encode()):
            # The session remembers it too: the page's own background posts
            # then count as the judge's whether or not the browser repeats
            # its Basic credentials on them.
            if "session" in request.scope and (
                request.session.get("judge") != self._fingerprint() or not self.sessions.alive(request)
            ):
                request.session["judge"] = self._fingerprint()
                self.sessions.start(request, "judge", self._fingerprint())
            return True
        self.attempts.failed(client)
        return False

    def judge_name(self, request: Request) -> str | None:
        session = request.scope.get("session") or {}
        return session.get("name") if session.get("judge") else None

    # --- signing in ----------------------------------------------------------------

    def sign_in(self, request: Request, password: str, name: str, scope: str | None) -> Role | None:
        """The sign-in form: the judge password, or a scorekeeper token of
        ``scope`` (the event or match whose page sent the sign-in); the
        session remembers it. None for a wrong password (counted)."""
        client = self.client(request)
        wait = self.attempts.wait(client)
        if wait:
            raise too_many(wait)
        session = request.session
        if self.judge_password and hmac.compare_digest(password.encode(), self.judge_password.encode()):
            session["judge"] = self._fingerprint()
            session["name"] = name or None
            self.sessions.start(request, "judge", self._fingerprint())
            return Role("judge", name=name or None)
        # A scorekeeper's name is the organiser's, never typed freely: the
        # password printed for a name signs in only with that name; the
        # scope's shared password signs in without one (the typed name is
        # not recorded). A match page of an event's table takes the event's.
        for kept in dict.fromkeys(s for s in (scope, event_of(scope or "")) if s):
            if name and check_scorekeeper(self.token_key, kept, name, password):
                self.keep(request, kept, password, name)
                return Role("scorekeeper", scope=kept, name=name)
            if check_scorekeeper(self.token_key, kept, "", password):
                self.keep(request, kept, password, "")
                return Role("scorekeeper", scope=kept)
        self.attempts.failed(client)
        return None

    def keep(self, request: Request, scope: str, token: str, name: str = "") -> None:
        """Remember a scorekeeper's scope in the session (from the link or the form)."""
        kept = [k for k in request.session.get("keeper", []) if k.get("scope") != scope]
        kept.append({"scope": scope, "token": token, "name": name})
        request.session["keeper"] = kept[-8:]
        if not self.sessions.alive(request):
            self.sessions.start(request, "keeper", "")

    def enter_by_link(self, request: Request, scope: str, token: str, name: str) -> bool:
        """A scorekeeper's link: the token is of the scope and the name in it."""
        client = self.client(request)
        wait = self.attempts.wait(client)
        if wait:
            raise too_many(wait)
        if check_scorekeeper(self.token_key, scope, name, token):
            self.keep(request, scope, token, name)
            return True
        self.attempts.failed(client)
        return False

    def sign_out(self, request: Request) -> None:
        """The session ends in the store (every server forgets it) and in the cookie."""
        self.sessions.end(request)
        request.session.clear()

    # --- roles ----------------------------------------------------------------------

    def scorekeeper(self, request: Request, match: str | None) -> Role | None:
        """The scorekeeper role that covers ``match`` (any, for None)."""
        session = request.scope.get("session") or {}
        if session.get("keeper") and not self.sessions.alive(request):
            return None
        for k in session.get("keeper", []):
            scope, token, name = k.get("scope", ""), k.get("token", ""), k.get("name", "")
            if match is not None and not covers(scope, match):
                continue
            # A link's token is of the scope and its name (the name it records); the
            # scope's shared password is of the scope alone, and records no name.
            if name and check_scorekeeper(self.token_key, scope, name, token):
                return Role("scorekeeper", scope=scope, name=name)
            if check_scorekeeper(self.token_key, scope, "", token):
                return Role("scorekeeper", scope=scope)
        return None

    def player(self, match: str, seat: str | None, token: str | None) -> Role | None:
        # Any seat a token was minted for (``tokens``: only a match's own seats' links are made).
        if seat is not None and check_token(self.token_key, match, seat, token):
            return Role("player", scope=match, seat=seat)
        return None

    def role(
        self, request: Request, match: str | None = None, seat: str | None = None, token: str | None = None
    ) -> Role:
        """The strongest role this request holds for ``match``."""
        if self.is_judge(request):
            return Role("judge", name=self.judge_name(request))
        keeper = self.scorekeeper(request, match)
        if keeper is not None:
            return keeper
        if match is not None:
            found = self.player(match, seat, token)
            if found is not None:
                return found
        return PUBLIC


# --- CSRF ---------------------------------------------------------------------------


def csrf_token(request: Request) -> str:
    """This session's CSRF token (made on the first page that shows a form)."""
    session = request.session
    token = session.get("csrf")
    if not token:
        token = session["csrf"] = secrets.token_urlsafe(24)
    return str(token)


def check_csrf(request: Request, form: Any) -> None:
    """403 unless the request carries this session's CSRF token."""
    expected = str((request.scope.get("session") or {}).get("csrf") or "")
    given = str(form.get(CSRF_FIELD) or request.headers.get(CSRF_HEADER) or "")
    if not expected or not given or not hmac.compare_digest(expected.encode(), given.encode()):
        raise HTTPException(
            403,
            "This form has expired or did not come from this board (no valid CSRF token): "
            "nothing was recorded. Reload the page and try again.",
        )
