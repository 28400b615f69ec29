"""``make bench``: throughput, latency-vs-history and folding benchmarks for Floe.

Run with ``python -m bench`` (``--help`` for durations, ``--quick`` for a fast pass).
Results print as a table and land in ``bench/results/latest.json``.
"""
