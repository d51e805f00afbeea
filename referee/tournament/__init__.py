"""Tournaments: an event-sourced aggregate beside the matches, Swiss rounds whose tables are stored matches, and standings as a projection.

- ``store``: the tournament aggregate in the match store (create, load,
  decide-and-append with optimistic concurrency).
- ``service``: what the ``referee event`` commands do (register, pair a
  round, import pairings, drop, enter a result, list matches).
- ``pairing``: Swiss pairings (``swisspair``) and imported CSV pairings.
- ``projection``: the standings projection over the notification log.
"""
