"""Where finished games go once they leave Redis (issue 26): one small protocol
(``protocol.Archive``), an embedded SQLite back end and a PostgreSQL one, chosen by URL
(``opening.open_archive``). docs/internals/archive.md describes both."""
