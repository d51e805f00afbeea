"""A toy game for the tests: a third ruleset, with seats other than A and B, plugged in as any game is."""
