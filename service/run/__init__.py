"""``floe run``'s process management: a private Redis, the workers and the API, supervised."""
