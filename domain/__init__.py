"""Floe's pure domain: game rules, the event vocabulary and the seeded randomness.

Nothing here touches the network, the clock, the OS or ``random``: the service passes in
whatever it needs, so every function is deterministic and replayable.
"""
