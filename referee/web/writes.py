"""The console's entries: a player's action, a skipped step, a judge call, an undo.

Every write is a POST with the session's CSRF token and the version the
page showed (``Site.writer``); what it logs is decided by the match's game
through the console (``referee.web.console``) and answered with the new
board and a notice of what was logged, by whom (spec: console.md). An
action arrives in one of the forms a game's board has: a legal line of the
controls (``line``), the fields of one of the game's moves (a board drawn
from the core: ``anygame``), or in record mode whatever the table did
(``entry``, for a game with board parts of its own); each is read into the
notation's mapping and goes to ``Console.act``.
"""

from __future__ import annotations

import asyncio
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from referee.web import anygame
from referee.web.console import Entry
from referee.web.site import Site, match_key, number_field, text_field, viewer_param

CALLS_PER_MINUTE = 3  # judge calls one link may make in a minute
CALL_REASON = 200  # characters of a judge call's reason


def routes(site: Site) -> list[BaseRoute]:
    board, settings = site.board, site.settings

    async def act(request: Request) -> Response:
        """Log one action: a legal line of the controls (``line``), the fields
        of one of the game's moves, or in record mode what the table did
        (``do`` with its cards: ``player``, ``card``, ``cards``, ...)."""
        match, form, role, viewer, version, entry = await site.writer(request)
        game = await asyncio.to_thread(board.reader.ruleset, match)
        written = entry_of(game, form, role)
        outcome = await asyncio.to_thread(
            board.console.act, match, version, written, role, entry, viewer, form.get("confirm") == "yes"
        )
        if outcome.status == "preview":
            outcome.confirm = confirm(request, form)
        return site.answer(request, form, role, outcome)

    async def skip_step(request: Request) -> Response:
        match, form, role, viewer, version, entry = await site.writer(request)
        if role.kind == "player":
            raise HTTPException(403, "Only the scorekeeper or a judge records a skipped step.")
        rule = str(form.get("rule") or "")
        outcome = await asyncio.to_thread(
            board.console.skip_step,
            match,
            version,
            rule,
            text_field(form, "reason"),
            role,
            entry,
            viewer,
            form.get("confirm") == "yes",
        )
        if outcome.status == "preview":
            outcome.confirm = confirm(request, form)
        return site.answer(request, form, role, outcome)

    async def call_judge(request: Request) -> Response:
        from referee import corrections

        match = match_key(request)
        form = await site.form(request)
        role = board.role(request, match, form)
        if role.kind == "public" or settings.read_only:
            raise HTTPException(403, "Calling a judge from the board needs a player's link or the scorekeeper's.")
        viewer = viewer_param(request, role, form, board.viewers(match))
        board.require(request, match, viewer, role)
        version, entry, reason = (
            int(number_field(form, "version") or 0),
            str(form.get("entry") or "")[:40],
            text_field(form, "reason", CALL_REASON),
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
        return site.answer(request, form, role, outcome)

    async def undo(request: Request) -> Response:
        """Whoever logged the match's last entry takes it back (spec: console.md, 10)."""
        match, form, role, viewer, version, entry = await site.writer(request)
        undoing = str(form.get("undo") or "")[:40]
        if not undoing:
            raise HTTPException(400, "undo: expected the entry to take back (the form is incomplete).")
        outcome = await asyncio.to_thread(board.console.undo, match, version, undoing, role, entry, viewer)
        return site.answer(request, form, role, outcome)

    return [
        Route("/matches/{match}/act", act, methods=["POST"]),
        Route("/matches/{match}/skip-step", skip_step, methods=["POST"]),
        Route("/matches/{match}/call", call_judge, methods=["POST"]),
        Route("/matches/{match}/undo", undo, methods=["POST"]),
    ]


def entry_of(game: Any, form: Any, role: Any) -> Entry:
    """What the form logs: a legal line, or an action in the notation's
    mapping, read against the game's moves: strictly, one move's own
    arguments, for a board drawn from the core; or, for a game with board
    parts of its own, whatever the table did (record mode's menus: any
    argument of any move, the rules deciding what it breaks)."""
    line = str(form.get("line") or "")
    if line:
        return Entry(line=line)
    if game.board is None:
        try:
            return Entry(data=anygame.action_data(game, form))
        except anygame.BadForm as exc:
            raise HTTPException(400, str(exc)) from None
    if role.kind == "player":
        raise HTTPException(403, "Players log from their legal actions only.")
    return Entry(data=table_data(game, form), free=True)


def table_data(game: Any, form: Any) -> dict[str, Any]:
    """A record-mode entry: whatever the table did, from the form's menus,
    as the notation writes it: a seat, one of the game's moves, and any of
    its moves' arguments, each read as its declaration's kind says."""
    player, do = str(form.get("player") or ""), str(form.get("do") or "")
    if player not in game.seats:
        raise HTTPException(400, f"player: expected {' or '.join(game.seats)}.")
    if do not in game.actions:
        raise HTTPException(
            400, f"do: {do[:30]!r} is not an action; expected one of {', '.join(sorted(game.actions))}."
        )
    data: dict[str, Any] = {"player": player, "do": do}
    arguments = {arg.name: arg for spec in game.actions.values() for arg in spec.args or ()}
    for name, arg in arguments.items():
        if arg.kind in ("cards", "names"):
            values = tuple(v for v in (str(x).strip() for x in form.getlist(name)) if v)[:60]
            value: Any = list(values) or None
        elif arg.kind == "count":
            value = number_field(form, name, required=False)
        else:
            value = text_field(form, name, 120) or None
            if value is not None and arg.choices and value not in arg.choices:
                raise HTTPException(400, f"{name}: expected {' or '.join(arg.choices)}.")
        if value is not None:
            data[name] = value
    return data


def confirm(request: Request, form: Any) -> dict[str, Any]:
    """What the preview's confirming form sends again: the same fields, to the same place."""
    return {
        "action": request.url.path,
        "fields": [(k, str(v)) for k, v in form.multi_items() if k not in ("csrf", "confirm")],
    }
