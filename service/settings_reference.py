"""docs/reference/configuration.md, written from the declarations in ``service/settings.py``.

    python -m service.settings_reference docs/reference/configuration.md   # what `make docs` runs
    python -m service.settings_reference                                   # the page on stdout

Every variable ``Settings.from_env`` reads is a field declared with ``setting``: its name,
default, shape and meaning come from there and nowhere else, so the page cannot drift from
the code. ``tests/unit/test_configuration_reference.py`` fails when the committed page is
not what this writes.
"""

from __future__ import annotations

import sys
from pathlib import Path

from service.settings import PARTS, Settings, declared_settings

#: Where the page lives, from the repository root, and the command that rewrites it.
PAGE = Path("docs/reference/configuration.md")
COMMAND = "make docs"

INTRO = """\
# Configuration

<!-- Written by `{command}` (python -m service.settings_reference) from the declarations in
service/settings.py. Edit those, then run `{command}`: tests/unit/test_configuration_reference.py
fails while this page and the code disagree. -->

Every Floe process (`floe run` and what it starts, `floe worker`, the API under gunicorn,
`floe replay` with a store) reads these environment variables once, at start-up, in
`service/settings.py`, and nothing else reads the environment for configuration. An empty
variable counts as unset. A value that does not parse, or is out of range, stops the process
with a message naming the variable. `floe run` hands its environment to every part it starts,
so one setting reaches them all; give processes started by hand the same values.

What each limit protects, and what raising it costs, is in
[Limits](../operations/limits.md); what the stores promise, in
[Durability](../operations/durability.md).
"""

OUTRO = """\
## Not variables

- The largest request body is {body} KiB (413 `body_too_large` beyond it): fixed in code
  (`Settings.max_body_bytes`), because no request needs more.
- `floe run` binds the API to `{host}`; `floe run --host` changes it, and its `--port` and
  `--data-dir` win over `PORT` and `FLOE_DATA_DIR`.
- The benchmarks and the test suite set variables of their own for the processes they start
  (`python -m bench --help` lists the benchmarks').
"""


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def markdown() -> str:
    """The whole page."""
    defaults = Settings()
    lines = [INTRO.format(command=COMMAND)]
    declared = list(declared_settings())
    for part in PARTS:
        rows = [(setting, default) for _, setting, default in declared if setting.part == part]
        if not rows:
            continue
        lines += [f"## {part}", "", "| variable | takes | default | meaning |", "|---|---|---|---|"]
        lines += [
            f"| `{setting.env}` | {_cell(setting.kind.shape)} | "
            f"{_cell(setting.kind.show(default))} | {_cell(setting.meaning)} |"
            for setting, default in rows
        ]
        lines.append("")
    lines.append(OUTRO.format(body=defaults.max_body_bytes // 1024, host=defaults.host))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Write the page to the path given, or to stdout."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) > 1 or (args and args[0].startswith("-")):
        print(f"usage: python -m service.settings_reference [{PAGE}]", file=sys.stderr)
        return 2
    text = markdown()
    if args:
        Path(args[0]).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
