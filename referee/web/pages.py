"""The board's match pages: a match at any event for a viewer, its board alone, its log, its live stream, an entry's fate.

Reading never acts: every route here is a GET (spec: console.md, 1). What a
viewer may see is ``Board.require``'s (the judge, a scorekeeper of the
match, a seat's own link, the public view), and what the page shows is the
match's game's (``BoardReader``: its board parts, or its core).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

from sse_starlette import EventSourceResponse
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from referee.store import MatchNotFound, StoreError
from referee.web import live
from referee.web.site import Site, match_key, position_param, viewer_param


def routes(site: Site) -> list[BaseRoute]:
    board, render = site.board, site.render

    def match_page(request: Request) -> Response:
        return render(request, "match.html", site.match_context(request))

    def board_fragment(request: Request) -> Response:
        context = site.match_context(request)
        return render(request, context["board_template"], context)

    def full_log(request: Request) -> Response:
        match = match_key(request)
        role = board.role(request, match)
        viewer = viewer_param(request, role, None, board.viewers(match))
        board.require(request, match, viewer, role)
        page = board.reader.full_log(match, viewer, position_param(request, "from"))
        token = request.query_params.get("token") if viewer in board.reader.ruleset(match).seats else None
        judge = role.kind == "judge" and viewer == "judge"  # a judge's tools on each event
        return render(request, "log.html", {**page, "token": token, "judge": judge})

    async def health(request: Request) -> Response:
        """Is the store answering? (The pages' script asks when the live
        stream drops.) A health check of its own (``live.Probe``: a short
        connection, one trivial query), so it answers within a few seconds
        whether the store is gone or only busy."""
        why = await board.probe.answering()
        if why is not None:
            return JSONResponse({"store": "down", "message": why}, status_code=503)
        return JSONResponse({"store": "ok"})

    def entry_status(request: Request) -> Response:
        """What became of a submission whose answer could not wait for the
        store (``StoreDeadline``): recorded (at which event), still being
        written by this server, or not recorded. For whoever may log the match."""
        match = match_key(request)
        entry = str(request.path_params["entry"])[:40]
        role = board.role(request, match)
        if not board.may_log(role, match) and role.kind != "judge":
            raise HTTPException(403, "Only whoever logs this match may ask what became of its entries.")
        if entry in board.pending:
            doc: dict[str, Any] = {"entry": entry, "status": "pending", "position": None}
        else:
            position = board.store.entered(match, entry)
            doc = {"entry": entry, "status": "recorded" if position else "not recorded", "position": position}
        if site.fragment(request) or "json" in request.headers.get("accept", ""):
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

    async def match_live(request: Request) -> Response:
        match = match_key(request)
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

    return [
        Route("/health", health),
        Route("/matches/{match}", match_page),
        Route("/matches/{match}/board", board_fragment),
        Route("/matches/{match}/log", full_log),
        Route("/matches/{match}/live", match_live),
        Route("/matches/{match}/entries/{entry}", entry_status),
    ]


def _late_version(read: asyncio.Future[Any], watch: live.Watch) -> None:
    """A live stream's first read of its match, answered after the stream
    started: its version goes to the page like any other (a failed read says
    nothing: the watcher tells the page how the store is)."""
    if read.cancelled() or read.exception() is not None:
        return
    import contextlib

    with contextlib.suppress(asyncio.QueueFull):
        watch.queue.put_nowait({"version": read.result()[1]})
