"""Games: create and play them, read them as a viewer may, and the caches that make that cheap."""
