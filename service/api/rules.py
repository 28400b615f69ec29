"""A game's rules as a web page (``GET /rules/<game>``): its rules document, in HTML.

Where the document lives: each game's rules are written once, in ``docs/reference/rules/``,
where the rest of the documentation links to them. A game's package holds ``rules.md``, a
symbolic link to that file, listed as package data (``pyproject.toml``); building a wheel
copies the file the link names, so an installed Floe has the document inside the game's
package and this page reads it through ``importlib.resources`` exactly as it reads a game's
``contract.json``. One source, no copy to keep in step, and nothing here names a game: the
games are those of the registry, and a game's package is the one its rules class lives in (a
plugin game that ships a ``rules.md`` beside its rules gets a page too; one without, a 404).

Rendering: ``markdown-it-py`` (CommonMark, maintained), with raw HTML off (a ``<`` in the
document is shown, never run), headings given GitHub's ids so the document's own ``#links``
still land, and links to other files of the repository (``../format.md``) kept as their text,
since this server does not serve those files.
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable

from markdown_it import MarkdownIt
from markdown_it.token import Token

from domain.games import GAMES

RULES_FILE = "rules.md"

#: CommonMark plus tables; raw HTML is escaped, links are checked (no ``javascript:``).
_MARKDOWN = MarkdownIt("js-default", {"html": False, "linkify": False, "typographer": False})


def rules_titles() -> dict[str, str]:
    """Every hosted game with a rules document: its wire name -> its title, by title."""
    titled = {name: game.info.title for name, game in GAMES.items() if _file(name) is not None}
    return dict(sorted(titled.items(), key=lambda item: item[1]))


def _file(name: str) -> Traversable | None:
    """Game ``name``'s rules document, found without reading it, or None."""
    game = GAMES.get(name)
    if game is None:
        return None
    package = type(game.rules).__module__.rpartition(".")[0]
    try:
        found = resources.files(package).joinpath(RULES_FILE)
        return found if found.is_file() else None
    except (ModuleNotFoundError, OSError):
        return None


def document(name: str) -> str | None:
    """The Markdown of game ``name``'s rules, or None (no such game, or it has none)."""
    found = _file(name)
    try:
        return None if found is None else found.read_text(encoding="utf-8")
    except OSError:
        return None


@cache
def rules_html(name: str) -> str | None:
    """Game ``name``'s rules as HTML (kept: the document changes only with a new Floe)."""
    text = document(name)
    return None if text is None else render(text)


def render(text: str) -> str:
    """Markdown as HTML (module docstring): raw HTML escaped, headings with ids, links to
    the repository's other files as text."""
    tokens = _MARKDOWN.parse(text)
    for at, token in enumerate(tokens):
        if token.type == "heading_open":
            token.attrSet("id", slug(tokens[at + 1].content))
        if token.type == "inline" and token.children:
            _unlink_files(token.children)
    return str(_MARKDOWN.renderer.render(tokens, _MARKDOWN.options, {}))


def slug(heading: str) -> str:
    """A heading's id as GitHub makes it: lower case, punctuation dropped, spaces as ``-``."""
    kept = re.sub(r"[^\w\- ]", "", heading.lower())
    return kept.replace(" ", "-")


def _unlink_files(children: list[Token]) -> None:
    """A link to another file of the repository is shown as its text: only links within the
    page (``#...``) and to the web (``https://...``) stay links."""
    opened: list[bool] = []
    for token in children:
        if token.type == "link_open":
            href = str(token.attrGet("href") or "")
            keep = href.startswith(("#", "https://", "http://"))
            opened.append(keep)
            if not keep:
                _as_text(token)
        elif token.type == "link_close" and opened and not opened.pop():
            _as_text(token)


def _as_text(token: Token) -> None:
    token.tag = "span"
    token.attrs = {}
