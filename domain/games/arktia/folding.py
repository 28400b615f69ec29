"""Folding a run of Arktia events on one working copy of the board.

``evolving.evolve`` makes a new frozen board per event: it copies the stacks and answers the
rules' questions (does this colour split? can that seat place?) by looking stack by stack. A
fold of a whole game does that for thousands of boards nobody else ever sees. ``fold_events``
keeps one private, mutable copy instead (``Working``) through the turns a game is mostly made
of: a place or a move in the regular phase that removes nothing and owes nothing. It changes
the stacks in place and keeps beside them the tiles that hold each colour and the empty
tiles, so each question looks at a few tiles, not at every stack.

Anything else (the opening, a removal or a tie, a melt owed, a player out, the turn limit, a
seat that cannot place, any other action) is handed back: the working copy is frozen into the
board ``evolve`` would have made at that step, and ``evolving`` carries on from there. So
the board at the end is the one ``evolve`` makes event by event (the random games of
``tests/unit/domain/test_arktia_fold_digest.py`` are folded both ways).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from itertools import compress
from typing import Any

from domain.engine.types import Event
from domain.games.arktia import evolving
from domain.games.arktia.board import ARCS, ArktiaBoard, copied
from domain.games.arktia.hexes import Hex, is_connected, neighbours
from domain.games.arktia.stacks import Colour, Stack

#: The bit of each of the six neighbours in a ring, in ``neighbours`` order.
_BITS = (1, 2, 4, 8, 16, 32)


def fold_events(board: ArktiaBoard, events: Iterable[Event]) -> ArktiaBoard:
    """The board after ``events`` in turn, as ``evolving.evolve`` makes it event by event."""
    working: Working | None = None
    action_types = evolving.ACTION_TYPES
    for event in events:
        if event.type not in action_types:
            continue  # no other event changes an Arktia board
        action = event.data["action"]
        kind = action["type"]
        if working is None and (kind == "move" or kind == "place"):
            working = Working.of(board)
        if working is not None:
            seat = event.actor if isinstance(event.actor, int) else working.current or 0
            if kind == "move":
                handed = working.move(seat, action)
            elif kind == "place" and working.is_empty(action["tile"]):
                handed = working.place(seat, action)
            else:  # any other action (and a place on a stack, which the rules never write)
                board, working = working.frozen(), None
                board = evolving.evolve(board, event)
                continue
            if handed is not None:
                board, working = handed, None
        else:
            board = evolving.evolve(board, event)
    return board if working is None else working.frozen()


class Working:
    """A board in the regular phase with nothing owed, partly mutable: ``stacks`` (a private
    copy), ``players``, ``turns``, ``current`` and ``melt_due``, which are what a place or a
    move that removes nothing changes. ``where`` lists the tiles holding each colour and
    ``empty`` the tiles holding none; the rest of the board stays as it was in ``base``.

    ``move`` and ``place`` take an action and end the turn in place (and answer None), or
    hand the turn back where it leaves the common path: they answer the board ``evolving``
    makes of it, and the working copy is spent (that board holds its stacks).
    """

    __slots__ = (
        "base",
        "current",
        "empty",
        "joined",
        "melt_due",
        "order",
        "placing",
        "players",
        "stacks",
        "turn_limit",
        "turns",
        "watched",
        "where",
    )

    def __init__(self, base: ArktiaBoard) -> None:
        self.base = base
        self.stacks = copied(base.stacks)
        self.players = base.players
        self.turns = base.turns
        self.current = base.current
        self.melt_due = base.melt_due
        self.where: dict[Colour, set[Hex]] = {}
        for tile, stack in self.stacks.items():
            for colour in stack:
                if colour is not None:
                    self.where.setdefault(colour, set()).add(tile)
        self.empty = {tile for tile in base.tiles if tile not in self.stacks}
        #: Colours known to be one group (found so by a full search since the copy was
        #: made, and kept so by every move since).
        self.joined: set[Colour] = set()
        #: Seats still playing that have lost pieces: the only ones rule (c) can put out
        #: (``evolving.end_turn``). A place or a move never changes who they are.
        self.watched = [
            seat for seat, player in enumerate(self.players) if player.lost and player.ended is None
        ]
        self.turn_limit = base.turn_limit
        #: The seats in turn order after each seat (``next_in_play``).
        count = len(self.players)
        self.order = [
            tuple((seat + k) % count for k in range(1, count + 1)) for seat in range(count)
        ]
        #: Where each seat could place when last asked: a tile of its colour and an empty
        #: tile next to it, which answer again while both still are.
        self.placing: dict[int, tuple[Hex, Hex]] = {}

    @classmethod
    def of(cls, board: ArktiaBoard) -> Working | None:
        """A working copy of ``board``, or None unless it is in the regular phase and owes
        nothing: no tie, no melt, no colour left split (``unsettled``), not over."""
        if (
            board.step < len(board.schedule)
            or board.finished
            or board.ties
            or board.melt_owed
            or board.unsettled
        ):
            return None
        return cls(board)

    def frozen(self) -> ArktiaBoard:
        return self.base.but(
            stacks=self.stacks,
            players=self.players,
            turns=self.turns,
            current=self.current,
            melt_due=self.melt_due,
        )

    def is_empty(self, tile: list[int]) -> bool:
        return (tile[0], tile[1]) not in self.stacks

    # ----- the actions ------------------------------------------------------------------

    def move(self, seat: int, action: Mapping[str, Any]) -> ArktiaBoard | None:
        """``evolving._move``, then ``after_action`` while no moved colour splits."""
        source, target = action["from"], action["to"]
        source, target = (source[0], source[1]), (target[0], target[1])
        stacks, where = self.stacks, self.where
        stack = stacks[source]
        unit = action["unit"]
        if unit == "all":
            moving, staying = stack, evolving.NOTHING
        else:
            moving, staying = stack.take(stack.units()[unit])
        everything = staying is evolving.NOTHING
        if everything or staying == evolving.NOTHING:
            del stacks[source]
            if source in self.base.tiles:
                self.empty.add(source)
        else:
            stacks[source] = staying
        there = stacks.get(target)
        stacks[target] = moving if there is None else there.merge(moving)
        self.empty.discard(target)
        self.turns += 1
        # ``board.may_split`` of each moved colour. ``ring``: which neighbours of the source
        # held the colour before the move (read before ``where`` moves it), when it left.
        suspects: dict[Colour, int | None] = {}
        around, landing = neighbours(source), neighbours(target)
        for colour in set(moving):  # each colour once (a stack may hold one twice)
            if colour is None:
                continue  # an empty slot
            tiles = where[colour]
            if everything or colour not in staying:
                ring = sum(compress(_BITS, map(tiles.__contains__, around)))
                tiles.discard(source)
                tiles.add(target)
                if not ring:
                    continue  # it stood on the source alone: it now stands on the target alone
                if ARCS[ring] > 1 or tiles.isdisjoint(landing):
                    suspects[colour] = ring  # the source may have joined it, or it lands apart
            else:
                tiles.add(target)
                if tiles.isdisjoint(landing):
                    suspects[colour] = None  # it lands apart
        for colour, left in suspects.items():
            if not self._one_group(colour, left, source, target):
                return evolving.after_action(self.frozen(), seat, set(suspects))  # removal/tie
        return self._end_turn(seat)

    def place(self, seat: int, action: Mapping[str, Any]) -> ArktiaBoard | None:
        """``evolving._place`` in the regular phase (a piece of ``seat``'s own colour from its
        reserve, on an empty tile), then ``after_action``, which has nothing to remove."""
        tile = (action["tile"][0], action["tile"][1])
        players = list(self.players)
        players[seat] = players[seat].taking(action["size"], neutral=False)
        self.players = tuple(players)
        self.stacks[tile] = Stack.single(action["size"], seat)
        self.where.setdefault(seat, set()).add(tile)
        self.empty.discard(tile)
        self.joined.discard(seat)  # the rules place next to the colour; the log is not checked
        self.turns += 1
        return self._end_turn(seat)

    def _one_group(self, colour: Colour, ring: int | None, source: Hex, target: Hex) -> bool:
        """``keeps_together`` of a moved colour that may have split: a full search while it
        is not known to be one group (``joined``). Once it is, it was one group before the
        move, so each group of what stayed behind holds the source (the colour stayed
        there: ``ring`` is None) or one of the source's neighbours in ``ring``; the search
        from the target stops as soon as it has met them all."""
        tiles = self.where[colour]
        if colour not in self.joined:
            if not is_connected(tiles):
                return False
            self.joined.add(colour)
            return True
        if ring is None:
            pending = {source}
        else:
            pending = set(compress(neighbours(source), map(ring.__and__, _BITS)))
        pending.discard(target)
        seen = {target}
        frontier = [target]
        while pending and frontier:
            fresh = tiles.intersection(neighbours(frontier.pop()))
            fresh -= seen
            seen |= fresh
            pending -= fresh
            frontier.extend(fresh)
        return not pending

    # ----- the end of the turn ------------------------------------------------------------

    def _end_turn(self, seat: int) -> ArktiaBoard | None:
        """``after_removal``, ``end_turn`` and ``next_in_play`` for a turn that removed
        nothing, in the regular phase: only who plays next changes, unless a melt is owed,
        a player is down to one piece, the turn limit is reached or the next seat cannot
        place (then ``evolving`` takes the turn from that step)."""
        if self.melt_due:
            return evolving.after_removal(self.frozen(), seat)
        if self.watched and any(self._on_board(other) <= 1 for other in self.watched):
            return evolving.end_turn(self.frozen(), seat)
        if self.turns >= self.turn_limit:
            return evolving.end_turn(self.frozen(), seat)
        players = self.players
        for upcoming in self.order[seat]:
            player = players[upcoming]
            if player.ended is not None:
                continue
            if any(player.reserve) and self._can_place(upcoming):
                self.current, self.melt_due = upcoming, False  # its reserve is not empty
                return None
            break  # it may still move, or it is out: ``can_act`` searches its moves
        return evolving.next_in_play(self.frozen(), seat)

    def _can_place(self, seat: int) -> bool:
        """``ArktiaBoard._can_place`` in the regular phase: an empty tile next to one of
        ``seat``'s."""
        empty = self.empty
        known = self.placing.get(seat)
        if known is not None and known[1] in empty and known[0] in self.where[seat]:
            return True
        for tile in self.where.get(seat, ()):
            nearby = empty.intersection(neighbours(tile))
            if nearby:
                self.placing[seat] = (tile, next(iter(nearby)))
                return True
        return False

    def _on_board(self, colour: Colour) -> int:
        stacks = self.stacks
        return sum(stacks[tile].count(colour) for tile in self.where.get(colour, ()))
