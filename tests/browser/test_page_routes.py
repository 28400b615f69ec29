"""The page routes without a browser: what is served, from where, and nothing from elsewhere.

These need no store: like ``/docs``, the pages are static files outside ``/v1``. The one page
drawn from the store, a tournament's, is checked here only for what needs none (a malformed
id is 404 before any store is read); test_tournament_page.py serves it for real.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from service.api.app import create_app
from service.api.pages import ASSETS, STATIC, TEMPLATES
from service.run.redis_server import free_tcp_port
from service.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
PAGES = {
    "/": "lobby",
    "/games/0123456789abcdef": "game",
    "/games/0123456789abcdef/replay": "replay",
    "/replay": "upload",
}
#: Pages drawn from the store (so not served without one), by the script each loads.
STORED_PAGES = {"/tournaments/0123456789abcdef": "tournament"}


def dead_store_client() -> object:
    settings = Settings(
        redis_url=f"redis://127.0.0.1:{free_tcp_port()}/0",  # no Redis there
        rate_limit_per_address=1,
    )
    return create_app(settings).test_client()


def test_every_page_and_asset_is_served_without_the_store_and_without_limits() -> None:
    client = dead_store_client()
    for _ in range(2):  # over the address's limit, were these /v1 routes
        for path, script in PAGES.items():
            page = client.get(path)  # type: ignore[attr-defined]
            assert page.status_code == 200 and page.mimetype == "text/html", path
            html = page.get_data(as_text=True)
            assert f'src="/web/{script}.js"' in html and 'href="/docs"' in html
            policy = page.headers["Content-Security-Policy"]
            assert "script-src 'self'" in policy and "default-src 'self'" in policy
    kinds = {".js": "text/javascript", ".css": "text/css", ".svg": "image/svg+xml"}
    for name in sorted(ASSETS):
        asset = client.get(f"/web/{name}")  # type: ignore[attr-defined]
        assert asset.status_code == 200 and asset.mimetype == kinds[Path(name).suffix], name
    for missing in ("/web/nope.js", "/web/..%2fapi.js", "/web/", "/games/a.b", "/games/"):
        assert client.get(missing).status_code == 404, missing  # type: ignore[attr-defined]
    for malformed in ("/tournaments/0123", "/tournaments/0123456789ABCDEF", "/tournaments/"):
        assert client.get(malformed).status_code == 404, malformed  # type: ignore[attr-defined]


def test_the_pages_load_nothing_from_another_host() -> None:
    files = [*TEMPLATES.glob("*.html"), *STATIC.glob("*")]
    shared_parts = {"base.html", "_stepper.html"}
    scriptless = {"not_found.html", "rules.html"}  # pages drawn by the server alone
    pages = {p.name for p in TEMPLATES.glob("*.html")} - shared_parts - scriptless
    assert pages == {f"{s}.html" for s in [*PAGES.values(), *STORED_PAGES.values()]}
    for path in files:
        text = path.read_text(encoding="utf-8")
        urls = re.findall(r"""(?:src|href|url|import|from)\s*[=(]?\s*["']([^"']+)["']""", text)
        assert not [u for u in urls if "//" in u and "w3.org" not in u], path
        assert "http://" not in text.replace("http://www.w3.org/", ""), path
        assert "https://" not in text, path
    scripts = {p.name for p in STATIC.glob("*.js")}
    for path in STATIC.glob("*.js"):
        for imported in re.findall(r'from "\./([^"]+)"', path.read_text(encoding="utf-8")):
            assert imported in scripts, f"{path.name} imports {imported}"


def test_the_page_files_are_package_data() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    data = pyproject["tool"]["setuptools"]["package-data"]["service.web"]
    assert set(data) == {"static/*", "templates/*"}
    assert (ROOT / "service" / "web" / "__init__.py").is_file()
