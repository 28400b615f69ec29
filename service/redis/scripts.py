"""Lua scripts as ``.lua`` files beside the code that runs them, their KEYS and ARGV named.

Every write that must be atomic in Redis is one script. Each lives in a file of its own in the
package that runs it, and its first lines name what it takes, in order::

    -- KEYS: events meta commands
    -- ARGV: expected_version expected_head new_head command_key command_record status events...

A name ending in ``...`` takes the rest: a list, spread into the remaining places (only the
last name may). ``Script.load(__package__, "append.lua")`` reads the file (package data, so an
installed Floe finds it too) and ``script.on(client)`` binds it; the bound script is called
with one keyword per name, so no caller counts positions::

    append(events=..., meta=..., commands=..., expected_version=3, ..., events=[...])

The names in the header are the script's whole interface: a call that misses one, or names
one the script does not take, is a ``TypeError`` before anything reaches Redis.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

import redis
from redis.commands.core import Script as RegisteredScript

_HEADER = re.compile(r"^--\s*(KEYS|ARGV):(.*)$")
_NAME = re.compile(r"^[a-z_][a-z0-9_]*(\.\.\.)?$")


@dataclass(frozen=True, slots=True)
class Script:
    """A Lua script and the names of its KEYS and ARGV (``...``: the rest, a list)."""

    name: str
    keys: tuple[str, ...]
    args: tuple[str, ...]
    source: str

    @classmethod
    def load(cls, package: str | None, filename: str) -> Script:
        """Read ``filename`` from ``package`` (a module's ``__package__``)."""
        if package is None:
            raise ValueError("Script.load needs the package the script lives in")
        source = resources.files(package).joinpath(filename).read_text(encoding="utf-8")
        return cls.parse(f"{package}/{filename}", source)

    @classmethod
    def parse(cls, name: str, source: str) -> Script:
        """A script from its text; its header must name its KEYS and ARGV (either empty)."""
        named: dict[str, tuple[str, ...]] = {}
        for line in source.splitlines():
            found = _HEADER.match(line.strip())
            if found is None:
                if line.strip() and not line.strip().startswith("--"):
                    break  # the header is the comments before the first statement
                continue
            names = tuple(found.group(2).split())
            bad = [n for n in names if not _NAME.match(n)]
            spread = [n for n in names[:-1] if n.endswith("...")]
            if bad or spread:
                raise ValueError(f"{name}: bad {found.group(1)} names {bad or spread}")
            named[found.group(1)] = names
        if set(named) != {"KEYS", "ARGV"}:
            raise ValueError(f"{name}: the header must name its KEYS and ARGV")
        every = [n.removesuffix("...") for n in (*named["KEYS"], *named["ARGV"])]
        if len(set(every)) != len(every):
            raise ValueError(f"{name}: a name is given twice in {every}")
        return cls(name, named["KEYS"], named["ARGV"], source)

    def on(self, client: redis.Redis) -> BoundScript:
        """This script bound to ``client`` (registered: sent by its SHA-1 after the first run)."""
        return BoundScript(self, client.register_script(self.source))

    def positions(self, values: Mapping[str, Any]) -> tuple[list[Any], list[Any]]:
        """``values`` by name as the KEYS and ARGV lists Redis takes."""
        wanted = {n.removesuffix("...") for n in (*self.keys, *self.args)}
        if set(values) != wanted:
            missing, extra = sorted(wanted - set(values)), sorted(set(values) - wanted)
            raise TypeError(f"{self.name}: missing {missing}, unknown {extra}")
        return _place(self.keys, values), _place(self.args, values)


def _place(names: Sequence[str], values: Mapping[str, Any]) -> list[Any]:
    placed: list[Any] = []
    for name in names:
        if name.endswith("..."):
            placed.extend(values[name.removesuffix("...")])
        else:
            placed.append(values[name])
    return placed


@dataclass(frozen=True, slots=True)
class BoundScript:
    """A script registered on a client: call it with its KEYS and ARGV by name."""

    script: Script
    registered: RegisteredScript

    def __call__(self, *, client: Any = None, **values: Any) -> Any:
        """Run it (``client``: a pipeline or another connection to run it on)."""
        keys, args = self.script.positions(values)
        return self.registered(keys=keys, args=args, client=client)

    def first_key(self, **values: Any) -> str:
        """The key Redis routes the call by (a Redis Cluster sends it to that key's slot)."""
        keys, _ = self.script.positions(values)
        return str(keys[0])
