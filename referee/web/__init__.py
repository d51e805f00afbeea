"""The judges' board in a browser (`referee serve`): server-rendered pages of
stored matches, at any event, per viewer, updated live.

Layout: ``tokens`` (the player links, importable without the web stack, for
``referee new``), ``board`` (what a page shows, read from the store through
``projections.views`` and ``projections.transcript``: every hiding decision is
theirs), ``live`` (one poll of the store for every open page), ``app`` (the
Starlette application: routes, who may see what), ``server`` (uvicorn on a
socket we bind). Only ``app`` and ``server`` import the web libraries.
"""
