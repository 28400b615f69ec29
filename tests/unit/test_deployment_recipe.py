"""The deployment examples hold up without a container engine: the Containerfile is parsed and
each of its promises checked against this repository, and the proxy's file against what
docs/operations/deployment.md says it does.

No image is built here (the suite runs where no engine is): what could break silently is
checked instead. Every file it copies exists, the lock it installs is the one `make run`
installs, it runs as a user that is not root, it asks `/v1/health`, its environment is one
Floe accepts, and its command is a `floe` command whose flags parse, listening on every
interface with its data in the volume. Nor is nginx run (`make test` does not install it):
its site is read for the directives that make each kind of route work through it, the
live-play socket's upgrade among them.
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

from service.run.supervisor import parse_settings
from service.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "docs" / "operations" / "examples"
CONTAINERFILE = EXAMPLES / "Containerfile"
NGINX = EXAMPLES / "nginx.conf"
GUIDE = ROOT / "docs" / "operations" / "deployment.md"
#: What ``make run`` installs (Makefile ``RUN_LOCK``).
RUN_LOCK = "requirements/run.txt"


@dataclass(frozen=True)
class Instruction:
    keyword: str
    arguments: str

    def exec_form(self) -> list[str] | None:
        """The JSON array form (``["floe", "run"]``), or None for the shell form."""
        text = self.arguments.strip()
        if not text.startswith("["):
            return None
        parsed = json.loads(text)
        assert isinstance(parsed, list) and all(isinstance(part, str) for part in parsed)
        return parsed


@cache
def instructions() -> tuple[Instruction, ...]:
    """The Containerfile's instructions, continuation lines joined, comments dropped."""
    logical: list[str] = []
    pending = ""
    for line in CONTAINERFILE.read_text(encoding="utf-8").splitlines():
        if not pending and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        logical.append(pending + line)
        pending = ""
    assert not pending, "the file ends inside a continued line"
    found = []
    for text in logical:
        keyword, _, arguments = text.strip().partition(" ")
        found.append(Instruction(keyword.upper(), arguments.strip()))
    return tuple(found)


def named(keyword: str) -> list[Instruction]:
    return [each for each in instructions() if each.keyword == keyword]


def environment() -> dict[str, str]:
    """What the image's ``ENV`` lines set (``KEY=VALUE`` pairs)."""
    env: dict[str, str] = {}
    for each in named("ENV"):
        for pair in shlex.split(each.arguments):
            key, equals, value = pair.partition("=")
            assert equals, f"ENV {pair!r}: write KEY=VALUE"
            env[key] = value
    return env


def command() -> list[str]:
    """The command the container runs: its ENTRYPOINT then its CMD, both in exec form."""
    argv: list[str] = []
    for keyword in ("ENTRYPOINT", "CMD"):
        found = named(keyword)
        assert len(found) <= 1, f"more than one {keyword}"
        if found:
            form = found[0].exec_form()
            assert form is not None, f"{keyword} in exec form, so SIGTERM reaches floe"
            argv += form
    return argv


def test_it_starts_from_debians_python() -> None:
    [base] = named("FROM")
    image = base.arguments.split()[0]
    assert re.fullmatch(
        r"(docker\.io/library/)?python:3\.1[1-9][.\d]*-(slim-)?(bookworm|trixie)", image
    )


def test_every_file_it_copies_is_in_the_repository() -> None:
    copies = named("COPY") + named("ADD")
    assert copies
    for each in copies:
        parts = [part for part in shlex.split(each.arguments) if not part.startswith("--")]
        assert not any(part.startswith("--from") for part in shlex.split(each.arguments))
        *sources, _target = parts
        for source in sources:
            assert (ROOT / source).exists(), f"{each.keyword} {source}: not in the repository"


def test_it_installs_the_lock_make_run_installs_and_then_floe() -> None:
    copied = {shlex.split(each.arguments)[0] for each in named("COPY") if each.arguments.split()}
    runs = " ".join(each.arguments for each in named("RUN"))
    installed = re.findall(r"pip install (?:[^&]*?)-r (\S+)", runs)
    assert installed == [RUN_LOCK]
    assert (ROOT / RUN_LOCK).is_file() and RUN_LOCK in copied
    assert re.search(r"pip install --no-deps --no-build-isolation \.", runs), "then Floe itself"
    for package in ("domain", "service", "replay"):
        assert package in copied, f"{package}/ is part of Floe (pyproject.toml)"
    assert "pyproject.toml" in " ".join(each.arguments for each in named("COPY"))


def test_it_runs_as_a_user_who_is_not_root_from_before_its_command() -> None:
    users = named("USER")
    assert users, "no USER: it would run as root"
    assert users[-1].arguments.split(":")[0] not in ("root", "0")
    order = [each.keyword for each in instructions()]
    assert order.index("USER") < order.index("CMD")


def test_its_health_check_asks_the_health_route() -> None:
    [health] = named("HEALTHCHECK")
    assert "/v1/health" in health.arguments
    assert "CMD" in health.arguments.split()


def test_its_environment_is_one_floe_accepts() -> None:
    env = environment()
    settings = Settings.from_env(env)
    assert settings.host == "0.0.0.0"
    assert str(settings.data_dir) in json.loads(named("VOLUME")[0].arguments)
    [exposed] = named("EXPOSE")
    assert exposed.arguments.split("/")[0] == str(settings.port)


def test_its_command_is_floe_run_listening_everywhere_with_its_data_in_the_volume() -> None:
    argv = command()
    assert argv[:2] == ["floe", "run"], argv
    settings = parse_settings(argv[2:], environment())  # its flags parse (argparse exits if not)
    assert settings.host == "0.0.0.0"
    assert str(settings.data_dir) in json.loads(named("VOLUME")[0].arguments)
    assert named("STOPSIGNAL")[0].arguments in ("SIGTERM", "SIGINT"), "floe run stops on both"


@pytest.mark.parametrize(
    "promise",
    [
        r"proxy_set_header X-Forwarded-For \$remote_addr;",
        r"proxy_set_header X-Forwarded-Proto \$scheme;",
        r"proxy_buffering off;",
        r"ssl_certificate ",
        r"ssl_certificate_key ",
        r"listen 443 ssl;",
        r"server 127\.0\.0\.1:8000;",
        r"client_max_body_size \d+m;",
    ],
)
def test_the_nginx_site_does_what_the_guide_says(promise: str) -> None:
    site = "\n".join(line.split("#")[0] for line in NGINX.read_text(encoding="utf-8").splitlines())
    assert re.search(promise, site), f"{NGINX.name} lacks {promise!r}"


def site_text() -> str:
    """The nginx site without its comments."""
    return "\n".join(line.split("#")[0] for line in NGINX.read_text(encoding="utf-8").splitlines())


def locations() -> dict[str, str]:
    """Each ``location`` of the site: its match (``~ ^/v1/...$``) and what its block holds
    (no block nests inside a location here)."""
    return {
        match.strip(): body
        for match, body in re.findall(r"location\s+([^{]+)\{([^{}]*)\}", site_text())
    }


def location_of(path: str) -> str:
    """The block nginx picks for ``path``: the first regular-expression location that
    matches it, else the longest prefix location (as nginx does, ignoring ``^~`` and ``=``,
    which the site does not use)."""
    regexes = [(m, body) for m, body in locations().items() if m.startswith("~")]
    for match, body in regexes:
        if re.search(match.lstrip("~*").strip(), path):
            return body
    prefixes = [(m, body) for m, body in locations().items() if path.startswith(m)]
    assert prefixes, f"no location for {path}"
    return max(prefixes, key=lambda each: len(each[0]))[1]


@pytest.mark.parametrize(
    "promise",
    [
        r"proxy_pass http://floe;",
        r"proxy_http_version 1\.1;",
        r"proxy_set_header Upgrade \$http_upgrade;",
        r'proxy_set_header Connection "upgrade";',
        # A location that sets headers inherits none of the server's: the client's again.
        r"proxy_set_header X-Forwarded-For \$remote_addr;",
        r"proxy_set_header Host \$host;",
    ],
)
def test_the_nginx_site_upgrades_the_live_play_socket(promise: str) -> None:
    socket = location_of("/v1/games/0123abcd/socket")
    assert re.search(promise, socket), f"the socket's location lacks {promise!r}"


def test_the_live_play_sockets_location_outlasts_the_longest_socket() -> None:
    """nginx closes a proxied connection silent for its read timeout (60 s by default): the
    socket's is above ``FLOE_SOCKET_MAX_SECONDS``' default, so Floe's own limit ends it."""
    socket = location_of("/v1/games/0123abcd/socket")
    timeout = re.search(r"proxy_read_timeout (\d+)s;", socket)
    assert timeout is not None, "the socket's location keeps nginx's 60 s read timeout"
    assert int(timeout[1]) > Settings().socket_max_seconds


def test_every_other_route_keeps_its_location() -> None:
    """The socket's location takes the socket alone: the streams keep theirs, unbuffered,
    and every other request the keep-alive ``Connection ""`` of the server block."""
    stream = location_of("/v1/games/0123abcd/events/stream")
    assert "proxy_buffering off;" in stream and "Upgrade" not in stream
    assert "Upgrade" not in location_of("/v1/games/0123abcd")
    assert "Upgrade" not in location_of("/v1/games/0123abcd/socket/x")
    server = site_text().split("location", 1)[0]
    assert re.search(r'proxy_set_header Connection "";', server)


def test_the_nginx_site_is_balanced() -> None:
    site = "".join(line.split("#")[0] for line in NGINX.read_text(encoding="utf-8").splitlines())
    depth = 0
    for character in site:
        depth += {"{": 1, "}": -1}.get(character, 0)
        assert depth >= 0
    assert depth == 0


def test_the_guide_names_its_examples_and_what_they_need() -> None:
    guide = GUIDE.read_text(encoding="utf-8")
    for needed in (
        "(examples/Containerfile)",
        "(examples/nginx.conf)",
        "FLOE_TRUSTED_PROXIES",
        "FLOE_HOST",
        "X-Forwarded-For",
        "proxy_buffering off",
        "FLOE_STORE_RISKS_ACCEPTED",
        "FLOE_LOG_LEVEL",
        "FLOE_SOCKET_MAX_SECONDS",
        "`Connection: upgrade`",
    ):
        assert needed in guide, needed
    for page in ("README.md", "docs/operations/running.md"):
        assert "deployment.md" in (ROOT / page).read_text(encoding="utf-8"), page
