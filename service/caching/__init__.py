"""Per-process caches bounded in bytes."""
