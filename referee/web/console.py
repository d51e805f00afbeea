"""The console: the writes the board's controls make, through the match's ruleset.

The controls are the game's: a game with page parts of its own hands them
out (its ``board`` capability: Harem Master's are its legal actions one per
line exactly as ``referee legal`` prints them, spec: console.md); any other
game gets one form per kind of action from its declarations (``anygame``).
Every action goes through one write (``Console.act``): a line is logged as
``referee act MATCH LINE`` would log it typed out (the legal action the line
names), a form's fields as the notation's mapping the ruleset reads; then
resolved and applied by the ruleset (``resolve``, ``apply``), so a match
logged at the board and the same match logged at a terminal are the same
record.

Every write goes through ``MatchStore.update`` with the version the page
showed (``expected_version``) and who entered it (``by``, ``entry``): a
page that fell behind records nothing (``StaleVersion``) and learns what was
logged meanwhile; the same submission sent twice (a double tap, a resend
after a lost answer) is recognised by its entry id and logged once.

In record mode anything the table did may be entered, legal or not: the
console decides it without storing it first, and what it would record as a
violation is shown for a confirmation before anything is written.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

from events.kernel import (
    ActionTaken,
    EntryUndone,
    GameEnded,
    JudgeCalled,
    NoteAdded,
    Rewound,
    StepSkipped,
    ViolationRecorded,
    ViolationsAccepted,
)
from referee.actions import Applied, IllegalAction
from referee.store import MatchStore
from referee.store.errors import StaleVersion
from referee.web.anygame import cards_named, line_action

if TYPE_CHECKING:
    from referee.web.auth import Role

JUDGE_EVENTS = (NoteAdded, ViolationsAccepted, Rewound, JudgeCalled, StepSkipped)


# --- writes -------------------------------------------------------------------------------


@dataclass
class Outcome:
    """What a submission did, for the page's notice."""

    status: str  # logged | refused | stale | repeat | preview | invalid
    message: str = ""
    rule: str | None = None
    version: int = 0
    violations: list[dict[str, str]] = field(default_factory=list)  # a preview's
    confirm: dict[str, Any] | None = None  # where a preview's confirmation posts, and its fields
    http: int = 200

    def to_json(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "message": self.message,
            "rule": self.rule,
            "version": self.version,
            "violations": self.violations,
        }


@dataclass(frozen=True)
class Entry:
    """What a submission logs: a legal ``line`` of the controls, or an action
    in the notation's mapping (``data``), ``free`` when it is what the table
    did in record mode, legal or not (``referee.web.writes.entry_of``)."""

    line: str = ""
    data: dict[str, Any] | None = None
    free: bool = False


def _rewinds_cite(game: Any) -> str:
    """ " (410)": the section of the game's rewind rules, where it has them."""
    rules = game.rewinds.rules if game.rewinds is not None else ()
    return f" ({rules[0].partition('.')[0]})" if rules else ""


class Console:
    """The writes of the board, on one store."""

    def __init__(self, store: MatchStore) -> None:
        self.store = store

    def _write(
        self,
        match: str,
        version: int,
        role: Role,
        entry: str,
        viewer: str,
        decide: Callable[[Any], Any],
        before: Any = None,
    ) -> Outcome:
        """Store what ``decide`` makes at ``version``; the outcome says in words
        what was logged (``before``: the state it was decided on, else read)."""
        try:
            done = self.store.update(match, decide, expected_version=version, by=role.by, entry=entry or None)
        except StaleVersion as exc:
            return self.stale(match, exc, entry, viewer)
        except IllegalAction as exc:
            return Outcome("refused", exc.refusal.reason, exc.refusal.rule, version, http=422)
        after = getattr(done, "state", None)
        new = after.position if after is not None else self.store.load(match)[1]
        if before is None:
            before = self.store.state_at(match, version)
        said = logged_sentence(self.store.ruleset(match), before, list(done.events), viewer)
        return Outcome("logged", said, None, new)

    # --- taking an entry back (spec: console.md, 10) ------------------------------------

    def undoable(self, match: str, role: Role, state: Any, viewer: str) -> dict[str, Any] | None:
        """The entry ``role`` may take back now: the match's last write, if
        they made it at the board and it is not itself an undo. With what it
        logged in words, for the control's label."""
        last = self.store.last_entry(match)
        if last is None or last.entry is None or last.by != role.by or last.first < 2:
            return None
        if isinstance(last.events[0], EntryUndone):
            return None
        game = self.store.ruleset(match)
        return {
            "entry": last.entry,
            "first": last.first,
            "what": logged_sentence(game, state, last.events, viewer, rules=False),
        }

    def undo(self, match: str, version: int, undoing: str, role: Role, entry: str, viewer: str) -> Outcome:
        """Take back ``role``'s last entry ``undoing``, as the page showed it at
        ``version``: refused if anything was logged since (then it is no longer
        the last entry) or if someone else made it."""
        state, current = self.store.load(match)
        if current != version:
            return self.stale(match, StaleVersion(match, version, current, False), entry, viewer)
        last = self.store.last_entry(match)
        if last is None or last.entry is None or last.entry != undoing or isinstance(last.events[0], EntryUndone):
            return Outcome(
                "refused",
                "That entry is no longer the last one logged here, so it cannot be undone: "
                f"a judge corrects it with a rewind{_rewinds_cite(self.store.ruleset(match))}.",
                "undo",
                version,
                http=409,
            )
        if last.by != role.by:
            return Outcome(
                "refused",
                f"Only whoever logged an entry may undo it ({last.by or 'a command-line station'} did): "
                "call a judge to correct it.",
                "undo",
                version,
                http=403,
            )
        game = self.store.ruleset(match)
        restored = self.store.state_at(match, last.first - 1)
        what = logged_sentence(game, restored, last.events, viewer)
        from referee import corrections

        outcome = self._write(
            match,
            version,
            role,
            entry,
            viewer,
            lambda s: corrections.undo(s, last.first - 1, restored, role.by),
            before=state,
        )
        if outcome.status == "logged":
            outcome.status = "undone"
            outcome.message = f"Undone: {what.rstrip('.')}. The board is back to event {last.first - 1}."
        return outcome

    def before_violations(self, match: str, violations: list[dict[str, Any]]) -> dict[int, int]:
        """For each open violation (by the position it was recorded at), the
        event a rewind goes back to so as to undo the action that broke the
        rule: just before that action's ``ActionTaken`` (or the violation
        itself, for a skipped step). Reads only the stretch of the log
        around the violations."""
        positions = sorted(int(v["position"]) for v in violations)
        rows = self.store.records_after(match, max(0, positions[0] - 200))
        out: dict[int, int] = {}
        for p in positions:
            start = None
            for r in rows:
                if r.position > p:
                    break
                if isinstance(r.event, (ActionTaken, StepSkipped)):
                    start = r.position
            if start is not None and start > 1:
                out[p] = start - 1
        return out

    def stale(self, match: str, exc: StaleVersion, entry: str, viewer: str) -> Outcome:
        """Nothing was recorded: say what was logged meanwhile (as ``viewer`` may read it)."""
        records = self.store.records_after(match, exc.chosen)
        if entry and records and records[0].entry == entry:
            # Sent twice (a double tap, a resend): logged once; say what, as a logged entry says it.
            mine = [r.event for r in records if r.entry == entry]
            game = self.store.ruleset(match)
            return Outcome(
                "repeat",
                logged_sentence(game, self.store.state_at(match, exc.chosen), mine, viewer),
                version=exc.current,
            )
        said = None
        before = self.store.state_at(match, exc.chosen)
        game = self.store.ruleset(match)
        for r in records:
            if isinstance(r.event, (ActionTaken, *JUDGE_EVENTS)):
                said = game.describe(r.event, before, viewer)
                who = f" (entered by {r.by})" if r.by else ""
                break
            before = game.evolve(before, r.event)
        if said is None:
            said, who = "Something else", ""
        return Outcome(
            "stale",
            f"Not recorded: {said.rstrip('.')}{who} was logged meanwhile. Here is the board now: choose again.",
            None,
            exc.current,
            http=409,
        )

    def void(self, match: str, version: int) -> Outcome | None:
        """A table of an event that a judge re-paired is void (tournament
        policy TP7): an action logged there is refused naming the re-pair, as
        `referee act` refuses it. Only an event's tables are asked about."""
        if not match.startswith("e-"):
            return None
        from referee.tournament.policy import REPAIR
        from referee.tournament.service import void_refusal

        why = void_refusal(self.store, match)
        return None if why is None else Outcome("refused", why, REPAIR, version, http=422)

    # --- player actions ---------------------------------------------------------------

    def act(
        self, match: str, version: int, written: Entry, role: Role, entry: str, viewer: str, confirmed: bool = False
    ) -> Outcome:
        """Log one action, as chosen on the board at ``version``: a legal line
        (the game's board parts find it, else ``anygame.line_action``), or an
        action in the notation's mapping the ruleset reads, resolves, decides
        and applies (a refusal cites its rule). What the table did in record
        mode (``written.free``) is decided first without storing: what it
        would record as a violation needs a confirmation."""
        refused = self.void(match, version)
        if refused is not None:
            return refused
        game = self.store.ruleset(match)
        state, current = self.store.load(match)
        if current != version:
            return self.stale(match, StaleVersion(match, version, current, False), entry, viewer)
        if written.line:
            raw = (
                game.board.action_of(state, written.line)
                if game.board is not None
                else line_action(game, state, written.line, viewer)
            )
            if raw is None:
                d = game.decision(state)
                rule: str | None = d.rule if d is not None else game.outside
                return Outcome("invalid", f"{written.line!r} is not a legal action now.", rule, version, http=422)
            player = raw.player
        else:
            data = dict(written.data or {})
            player = data["player"]
        if role.kind == "player" and player != role.seat:
            rule = (game.moves.seat_rule or game.outside) if written.line else None  # as `referee act` cites it
            return Outcome("invalid", f"Player {role.seat}'s link cannot act for {player}.", rule, version, http=403)
        if not written.line:
            if not written.free:
                cards = game.cards_of(state)
                names = {c.name for c in cards.values()}
                unknown = [c for c in cards_named(game, data) if c not in cards and c not in names]
                if unknown:
                    return Outcome("invalid", f"{unknown[0]!r} is no card of this match.", None, version, http=422)
            try:
                raw = game.action_from_mapping(data)
            except (ValueError, TypeError) as exc:
                return Outcome("invalid", str(exc), None, version, http=422)
        if written.free:
            try:
                found = game.apply(state, game.resolve(state, raw))
            except IllegalAction as exc:
                return Outcome("refused", exc.refusal.reason, exc.refusal.rule, version, http=422)
            violations = [
                {"rule": e.rule, "reason": e.reason} for e in found.events if isinstance(e, ViolationRecorded)
            ]
            if violations and not confirmed:
                return Outcome(
                    "preview",
                    "The table's action breaks the rules: confirm to record it with its "
                    "violation (a judge then rewinds or accepts it).",
                    violations[0]["rule"],
                    version,
                    violations,
                )
        return self._write(
            match, version, role, entry, viewer, lambda s: game.apply(s, game.resolve(s, raw)), before=state
        )

    # --- the table's and the judge's entries ---------------------------------------------

    def skip_step(
        self, match: str, version: int, rule: str, reason: str, role: Role, entry: str, viewer: str, confirmed: bool
    ) -> Outcome:
        from referee import corrections

        state, current = self.store.load(match)
        if current != version:
            return self.stale(match, StaleVersion(match, version, current, False), entry, viewer)
        try:
            corrections.skip_step(state, self.store.events(match), rule, reason)
        except IllegalAction as exc:
            return Outcome("refused", exc.refusal.reason, exc.refusal.rule, version, http=422)
        if not confirmed:
            return Outcome(
                "preview",
                f"The table skipped {rule}: confirm to record it as an open violation "
                "(a judge then rewinds to the step, or accepts it).",
                rule,
                version,
                [{"rule": rule, "reason": reason or f"the table skipped {rule}"}],
            )
        return self._write(
            match,
            version,
            role,
            entry,
            viewer,
            lambda s: corrections.skip_step(s, self.store.events(match), rule, reason),
            before=state,
        )

    def correction(
        self,
        match: str,
        version: int,
        role: Role,
        entry: str,
        viewer: str,
        decide: Callable[[Any, list[Any]], Applied],
    ) -> Outcome:
        """A note, a call, an acceptance or a rewind (``corrections``), at ``version``."""
        return self._write(match, version, role, entry, viewer, lambda s: decide(s, self.store.events(match)))


def logged_sentence(game: Any, before: Any, events: list[Any], viewer: str, rules: bool = True) -> str:
    """What one write logged, in words, as ``viewer`` may know it (spec:
    console.md, 8): the sentence of its player action (the player named as
    registered, and its rule) or of the judge's entry, then any violation it
    recorded and the end of the game if it came. The first event is read as
    the log reads it, to the end of its action (a card played from a hand
    nobody knew is named by what the action revealed), from ``before``, the
    state the write was decided on; the rest from their own fields."""
    parts: list[str] = []
    names = getattr(before, "names", None) or {}
    for e in events:
        if not parts and isinstance(e, (ActionTaken, EntryUndone, *JUDGE_EVENTS)):
            rows = game.log_rows(events, before, viewer) if e is events[0] else None
            text = (rows[0]["text"] if rows else game.describe(e, before, viewer)).rstrip(".")
            if isinstance(e, ActionTaken):
                name = names.get(e.player)
                if name and name != e.player and text.startswith(f"{e.player}:"):
                    text = f"{name} ({e.player}):{text[len(e.player) + 1 :]}"
                if rules:
                    text += f" ({e.rule})"
            parts.append(text)
        elif isinstance(e, ViolationRecorded):
            parts.append(f"violation recorded ({e.rule}): {e.reason.rstrip('.')}")
        elif isinstance(e, GameEnded):
            winner = f"{names.get(e.winner, e.winner)} wins" if e.winner else "a draw"
            parts.append(f"the game is over: {winner} ({e.rule})")
    if not parts:
        return f"{len(events)} events recorded."
    return "; ".join(parts) + "."
