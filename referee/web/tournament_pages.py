"""The board's tournament pages: the tables page and the event page read from the read models, the round clock (and its projector view), the top cut's bracket, print-ready pairings, match slips, standings and scorekeepers' links, and opening a round's tables.

Nothing here reads every match's events: the pages read the table-summary
read model (``referee.tournament.tables``) and the tournaments projection
(``referee.tournament.projection``), as a reader that never writes (the
board's store is read-only): it reads their tables once and then folds only
the notifications written since its last read, in memory (``Reads.refresh``:
one query when nothing is new), so a page costs the same with 10 tables or
1,000; the pages show a bounded number of rows (``PAGE_ROWS``) with links to
the rest. The browser asks for a live page's fragment at most every 3 s
(``data-min-interval``), however many tables act.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import AsyncIterator
from typing import Any

from sse_starlette import EventSourceResponse
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute

from referee.web.auth import REALM
from referee.web.site import Site, safe_next, text_field

REFRESH_SECONDS = 0.0  # how stale a read may be: none (a refresh with nothing new is one query)
PAGE_ROWS = 50  # tables per page
WARM_SECONDS = 10.0  # how long a starting server waits for its read models before it answers anyway
PAPERS = {"a4": "A4", "letter": "Letter"}


class Reads:
    """The board's readers of the read models, shared by every request."""

    def __init__(self, store: Any) -> None:
        from referee.tournament.service import Station
        from referee.tournament.tables import Tables

        self.store = store
        self.station = Station(store)
        self.station.reader.writable = False  # the board never writes, read models included
        self.tables = Tables(store, writable=False)
        self._lock = threading.Lock()
        self._last = 0.0
        self.warmed: set[str] = set()  # tournaments folded and ranked at start (``warm``)
        self.ready = threading.Event()  # set once ``warm`` has run

    def refresh(self) -> None:
        with self._lock:
            if time.monotonic() - self._last < REFRESH_SECONDS:
                return
            self.station.catch_up()
            self.tables.refresh()
            self._last = time.monotonic()

    def warm(self) -> None:
        """Read the read models, fold every tournament and compute its
        standings once, at server start: the first event page is then as
        fast as the next (before, a fresh server's first page at 1,000 tables
        took 0.9-2.4 s, reading all of it then)."""
        try:
            self.refresh()
            for tid, _ in self.station.reader.tournaments():
                state = self.station.reader.states.get(tid)
                if state is not None:
                    self.station.reader.standings(tid)
                    self.station.results(state)
                    self.warmed.add(tid)
        except Exception:  # noqa: BLE001 - a store not answering at start: the first page reads it then
            return
        finally:
            self.ready.set()

    def close(self) -> None:
        self.station.close()
        self.tables.close()


def _page(request: Request, name: str = "page") -> int:
    text = request.query_params.get(name, "1").strip()
    if not text.isascii() or not text.isdigit() or len(text) > 9 or int(text) < 1:  # "²" is a digit to isdigit
        raise HTTPException(400, f"{name}={text!r}: expected a page number (1 or more).")
    return int(text)


def _pages(total: int) -> int:
    return max(1, -(-total // PAGE_ROWS))


def tables_context(reads: Reads, request: Request) -> dict[str, Any]:
    """The first page: every stored match, newest first, ``PAGE_ROWS`` a page."""
    reads.refresh()
    page = _page(request)
    rows, total = reads.tables.page((page - 1) * PAGE_ROWS, PAGE_ROWS)
    return {
        "tables": rows,
        "total": total,
        "page": page,
        "pages": _pages(total),
        "events": [{"event": k, "name": n} for k, n in reads.station.reader.tournaments()],
    }


def event_context(reads: Reads, event_id: str, request: Request) -> dict[str, Any]:
    """A tournament's page: the clock, the standings (dropped players
    marked; ``PAGE_ROWS`` a page, ``?standings=N``), the top cut's bracket
    and placings, and one round's tables (the current one unless
    ``?round=N``), ``PAGE_ROWS`` a page (``?page=N``), each with its current
    game as the table summaries have it and its time extension. Only the
    rows shown are looked up; standings and results come computed once per
    change (``projection.Reader``)."""
    from projections.tournament import EXPLAINED, game_id, placings, playoff_name, playoff_outcomes, table_outcome
    from referee.tournament import words
    from referee.tournament.service import clock
    from referee.tournament.store import TournamentNotFound

    reads.refresh()
    station = reads.station
    state = station.reader.states.get(event_id.strip().lower())
    if state is None:
        raise TournamentNotFound(f"no tournament {event_id!r} in {reads.store.url}")
    results = station.results(state)
    standings = station.reader.standings(state.id)
    shown_round = state.current_round
    if "round" in request.query_params:
        text = request.query_params["round"].strip()
        if not text.isdigit() or not 1 <= int(text) <= max(1, state.current_round):
            raise HTTPException(400, f"round={text!r}: expected a round from 1 to {state.current_round}.")
        shown_round = int(text)
    page = _page(request)
    standings_page = _page(request, "standings")
    dropped = {n for n, p in state.players.items() if p.dropped}
    tables: list[dict[str, Any]] = []
    total = 0
    if shown_round:
        r = state.rounds[shown_round - 1]
        total = len(r.pairings)
        chunk = r.pairings[(page - 1) * PAGE_ROWS : page * PAGE_ROWS]
        playoff = r.source == "playoff"
        outcomes = {
            p.table: table_outcome(
                p, results, state.best_of, playoff=playoff, called=state.called(r.round, p.table) is not None
            )
            for p in chunk
            if p.B is not None
        }
        played = [
            game_id(p.match, k)
            for p in chunk
            if p.match and p.B is not None
            for k in range(1, outcomes[p.table].games + 1)
        ]
        entered = {g: row for g, row in station.reader.results(played).items() if row["judge"]}
        for p in chunk:
            row: dict[str, Any] = {
                "table": p.table,
                "A": p.A,
                "B": p.B,
                "match": p.match,
                "extension": state.extension(r.round, p.table),
                "dropped": [n for n in (p.A, p.B) if n in dropped],
            }
            if p.B is None:
                row["status"] = "bye"
            else:
                o = outcomes[p.table]
                row.update(
                    status="finished" if o.over else "playing",
                    winner=o.winner,
                    draw=o.draw,
                    score=[o.wins[p.A], o.wins[p.B], o.draws],
                    games=o.games,
                    result=words.match_result(o.winner, o.draw, o.wins, o.draws, state.best_of),
                )
                games = [
                    {
                        "game": k,
                        "entered_by": (entered.get(g) or {}).get("judge"),
                        "rule": (entered.get(g) or {}).get("rule"),
                    }
                    for k, g in ((k, game_id(str(p.match), k)) for k in range(1, o.games + 1))
                ]
                ended = words.entered_by(games)
                if o.over and ended:
                    row["ended_by"] = ended
                if not o.over and o.next_game and p.match:
                    row["current"] = game_id(p.match, o.next_game)
            tables.append(row)
        summaries = reads.tables.get([row["current"] for row in tables if row.get("current")])
        for row in tables:
            s = summaries.get(row.get("current", ""))
            if s is not None:
                row.update(
                    turn=s["turn"],
                    step=s["step"],
                    decision=s["decision"],
                    last=s["last"],
                    violations=s["violations"],
                    violations_at=s.get("violations_at", []),
                    undos=s.get("undos", 0),
                    judge_calls=s["judge_calls"],
                    # a judge is wanted at the table: called from the board, or a violation to rule on
                    judge_called=bool(s.get("judge_call") or s["violations"]),
                )
            elif row.get("current"):
                row["waiting"] = True  # its game is not created yet
    bracket = [
        {
            "name": playoff_name(len(rnd)),
            "tables": [
                {
                    "table": p.table,
                    "A": p.A,
                    "B": p.B,
                    "winner": o.winner,
                    "over": o.over,
                    "score": [o.wins.get(p.A, 0), o.wins.get(p.B, 0)] if p.B else None,
                }
                for p, o in rnd
            ],
        }
        for rnd in playoff_outcomes(state, results)
    ]
    from referee.tournament.service import outcomes_over

    over = outcomes_over(state, results)  # every table of the current round has its result: the clock stops
    return {
        "event": state.id,
        "name": state.name,
        "deal": state.deal,
        "best_of": state.best_of,
        "at_time": state.at_time,
        "players": len(state.players),
        "dropped": sorted(dropped),
        "current_round": state.current_round,
        "shown_round": shown_round,
        "rounds_list": list(range(1, state.current_round + 1)),
        "round_names": {n: state.round_name(n) for n in range(1, state.current_round + 1)},
        "tz": state.tz or "UTC",
        "clock": clock(state, over=over),
        "standings": standings[(standings_page - 1) * PAGE_ROWS : standings_page * PAGE_ROWS],
        "standings_total": len(standings),
        "standings_page": standings_page,
        "standings_pages": _pages(len(standings)),
        "explained": EXPLAINED,
        "tables": tables,
        "total": total,
        "page": page,
        "pages": _pages(total),
        "bracket": bracket,
        "placings": placings(state, standings, results),
        "shown_query": _query(
            round=shown_round if shown_round != state.current_round else None,
            page=page if page > 1 else None,
            standings=standings_page if standings_page > 1 else None,
        ),
    }


def _query(**params: int | None) -> str:
    """``?a=1&b=2`` of the parameters given (none: ""), for the live fragment of what the page shows."""
    from urllib.parse import urlencode

    given = {k: v for k, v in params.items() if v is not None}
    return "?" + urlencode(given) if given else ""


def print_context(reads: Reads, event_id: str, request: Request) -> dict[str, Any]:
    """What the print-outs need: the round's pairings by player name, its
    tables for match slips, and the standings; ``paper`` is A4 or Letter."""
    from projections.tournament import EXPLAINED, placings
    from referee.tournament.service import clock

    paper = request.query_params.get("paper", "a4").lower()
    if paper not in PAPERS:
        raise HTTPException(400, f"paper={paper!r}: expected a4 or letter.")
    reads.refresh()
    state = reads.station.reader.states.get(event_id.strip().lower())
    if state is None:
        from referee.tournament.store import TournamentNotFound

        raise TournamentNotFound(f"no tournament {event_id!r} in {reads.store.url}")
    round_no = state.current_round
    if "round" in request.query_params:
        text = request.query_params["round"]
        if not text.isdigit() or not 1 <= int(text) <= state.current_round:
            raise HTTPException(400, f"round={text!r}: expected a round from 1 to {state.current_round}.")
        round_no = int(text)
    dropped = {n for n, p in state.players.items() if p.dropped}
    pairings = state.rounds[round_no - 1].pairings if round_no else []
    by_name: list[dict[str, Any]] = []
    for p in pairings:
        by_name.append({"player": p.A, "table": p.table, "opponent": p.B, "seat": "A"})
        if p.B is not None:
            by_name.append({"player": p.B, "table": p.table, "opponent": p.A, "seat": "B"})
    by_name.sort(key=lambda r: r["player"].casefold())
    from referee.tournament.service import outcomes_over

    playoff = bool(round_no) and state.rounds[round_no - 1].source == "playoff"
    results = reads.station.results(state)
    standings = reads.station.reader.standings(state.id)
    # A slip has what can happen at its table: a top cut match has no draw and
    # no drop, and its lines allow replayed games (TP6: no draws, another game).
    columns = [f"Game {k}" for k in range(1, state.best_of + 1)] + (["Replay", "Replay"] if playoff else [])
    return {
        "event": state.id,
        "name": state.name,
        "round": round_no,
        "round_name": state.round_name(round_no) if round_no else "",
        "playoff": playoff,
        "columns": columns,
        "tz": state.tz or "UTC",
        "paper": PAPERS[paper],
        "paper_key": paper,
        "by_name": by_name,
        "pairings": [p for p in pairings if p.B is not None],
        "byes": [p.A for p in pairings if p.B is None],
        "standings": standings,
        "explained": EXPLAINED,
        "dropped": dropped,
        "best_of": state.best_of,
        "clock": clock(state, round_no, over=outcomes_over(state, results, round_no)) if round_no else None,
        "swiss_rounds": len(state.swiss_rounds),
        "placings": placings(state, standings, results),
    }


def routes(site: Site) -> list[BaseRoute]:
    """The tables page, the event pages, their print-outs and live stream."""
    from starlette.routing import Route

    board, settings, reads, render = site.board, site.settings, site.reads, site.render

    def tables_page(request: Request) -> Response:
        role = board.role(request)
        return render(request, "index.html", {**tables_context(reads, request), "role": role})

    def tables_fragment(request: Request) -> Response:
        return render(request, "tables.html", tables_context(reads, request))

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

    def event_page_context(request: Request) -> dict[str, Any]:
        """The event page's context with the viewer's role: a judge, or a
        scorekeeper of this event, opens and logs its tables from it."""
        page = event_context(reads, request.path_params["event"], request)
        role = board.role(request)
        logs = not settings.read_only and (
            role.kind == "judge" or (role.kind == "scorekeeper" and role.scope == page["event"])
        )
        return {**page, "role": role, "logs": logs}

    def event_page(request: Request) -> Response:
        return render(request, "event.html", event_page_context(request))

    def event_fragment(request: Request) -> Response:
        return render(request, "event_tables.html", event_page_context(request))

    def projector(request: Request) -> Response:
        return render(request, "projector.html", event_context(reads, request.path_params["event"], request))

    def printed(kind: str) -> Any:
        def page(request: Request) -> Response:
            return render(request, f"print_{kind}.html", print_context(reads, request.path_params["event"], request))

        return page

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
        page = print_context(reads, event, request)
        base = str(request.base_url).rstrip("/")  # the address this sheet was opened by: the venue's
        keeper = text_field(request.query_params, "name", 60)
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
        form = await site.form(request)
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
        return RedirectResponse(safe_next(form.get("next"), f"/events/{event}"), status_code=303)

    return [
        Route("/", tables_page),
        Route("/tables", tables_fragment),
        Route("/live", tables_live),
        Route("/events/{event}", event_page),
        Route("/events/{event}/tables", event_fragment),
        Route("/events/{event}/clock", projector),
        Route("/events/{event}/print/pairings", printed("pairings")),
        Route("/events/{event}/print/slips", printed("slips")),
        Route("/events/{event}/print/standings", printed("standings")),
        Route("/events/{event}/print/links", print_links),
        Route("/events/{event}/open", open_tables, methods=["POST"]),
    ]
