"""The board in a browser (`referee serve`): server-rendered pages of stored
matches, at any event, per viewer, updated live; and the console a
scorekeeper or a judge logs a match with (spec in docs/console.md).

Layout: ``tokens`` (the player and scorekeeper links and the session key,
importable without the web stack, for ``referee new``), ``seen`` (what a
viewer may see: the one place every page asks), ``board`` (what a page
shows, read from the store), ``console`` (the controls of a decision and the
writes they make), ``auth`` (roles, sign-in, CSRF, the limit on passwords),
``live`` (one poll of the store for every open page, and the alarm when it
stops answering), ``app`` (the Starlette application: routes, who may see
and do what), ``server`` (uvicorn on a socket we bind). Only ``auth``,
``app`` and ``server`` import the web libraries.
"""
