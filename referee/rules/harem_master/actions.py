"""Harem Master's player actions, in the notation of the scenario format (section 3).

Actions here name cards by instance id (``A:12``); turning the names and
labels that people write into ids is ``notation``'s job.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any


@dataclass(slots=True, unsafe_hash=True)
class Action:
    """One action in the notation of the scenario format (section 3).

    A value: nothing changes an action once made (``dataclasses.replace``
    makes a changed copy), and it is hashed and compared by its fields. It is
    not a frozen dataclass only because a frozen one's ``__init__`` sets each
    of its eleven fields through ``object.__setattr__``, about four times
    the cost of a plain one, and every legal list makes a dozen actions
    (about 9% of random self-play); ``tests/test_actions.py`` checks that
    self-play and the scenarios never change one."""

    player: str | None  # "A" or "B"; None for a judge
    do: str
    card: str | None = None
    cards: tuple[str, ...] | None = None
    target: str | None = None
    targets: tuple[str, ...] | None = None
    order: str | None = None
    n: int | None = None
    option: str | None = None
    ability: int | None = None
    # Not an argument: the definitions of cards it names that are on neither
    # deck list of a table-dealt match (from the pool the caller reads), so
    # that record mode can record such a card with its 100.2 violation.
    definitions: tuple[Any, ...] = field(default=(), compare=False, hash=False, repr=False)

    def arguments(self) -> dict[str, object]:
        """The arguments that are set, as the notation writes them."""
        out: dict[str, object] = {}
        for name in _ARGUMENTS:
            value = getattr(self, name)
            if value is not None:
                out[name] = list(value) if isinstance(value, tuple) else value
        return out

    def to_dict(self) -> dict[str, object]:
        head: dict[str, object] = {"player": self.player, "do": self.do}
        return {**head, **self.arguments()}


if TYPE_CHECKING:

    class Seated(Action):
        """For the type checker only: an action from a seat, its player set. A
        game's checks receive their actions so once its engine has refused
        any other player; at run time it is ``Action`` itself."""

        player: str

else:
    Seated = Action


_ARGUMENTS = tuple(
    f.name for f in fields(Action) if f.name not in ("player", "do", "definitions")
)  # in declaration order
