"""What one client may hold or ask for: rate limits, quotas and long requests."""
