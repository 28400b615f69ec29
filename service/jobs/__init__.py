"""The job workers: draws, bot moves and tournament advances, run on RQ from a backlog."""
