"""``POST /v1/replays``: audit an uploaded export file and answer what a replay page steps.

The body is an export file as ``GET /v1/games/{id}/export`` gives it (NDJSON, one stored
event per line), at most ``MAX_REPLAY_BYTES`` (413 beyond) and ``MAX_LINES`` lines (413
``too_many_lines``, counted before any is parsed). The answer is the verdict of ``floe
replay verify --no-bot-replay`` on it, what ``floe replay show`` warns about it (the banner),
every version the audit passed and the boards of at most ``MAX_BOARDS`` versions from
``?from=N`` on (``?count=``), within a byte budget: ``service.uploads.answer`` says what and
why. A tournament export is judged as a set (``kind`` ``tournament``, no steps).

The audit takes up to seconds of CPU, which must never stop the event loop that serves
every other request: it runs in a child process of this one (``service.uploads.pool``),
while this request waits on a pipe. So an upload is also limited as no other request is:
it is charged in the rate limit by its size (``body_units``: one unit per 64 KiB besides the
request's own), one address may have ``FLOE_UPLOADS_PER_ADDRESS`` uploads in flight (429
``upload_in_flight``), the pool audits ``FLOE_UPLOAD_WORKERS`` at once with a short queue
behind (503 ``uploads_busy`` beyond), and a job past ``FLOE_UPLOAD_SECONDS`` is stopped (503
``upload_too_slow``; 503 ``upload_interrupted`` for a child that died under it).

Nothing is stored: the same file answers the same, whoever sends it. The file is untrusted
input: the audit never raises on what it holds, and nothing of it is folded past the first
failure.
"""

from __future__ import annotations

import logging
import threading

from flask import Blueprint, Response, current_app, request

from service.api.errors import HttpError
from service.api.http import current_floe, int_arg, only_query, require_content_type
from service.errors import InvalidRequest
from service.limits.rate_limits import body_units
from service.settings import Settings
from service.uploads.answer import MAX_LINES, line_count
from service.uploads.pool import (
    UploadFailed,
    UploadInFlight,
    UploadLimits,
    UploadPool,
    UploadRefused,
)

log = logging.getLogger(__name__)

replays = Blueprint("replays", __name__, url_prefix="/v1")

#: The largest export file accepted (413 ``body_too_large`` beyond).
MAX_REPLAY_BYTES = 2 * 1024 * 1024
#: Boards drawn per request (``?count=``), and the default.
MAX_BOARDS = 100
DEFAULT_BOARDS = 20
#: The content types an export file may be sent as: one is required, so that no visitor's
#: browser can be made to upload (a cross-site request without a type is not asked first).
NDJSON_TYPES = frozenset({"application/octet-stream", "application/x-ndjson", "application/jsonl"})

_making_pool = threading.Lock()


def _body() -> bytes:
    """The file: 415 unless declared NDJSON, 413 over the limit, 400 ``empty_body`` for
    nothing at all (an empty file is no export file)."""
    require_content_type(NDJSON_TYPES.__contains__, "application/x-ndjson")
    request.max_content_length = MAX_REPLAY_BYTES
    raw = request.get_data(cache=False)  # 413 (werkzeug) when over MAX_REPLAY_BYTES
    if not raw:
        raise InvalidRequest("empty_body", "the body is empty; send an export file")
    return raw


@replays.post("/replays")
def post_replay() -> Response:
    only_query("from", "count")
    first = int_arg("from", 1, low=1, high=2**53)
    count = int_arg("count", DEFAULT_BOARDS, low=1, high=MAX_BOARDS)
    raw = _body()
    units = body_units(len(raw))
    if units > 1:  # the request itself was counted before the route
        authorization = request.headers.get("Authorization")
        current_floe().rate_limiter.check(request.remote_addr, authorization, cost=units - 1)
    lines = line_count(raw)
    if lines > MAX_LINES:
        raise HttpError(
            413,
            "too_many_lines",
            f"the file has {lines} lines; an export file uploaded here has at most {MAX_LINES}",
        )
    try:
        payload = _pool().audit(request.remote_addr, raw, first, count)
    except UploadRefused as refused:
        status = 429 if isinstance(refused, UploadInFlight) else 503
        headers = {} if refused.retry_after is None else {"Retry-After": str(refused.retry_after)}
        raise HttpError(status, refused.code, refused.message, headers=headers) from None
    except UploadFailed as failed:
        log.error("the audit of an upload failed:\n%s", failed)
        raise
    return current_app.response_class(payload, 200, mimetype="application/json")


def _pool() -> UploadPool:
    """This app's pool of upload children, made on the first upload."""
    pool = current_app.extensions.get("floe_uploads")
    if pool is None:
        with _making_pool:
            pool = current_app.extensions.get("floe_uploads")
            if pool is None:
                pool = UploadPool(_limits(current_floe().settings))
                current_app.extensions["floe_uploads"] = pool
    assert isinstance(pool, UploadPool)
    return pool


def _limits(settings: Settings) -> UploadLimits:
    workers = settings.upload_workers
    return UploadLimits(
        workers=workers,
        waiting=2 * workers,
        per_address=settings.uploads_per_address,
        seconds=settings.upload_seconds,
    )
