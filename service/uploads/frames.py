"""The frames the API and an upload child exchange over a pair of pipes: JSON, never pickle.

A frame is one line of JSON (the header, an object) and then exactly ``header["length"]``
bytes of payload: the uploaded file one way, the answer's JSON the other. Neither side ever
unpickles or evaluates anything the other sent.

The API's side (``send`` and ``receive``) waits on its pipes with ``select.poll`` and a
deadline, never in a blocking read or write. Under gunicorn's gevent workers ``select`` is
monkey-patched (``gevent.monkey.patch_all``), so the wait is the greenlet's alone and the
event loop serves every other request meanwhile; under Flask's test client (no patching) the
same call blocks only the request's own thread. So nothing here imports gevent, and the
service layer's rules hold (docs/internals/architecture.md).
"""

from __future__ import annotations

import json
import os
import select
import time
from typing import Any, BinaryIO

#: The longest header line either side accepts.
MAX_HEADER = 64 * 1024
#: The most payload one frame may carry (a sanity bound: the answers are far smaller).
MAX_PAYLOAD = 256 * 1024 * 1024
#: Bytes moved per read or write.
CHUNK = 256 * 1024


class PastDeadline(Exception):
    """The other side did not take or give the frame by the deadline."""


class PipeClosed(Exception):
    """The other side is gone (end of file, or a broken pipe), or sent no frame."""


def encode(header: dict[str, Any], payload: bytes = b"") -> bytes:
    """One frame: the header (with the payload's ``length``) as a line, then the payload."""
    line = json.dumps({**header, "length": len(payload)}, separators=(",", ":"))
    return line.encode("ascii") + b"\n" + payload


def send(fd: int, frame: bytes, deadline: float) -> None:
    """Write ``frame`` to the non-blocking pipe ``fd`` by ``deadline`` (``time.monotonic``)."""
    view = memoryview(frame)
    while view:
        _wait(fd, select.POLLOUT, deadline)
        try:
            written = os.write(fd, view[:CHUNK])
        except BlockingIOError:
            continue
        except (BrokenPipeError, ConnectionResetError):
            raise PipeClosed("the child closed its end") from None
        view = view[written:]


def receive(fd: int, deadline: float) -> tuple[dict[str, Any], bytes]:
    """Read one frame from the non-blocking pipe ``fd`` by ``deadline``."""
    buffer = bytearray()
    while b"\n" not in buffer:
        if len(buffer) > MAX_HEADER:
            raise PipeClosed("the child sent no header line")
        buffer += _read(fd, deadline)
    line, _, rest = bytes(buffer).partition(b"\n")
    header = _header(line)
    length = header["length"]
    payload = bytearray(rest)
    while len(payload) < length:
        payload += _read(fd, deadline)
    if len(payload) != length:
        raise PipeClosed("the child sent more than its frame")
    return header, bytes(payload)


def _read(fd: int, deadline: float) -> bytes:
    while True:
        _wait(fd, select.POLLIN, deadline)
        try:
            chunk = os.read(fd, CHUNK)
        except BlockingIOError:
            continue
        if not chunk:
            raise PipeClosed("the child closed its end")
        return chunk


def _wait(fd: int, events: int, deadline: float) -> None:
    """Until ``fd`` is ready for ``events`` (or has hung up), or raise ``PastDeadline``.
    ``select.poll`` is looked up on every call: gevent patches it after import."""
    left = deadline - time.monotonic()
    if left <= 0:
        raise PastDeadline
    poller = select.poll()
    poller.register(fd, events)
    if not poller.poll(max(1, int(left * 1000))):
        raise PastDeadline


def _header(line: bytes) -> dict[str, Any]:
    try:
        header = json.loads(line)
    except ValueError:
        raise PipeClosed("the child's header is not JSON") from None
    length = header.get("length") if isinstance(header, dict) else None
    if type(length) is not int or not 0 <= length <= MAX_PAYLOAD:
        raise PipeClosed("the child's header has no length")
    return header  # type: ignore[no-any-return]


# ----- the child's side: plain blocking files -------------------------------------------------


def read_frame(source: BinaryIO) -> tuple[dict[str, Any], bytes] | None:
    """The next frame from the API, or None when the API has closed the pipe (or died)."""
    line = source.readline(MAX_HEADER)
    if not line.endswith(b"\n"):
        return None
    header = json.loads(line)
    payload = source.read(header["length"])
    if len(payload) != header["length"]:
        return None
    return header, payload


def write_frame(sink: BinaryIO, header: dict[str, Any], payload: bytes = b"") -> None:
    sink.write(encode(header, payload))
    sink.flush()
