"""Arktia (Stefan Kögl, 2008) as ``shared/rules/arktia.md`` specifies it."""

from domain.games.arktia.rules import ARKTIA, ArktiaRules

__all__ = ["ARKTIA", "ArktiaRules"]
