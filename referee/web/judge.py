"""A judge's tools on the board: the rewind preview and rewinds, notes, accepting violations, forks, a match from a pasted position, a stretch written as a scenario.

Only a judge uses these (a scorekeeper is told to call one). A correction
is the game's: a rewind cites one of the rules its ``rewinds`` capability
names, in its words (``site.rewind_rules``), and a game without
corrections says so on the form.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from referee.actions import IllegalAction
from referee.store import MatchNotFound, MatchStore
from referee.web.auth import REALM, Role, covers
from referee.web.site import Site, match_key, number_field, position_param, rewind_rules, text_field


def routes(site: Site) -> list[BaseRoute]:
    board, settings, render = site.board, site.settings, site.render

    def rewind_preview(request: Request) -> Response:
        match = match_key(request)
        role = board.role(request, match)
        if role.kind != "judge":
            if role.kind == "scorekeeper" and covers(role.scope or "", match):
                raise HTTPException(403, "Only a judge rewinds: call a judge.")
            raise HTTPException(
                401, "The rewind preview needs the judge password.", headers={"WWW-Authenticate": REALM}
            )
        to = position_param(request, "to")
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

    async def judged(request: Request, what: str, change: Callable[[Any, Role], Any]) -> Response:
        """A judge's correction: ``change(form, role)`` reads the form (a bad
        field is a 400 before anything runs) and gives the correction the
        console applies at the version the page showed."""
        match, form, role, viewer, version, entry = await site.writer(request)
        if role.kind != "judge":
            raise HTTPException(403, f"Only a judge {what}: call a judge.")
        correct = change(form, role)
        outcome = await asyncio.to_thread(board.console.correction, match, version, role, entry, viewer, correct)
        return site.answer(request, form, role, outcome)

    async def note(request: Request) -> Response:
        from referee import corrections

        def change(form: Any, role: Role) -> Any:
            text = text_field(form, "text")
            return lambda s, log: corrections.note(s, text, role.name)

        return await judged(request, "writes notes in the log", change)

    async def accept(request: Request) -> Response:
        from referee import corrections

        def change(form: Any, role: Role) -> Any:
            reason = text_field(form, "reason")
            at = number_field(form, "at", required=False)  # one violation (the board's way); none: every open one
            return lambda s, log: corrections.accept(s, reason, role.name, at=at)

        return await judged(request, "accepts violations", change)

    async def rewind(request: Request) -> Response:
        from referee import corrections

        def change(form: Any, role: Role) -> Any:
            to = int(number_field(form, "to") or 0)
            rule = str(form.get("rule") or "")
            rules = rewind_rules(board.reader.ruleset(match_key(request)))
            if rule not in dict(rules):
                raise HTTPException(400, "rule: expected " + " or ".join(f"{r} ({w})" for r, w in rules) + ".")
            reason, replay = text_field(form, "reason"), str(form.get("replay") or "")
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

        return await judged(request, "rewinds", change)

    def judge_only(request: Request, match: str, what: str) -> Role:
        role = board.role(request, match)
        if role.kind != "judge":
            raise HTTPException(401, f"{what} needs the judge password.", headers={"WWW-Authenticate": REALM})
        return role

    def scenario_from(request: Request) -> Response:
        """A stretch of the match as a scenario file (``referee scenario from``), to download."""
        from referee.scenario import dump_scenario, scenario_from

        match = match_key(request)
        judge_only(request, match, "Writing a scenario from the match")
        viewer = request.query_params.get("as") or "judge"
        if viewer not in board.viewers(match):
            raise HTTPException(400, f"as: expected one of {', '.join(board.viewers(match))}.")
        at, to = position_param(request), position_param(request, "to")
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
        match = match_key(request)
        form = await site.form(request)
        role = board.role(request, match, form)
        if role.kind != "judge":
            raise HTTPException(403, "Only a judge forks a match.")
        at, seen = int(number_field(form, "fork_at") or 0), int(number_field(form, "version") or 0)

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
        form = await site.form(request)
        if not board.is_judge(request):
            raise HTTPException(401, "Starting a match needs the judge password.", headers={"WWW-Authenticate": REALM})
        text, title = str(form.get("scenario") or ""), text_field(form, "title", 120)
        try:
            setup = await asyncio.to_thread(position_from_text, text, board.store)
        except ValueError as exc:
            return render(request, "new_match.html", {"error": str(exc), "text": text, "title": title}, status=400)
        mid = await asyncio.to_thread(board.store.create, setup.events, name=title or setup.name)
        return RedirectResponse(f"/matches/{mid}", status_code=303)

    return [
        Route("/new", new_match, methods=["GET", "POST"]),
        Route("/matches/{match}/rewind", rewind_preview),
        Route("/matches/{match}/note", note, methods=["POST"]),
        Route("/matches/{match}/accept", accept, methods=["POST"]),
        Route("/matches/{match}/rewind", rewind, methods=["POST"]),
        Route("/matches/{match}/scenario", scenario_from),
        Route("/matches/{match}/fork", fork, methods=["POST"]),
    ]


def position_from_text(text: str, store: MatchStore | None = None) -> Any:
    """A scenario's setup from pasted YAML (``referee new --position``'s
    input). Its cards come from its own ``cards:``, the bundled pool, and
    ``pool:`` naming a match of the store (that match's cards), never a file
    on the server (``_pool_of_match``)."""
    import tempfile

    from referee.inputs import InputError, load_document
    from referee.scenario import read_scenario

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
            return read_scenario(doc)
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
    for card in store.ruleset(value.strip().lower()).cards_of(state).values():
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
