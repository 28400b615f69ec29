"""The API's contract: ``openapi.yaml``, built by ``make spec`` and served as package data.

The document is written, never edited by hand, from one source per fact (``build.py``):

- ``document.yaml``: the frame (info, shared parameters, headers and error answers);
- ``games.yaml``, ``tables.yaml``, ``tournaments.yaml``, ``replays.yaml``, ``health.yaml``:
  each resource's operations and their prose (and the error answers and the few schemas of
  its own that no marshmallow schema states, under ``components``);
- ``schemas.yaml``: the few shared schemas no marshmallow schema states; ``errors.yaml``: every
  error code outside the games';
- ``service/api/schemas``: the request and response bodies (apispec's MarshmallowPlugin);
- each hosted game's declaration (``GameInfo``: seats, options) and contract (its actions,
  state, pending decisions, outcome, draws and refusals), through ``domain.games.GAMES``.

``python -m service.api.spec`` writes the document beside this module (``openapi.yaml``, the
package data ``GET /openapi.yaml`` serves) and to the repository's ``openapi.yaml``; with
``--check`` it only says whether either is stale. This module itself needs nothing but the
standard library: the service reads the packaged document; only building needs apispec.
"""

from __future__ import annotations

from importlib.resources import files

#: The packaged document's file name, beside this module.
SPEC_FILE = "openapi.yaml"


def packaged_text() -> str:
    """The document as ``make spec`` wrote it into the package."""
    return (files(__name__) / SPEC_FILE).read_text(encoding="utf-8")
