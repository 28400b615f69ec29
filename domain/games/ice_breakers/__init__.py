"""Ice Breakers to the Rescue (Jim Deacove, 2004) as ``shared/rules/ice-breakers.md`` says."""

from domain.games.ice_breakers.rules import ICE_BREAKERS, IceBreakersRules

__all__ = ["ICE_BREAKERS", "IceBreakersRules"]
