"""A small pool of persistent child processes that audit uploaded export files.

The audit of a 2 MiB upload takes up to seconds of CPU; run in the API process it would
stop the gevent event loop that serves every other request for as long. Here it runs in a
child (``service.uploads.child``) and the request's greenlet waits on the pipes
(``service.uploads.frames``), so health checks, moves and streams are served meanwhile.

What one API process allows (``UploadLimits``):

- ``workers`` children, so as many uploads are audited at once; up to ``waiting`` more wait
  for one in turn, and any beyond that are refused at once (``uploads_busy``), as is one that
  waited for ``seconds`` without getting a child;
- ``per_address`` uploads in flight per client address, waiting ones included
  (``upload_in_flight``): one address cannot fill the queue;
- ``seconds`` per job: a child still busy past it is killed (the request gets
  ``upload_too_slow``) and its place is free for a new one.

Children are started when first needed, replaced when found dead (the request that was
with one that died gets ``upload_interrupted``), and never outlive the API (see the child's
module). These counts are per API process: each gunicorn worker has a pool of its own.
"""

from __future__ import annotations

import atexit
import logging
import os
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass

from service.uploads import frames

log = logging.getLogger(__name__)

#: What a refused client is told to wait before trying again, in seconds.
BUSY_RETRY_SECONDS = 5
IN_FLIGHT_RETRY_SECONDS = 2
#: Seconds a child that is being stopped has to exit after its pipes close, before SIGKILL.
STOP_SECONDS = 2.0
#: Seconds a new child has to import what it needs and say it is ready (not counted in any
#: job's deadline: a busy machine starts Python slowly, and that is no upload's fault).
START_SECONDS = 60.0


@dataclass(frozen=True, slots=True)
class UploadLimits:
    """What one API process lets uploads use (see the module docstring)."""

    workers: int = 2
    waiting: int = 4
    per_address: int = 1
    seconds: float = 30.0


class UploadRefused(Exception):
    """An upload not audited, with a stable code; ``retry_after`` seconds when waiting
    helps. The subclass says whose doing it was, so the API picks the status."""

    def __init__(self, code: str, message: str, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.retry_after = retry_after


class UploadInFlight(UploadRefused):
    """The address has as many uploads in flight as it may: the client's own doing."""

    def __init__(self, held: int) -> None:
        super().__init__(
            "upload_in_flight",
            f"this address already has {held} upload(s) being audited, the most it may have "
            "at once (FLOE_UPLOADS_PER_ADDRESS); wait for its answer",
            IN_FLIGHT_RETRY_SECONDS,
        )


class UploadsBusy(UploadRefused):
    """Every child is busy and the queue is full, or no child became free in time."""

    def __init__(self, why: str, limits: UploadLimits) -> None:
        super().__init__(
            "uploads_busy",
            f"{why} ({limits.workers} at once, {limits.waiting} waiting, per API process); "
            "retry after Retry-After",
            BUSY_RETRY_SECONDS,
        )


class UploadTooSlow(UploadRefused):
    """The job passed its deadline: its child was killed."""

    def __init__(self, seconds: float) -> None:
        super().__init__(
            "upload_too_slow",
            f"auditing this file took longer than {seconds:g} s, the most an upload may take "
            "(FLOE_UPLOAD_SECONDS); it was stopped",
        )


class UploadInterrupted(UploadRefused):
    """The child died before it answered (killed from outside, or out of memory)."""

    def __init__(self) -> None:
        super().__init__(
            "upload_interrupted",
            "the process auditing this file stopped before it answered; try again",
            1,
        )


class UploadFailed(Exception):
    """The child raised on the file: a bug in the audit, not the client's doing."""


class Child:
    """One child process and the API's ends of its two pipes (non-blocking)."""

    def __init__(self, argv: list[str], env: Mapping[str, str] | None) -> None:
        to_child, self._requests = os.pipe()
        self._replies, from_child = os.pipe()
        try:
            # ``subprocess`` is looked up here, not imported by name: under gevent it is the
            # cooperative one (monkey-patched), so waiting for the child never blocks the loop.
            self.process = subprocess.Popen(
                argv, stdin=to_child, stdout=from_child, close_fds=True, env=env
            )
        except BaseException:
            os.close(self._requests)
            os.close(self._replies)
            raise
        finally:
            os.close(to_child)
            os.close(from_child)
        os.set_blocking(self._requests, False)
        os.set_blocking(self._replies, False)
        self._open = True

    def ready(self) -> None:
        """Wait for the child to say it is ready (``frames.PastDeadline`` or
        ``frames.PipeClosed`` when it does not)."""
        frames.receive(self._replies, time.monotonic() + START_SECONDS)

    @property
    def pid(self) -> int:
        return self.process.pid

    def alive(self) -> bool:
        return self.process.poll() is None

    def exchange(self, frame: bytes, deadline: float) -> tuple[dict[str, object], bytes]:
        frames.send(self._requests, frame, deadline)
        return frames.receive(self._replies, deadline)

    def stop(self, *, kill: bool = False) -> None:
        """Close the pipes (the child exits at end of file); kill it if asked, or if it has
        not exited within ``STOP_SECONDS``; reap it."""
        if self._open:  # never twice: the numbers may belong to other files by then
            self._open = False
            os.close(self._requests)
            os.close(self._replies)
        if kill:
            self.process.kill()
        try:
            self.process.wait(timeout=STOP_SECONDS)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def child_argv() -> list[str]:
    return [sys.executable, "-m", "service.uploads.child"]


class UploadPool:
    """The children of one API process, and who waits for them (thread- and greenlet-safe:
    under gevent the ``threading`` primitives are the patched, cooperative ones)."""

    def __init__(
        self,
        limits: UploadLimits,
        *,
        argv: list[str] | None = None,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.limits = limits
        self._argv = argv or child_argv()
        self._env = env
        self._turns = threading.Condition()
        self._idle: list[Child] = []
        self._busy: set[Child] = set()
        self._starting = 0
        self._waiting = 0
        self._in_flight: dict[str, int] = {}
        self._closed = False
        _every_pool.add(self)

    def audit(self, address: str | None, body: bytes, first: int, count: int) -> bytes:
        """The answer's JSON for the upload ``body`` (see ``service.uploads.answer``), from a
        child; ``UploadRefused`` when the limits or the deadline say no."""
        frame = frames.encode({"from": first, "count": count}, body)
        with self._in_flight_for(address or "unknown"):
            child = self._take(time.monotonic() + self.limits.seconds)
            deadline = time.monotonic() + self.limits.seconds  # the job's own, from now
            healthy = False
            try:
                header, payload = child.exchange(frame, deadline)
                healthy = True
            except frames.PastDeadline:
                log.warning("upload child %d passed its deadline: killed", child.pid)
                raise UploadTooSlow(self.limits.seconds) from None
            except frames.PipeClosed:
                log.warning("upload child %d died during a job: replaced", child.pid)
                raise UploadInterrupted from None
            finally:
                self._give_back(child, healthy)
        if "error" in header:
            raise UploadFailed(str(header["error"]))
        return payload

    def load(self) -> tuple[int, int]:
        """How many jobs are with a child now, and how many wait for one."""
        with self._turns:
            return len(self._busy) + self._starting, self._waiting

    def pids(self) -> list[int]:
        """The children alive now (idle or busy)."""
        with self._turns:
            children = [*self._idle, *self._busy]
        return [child.pid for child in children if child.alive()]

    def close(self) -> None:
        """Stop every child (idle ones now, busy ones as their jobs end)."""
        with self._turns:
            self._closed = True
            idle, self._idle = self._idle, []
            self._turns.notify_all()
        for child in idle:
            child.stop()

    @contextmanager
    def _in_flight_for(self, address: str) -> Iterator[None]:
        limit = self.limits.per_address
        with self._turns:
            held = self._in_flight.get(address, 0)
            if limit > 0 and held >= limit:
                raise UploadInFlight(held)
            self._in_flight[address] = held + 1
        try:
            yield
        finally:
            with self._turns:
                left = self._in_flight[address] - 1
                if left:
                    self._in_flight[address] = left
                else:
                    del self._in_flight[address]

    def _take(self, deadline: float) -> Child:
        """A live child for one job: an idle one, a new one while there are fewer than
        ``workers``, or the next one given back, waiting in a bounded queue."""
        with self._turns:
            if not self._free() and self._waiting >= self.limits.waiting:
                raise UploadsBusy("every upload process is busy and the queue is full", self.limits)
            self._waiting += 1
            try:
                while not self._free():
                    left = deadline - time.monotonic()
                    if self._closed or left <= 0:
                        raise UploadsBusy("no upload process became free in time", self.limits)
                    self._turns.wait(left)
            finally:
                self._waiting -= 1
            if self._closed:
                raise UploadsBusy("the API is stopping", self.limits)
            child = self._idle.pop() if self._idle else None
            if child is None:
                self._starting += 1
            else:
                self._busy.add(child)
        if child is not None:
            if child.alive():
                return child
            log.warning("upload child %d was dead: replaced", child.pid)
            child.stop()
            with self._turns:  # its place goes to a new one, never counted free between
                self._busy.discard(child)
                self._starting += 1
        try:
            child = Child(self._argv, self._env)
        except BaseException:
            with self._turns:
                self._starting -= 1
                self._turns.notify()
            raise
        try:
            child.ready()
        except (frames.PastDeadline, frames.PipeClosed):
            log.warning("upload child %d did not start", child.pid)
            child.stop(kill=True)
            with self._turns:
                self._starting -= 1
                self._turns.notify()
            raise UploadInterrupted from None
        with self._turns:
            self._starting -= 1
            self._busy.add(child)
        return child

    def _free(self) -> bool:
        """Whether a job can start now: an idle child, or room for a new one."""
        started = len(self._idle) + len(self._busy) + self._starting
        return bool(self._idle) or started < self.limits.workers

    def _give_back(self, child: Child, healthy: bool) -> None:
        with self._turns:
            self._busy.discard(child)
            keep = healthy and not self._closed and child.alive()
            if keep:
                self._idle.append(child)
            self._turns.notify()
        if not keep:
            child.stop(kill=not healthy)


_every_pool: weakref.WeakSet[UploadPool] = weakref.WeakSet()


@atexit.register
def _stop_every_pool() -> None:
    """At exit the children would see end of file anyway; this reaps them first."""
    for pool in list(_every_pool):
        pool.close()
