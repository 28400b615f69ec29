"""The manual's links hold: README.md, BENCHMARKS.md and every page under docs/.

- Every relative Markdown link (``[text](path)``, ``![alt](path)``) names a file or folder
  that exists, from the page's own folder; a ``#fragment`` must be a heading of the page it
  points into (GitHub's anchors). Links to other sites are not followed.
- Every ``tests/<...>.py`` a page names exists, and every ``tests/<...>.py::name`` names a
  function of that file (a parametrized id, ``::test_x[case]``, names ``test_x``; a class
  path, ``::TestX::test_y``, names ``test_y``).

When a test moves or is renamed, this fails at the pages that still name the old place:
find where it went (``git grep -n 'def test_name'``) and update the page.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted(
    [
        ROOT / "README.md",
        ROOT / "BENCHMARKS.md",
        *(page for page in (ROOT / "docs").rglob("*.md") if not page.is_symlink()),
    ],
    key=lambda path: path.relative_to(ROOT).as_posix(),
)
FENCE = re.compile(r"^(```|~~~).*?^\1[ \t]*$", re.MULTILINE | re.DOTALL)
INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1", re.DOTALL)
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
TEST_REFERENCE = re.compile(r"\b(tests/[\w./-]+?\.py)(?:::([\w:]+)(?:\[[^\]]*\])?)?")


def show(path: Path) -> str:
    return path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path)


def prose(text: str) -> str:
    """The page without its code blocks and code spans, where brackets are not links."""
    return INLINE_CODE.sub("", FENCE.sub("", text))


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link: its text
    text = text.strip().lower().replace("`", "")
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


@cache
def anchors(path: Path) -> frozenset[str]:
    """Every heading anchor of a Markdown page (repeats get -1, -2, as on GitHub)."""
    seen: dict[str, int] = {}
    found = set()
    for line in FENCE.sub("", path.read_text(encoding="utf-8")).splitlines():
        heading = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not heading:
            continue
        base = slug(heading.group(1))
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return frozenset(found)


@cache
def functions(path: Path) -> frozenset[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    return frozenset(
        node.name
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    )


def broken_links(page: Path, root: Path = ROOT) -> list[str]:
    problems = []
    for target in LINK.findall(prose(page.read_text(encoding="utf-8"))):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto:: not ours to check
            continue
        path_part, _, fragment = target.partition("#")
        where = (page.parent / path_part).resolve() if path_part else page
        if not where.exists():
            problems.append(f"{show(page)} links to {target}: no such file")
        elif not where.is_relative_to(root):
            problems.append(f"{show(page)} links to {target}, outside the repository")
        elif fragment and where.suffix == ".md" and fragment not in anchors(where):
            problems.append(f"{show(page)} links to {target}: no such heading in {show(where)}")
    return problems


def broken_test_references(page: Path, root: Path = ROOT) -> list[str]:
    problems = []
    for file, name in TEST_REFERENCE.findall(page.read_text(encoding="utf-8")):
        path = root / file
        if not path.is_file():
            problems.append(f"{show(page)} names {file}, which does not exist")
        elif name and name.split("::")[-1] not in functions(path):
            function = name.split("::")[-1]
            problems.append(
                f"{show(page)} names {file}::{name}, but {file} has no {function} "
                f"(moved? git grep -n 'def {function}')"
            )
    return problems


def test_there_are_pages_to_check() -> None:
    assert ROOT / "README.md" in PAGES and len(PAGES) > 10


@pytest.mark.parametrize("page", PAGES, ids=show)
def test_every_relative_link_resolves(page: Path) -> None:
    assert broken_links(page) == []


@pytest.mark.parametrize("page", PAGES, ids=show)
def test_every_test_a_page_names_exists(page: Path) -> None:
    assert broken_test_references(page) == []


def test_the_checks_see_what_they_are_for(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    (tmp_path / "outside.md").write_text("# Outside\n", encoding="utf-8")
    fake = root / "page.md"
    fake.write_text(
        "[gone](no-such-page.md), [ok](page.md), [bad anchor](page.md#nowhere), "
        "`[in code](no-such-page.md)`, [far](../outside.md)\n\n# A `Title`, here\n"
        "[anchor](#a-title-here) `tests/unit/test_docs_links.py::test_no_such_test` "
        "`tests/unit/test_docs_links.py::test_every_relative_link_resolves[README.md]` "
        "`tests/unit/no_such_file.py`\n",
        encoding="utf-8",
    )
    links = broken_links(fake, root=root)
    assert len(links) == 3, links
    assert "no-such-page.md: no such file" in links[0] and "#nowhere" in links[1]
    assert "outside the repository" in links[2]
    references = broken_test_references(fake)
    assert len(references) == 2, references
    assert "test_no_such_test" in references[0] and "no_such_file.py" in references[1]
    assert anchors(fake) == {"a-title-here"}
