'use strict';
/**
 * The peer's game: as small as a boardgame.io game gets while still being a real one.
 *
 * Two players; every move ends the turn (maxMoves 1), so turns alternate as in Floe's
 * scripted Arktia games. A move bumps one of nine counters: a small state change, always
 * legal, and the match never ends (no endIf), so no window ever runs out of moves. The
 * server runs the full flow on each move (turn end, log entry, undo bookkeeping), exactly
 * as it would for a real game.
 */
const CELLS = 9;

const Bump = {
  name: 'floe-peer',
  minPlayers: 2,
  maxPlayers: 2,
  setup: () => ({ cells: new Array(CELLS).fill(0), moves: 0 }),
  turn: { minMoves: 1, maxMoves: 1 },
  moves: {
    bump: ({ G }, cell) => {
      G.cells[cell % CELLS] += 1;
      G.moves += 1;
    },
  },
};

module.exports = { Bump, CELLS };
