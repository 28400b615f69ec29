"""The API's documentation, served by Floe itself: the spec and an interactive reference.

- ``GET /openapi.yaml``: ``openapi.yaml`` as ``make spec`` wrote it (``application/yaml``).
- ``GET /openapi.json``: the same document as JSON.
- ``GET /docs``: Swagger UI rendering ``/openapi.json``. Its assets come from the
  ``flask-swagger-ui`` package (Swagger UI's own dist files, kept current upstream) and are
  served from ``/docs/assets/<file>``: no CDN, so the page works offline too. Its
  ``Content-Security-Policy`` (``POLICY``) lets it run those files and its one inline script,
  nothing else.

None of these is under ``/v1``: they are not rate limited and not part of the spec's paths.
The spec is package data (``service/api/spec/openapi.yaml``, found through the package, so an
installed copy serves it too), read once, on first use.
"""

from __future__ import annotations

import base64
import hashlib
import json
from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import Any

import yaml
from flask import Blueprint, Response, abort, send_from_directory

from service.api.spec import packaged_text

docs = Blueprint("docs", __name__)

#: Swagger UI's distribution files, as the flask-swagger-ui package ships them.
ASSETS_DIR = Path(str(files("flask_swagger_ui") / "dist"))
#: The files the page loads; nothing else of the package is served.
ASSETS = frozenset(
    {
        "swagger-ui.css",
        "index.css",
        "swagger-ui-bundle.js",
        "swagger-ui-standalone-preset.js",
        "favicon-32x32.png",
        "favicon-16x16.png",
    }
)
#: Assets are versioned by the installed package: a new Swagger UI is a new package.
ASSET_MAX_AGE = 3600

PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Floe API reference</title>
  <link rel="stylesheet" href="/docs/assets/index.css">
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
  <link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png" sizes="32x32">
  <link rel="icon" type="image/png" href="/docs/assets/favicon-16x16.png" sizes="16x16">
</head>
<body>
  <noscript>This page needs JavaScript. The spec itself is at
    <a href="/openapi.yaml">/openapi.yaml</a> and <a href="/openapi.json">/openapi.json</a>.
  </noscript>
  <div id="swagger-ui"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/assets/swagger-ui-standalone-preset.js"></script>
  <script>{START}</script>
</body>
</html>
"""
#: The page's one inline script: it starts Swagger UI on Floe's own spec (no validator badge,
#: which would send the spec's address to a third party).
START = """
    window.onload = function () {
      window.ui = SwaggerUIBundle({
        url: "/openapi.json",
        dom_id: "#swagger-ui",
        deepLinking: true,
        validatorUrl: null,
        presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
        plugins: [SwaggerUIBundle.plugins.DownloadUrl],
        layout: "StandaloneLayout"
      });
    };
  """
#: What the page needs and no more: Floe's own scripts and that inline one (by its hash),
#: styles (Swagger UI sets some inline), its icons as data: URLs, and calls to Floe itself
#: (the spec, and "Try it out").
POLICY = (
    "default-src 'none'; "
    "script-src 'self' 'sha256-"
    + base64.b64encode(hashlib.sha256(START.encode()).digest()).decode()
    + "'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)


@cache
def _spec_text() -> str:
    return packaged_text()


@cache
def _spec_json() -> str:
    spec: Any = yaml.safe_load(_spec_text())
    return json.dumps(spec, ensure_ascii=False, indent=2) + "\n"


@docs.get("/openapi.yaml")
def openapi_yaml() -> Response:
    return Response(_spec_text(), mimetype="application/yaml")


@docs.get("/openapi.json")
def openapi_json() -> Response:
    return Response(_spec_json(), mimetype="application/json")


@docs.get("/docs")
def reference() -> Response:
    response = Response(PAGE.replace("{START}", START, 1), mimetype="text/html")
    response.headers["Content-Security-Policy"] = POLICY
    response.headers["Referrer-Policy"] = "no-referrer"
    return response


@docs.get("/docs/assets/<name>")
def asset(name: str) -> Response:
    if name not in ASSETS:
        abort(404)
    return send_from_directory(ASSETS_DIR, name, max_age=ASSET_MAX_AGE)
