"""What a short command does before any work: what it must not load (``referee bench`` times it)."""

from __future__ import annotations

import subprocess
import sys

CHECK = """
import sys
import pydantic
import events
from events.harem_master.game import CostPaid
ok = CostPaid.model_validate({"player": "A", "card": "A:1"})
assert ok.rule == "215.4c" and ok.model_dump(mode="json")["card"] == "A:1"
try:
    CostPaid.model_validate({"player": "A", "card": "A:1", "colour": "red"})
except pydantic.ValidationError as exc:
    assert "colour" in str(exc)
else:
    raise AssertionError("an unknown field was accepted")
print(sorted(m for m in sys.modules if m == "importlib.metadata" or m.startswith("email")))
"""


def test_validators_are_built_without_looking_for_pydantic_plugins() -> None:
    """Building pydantic's first validator imports ``importlib.metadata`` and
    reads every installed package's entry points to look for plugins; the
    referee uses none (``events._without_pydantic_plugins``). Validation
    itself is unchanged: a good event passes, an unknown field is refused."""
    done = subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_the_event_modules_leave_annotations_evaluated_at_definition() -> None:
    """pydantic reads a string annotation (``from __future__ import
    annotations``) by compiling and evaluating it, for each field of some 150
    event and ability classes at every start; written as objects, it does not.
    A string is left only where a type refers to itself (``Amount``)."""
    import events.harem_master.abilities as abilities
    import events.harem_master.cards as cards
    import events.harem_master.game as game
    import events.kernel as kernel

    for module in (kernel, game, cards, abilities):
        assert "annotations" not in vars(module), module.__name__  # no __future__ import
        for cls in vars(module).values():
            if isinstance(cls, type) and cls.__module__ == module.__name__:
                strings = [
                    k
                    for k, v in vars(cls).get("__annotations__", {}).items()
                    if isinstance(v, str) and v not in vars(module)
                ]
                assert not strings, f"{module.__name__}.{cls.__name__}: {strings}"
