"""The service key: one Ed25519 key per Floe, kept in a file every API process reads.

A receipt is worth keeping only if every process of a Floe signs with the same key and the
key outlives the processes, so it lives in a file (``FLOE_SERVICE_KEY_FILE``; under
``floe run``, ``<data dir>/keys/service.key``) holding its 32 secret bytes as 64 hex digits,
mode 0600. The first process to start makes it: it writes a temporary file in the same folder
and hard-links it into place, which fails when another process got there first, so two
processes starting at once agree on one key (the loser reads the winner's). A rotation
replaces the file and lists the old public key in ``retired.json`` beside it, so the receipts
the old key signed stay checkable (``GET /v1/keys``); a running process keeps the key it
loaded until it is restarted.

A process given no file (a ``Settings`` built in code: tests, benchmarks) holds a key of its
own, in memory only: nothing is ever written for it.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from domain.engine.signing import is_public_key

#: Where ``floe run`` keeps the key, inside its data directory.
KEY_FOLDER = "keys"
KEY_FILE = "service.key"
#: The public keys of earlier service keys, newest first, beside the key file.
RETIRED_FILE = "retired.json"
_PRIVATE_HEX = re.compile(r"[0-9a-f]{64}")


class ServiceKeyError(Exception):
    """The key file, or its list of retired keys, cannot be used; the message says why."""


@dataclass(frozen=True, slots=True)
class ServiceKey:
    """The loaded key (parsed once: every signature reuses it), its public key, and the
    public keys it replaced, newest first."""

    private: Ed25519PrivateKey
    public_key: str
    retired: tuple[str, ...] = ()
    #: The file it was read from; None for a key held in memory only.
    path: Path | None = None

    @classmethod
    def of(
        cls, private: Ed25519PrivateKey, retired: tuple[str, ...] = (), path: Path | None = None
    ) -> ServiceKey:
        public = private.public_key().public_bytes_raw().hex()
        return cls(private, public, tuple(k for k in retired if k != public), path)

    def sign(self, message: bytes) -> str:
        """The signature over ``message``, 128 hex digits (deterministic: the same message
        always gets the same signature from the same key)."""
        return self.private.sign(message).hex()

    def listed(self) -> list[dict[str, Any]]:
        """Every public key a receipt of this Floe may be signed with, the current first."""
        return [
            {"public_key": self.public_key, "current": True},
            *({"public_key": key, "current": False} for key in self.retired),
        ]


def in_memory() -> ServiceKey:
    """A fresh key nobody else holds, never written anywhere."""
    return ServiceKey.of(Ed25519PrivateKey.generate())


def default_file(data_dir: Path) -> Path:
    """Where ``floe run`` with this data directory keeps its key."""
    return data_dir / KEY_FOLDER / KEY_FILE


def retired_file(key_file: Path) -> Path:
    return key_file.with_name(RETIRED_FILE)


def for_file(path: Path | None) -> ServiceKey:
    """The key in ``path`` (made there if there is none yet), or one in memory for None."""
    return in_memory() if path is None else load(path)


def load(path: Path) -> ServiceKey:
    """The key in ``path``, made first if the file does not exist; ``ServiceKeyError`` when
    it cannot be read, made or used."""
    try:
        private = _read_key(path)
    except FileNotFoundError:
        private = _create(path)
    return ServiceKey.of(private, _read_retired(retired_file(path)), path)


def rotate(path: Path, *, at: str) -> tuple[str, str]:
    """Replace the key in ``path`` by a new one and list the old one's public key as retired
    (at ``at``, a service-clock time); the old and new public keys. Rotations of one folder
    take turns; processes running on the old key sign with it until restarted."""
    if not path.exists():
        raise ServiceKeyError(f"no service key at {path} to rotate (a first start makes one)")
    try:
        with _rotation_lock(path.parent):
            old = load(path)
            fresh = Ed25519PrivateKey.generate()
            entries = [{"public_key": old.public_key, "retired_at": at}]
            entries += _retired_entries(retired_file(path))
            listed = json.dumps({"retired": entries}, indent=2) + "\n"
            _write_atomically(retired_file(path), listed)  # listed before it stops signing
            _write_atomically(path, fresh.private_bytes_raw().hex() + "\n")
    except OSError as error:
        raise ServiceKeyError(f"cannot rotate {path}: {error.strerror or error}") from None
    return old.public_key, ServiceKey.of(fresh).public_key


# ----- the files ------------------------------------------------------------------------------


def _read_key(path: Path) -> Ed25519PrivateKey:
    """The key a file holds (FileNotFoundError passes: the caller makes one)."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise
    except OSError as error:
        raise ServiceKeyError(f"cannot read the service key {path}: {error.strerror}") from None
    text = raw.decode("ascii", errors="replace").strip().lower()
    if _PRIVATE_HEX.fullmatch(text) is None:
        raise ServiceKeyError(
            f"{path} is not a service key: it must hold 64 hex digits (32 secret bytes)"
        )
    return Ed25519PrivateKey.from_private_bytes(bytes.fromhex(text))


def _create(path: Path) -> Ed25519PrivateKey:
    """Make the key file, unless another process makes it first; the key it then holds."""
    folder = path.parent
    fresh = Ed25519PrivateKey.generate().private_bytes_raw().hex() + "\n"
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        temporary = _written(folder, fresh)
        try:
            os.link(temporary, path)
        except FileExistsError:
            pass  # another process made it first: its key is the key
        finally:
            os.unlink(temporary)
        _sync(folder)
    except OSError as error:
        raise ServiceKeyError(f"cannot make the service key {path}: {error.strerror}") from None
    return _read_key(path)


def _written(folder: Path, text: str) -> Path:
    """A new private (0600) file in ``folder`` holding ``text``, on disk."""
    descriptor, name = tempfile.mkstemp(prefix=".floe-key-", dir=folder)
    with os.fdopen(descriptor, "w", encoding="ascii") as out:
        out.write(text)
        out.flush()
        os.fsync(out.fileno())
    return Path(name)


def _write_atomically(path: Path, text: str) -> None:
    """Replace ``path`` by a private file holding ``text``: a reader sees the old or the new."""
    temporary = _written(path.parent, text)
    try:
        os.replace(temporary, path)
    except OSError:
        temporary.unlink(missing_ok=True)
        raise
    _sync(path.parent)


def _sync(folder: Path) -> None:
    """Make a new name in ``folder`` durable."""
    descriptor = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def _retired_entries(path: Path) -> list[dict[str, Any]]:
    """``retired.json``'s entries (none when there is no such file)."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return []
    except (OSError, ValueError) as error:
        raise ServiceKeyError(f"cannot read {path}: {error}") from None
    entries = document.get("retired") if isinstance(document, dict) else None
    if not isinstance(entries, list) or not all(
        isinstance(entry, dict) and is_public_key(entry.get("public_key")) for entry in entries
    ):
        raise ServiceKeyError(
            f'{path} is not a list of retired keys: {{"retired": [{{"public_key": <64 hex>, '
            '"retired_at": ...}, ...]}'
        )
    return entries


def _read_retired(path: Path) -> tuple[str, ...]:
    return tuple(dict.fromkeys(str(entry["public_key"]) for entry in _retired_entries(path)))


@contextlib.contextmanager
def _rotation_lock(folder: Path) -> Iterator[None]:
    with (folder / ".rotate.lock").open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield
