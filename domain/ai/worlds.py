"""What a seat cannot see, replaced by a guess consistent with what it can: determinization.

A search bot never plans on the true board. Before it looks, ``sample_world`` swaps every
hidden part of the state for a sample drawn from the bot's own random generator, using only
public facts to constrain it. Two games that differ only in hidden information therefore give
the bot the *same* sampled world, so its choice cannot depend on a secret (the test suite
checks exactly that). The samples are deliberately no smarter than a person could be: they
use what the board shows now, never the log's history of what was seen before.

- Arktia has no hidden information: the world is the state.
- Iceberg: the ids of tiles not face-up now are dealt again at random to the positions not
  face-up now (values shown on face-up tiles stay where they are).
- Ice Breakers: the Ice Report cards not yet exposed are shuffled again within their part of
  the stack (the upper 13 and the lower 5; the last two cards are known to every player).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from domain.ai.generator import SplitMix64
from domain.engine.types import GameState
from domain.engine.values import replaced
from domain.games.ice_breakers.board import IceBreakersBoard
from domain.games.ice_breakers.cards import LOWER_REPORTS, UPPER_REPORTS
from domain.games.iceberg.board import IcebergBoard

Sampler = Callable[[Any, SplitMix64], Any]

_UPPER = len(UPPER_REPORTS)
_HIDDEN_END = _UPPER + len(LOWER_REPORTS)


def _arktia(board: Any, generator: SplitMix64) -> Any:
    return board


def _iceberg(board: IcebergBoard, generator: SplitMix64) -> IcebergBoard:
    if not board.layout:
        return board
    known = {tile: board.layout[tile] for tile in board.face_up}
    hidden = sorted(tile for tile in board.layout if tile not in known)
    shown = set(known.values())
    pool = sorted(k for k in range(len(board.layout)) if k not in shown)
    generator.shuffle(pool)
    layout = {**known, **dict(zip(hidden, pool, strict=True))}
    return replaced(board, layout=layout)


def _ice_breakers(board: IceBreakersBoard, generator: SplitMix64) -> IceBreakersBoard:
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


SAMPLERS: dict[str, Sampler] = {
    "arktia": _arktia,
    "iceberg": _iceberg,
    "ice-breakers": _ice_breakers,
}
#: Games whose states hide nothing and whose moves involve no chance: a search may keep the
#: positions it reached, since replaying the same moves always gives the same position.
PERFECT_INFORMATION: frozenset[str] = frozenset({"arktia"})


def sample_world(state: GameState[Any], generator: SplitMix64) -> GameState[Any]:
    """``state`` with every hidden part replaced by a sample consistent with the public part."""
    board = SAMPLERS[state.created.game](state.board, generator)
    if board is state.board:
        return state
    return GameState(state.game_id, state.version, state.created, board, state.outcome, state.seed)
