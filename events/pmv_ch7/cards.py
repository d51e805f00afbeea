"""An abstract test card of Phantom Magic Vision chapter 7: its effects as lists of clauses, and nothing else.

Chapter 7 prints no card: it is the machinery every card's text runs on.
The referee's test cards carry exactly what chapter 7 tells effects apart
by (docs/games/pmv-ch7.md, "Test cards"): how each effect's text opens
(7.1.3, 7.1.4; none: the text applied when the card's play resolves, 7.1.2),
an activated effect's cost and conditions of use (7.3.2, 7.3.3.c), an
automatic effect's condition (7.4.2), modes (7.3.4.b), a declaration
(7.3.4.d), "does not stack" (7.1.14), and the text itself as **clauses**
applied from the head (7.1.9). A clause is one of a small set of steps
(set or clear a named condition, add to a value of cards, move cards, pay
points, ...) that either applies, or cannot apply under the conditions it
names (``needs``): the notation's rulings (docs/rulings.md, P1-P16) say
what each does. Cards are named, and a name is a card's id in its match.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from events.names import stored_as

# How an effect's text opens: a timing of an activated effect (7.1.3), a
# class of automatic effect (7.1.4, 7.4.3), or "play": the text applied when
# the card's play resolves (7.1.2).
Opens = Literal["play", "always", "own-turn", "opponent-turn", "alpha", "beta", "gamma"]
ACTIVATED: tuple[Opens, ...] = ("always", "own-turn", "opponent-turn")
AUTOMATIC: tuple[Opens, ...] = ("alpha", "beta", "gamma")  # 7.4.3.a, 7.4.3.b, 7.4.3.c
# The printed openings (7.1.3, 7.1.4) and the notation's ASCII names for them.
PRINTED: dict[str, Opens] = {
    "(常時)": "always",
    "(自分ターン)": "own-turn",
    "(相手ターン)": "opponent-turn",
    "(自動α)": "alpha",
    "(自動β)": "beta",
    "(自動γ)": "gamma",
}
PRINTED_AS: dict[str, str] = {opens: printed for printed, opens in PRINTED.items()}
Does = Literal["set", "clear", "add", "move", "pay", "act", "invalidate", "rewrite", "nullify", "wait", "as_used"]
Place = Literal["field", "elsewhere"]


class Clause(BaseModel):
    """One step of an effect's text (7.1.9: applied in order from the head).

    ``does`` is what it does; ``word`` the condition it sets or clears, the
    value it adds to or the step it names (``act``); ``cards`` the cards it
    names (``self``: the card whose effect it is); ``needs`` the conditions
    under which it applies (else it cannot apply, 7.1.12); ``all`` marks a
    clause over "all" of its cards (「全て」, 7.1.12.e); ``until`` makes what
    it sets or adds last until those conditions hold (7.1.16);
    ``otherwise`` is what the text says to do when it cannot apply
    (7.1.12.b)."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    does: Does
    word: str | None = None
    n: int | None = None
    paid: bool = False  # add: as much as the points paid for the effect (7.5.1.c: 0 when resolved as if used)
    cards: tuple[str, ...] = ()
    to: Place | None = None
    ref: str | None = None  # rewrite, as_used: the effect, CARD#N
    text: tuple[Clause, ...] = ()  # rewrite: the new text; wait: what is done when the situation comes
    when: tuple[str, ...] = ()  # wait: the situation (7.8.1)
    mode: int | None = None  # as_used: the mode chosen (7.5.2.a)
    declare: str | None = None  # as_used: the declaration (7.5.2.c)
    needs: tuple[str, ...] = ()
    all: bool = False
    until: tuple[str, ...] | None = None
    otherwise: tuple[Clause, ...] | None = None


class Effect(BaseModel):
    """One effect of a card: its whole text is one effect (7.1.9).

    ``opens`` is how the text opens (``Opens``); ``cost`` and ``needs`` an
    activated effect's cost and conditions of use (7.3.2, 7.3.3.c);
    ``when`` an automatic effect's condition (7.4.2); ``text`` the clauses,
    or ``modes`` the effects to choose one of (7.3.4.b, 7.1.15);
    ``declare`` what a player declares when using it (7.3.4.d); ``unique``
    "この効果は重複しない" (7.1.14); ``optional`` an automatic α whose player
    chooses whether it applies when its condition is met (7.4.5.f);
    ``at_will`` an automatic effect a player may apply "してもよい" (7.4.4)."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    opens: Opens
    cost: tuple[Clause, ...] = ()
    needs: tuple[str, ...] = ()
    when: tuple[str, ...] = ()
    text: tuple[Clause, ...] = ()
    modes: tuple[tuple[Clause, ...], ...] = ()
    declare: tuple[str, ...] = ()
    unique: bool = False
    optional: bool = False
    at_will: bool = False

    @property
    def kind(self) -> str:
        """7.1.5, 7.1.5.a: each effect is of exactly one kind, by how its text opens."""
        if self.opens in ACTIVATED:
            return "activated"
        if self.opens in AUTOMATIC:
            return "automatic"
        return "play"


class Card(BaseModel):
    """An abstract test card: its name (its id), its owner, its values (any
    names, each a whole number), and its text (7.1.1): the text applied when
    its play resolves (``play``, 7.1.2) and its other effects, numbered from 1."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    name: str
    owner: str
    values: dict[str, int] = {}
    play: Effect | None = None
    effects: tuple[Effect, ...] = ()


Clause.model_rebuild()

stored_as(__name__, "pmv-ch7")  # a new game's classes are stored under its id (``events.names``)
