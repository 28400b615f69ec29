"""A bare route for ``make bench``: one plain XADD behind the same stack, the ceiling.

Registered only when ``FLOE_BENCH_ROUTES=1``; never in a normal deployment.
"""

from __future__ import annotations

from flask import Blueprint, Response, current_app, jsonify

bench = Blueprint("bench", __name__, url_prefix="/bench")


@bench.post("/xadd")
def bare_xadd() -> Response:
    client = current_app.extensions["floe"].redis
    client.xadd("floe:bench:bare", {"e": "{}"}, maxlen=10_000, approximate=True)
    return jsonify({"ok": True})
