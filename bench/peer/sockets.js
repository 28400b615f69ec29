'use strict';
/**
 * Socket load driver for Floe: the same load shape as (a)'s other loads, over WebSockets.
 *
 *   node sockets.js --port N --mode bare|floe|bot --input FILE
 *                   [--matches 16] [--warmup 0.5] [--seconds 3] [--stall 10]
 *
 * `--input` is a JSON file written by bench/sockets.py: `{"tag", "create", "scripts"}`, the
 * body of `POST /v1/games` (what bench.stack.create_game sends) and one precomputed legal
 * Arktia script per match (`[{seat, action}, ...]`, bench.policy), as the HTTP `actions`
 * load replays them.
 *
 * Modes (one move in flight per match in every one):
 * - `bare`: one socket per match to `GET /bench/socket`, the socket path's ceiling; each
 *   message has a move's shape, the route does one XADD and answers `{"ok": true}`; the next
 *   message once that answer arrived.
 * - `floe`: Floe's `GET /v1/games/{id}/socket`, one socket per seat, each opened with
 *   `{"type": "hello", "token", "after"}`. A move is one `{"type": "action", "action",
 *   "expected_version", "command_id"}`; it is answered when the mover has its `accepted`
 *   and the other seat has the event of that version (the next move is sent then).
 * - `bot`: as `floe`, but the next mover also waits for the `legal_actions` the server pushes
 *   to the seat to act (version of the last event) and checks its scripted action is among
 *   them, as a bot choosing from them would: no polling.
 *
 * A game is created over HTTP (unmeasured, as in the HTTP loads) at the start and whenever a
 * script runs out, the game ends or a move is refused (counted, and the refusal's status).
 * Lines for the caller start with "@@ ": `{"event":"measuring"}` and `{"event":"measured"}` at
 * the window's ends (the caller samples CPU there), then one JSON result. A move counts when
 * it was sent inside the window; its latency is send to answered (ms).
 */
const { performance } = require('perf_hooks');
const fs = require('fs');
const WebSocket = require('ws');

const MODES = ['bare', 'floe', 'bot'];

function parseArgs(argv) {
  const args = { port: 0, mode: '', input: '', matches: 16, warmup: 0.5, seconds: 3, stall: 10 };
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i].replace(/^--/, '');
    if (!(key in args)) throw new Error(`unknown argument ${argv[i]}`);
    args[key] = typeof args[key] === 'number' ? Number(argv[i + 1]) : argv[i + 1];
  }
  if (!args.port) throw new Error('--port is required');
  if (!MODES.includes(args.mode)) throw new Error(`--mode must be one of ${MODES}`);
  if (!args.input) throw new Error('--input is required');
  return args;
}

function say(payload) {
  process.stdout.write(`@@ ${JSON.stringify(payload)}\n`);
}

/** JSON with sorted keys: the same action however the server ordered its fields. */
function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Counts moves sent inside the window and their latencies (ms). As driver.js's. */
class Stats {
  constructor() {
    this.from = Infinity;
    this.end = Infinity;
    this.latencies = [];
    this.errors = 0;
    this.gamesCreated = 0;
    this.statuses = {};
    this.firstErrors = [];
  }

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

  inWindow(sentAt) {
    return sentAt >= this.from && sentAt < this.end;
  }

  answered(sentAt, now, status) {
    if (!this.inWindow(sentAt)) return;
    this.latencies.push(now - sentAt);
    this.statuses[status] = (this.statuses[status] || 0) + 1;
  }

  failed(sentAt, status, why) {
    if (this.firstErrors.length < 5) this.firstErrors.push(why);
    if (!this.inWindow(sentAt)) return;
    this.errors += 1;
    this.statuses[status] = (this.statuses[status] || 0) + 1;
  }
}

function connect(url) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { perMessageDeflate: false });
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
    ws.once('unexpected-response', (_req, res) =>
      reject(new Error(`${url} answered ${res.statusCode} instead of upgrading`))
    );
  });
}

/** One match on the bare route: one socket, one message in flight. */
class BareMatch {
  constructor(ctx, index) {
    this.ctx = ctx;
    this.index = index;
    this.sample = ctx.scripts[index][ctx.scripts[index].length - 1].action;
    this.sent = 0;
    this.pending = null;
    this.done = false;
  }

  async open() {
    this.ws = await connect(`ws://127.0.0.1:${this.ctx.port}/bench/socket`);
    this.ws.on('message', () => this.onAnswer());
    this.ws.on('close', () => this.onClose());
  }

  move() {
    this.sent += 1;
    this.pending = { sentAt: performance.now() };
    this.ws.send(
      JSON.stringify({
        type: 'action',
        action: this.sample,
        expected_version: this.sent,
        command_id: `${this.ctx.tag}b${this.index}-${this.sent}`,
      })
    );
  }

  onAnswer() {
    const pending = this.pending;
    if (pending === null) return;
    const now = performance.now();
    this.pending = null;
    this.ctx.stats.answered(pending.sentAt, now, 200);
    if (this.ctx.stats.open(now)) this.move();
    else this.finish();
  }

  onClose() {
    if (this.pending !== null) this.ctx.stats.failed(this.pending.sentAt, 0, 'socket closed');
    this.pending = null;
    this.done = true;
  }

  finish() {
    this.done = true;
    this.ws.close();
  }

  checkStall(now, stallMs) {
    if (this.pending !== null && now - this.pending.sentAt > stallMs) {
      this.ctx.stats.failed(this.pending.sentAt, 0, 'stalled');
      this.pending = null;
      this.finish();
    }
  }
}

/** One match on Floe's socket route: a game, one socket per seat, one move in flight. */
class FloeMatch {
  constructor(ctx, index, bot) {
    this.ctx = ctx;
    this.index = index;
    this.bot = bot;
    this.script = ctx.scripts[index];
    this.sent = 0;
    this.pending = null; // { step, sentAt, commandId, accepted, version, seen }
    this.done = false;
    this.busy = false; // creating a game
    this.waiting = false; // a bot waiting for the legal_actions of the next mover
    this.sockets = [];
  }

  async newGame() {
    this.busy = true;
    this.waiting = false;
    this.sockets.forEach((ws) => ws.terminate());
    const url = `http://127.0.0.1:${this.ctx.port}/v1/games`;
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(this.ctx.create),
    });
    const body = await response.json();
    if (response.status !== 201) {
      throw new Error(`creating a game answered ${response.status}: ${JSON.stringify(body)}`);
    }
    this.ctx.stats.gamesCreated += 1;
    this.gameId = body.id;
    this.version = 1; // game_created
    this.step = 0;
    this.over = false;
    this.seen = [1, 1]; // the last event version each seat's socket had
    this.legal = [null, null]; // the last legal_actions pushed to each seat
    const generation = {}; // messages of a replaced game's sockets are ignored
    this.generation = generation;
    this.sockets = await Promise.all(
      body.seats.map(async (seat, index) => {
        const ws = await connect(`ws://127.0.0.1:${this.ctx.port}/v1/games/${this.gameId}/socket`);
        ws.on('message', (raw) => {
          if (this.generation === generation) this.onMessage(index, JSON.parse(raw));
        });
        ws.on('close', () => {
          if (this.generation === generation) this.onClose(index);
        });
        ws.send(JSON.stringify({ type: 'hello', token: seat.token, after: 1 }));
        return ws;
      })
    );
    this.busy = false;
  }

  async open() {
    await this.newGame();
  }

  /** Send the next scripted move, first making a new game if this one cannot go on. */
  move() {
    if (this.over || this.step >= this.script.length) {
      this.newGame().then(
        () => this.move(),
        (error) => this.fail(`new game: ${error.message}`)
      );
      return;
    }
    const step = this.script[this.step];
    if (this.bot && this.version > 1) {
      const legal = this.legal[step.seat];
      const wanted = canonical(step.action);
      if (!legal || legal.version !== this.version) {
        this.waiting = true; // the push sends it (onMessage)
        this.waitingSince = performance.now();
        return;
      }
      if (!legal.actions.some((action) => canonical(action) === wanted)) {
        this.fail(`scripted action not pushed as legal on ${this.gameId} v${this.version}`);
        return;
      }
    }
    this.waiting = false;
    this.sent += 1;
    const commandId = `${this.ctx.tag}${this.bot ? 'g' : 'a'}${this.index}-${this.sent}`;
    this.pending = { step, sentAt: performance.now(), commandId, accepted: false };
    this.sockets[step.seat].send(
      JSON.stringify({
        type: 'action',
        action: step.action,
        expected_version: this.version,
        command_id: commandId,
      })
    );
  }

  onMessage(seat, message) {
    const pending = this.pending;
    if (message.type === 'event') {
      const event = message.event;
      this.seen[seat] = Math.max(this.seen[seat], event.version);
      if (event.type === 'game_over') this.over = true;
    } else if (message.type === 'legal_actions') {
      this.legal[seat] = { version: message.version, actions: message.actions };
      if (this.waiting && !this.busy && !this.done) this.next();
      return;
    } else if (pending !== null && message.command_id === pending.commandId) {
      if (message.type === 'accepted') {
        pending.accepted = true;
        pending.version = message.version;
      } else if (message.type === 'refused') {
        this.pending = null;
        this.ctx.stats.failed(pending.sentAt, message.status, JSON.stringify(message.error));
        this.over = true; // resynchronise on a fresh game, as the HTTP load does
        this.next();
        return;
      }
    }
    if (pending === null || !pending.accepted) return;
    const other = 1 - pending.step.seat;
    if (this.seen[other] < pending.version) return;
    const now = performance.now();
    this.pending = null;
    this.version = pending.version;
    this.step += 1;
    this.ctx.stats.answered(pending.sentAt, now, 201);
    this.next();
  }

  next() {
    if (this.ctx.stats.open(performance.now())) this.move();
    else this.finish();
  }

  onClose(seat) {
    if (this.done || this.busy) return;
    this.fail(`seat ${seat}'s socket closed`);
  }

  fail(why) {
    const sentAt = this.pending === null ? performance.now() : this.pending.sentAt;
    this.ctx.stats.failed(sentAt, 0, why);
    this.pending = null;
    this.finish();
  }

  finish() {
    if (this.done) return;
    this.done = true;
    this.sockets.forEach((ws) => ws.close());
  }

  checkStall(now, stallMs) {
    if (this.pending !== null && now - this.pending.sentAt > stallMs) this.fail('stalled');
    if (this.waiting && now - this.waitingSince > stallMs) this.fail('no legal_actions pushed');
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
  const input = JSON.parse(fs.readFileSync(args.input, 'utf8'));
  const stats = new Stats();
  const ctx = { port: args.port, tag: input.tag, create: input.create, scripts: input.scripts, stats };
  const matches = Array.from({ length: args.matches }, (_, i) =>
    args.mode === 'bare' ? new BareMatch(ctx, i) : new FloeMatch(ctx, i, args.mode === 'bot')
  );
  // One after the other: opened at once, every socket lands on the gunicorn worker that
  // woke first (and stays there for the window); one at a time, they spread.
  for (const match of matches) await match.open();
  stats.gamesCreated = 0; // the first games are made before the clock starts

  const told = stats.schedule(args.warmup, args.seconds);
  const stallMs = args.stall * 1000;
  const watchdog = setInterval(() => {
    const now = performance.now();
    matches.forEach((match) => match.checkStall(now, stallMs));
  }, 100);
  matches.forEach((match) => match.move());
  const last = stallMs + (args.warmup + args.seconds) * 1000 + 60000;
  await waitFor(() => matches.every((match) => match.done), last, 'the last answers');
  clearInterval(watchdog);
  await told;

  const sorted = [...stats.latencies].sort((a, b) => a - b);
  say({
    mode: args.mode,
    moves: stats.latencies.length,
    seconds: args.seconds,
    rate_per_s: stats.latencies.length / args.seconds,
    p50_ms: percentile(sorted, 50),
    p99_ms: percentile(sorted, 99),
    errors: stats.errors,
    first_errors: stats.firstErrors,
    statuses: stats.statuses,
    games_created: stats.gamesCreated,
    matches: args.matches,
    sent: matches.reduce((sum, match) => sum + match.sent, 0),
    latencies_ms: stats.latencies,
  });
}

main().then(
  () => process.stdout.write('', () => process.exit(0)),
  (error) => {
    process.stderr.write(`socket driver failed: ${error && error.stack ? error.stack : error}\n`);
    process.exit(1);
  }
);
