"""Schema refusals in sentences: what a 400 ``invalid_body`` or ``invalid_query`` says.

Marshmallow reports a refused body as nested messages keyed by field path
(``{"seats": {0: {"name": ["Length must be between 1 and 64."]}}}``). People read the
``message`` of a refusal (the web pages show it as it comes), so it is written as
sentences: the path in words, list positions counted from 1 as people count them, and
marshmallow's phrases turned into the rule they state ("Seat 1's name must be 1 to 64
characters long."). Programs branch on the ``code``, which never depends on any of this.

The schema is walked beside the messages only to tell a string's length from a list's;
a phrase this module does not know is passed on after the field's name, never dropped.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from marshmallow import Schema, fields

#: The key marshmallow files a whole object's refusals under.
WHOLE = "_schema"

Path = tuple[str | int, ...]


def describe(messages: Any, schema: Schema | None = None, *, query: bool = False) -> str:
    """Marshmallow's ``error.messages`` as sentences, one per refusal, in marshmallow's
    order. ``query``: the fields are query parameters, so they are named as such."""
    sentences = [
        _sentence(path, message, _field_at(schema, path), query)
        for path, message in _flatten(messages, ())
    ]
    return " ".join(sentences)


def _flatten(messages: Any, path: Path) -> list[tuple[Path, str]]:
    if isinstance(messages, Mapping):
        found: list[tuple[Path, str]] = []
        for key, value in messages.items():
            found += _flatten(value, path if key == WHOLE else (*path, key))
        return found
    if isinstance(messages, list | tuple):
        return [item for message in messages for item in _flatten(message, path)]
    return [(path, str(messages))]


def _field_at(schema: Schema | None, path: Path) -> fields.Field[Any] | None:
    """The field of ``schema`` at ``path`` (list positions step into the list's items)."""
    field: Any = schema
    for key in path:
        if isinstance(field, fields.List):
            field = field.inner
        if isinstance(field, fields.Nested):
            field = field.schema
        if isinstance(key, int) and isinstance(field, fields.List):
            continue
        if not isinstance(field, Schema) or not isinstance(key, str):
            return None
        field = field.fields.get(key)
    if isinstance(field, fields.Field):
        return field
    return None


# ----- the path in words ------------------------------------------------------------------------


def subject(path: Path, *, query: bool = False) -> str:
    """``("seats", 0, "name")`` -> ``Seat 1's name``; ``("round_start",)`` -> ``The round
    start``; a query parameter keeps its own spelling (``The query parameter 'limit'``)."""
    if not path:
        return "The request"
    if query and len(path) == 1:
        return f"The query parameter {path[0]!r}"
    words: list[str] = []
    for at, key in enumerate(path):
        if isinstance(key, int):
            words[-1:] = [f"{_one_of(path[at - 1])} {key + 1}"] if at else [f"Entry {key + 1}"]
        else:
            words.append(_spoken(key))
    phrase = "'s ".join(words)
    if not any(isinstance(key, int) for key in path):
        phrase = f"the {phrase}"
    return phrase[0].upper() + phrase[1:]


def _spoken(name: str) -> str:
    return name.replace("_", " ")


def _one_of(name: str | int) -> str:
    """One item of the list ``name``: ``players`` -> ``Player``, ``tiebreaks`` -> ``Tiebreak``."""
    spoken = _spoken(str(name))
    one = spoken[:-1] if spoken.endswith("s") else f"{spoken} entry"
    return one[0].upper() + one[1:]


# ----- marshmallow's phrases as rules -----------------------------------------------------------

#: A phrase of marshmallow's (a regular expression over the whole message) -> what the
#: field must be, given the match and whether the field is a list.
Rule = Callable[[re.Match[str], bool], str]


def _length(low: str | None, high: str | None, is_list: bool) -> str:
    unit = "entries" if is_list else "characters long"
    verb = "must have" if is_list else "must be"
    if low is not None and high is not None:
        span = f"exactly {low}" if low == high else f"{low} to {high}"
    elif low is not None:
        span = f"at least {low}"
    else:
        span = f"at most {high}"
    return f"{verb} {span} {unit}"


RULES: list[tuple[re.Pattern[str], Rule]] = [
    (re.compile(r"Field may not be null\."), lambda m, _: "may not be null"),
    (re.compile(r"Not a valid (utf-8 )?string\."), lambda m, _: "must be text (a JSON string)"),
    (re.compile(r"Not a valid integer\."), lambda m, _: "must be a whole number"),
    (re.compile(r"Not a valid number\."), lambda m, _: "must be a number"),
    (re.compile(r"Not a valid boolean\."), lambda m, _: "must be true or false"),
    (re.compile(r"Not a valid list\."), lambda m, _: "must be a list"),
    (re.compile(r"Not a valid mapping type\."), lambda m, _: "must be an object"),
    (re.compile(r"Invalid input type\."), lambda m, _: "must be an object"),
    (re.compile(r"Number too large\."), lambda m, _: "is too large a number"),
    (
        re.compile(r"Length must be between (\d+) and (\d+)\."),
        lambda m, is_list: _length(m[1], m[2], is_list),
    ),
    (re.compile(r"Length must be (\d+)\."), lambda m, is_list: _length(m[1], m[1], is_list)),
    (
        re.compile(r"Shorter than minimum length (\d+)\."),
        lambda m, is_list: _length(m[1], None, is_list),
    ),
    (
        re.compile(r"Longer than maximum length (\d+)\."),
        lambda m, is_list: _length(None, m[1], is_list),
    ),
    (
        re.compile(r"Must be greater than or equal to (\S+) and less than or equal to (\S+)\."),
        lambda m, _: f"must be {m[1]} to {m[2]}",
    ),
    (
        re.compile(r"Must be greater than or equal to (\S+)\."),
        lambda m, _: f"must be {m[1]} or more",
    ),
    (re.compile(r"Must be less than or equal to (\S+)\."), lambda m, _: f"must be {m[1]} or less"),
    (re.compile(r"Must be greater than (\S+)\."), lambda m, _: f"must be more than {m[1]}"),
    (re.compile(r"Must be less than (\S+)\."), lambda m, _: f"must be less than {m[1]}"),
    (re.compile(r"Must be one of: (.*)\."), lambda m, _: f"must be one of: {m[1]}"),
    (
        re.compile(r"String does not match expected pattern\."),
        lambda m, _: "is not in the form this field takes",
    ),
]


def _sentence(path: Path, message: str, field: fields.Field[Any] | None, query: bool) -> str:
    name = path[-1] if path else None
    if message == "Unknown field.":
        where = f" (in {_lower(subject(path[:-1]))})" if len(path) > 1 else ""
        kind = "parameter" if query else "field"
        return f"{name!r}{where} is not a {kind} this request takes."
    if message == "Missing data for required field.":
        whose = subject(path[:-1], query=query) if len(path) > 1 else "The request"
        missing = f"the query parameter {name!r}" if query else _spoken(str(name))
        return f"{whose} has no {missing}."
    who = subject(path, query=query)
    is_list = isinstance(field, fields.List)
    for pattern, rule in RULES:
        match = pattern.fullmatch(message)
        if match is not None:
            return f"{who} {rule(match, is_list)}."
    top = len(path) == 1 and not query
    return _full_stop(_own_words(who, name, message, top))


#: A schema's own message that opens with what it speaks of: ``a name may not ...``, ``a
#: tournament id is ...``, ``the action needs ...``.
ARTICLE_LEAD = re.compile(r"(?:an?|the) (?:[\w-]+ ){0,2}?[\w-]+ (is|must|may|needs) ")


def _own_words(who: str, name: str | int | None, message: str, top: bool) -> str:
    """A message the schemas wrote themselves. One that opens by naming the field (``seed
    is ...``, ``a name may not ...``) has the field's words put in its place; any other is
    said after them (or alone, for a whole field of the body: those name what they refuse)."""
    if isinstance(name, str):
        for lead in (name, _spoken(name)):
            if message.startswith(f"{lead} is "):
                return f"{who} must be {message[len(lead) + 4 :]}"
    opening = ARTICLE_LEAD.match(message)
    if opening is not None:
        verb = "must be" if opening[1] == "is" else opening[1]
        return f"{who} {verb} {message[opening.end() :]}"
    if top or who == "The request":
        return message[0].upper() + message[1:]
    return f"{who}: {message}"


def _lower(words: str) -> str:
    return words[0].lower() + words[1:]


def _full_stop(sentence: str) -> str:
    return sentence if sentence.endswith((".", "!", "?")) else f"{sentence}."
