"""Each game's rules, one package per game, found through ``referee.ruleset``'s registry.

``harem_master`` is Harem Master's (rules 100 to 506, its rule map in its
``__init__``), ``scp_tcg`` the zone rules of SCP-TCG's chapter 4. This
package re-exports neither: the kernel asks a match's ruleset
(``referee.ruleset.get``), and a game's own modules import their package.
"""
