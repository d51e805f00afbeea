"""Random games played and written down as one digest each: what the procedure did, decision by decision.

``tests/data/procedure-golden.json`` holds these digests as the referee at
commit 4edfc60 computed them, before the procedure moved into the kernel
(issue 31: each game's engine had its own legality, legal list, own events,
automatic steps and apply). ``tests/test_procedure_golden.py`` plays the
same games today and requires the same digests: the same decisions, the
same legal lists in the same order, the same refusals of random actions,
the same events. Run this file with an older referee's source first on
``PYTHONPATH`` to write the digests again:

    PYTHONPATH=OLD_SOURCE:. python tests/procedurekit.py > tests/data/procedure-golden.json

It reaches each game only by what both versions have (the registry, the
ruleset's ``legal_actions``, ``decision``, ``is_legal``, ``apply``). The
test plays only the golden's scenario files (``all_cases(only=...)``): a
scenario added since neither joins the digests nor shifts another file's seed.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any, Collection

ROOT = Path(__file__).resolve().parent.parent


def _bundled(ruleset: Any) -> Any:
    decks = getattr(ruleset, "decks", None)
    return decks.bundled_cards() if decks is not None else ruleset.bundled_cards()


def _random_deck(ruleset: Any, rng: random.Random, pool: Any) -> Any:
    decks = getattr(ruleset, "decks", None)
    return decks.random_deck(rng, pool) if decks is not None else ruleset.random_deck(rng, pool)


def _position(ruleset: Any, data: Any, doc: Any) -> Any:
    made = getattr(ruleset, "position", None)
    return made(data, doc) if callable(made) else ruleset.start_from_position(data, doc)


class Digest:
    """What a game's procedure said, folded into one sha256."""

    def __init__(self) -> None:
        self.hash = hashlib.sha256()
        self.steps = 0

    def add(self, *parts: Any) -> None:
        self.hash.update(json.dumps(parts, sort_keys=True, default=str, ensure_ascii=False).encode())
        self.hash.update(b"\n")

    def events(self, events: list[Any]) -> None:
        for e in events:
            self.add(type(e).__name__, e.model_dump(mode="json"))

    def decision(self, ruleset: Any, state: Any) -> None:
        d = ruleset.decision(state)
        # SCP-TCG's page moved to docs/games/ (issue 32): its decision names it
        # there; the digests were written when it named docs/scp-tcg.md.
        text = None if d is None else d.text.replace("docs/games/scp-tcg-s4.md", "docs/scp-tcg.md")
        self.add(None if d is None else [d.player, d.kind, d.rule, text, d.chance])

    def hexdigest(self) -> str:
        return self.hash.hexdigest()


def _junk(rng: random.Random, ruleset: Any, state: Any, legal: list[Any]) -> Any:
    """An action made up from a listed one: another seat, another kind, another card."""
    base = rng.choice(legal).to_dict()
    spoil = rng.randrange(3)
    if spoil == 0:
        others = [s for s in ruleset.seats if s != base["player"]]
        base["player"] = rng.choice(others) if others else "nobody"
    elif spoil == 1:
        base["do"] = rng.choice(sorted(ruleset.actions))
    else:
        cards = sorted(getattr(state, "cards", {}) or {})
        if cards and "card" in base:
            base["card"] = rng.choice(cards)
    return ruleset.action_from_mapping(base)


def play(ruleset: Any, state: Any, seed: int, digest: Digest, most: int) -> None:
    """Random legal actions from ``state``; each step's decision, legal list,
    the verdict on a made-up action and the applied events go in ``digest``."""
    rng = random.Random(seed)
    skips = {"concede", "propose_draw", "accept_draw"}
    for _ in range(most):
        if ruleset.result(state) is not None:
            break
        digest.decision(ruleset, state)
        legal = ruleset.legal_actions(state)
        digest.add([a.to_dict() for a in legal])
        choices = [a for a in legal if a.do not in skips]
        if not choices:
            break
        junk = _junk(rng, ruleset, state, legal)
        refusal = ruleset.is_legal(state, junk)
        digest.add(junk.to_dict(), None if refusal is None else [refusal.rule, refusal.reason, refusal.physical])
        action = rng.choice(choices)
        applied = ruleset.apply(state, action)
        digest.events(applied.events)
        state = applied.state
        digest.steps += 1
    digest.add(ruleset.result(state) is not None)


def harem_master_cases() -> dict[str, Any]:
    from referee import ruleset as registry

    hm = registry.get("harem-master")
    pool = dict(_bundled(hm))
    vanilla = {n: c for n, c in pool.items() if not getattr(c, "abilities", None)}
    cases: dict[str, Any] = {}
    for kind, cards, deal, seeds in (
        ("abilities", pool, "seeded", range(1, 9)),
        ("vanilla", vanilla, "seeded", range(1, 5)),
        ("abilities-table", pool, "table", range(1, 5)),
        ("abilities-record", pool, "record", range(1, 3)),
    ):
        for seed in seeds:
            rng = random.Random(seed ^ 0x5EED)
            decks = {"A": _random_deck(hm, rng, cards), "B": _random_deck(hm, rng, cards)}
            mode = "record" if deal == "record" else "strict"
            started = hm.start(decks, seed=seed, deal="seeded" if deal == "record" else deal, mode=mode)
            digest = Digest()
            digest.events(started.events)
            play(hm, started.state, seed, digest, 400)
            cases[f"harem-master {kind} {seed}"] = {"steps": digest.steps, "digest": digest.hexdigest()}
    return cases


def scenario_cases(game: str, folder: str, files: int, only: Collection[str] | None = None) -> dict[str, Any]:
    """Random play from the positions of a game's scenario files, each with
    its index among the folder's files as its seed. ``only``: the cases to
    play (the golden's); a scenario file added since is left out before the
    files are counted, so it shifts no other file's seed."""
    from referee import ruleset as registry
    from referee.inputs import load_document

    ruleset = registry.get(game)
    cases: dict[str, Any] = {}
    paths = sorted((ROOT / "scenarios" / folder).rglob("*.yaml"))
    docs = {path: load_document(path) for path in paths}

    def added(path: Path) -> bool:
        data = docs[path].data
        played = isinstance(data, dict) and "setup" in data
        return only is not None and played and f"{game} {path.relative_to(ROOT)}" not in only

    paths = [path for path in paths if not added(path)][:files]
    for k, path in enumerate(paths):
        doc = docs[path]
        if not isinstance(doc.data, dict) or "setup" not in doc.data:
            continue
        try:
            started = _position(ruleset, doc.data, doc)
        except Exception:  # noqa: BLE001 - a file this version reads differently: left out of both
            continue
        digest = Digest()
        digest.events(started.events)
        play(ruleset, started.state, k, digest, 60)
        cases[f"{game} {path.relative_to(ROOT)}"] = {"steps": digest.steps, "digest": digest.hexdigest()}
    return cases


def all_cases(only: Collection[str] | None = None) -> dict[str, Any]:
    return {
        **harem_master_cases(),
        **scenario_cases("harem-master", "300-turn", 40, only),
        **scenario_cases("scp-tcg-s4", "scp-tcg", 60, only),
        **scenario_cases("harem-master", "400-406-abilities", 40, only),
    }


if __name__ == "__main__":
    sys.setrecursionlimit(10_000)
    json.dump(all_cases(), sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")
