'use strict';
/**
 * Load driver for the boardgame.io peer: the same load shape as Floe's `actions` load.
 *
 *   node driver.js --port N [--matches 16] [--warmup 0.5] [--seconds 3] [--stall 10]
 *
 * Each of `--matches` matches is created and joined through the Lobby API (unmeasured,
 * like Floe's game creation), then played by two real clients, `Client` from
 * boardgame.io/client with the `SocketIO` multiplayer transport: what a boardgame.io app
 * runs. A move is `client.moves.bump(cell)`, which the client sends as one socket.io
 * `update` message (action, stateID, matchID, playerID, with the seat's credentials in the
 * action). The server answers no one directly: it broadcasts the new state to every client
 * of the match. A match sends its next move only once the other seat's client (whose turn
 * it now is) has received that broadcast, so every match has exactly one move in flight,
 * as every Floe client has one POST in flight.
 *
 * Each socket gets its own connection (`forceNew`; socket.io would otherwise multiplex all
 * 32 over one), straight on WebSocket (a browser starts on long-polling and upgrades within
 * the first second: the steady state is the same, and the warm-up is not measured).
 *
 * Timeline: warm-up, then the window; a move counts when it was sent inside the window,
 * and its latency is send to broadcast received. Lines for the caller start with "@@ ":
 * `{"event":"measuring"}` when the window opens, `{"event":"measured"}` when it closes (the
 * caller samples CPU at both), then one JSON result. A move the server rejects is dropped
 * silently by boardgame.io (it logs, nothing is sent back), so a move unanswered for
 * `--stall` seconds is counted as an error and its match stops.
 */
const { performance } = require('perf_hooks');
const { Client, LobbyClient } = require('boardgame.io/client');
const { SocketIO } = require('boardgame.io/multiplayer');
const { Bump, CELLS } = require('./game');

function parseArgs(argv) {
  const args = { port: 0, matches: 16, warmup: 0.5, seconds: 3, stall: 10 };
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i].replace(/^--/, '');
    if (!(key in args)) throw new Error(`unknown argument ${argv[i]}`);
    args[key] = Number(argv[i + 1]);
  }
  if (!args.port) throw new Error('--port is required');
  return args;
}

function say(payload) {
  process.stdout.write(`@@ ${JSON.stringify(payload)}\n`);
}

/** Create and join one match over the Lobby API: its id and both seats' credentials. */
async function createMatch(lobby, index) {
  const { matchID } = await lobby.createMatch(Bump.name, { numPlayers: 2 });
  const credentials = [];
  // One seat after the other: the Lobby API's join reads, changes and writes the match's
  // metadata, and two joins at once on an async store (FlatFile) can lose one seat.
  for (const playerID of ['0', '1']) {
    const playerName = `bench-${index}-${playerID}`;
    const seat = await lobby.joinMatch(Bump.name, matchID, { playerID, playerName });
    credentials.push(seat.playerCredentials);
  }
  return { matchID, credentials };
}

/** One match: two clients and the bookkeeping of its single in-flight move. */
class Match {
  constructor(server, { matchID, credentials }, stats) {
    this.stats = stats;
    this.pending = null; // { mover, expected, sentAt }
    this.done = false;
    this.sent = 0;
    this.confirmed = 0; // G.moves in the server's last broadcast that answered a move
    const socketOpts = { transports: ['websocket'], forceNew: true };
    this.clients = ['0', '1'].map((playerID) =>
      Client({
        game: Bump,
        multiplayer: SocketIO({ server, socketOpts }),
        matchID,
        playerID,
        credentials: credentials[Number(playerID)],
        debug: false,
      })
    );
    this.clients.forEach((client) => client.subscribe((state) => this.onState(client, state)));
  }

  start() {
    this.clients.forEach((client) => client.start());
  }

  stop() {
    this.clients.forEach((client) => client.stop());
  }

  /** Synced: both clients hold the server's state and are connected. */
  ready() {
    return this.clients.every((client) => {
      const state = client.getState();
      return state !== null && state.isConnected;
    });
  }

  /**
   * Send the next move from `mover`, the seat whose turn it is. Not looked up from the
   * clients' states: the last mover's client may not have had the broadcast yet, and its
   * optimistic state still makes it the current player.
   */
  move(mover) {
    const state = mover.getState();
    this.pending = { mover, expected: state._stateID + 1, sentAt: performance.now() };
    this.sent += 1;
    mover.moves.bump(this.sent % CELLS);
  }

  /**
   * Every state a client sees. The mover's own client first sees its optimistic state
   * (same stateID, turn not yet passed), so only the other seat's client, on the server's
   * broadcast that makes it the current player, answers the move.
   */
  onState(client, state) {
    const pending = this.pending;
    if (pending === null || client === pending.mover || state === null) return;
    if (state._stateID < pending.expected || state.ctx.currentPlayer !== client.playerID) {
      return;
    }
    const now = performance.now();
    this.pending = null;
    this.confirmed = state.G.moves;
    this.stats.answered(pending.sentAt, now);
    if (this.stats.open(now)) this.move(client);
    else this.done = true;
  }

  /** A move unanswered for too long: count it and give the match up. */
  checkStall(now, stallMs) {
    if (this.pending !== null && now - this.pending.sentAt > stallMs) {
      this.stats.errors += 1;
      this.pending = null;
      this.done = true;
    }
  }
}

/** Counts moves sent inside the window and their latencies (ms). */
class Stats {
  constructor() {
    this.from = Infinity; // set by `schedule` once every client has synced
    this.end = Infinity;
    this.latencies = [];
    this.errors = 0;
  }

  /**
   * Open the window after `warmup` seconds, for `seconds`; tell the caller at both ends.
   * Resolves once both ends were told: the last answer can land after `end` but before the
   * timer does (timers fire on the loop's millisecond clock), and the result must not be
   * printed, nor the process end, before the caller has read "measured".
   */
  schedule(warmup, seconds) {
    this.from = performance.now() + warmup * 1000;
    this.end = this.from + seconds * 1000;
    const tell = (event, at) =>
      new Promise((resolve) => {
        setTimeout(() => {
          say({ event });
          resolve();
        }, Math.max(0, at - performance.now()));
      });
    return Promise.all([tell('measuring', this.from), tell('measured', this.end)]);
  }

  open(now) {
    return now < this.end;
  }

  answered(sentAt, now) {
    if (sentAt >= this.from && sentAt < this.end) this.latencies.push(now - sentAt);
  }
}

function percentile(sorted, pct) {
  if (sorted.length === 0) return null;
  const rank = Math.max(1, Math.ceil((pct / 100) * sorted.length));
  return sorted[rank - 1];
}

function waitFor(condition, timeoutMs, what) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const timer = setInterval(() => {
      if (condition()) {
        clearInterval(timer);
        resolve();
      } else if (performance.now() - started > timeoutMs) {
        clearInterval(timer);
        reject(new Error(`timed out waiting for ${what}`));
      }
    }, 5);
  });
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const server = `http://127.0.0.1:${args.port}`;
  const lobby = new LobbyClient({ server });
  const created = await Promise.all(
    Array.from({ length: args.matches }, (_, i) => createMatch(lobby, i))
  );
  const stats = new Stats();
  const matches = created.map((info) => new Match(server, info, stats));
  matches.forEach((match) => match.start());
  await waitFor(() => matches.every((match) => match.ready()), 15000, 'every client to sync');

  const told = stats.schedule(args.warmup, args.seconds);
  const stallMs = args.stall * 1000;
  const watchdog = setInterval(() => {
    const now = performance.now();
    matches.forEach((match) => match.checkStall(now, stallMs));
  }, 100);
  matches.forEach((match) => match.move(match.clients[0])); // seat 0 opens every match
  const last = stallMs + (args.warmup + args.seconds) * 1000 + 60000;
  await waitFor(() => matches.every((match) => match.done), last, 'the last answers');
  clearInterval(watchdog);
  matches.forEach((match) => match.stop());
  await told; // "measured" is said before the result, never lost to the exit

  const sorted = [...stats.latencies].sort((a, b) => a - b);
  say({
    moves: stats.latencies.length,
    seconds: args.seconds,
    rate_per_s: stats.latencies.length / args.seconds,
    p50_ms: percentile(sorted, 50),
    p99_ms: percentile(sorted, 99),
    errors: stats.errors,
    matches: args.matches,
    // Every move sent (warm-up included), and the moves the server says it applied: G.moves
    // of the broadcast that answered each match's last move. Equal when nothing was lost.
    sent: matches.reduce((sum, match) => sum + match.sent, 0),
    applied: matches.reduce((sum, match) => sum + match.confirmed, 0),
    latencies_ms: stats.latencies,
  });
}

main().then(
  () => process.stdout.write('', () => process.exit(0)),
  (error) => {
    process.stderr.write(`driver failed: ${error && error.stack ? error.stack : error}\n`);
    process.exit(1);
  }
);
