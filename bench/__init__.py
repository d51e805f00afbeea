"""The referee's benchmarks (`referee bench`): a package of their own that imports the product, never the other way.

Every figure is a ratio against a baseline measured in the same run
(``figures``: the engine, decisions against python-chess, the store, audits,
start-up, the board; ``console``: a decision logged at the board;
``tournament``: the event pages and an event under load). ``command`` is
the click command the referee's command line names by string
(``referee.cli.COMMANDS``), so the product never imports this package, as
``tests/test_import_graph.py`` checks.
"""
