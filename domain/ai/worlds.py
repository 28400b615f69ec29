"""What a seat cannot see, replaced by a guess consistent with what it can: determinization.

A search bot never plans on the true board. Before it looks, ``sample_world`` swaps every
hidden part of the state for a sample drawn from the bot's own random generator, using only
public facts to constrain it. Two games that differ only in hidden information therefore give
the bot the *same* sampled world, so its choice cannot depend on a secret (the test suite
checks exactly that). The samples are deliberately no smarter than a person could be: they
use what the board shows now, never the log's history of what was seen before.

How to guess is the game's own knowledge (``game.bot.sample_world``, a ``WorldSampler``);
a game that hides nothing has none, and its world is the state itself.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from domain.engine.game import Game, Shuffler
from domain.engine.types import GameState


def sample_world(game: Game[Any], state: GameState[Any], generator: Shuffler) -> GameState[Any]:
    """``state`` with every hidden part replaced by a sample consistent with the public part
    (``state`` itself when the game hides nothing, or the sampler found nothing to guess)."""
    sampler = game.bot.sample_world
    if sampler is None:
        return state
    board = sampler(state.board, generator)
    if board is state.board:
        return state
    return dataclasses.replace(state, board=board)
