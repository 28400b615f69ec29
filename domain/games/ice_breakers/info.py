"""Ice Breakers to the Rescue, declared: its name, seats, information, rules version and
options.

Everything else reads these facts from ``INFO``: the rules (``IceBreakersRules.info``),
setup's option parsing (``setup.py``), the bots, the service (a co-operative game ranks
nobody: no tournament) and the API's contract. ``map`` and ``ice_reports`` exist so a game
can name the reconstruction it was played with; only ``"standard"`` is supported.
"""

from __future__ import annotations

from domain.engine.game import GameInfo, OptionParameter

STANDARD = "standard"

INFO = GameInfo(
    name="ice-breakers",
    title="Ice Breakers",
    summary="Ice Breakers to the Rescue (Jim Deacove, 2004): co-operative, ships through ice",
    min_seats=2,
    max_seats=4,
    information="hidden",
    play="co-operative",
    rules_version="1",
    chance=True,
    options=(
        OptionParameter(
            "intro",
            "boolean",
            False,
            "The introductory game: only ships and destinations 2, 3, 5, 6, 8, 9 are in play "
            "(the others start delivered), one card each at 5 and 9, no row.",
        ),
        OptionParameter(
            "open_hands",
            "boolean",
            True,
            "Hands are visible to all; false is refused (closed hands are not supported).",
            choices=(True,),
            unsupported="open_hands must be true: closed hands are not supported",
        ),
        OptionParameter(
            "map",
            "string",
            STANDARD,
            "The 13 x 10 board reconstruction (only 'standard').",
            choices=(STANDARD,),
            unsupported=f"map supports only {STANDARD!r} (the reconstruction)",
        ),
        OptionParameter(
            "ice_reports",
            "string",
            STANDARD,
            "The 20-card Ice Report deck reconstruction (only 'standard').",
            choices=(STANDARD,),
            unsupported=f"ice_reports supports only {STANDARD!r} (the reconstruction)",
        ),
    ),
)
