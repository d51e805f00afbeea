"""The referee: card pools and decks, the rules, scenarios, and the CLI."""

__version__ = "0.1.0"
