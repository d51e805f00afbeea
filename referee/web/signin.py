"""Signing in and out: the judge's password, a scorekeeper's password or link (``referee.web.auth`` decides who is who)."""

from __future__ import annotations

import asyncio

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from referee.web.auth import REALM
from referee.web.site import Site, safe_next, text_field


def routes(site: Site) -> list[BaseRoute]:
    board, settings, render = site.board, site.settings, site.render

    async def login(request: Request) -> Response:
        """The sign-in form (judge password, or a scorekeeper's token for the
        page's event or match); HTTP Basic works as before."""
        target = safe_next(request.query_params.get("next"))
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
        form = await site.form(request)
        target = safe_next(form.get("next"))
        scope = str(form.get("scope") or "") or None
        password, name = str(form.get("password") or ""), text_field(form, "name", 60)
        role = await asyncio.to_thread(board.guard.sign_in, request, password, name, scope)
        if role is None:
            return render(request, "login.html", {"next": target, "scope": scope, "failed": True}, status=401)
        return RedirectResponse(target, status_code=303)

    async def logout(request: Request) -> Response:
        form = await site.form(request)
        await asyncio.to_thread(board.guard.sign_out, request)
        return RedirectResponse(safe_next(form.get("next")), status_code=303)

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
        return RedirectResponse(safe_next(params.get("next"), default), status_code=303)

    return [
        Route("/login", login, methods=["GET", "POST"]),
        Route("/logout", logout, methods=["POST"]),
        Route("/scorekeeper/{scope}", scorekeeper_link),
    ]
