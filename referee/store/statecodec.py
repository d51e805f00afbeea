"""The snapshot body: ``GameState`` to JSON and back (see ``projections.codec``).

The codec lives in ``projections`` because a ``Rewound`` event carries a
restored state that ``evolve`` must read; the store uses the same one.
"""

from projections.codec import FORMAT, IncompatibleSnapshot, decode_state, encode_state

__all__ = ["FORMAT", "IncompatibleSnapshot", "decode_state", "encode_state"]
