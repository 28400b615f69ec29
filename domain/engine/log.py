"""The stored event and its hash chain (docs/reference/format.md): one line of an export file.

Pure so that the service seals events with it and replay checks them with it, without Redis.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from json.encoder import encode_basestring
from typing import Any, Protocol

from domain.engine.canonical import canonical_json
from domain.engine.types import JSON, Actor, Event

GENESIS_HASH = "0" * 64


@dataclass(frozen=True, slots=True, init=False)
class StoredEvent:
    """An event with its place in the log: version, time, command and hash chain."""

    game_id: str
    version: int
    type: str
    data: Mapping[str, Any]
    actor: Actor
    at: str
    command_id: str | None
    prev_hash: str
    hash: str
    #: The canonical JSON of the whole event (``line``) when ``seal`` made it: the encoding
    #: it hashed, with the hash spliced in. Derived from the fields, so neither compared nor
    #: shown, and never passed in: an event made any other way (read back, replaced) has none.
    _line: str | None = field(default=None, init=False, repr=False, compare=False)

    def __init__(
        self,
        game_id: str,
        version: int,
        type: str,
        data: Mapping[str, Any],
        actor: Actor,
        at: str,
        command_id: str | None,
        prev_hash: str,
        hash: str,
    ) -> None:
        # What the dataclass would write, through the slots' own setters: its ``__init__``
        # goes through ``object.__setattr__`` (it is frozen), nearly twice as slow, and a
        # read of a stream makes one of every entry (``types.Event`` does the same).
        _set_game_id(self, game_id)
        _set_version(self, version)
        _set_type(self, type)
        _set_data(self, data)
        _set_actor(self, actor)
        _set_at(self, at)
        _set_command_id(self, command_id)
        _set_prev_hash(self, prev_hash)
        _set_hash(self, hash)
        _set_line(self, None)

    @property
    def event(self) -> Event:
        return Event(self.type, self.actor, self.data)

    def line(self) -> str:
        """The canonical JSON of the stored event, ``hash`` too: what the store and an export
        write. Sealing encoded it already; any other event is encoded now."""
        line = self._line
        return canonical_json(self.to_json()) if line is None else line

    def to_json(self) -> JSON:
        return {
            "game_id": self.game_id,
            "version": self.version,
            "type": self.type,
            "data": self.data,
            "actor": self.actor,
            "at": self.at,
            "command_id": self.command_id,
            "prev_hash": self.prev_hash,
            "hash": self.hash,
        }

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> StoredEvent:
        # Positional, in field order: every read of a stream decodes each entry through here.
        return cls(
            obj["game_id"],
            obj["version"],
            obj["type"],
            obj["data"],
            obj["actor"],
            obj["at"],
            obj["command_id"],
            obj["prev_hash"],
            obj["hash"],
        )


# Each field's slot setter, in field order (``slots=True`` makes a new class: its slots are
# only there once it is made).
(
    _set_game_id,
    _set_version,
    _set_type,
    _set_data,
    _set_actor,
    _set_at,
    _set_command_id,
    _set_prev_hash,
    _set_hash,
) = (StoredEvent.__dict__[name].__set__ for name in StoredEvent.__match_args__)
_set_line = StoredEvent.__dict__["_line"].__set__


def event_of(stored: Mapping[str, Any]) -> Event:
    """The domain's event inside a stored event's JSON (its envelope dropped), for folding
    export lines without building a whole ``StoredEvent``."""
    return Event(stored["type"], stored["actor"], stored["data"])


def event_hash(event_without_hash: Mapping[str, Any]) -> str:
    """SHA-256 of ``prev_hash`` then the canonical JSON of the event without ``hash``."""
    body = {k: v for k, v in event_without_hash.items() if k != "hash"}
    return _chain_hash(str(body["prev_hash"]), canonical_json(body))


def _chain_hash(prev_hash: str, body_json: str) -> str:
    """SHA-256 of ``prev_hash`` then ``body_json``, the canonical JSON of an event without
    ``hash``."""
    return hashlib.sha256(prev_hash.encode("ascii") + body_json.encode("utf-8")).hexdigest()


def seal(
    game_id: str,
    events: list[Event],
    *,
    first_version: int,
    prev_hash: str,
    at: str,
    command_id: str | None,
) -> list[StoredEvent]:
    """Number and chain new events after a log whose head is ``prev_hash``.

    System events carry no ``command_id``: only the action that a command caused does.

    Each event is encoded once: the canonical JSON that is hashed becomes its ``line`` (the
    store writes it) with ``"hash"`` spliced in where its sorted keys put it, just before the
    last three: ``prev_hash``, ``type`` and ``version``. That tail is written here from the
    values themselves, and checked, so nothing inside ``data`` is ever searched.
    """
    sealed: list[StoredEvent] = []
    for offset, event in enumerate(events):
        version = first_version + offset
        data = dict(event.data)
        command = None if event.actor == "system" else command_id
        body: JSON = {
            "game_id": game_id,
            "version": version,
            "type": event.type,
            "data": data,
            "actor": event.actor,
            "at": at,
            "command_id": command,
            "prev_hash": prev_hash,
        }
        body_json = canonical_json(body)
        digest = _chain_hash(prev_hash, body_json)
        stored = StoredEvent(
            game_id, version, event.type, data, event.actor, at, command, prev_hash, digest
        )
        tail = _tail(prev_hash, event.type, version)
        if body_json.endswith(tail):  # always, for the types given: a guard, not a search
            cut = len(body_json) - len(tail)
            _set_line(stored, f'{body_json[:cut]}"hash":"{digest}",{tail}')
        sealed.append(stored)
        prev_hash = digest
    return sealed


def _tail(prev_hash: str, type: str, version: int) -> str:
    """How an event's canonical JSON ends: its last three keys in sorted order, encoded as
    ``canonical_json`` encodes them (``encode_basestring`` is its string encoder when
    non-ASCII is kept)."""
    return (
        f'"prev_hash":{encode_basestring(prev_hash)},"type":{encode_basestring(type)},'
        f'"version":{version!r}}}'
    )


class EventReader(Protocol):
    """Anything that hands out a game's stored events in version order: the service's event
    store, or an export file. Replay reads through it, so it never needs the service."""

    def read(self, game_id: str, *, after: int = 0, upto: int | None = None) -> list[StoredEvent]:
        """Stored events with ``after < version <= upto`` (to the end when ``upto`` is None)."""
        ...
