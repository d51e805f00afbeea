"""The Harem Master rules (100-506), one module per part of the comprehensive rules.

Each printed rule is owned by exactly one module (``RULE_MAP``, whose ranges
this table repeats; ``tests/test_rule_map.py`` checks every rule number of
the rules text falls in one range, and that each module names the rules it
owns), so a rule's code is found from its number in one step:

| module | rules | what it holds |
|---|---|---|
| ``engine`` | 100-100.1, 102.7-102.8 | who must act, what the rules decide of an action before its check (the other side of the turn), the automatic steps and what they set off, for the kernel's procedure (``referee.ruleset``); two players (100.1); conceding and draws at any time (102.7, 102.8) |
| ``setup`` | 101 | openings, shuffle, turn order, hands, mulligans (101.1-101.8) |
| ``checks`` | 102-102.3, 103.2, 214.2e, 214.4f | the checks after every event: the end of the game, the character limits, items without a (suitable) character |
| ``effects`` | 102.4-102.6, 401.7, 407.4-407.6, 411.1c-411.2 | resolving one step of card text: its choices, its events, the wins and losses card text decides, counters |
| ``abilities`` | 103-103.1, 214.3, 400-401.4a, 401.8, 402, 406, 407-407.3, 411-411.1a, 503-505 | using event cards and activated abilities: who may use what in which window, costs, declaring a use |
| ``characteristics`` | 200-214.1, 214.2g, 215.1a-215.1b, 215.3b, 215.6b, 401.5-401.6, 404, 405, 412, 500-502 | reading card text (what its words point at, amounts, conditions) and a card's current characteristics |
| ``turn`` | 214.2-214.2d, 214.2f, 214.4-214.4e, 214.4g, 300-306.4, 307-310, 506 | the turn but battle: the steps, the active player's plays, the windows of 305 and 307, the hand maximum at 309 |
| ``zones`` | 215-215.1, 215.2-215.3a, 215.3c-215.6a, 215.7-215.7b, 215.7d-215.8b, 215.8d-215.10 | the zones: costs paid from the action-cost stack, a card that changes zones is a new object |
| ``agenda`` | 215.7c, 215.8c, 408.2, 409.3, 411.1b | the agenda where uses and triggers wait and resolve: windows (406.2), proposals (the moment before something happens), the choices made there |
| ``battle`` | 306.5 | battle, from the attack to its end |
| ``situations`` | 403, 408-408.1, 409-409.2 | what happens as card text names it: triggers fired, replacements |
| ``rewinds`` | 410 | what a judge's rewind cites (410.1, 410.2), the steps a table may be recorded as having skipped, what each event revealed; ``referee.corrections`` does the rewinds |
| ``hidden`` | | a table-dealt match's unknown cards and the reveals the table enters (bounded by 100.2's deck lists) |
| ``describe`` | | what the rules say about a position, for people |
| ``common`` | | refusals, names, seeded chance |
| ``registry`` | | where each module declares its action kinds (in the kernel's ``referee.moves.Moves``), decision kinds and steps |
| ``decks`` | | 100.2's deck check as a function of two lists, dealing a match's decks; the ``decks`` capability |
| ``pool`` | | card pools: the card definitions a deck's names are read against, the bundled rules-test pool |
| ``actions`` | | a player's action in the notation of the scenario format (section 3), by instance ids |
| ``notation`` | | actions as players write them (card names), read into instance ids and written back |
| ``views`` | | what the rules say about a position, as the command line and the board show it |
| ``board`` | | its own parts of the board's pages (the ``board`` capability, with its templates in ``templates/``): the position, log, decision and card texts a page shows, the console's lines and record mode's menus |
| ``game`` | | Harem Master as a ``referee.ruleset.Ruleset``: its core and capabilities, declared |
| ``procedure`` | | where its own modules find the kernel's procedure for it (by its id, through the registry) |
| ``scenario`` | | its scenario files: the position (the core's ``position``), the players' actions and the expectations (the ``scenarios`` capability) |
| ``records`` | | its part of a match record: the rulings, automatic passing, card definitions and the decks (the ``records`` capability) |
| ``written`` | | a stretch of a stored match written as a scenario file (``referee scenario from``, the ``scenario_writer`` capability) |
| ``settings`` | | a match's own settings: the selectable rulings, the record header keys that carry them |
"""

from referee.moves import rule_key
from referee.rules.harem_master.engine import ANY_TIME, current_decision, current_player, start
from referee.rules.harem_master.game import HAREM_MASTER
from referee.rules.harem_master.registry import ACTIONS, KINDS, Decision

# The kernel's procedure over Harem Master's rules, by the names its tests
# and tools have always called it (``referee.ruleset.Ruleset``).
advance = HAREM_MASTER.advance
apply = HAREM_MASTER.apply
canonical = HAREM_MASTER.canonical
decide = HAREM_MASTER.decide
is_legal = HAREM_MASTER.is_legal
legal_actions = HAREM_MASTER.legal_actions
own_events = HAREM_MASTER.own_events

# Rule ranges by module (``engine`` is ``referee.rules.harem_master.engine``;
# a dotted name is a module outside the package). "A-B" is every rule from A
# to B in the order of the rules text, B's sub-rules not included; "A" alone
# is A and all its sub-rules.
RULE_MAP: dict[str, tuple[str, ...]] = {
    "engine": ("100-100.1", "102.7-102.8"),
    "referee.rules.harem_master.decks": ("100.2",),
    "setup": ("101",),
    "checks": ("102-102.3", "103.2", "214.2e", "214.4f"),
    "effects": ("102.4-102.6", "401.7", "407.4-407.6", "411.1c-411.2"),
    "abilities": (
        "103-103.1",
        "214.3",
        "400-401.4a",
        "401.8",
        "402",
        "406",
        "407-407.3",
        "411-411.1a",
        "503-505",
    ),
    "characteristics": (
        "200-214.1",
        "214.2g",
        "215.1a-215.1b",
        "215.3b",
        "215.6b",
        "401.5-401.6",
        "404",
        "405",
        "412",
        "500-502",
    ),
    "turn": ("214.2-214.2d", "214.2f", "214.4-214.4e", "214.4g", "300-306.4", "307-310", "506"),
    "zones": ("215-215.1", "215.2-215.3a", "215.3c-215.6a", "215.7-215.7b", "215.7d-215.8b", "215.8d-215.10"),
    "agenda": ("215.7c", "215.8c", "408.2", "409.3", "411.1b"),
    "battle": ("306.5",),
    "situations": ("403", "408-408.1", "409-409.2"),
    "rewinds": ("410",),
}


def _under(rule: str, head: str) -> bool:
    """Is ``rule`` ``head`` or one of its sub-rules (306.5a under 306.5; 306.50 is not)?"""
    if rule == head:
        return True
    if not rule.startswith(head):
        return False
    rest = rule[len(head) :]
    return rest[0].isalpha() or (rest[0] == "." and "." not in head)


def in_range(rule: str, span: str) -> bool:
    """Does ``rule`` fall in ``span`` ("A-B", or "A" with its sub-rules)?"""
    low, _, high = span.partition("-")
    if not high:
        return _under(rule, low)
    return rule_key(low) <= rule_key(rule) <= rule_key(high)


def module_of(rule: str) -> list[str]:
    """The modules whose ranges hold ``rule`` (exactly one for a printed rule)."""
    return [module for module, spans in RULE_MAP.items() if any(in_range(rule, s) for s in spans)]


__all__ = [
    "HAREM_MASTER",
    "RULE_MAP",
    "ACTIONS",
    "ANY_TIME",
    "KINDS",
    "Decision",
    "advance",
    "apply",
    "canonical",
    "current_decision",
    "current_player",
    "decide",
    "is_legal",
    "legal_actions",
    "own_events",
    "module_of",
    "start",
]
