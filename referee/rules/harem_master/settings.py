"""A Harem Master match's own settings: the rulings a table may select, and where a record writes them.

Kept apart from the readers that use them (``scenario``, ``records``, the
command line's ``--ruling``) so that the ruleset can name them without
importing those readers: ``referee act`` imports no file reader.
"""

from __future__ import annotations

# The selectable rulings (docs/rulings.md): id -> its choices, the default first.
RULING_OPTIONS: dict[str, tuple[str, ...]] = {"A1": ("not_fallen", "felled"), "A4": ("bottom", "top")}
# The keys of a match record's header that are Harem Master's, in the format's
# order (after ``deal``, before ``players``).
RECORD_KEYS = ("rulings", "pool", "cards", "auto_pass")
