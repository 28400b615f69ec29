"""HTTP API, job worker and process supervision for floe."""
