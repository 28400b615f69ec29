"""What the generic bots (``domain.ai``) need to know to play Ice Breakers: ``BOT``.

Ice Breakers is co-operative and a turn is an open-ended run of actions, so its bots follow
the team plan (``plan.py``) rather than search move by move; the sampler reshuffles the Ice
Report cards nobody has seen, for the playouts that compare the plan's openings.
"""

from __future__ import annotations

from domain.engine.game import BotKit, SearchSettings, Shuffler
from domain.games.ice_breakers.board import IceBreakersBoard
from domain.games.ice_breakers.cards import LOWER_REPORTS, UPPER_REPORTS
from domain.games.ice_breakers.plan import RESCUE_PLAN, remaining_cost

_UPPER = len(UPPER_REPORTS)
_HIDDEN_END = _UPPER + len(LOWER_REPORTS)


def heuristic(board: IceBreakersBoard, seat: int) -> float:
    """Co-operative: ships home count most, then what it would cost to bring the rest home,
    less the points still to spend this turn (so spending them well is neutral or better)."""
    return 100.0 * len(board.delivered) - remaining_cost(board) + 0.9 * board.left


def sample_world(board: IceBreakersBoard, generator: Shuffler) -> IceBreakersBoard:
    """The Ice Report cards not yet exposed shuffled again within their part of the stack
    (the upper 13 and the lower 5; the last two cards are known to every player)."""
    if len(board.reports) <= _HIDDEN_END:
        return board  # not dealt yet: nothing to resample
    exposed = board.report_index
    reports = list(board.reports)
    for start, end, cards in ((0, _UPPER, UPPER_REPORTS), (_UPPER, _HIDDEN_END, LOWER_REPORTS)):
        first_hidden = max(start, exposed + 1)
        if first_hidden >= end:
            continue
        unseen = list(cards)
        for report in reports[start:first_hidden]:
            unseen.remove(report)
        unseen.sort(key=sorted)
        generator.shuffle(unseen)
        reports[first_hidden:end] = unseen
    return board._replace(reports=tuple(reports))


BOT: BotKit[IceBreakersBoard] = BotKit(
    heuristic=heuristic,
    # Unused while the plan drives: plan-following bots act only when the plan names them,
    # and ``mcts`` compares the plan's openings by playouts instead of searching a tree.
    search=SearchSettings(iterations=300),
    sample_world=sample_world,
    planner=RESCUE_PLAN,
)
