"""Projections: the game state folded from events, and the views built on it."""
