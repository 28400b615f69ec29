"""The event store: one Redis stream per game, conditional appends, and what makes them durable."""
