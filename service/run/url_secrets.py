"""Passwords out of every URL a process prints: its own store URLs, and any text that may
echo one (a refused setting, an archive that will not open).

A URL urllib can read keeps its every part but the password (``redis://u:***@h:6379/0``).
One it cannot read (``redis//u:pw@h``, a port that is no number) is exactly the kind a
refusal echoes, so it is masked by its shape instead: in anything that looks like
``[scheme://]user:password@host``, all between the first ``:`` of the userinfo and its last
``@`` becomes ``***``. That may hide more than the password of a very odd text, never less.
"""

from __future__ import annotations

import re
import urllib.parse

MASK = "***"
#: A run of text that may hold a URL: no blanks. A quote may be part of a password, so it
#: is kept in the word; only quotes around it (``'...'`` as ``repr`` puts it) are set aside.
_WORD = re.compile(r"\S+")
_QUOTES = "'\""
#: Where one URL of a comma-separated list starts (a cluster's ``REDIS_URL``).
_NEXT_URL = re.compile(r",(?=[A-Za-z][A-Za-z0-9+.-]*:/?/)")


def without_secrets(text: str) -> str:
    """``text`` (a URL, several comma-separated, or a message quoting any) with every
    password replaced by ``***``: what any log or error line may show of a URL."""
    return _WORD.sub(lambda word: _mask_word(word.group()), text)


def _mask_word(word: str) -> str:
    if "@" not in word:
        return word
    inner = word.lstrip(_QUOTES)
    before = word[: len(word) - len(inner)]
    core = inner.rstrip(_QUOTES + ",.;:)")
    after = inner[len(core) :]
    return before + ",".join(_mask_url(url) for url in _NEXT_URL.split(core)) + after


def _mask_url(url: str) -> str:
    try:
        return _parsed_without_password(url)
    except ValueError:  # no URL urllib can read: by its shape
        return _shape_without_password(url)


def _parsed_without_password(url: str) -> str:
    """``url`` with its password masked; ValueError when urllib cannot tell its parts."""
    parts = urllib.parse.urlsplit(url)
    if parts.password is None:  # yet an @: a user alone, or no URL (``a//u:p@h``, ``u:p/w@h``)
        raise ValueError("no password urllib can see")
    user = parts.username or ""
    host = parts.hostname or ""
    if ":" in host:  # an IPv6 address keeps its brackets
        host = f"[{host}]"
    port = parts.port  # ValueError when it is no number
    netloc = f"{user}:{MASK}@{host}" + (f":{port}" if port is not None else "")
    return urllib.parse.urlunsplit(parts._replace(netloc=netloc))


def _shape_without_password(text: str) -> str:
    """Everything between the userinfo's first ``:`` (past any ``//``) and the last ``@``
    masked; ``text`` as it is when it has no ``:`` there (a user, no password)."""
    at = text.rfind("@")
    if at < 0:
        return text
    slashes = text.find("//", 0, at)
    start = 0 if slashes < 0 else slashes + 2
    colon = text.find(":", start, at)
    if colon < 0:
        return text
    return f"{text[: colon + 1]}{MASK}{text[at:]}"
