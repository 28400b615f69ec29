"""The service's own Ed25519 key and the receipts it signs for every stored event.

A receipt binds the service to the log it showed: once a player keeps one, the host cannot
rewrite that event (or anything before it) without the audit noticing. ``service_key`` finds,
makes and rotates the key; ``receipts`` signs a receipt for each event a player is shown.
"""
