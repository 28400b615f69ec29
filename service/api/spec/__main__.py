"""``python -m service.api.spec [--check]`` (``make spec``): write ``openapi.yaml`` from its
sources into the package (what the service serves) and into the repository's root (the
committed artifact); ``--check`` writes nothing and exits 1 when either is stale."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from domain.games import GAMES
from service.api.spec import SPEC_FILE
from service.api.spec.build import HERE, build, dump

#: Where the document is written: the package's copy, and the repository's.
TARGETS = (HERE / SPEC_FILE, HERE.parents[2] / SPEC_FILE)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m service.api.spec", description=__doc__)
    parser.add_argument("--check", action="store_true", help="only say whether it is stale")
    args = parser.parse_args(argv)
    text = dump(build(GAMES))
    stale = [t for t in TARGETS if not t.is_file() or t.read_text(encoding="utf-8") != text]
    if args.check:
        for target in stale:
            print(f"{target} is stale: run `make spec`", file=sys.stderr)
        return 1 if stale else 0
    for target in stale:
        target.write_text(text, encoding="utf-8")
        print(f"wrote {Path(target)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
