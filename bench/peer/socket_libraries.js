'use strict';
/**
 * Echo load for bench/socket_libraries.py: N sockets, one message in flight on each.
 *
 *   node socket_libraries.js --url ws://127.0.0.1:PORT/echo --bytes 100
 *                            [--sockets 16] [--warmup 0.5] [--seconds 3] [--stall 10]
 *
 * Each socket sends a JSON text message of about `--bytes` bytes (a move's shape, padded),
 * waits for the server to echo it back (checked: same length), and sends the next one.
 * Sockets are opened one after the other so that they spread over gunicorn's workers (as
 * sockets.js does). Lines for the caller start with "@@ ": `{"event":"measuring"}` and
 * `{"event":"measured"}` at the window's ends (the caller samples server CPU there), then
 * one JSON result. A message counts when it was sent inside the window.
 */
const { performance } = require('perf_hooks');
const WebSocket = require('ws');

function parseArgs(argv) {
  const args = { url: '', bytes: 100, sockets: 16, warmup: 0.5, seconds: 3, stall: 10 };
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i].replace(/^--/, '');
    if (!(key in args)) throw new Error(`unknown argument ${argv[i]}`);
    args[key] = typeof args[key] === 'number' ? Number(argv[i + 1]) : argv[i + 1];
  }
  if (!args.url) throw new Error('--url is required');
  return args;
}

function say(payload) {
  process.stdout.write(`@@ ${JSON.stringify(payload)}\n`);
}

/** A move-shaped JSON message padded to `bytes` (at least its unpadded length). */
function message(bytes) {
  const base = {
    type: 'action',
    action: { type: 'place', size: 'T', tile: [-1, 0] },
    expected_version: 1,
    command_id: 'bench-1',
    pad: '',
  };
  const bare = JSON.stringify(base).length;
  base.pad = 'x'.repeat(Math.max(0, bytes - bare));
  return JSON.stringify(base);
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

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const text = message(args.bytes);
  const sockets = [];
  for (let i = 0; i < args.sockets; i += 1) sockets.push(await connect(args.url));
  const from = performance.now() + args.warmup * 1000;
  const end = from + args.seconds * 1000;
  let counted = 0;
  let errors = 0;
  const firstErrors = [];
  const latencies = [];
  const fail = (why) => {
    errors += 1;
    if (firstErrors.length < 5) firstErrors.push(why);
  };
  const done = sockets.map(
    (ws) =>
      new Promise((resolve) => {
        let sentAt = 0;
        let finished = false;
        const finish = () => {
          if (finished) return;
          finished = true;
          ws.close(1000);
          resolve();
        };
        const send = () => {
          sentAt = performance.now();
          ws.send(text);
        };
        ws.on('message', (data) => {
          const now = performance.now();
          if (data.length !== text.length) fail(`echo of ${data.length} bytes, sent ${text.length}`);
          if (sentAt >= from && sentAt < end) {
            counted += 1;
            latencies.push(now - sentAt);
          }
          if (now < end) send();
          else finish();
        });
        ws.on('close', () => {
          if (!finished) fail('socket closed by the server');
          finished = true;
          resolve();
        });
        ws.on('error', (error) => fail(String(error)));
        const watchdog = setInterval(() => {
          if (finished) clearInterval(watchdog);
          else if (performance.now() - sentAt > args.stall * 1000) {
            fail('stalled');
            clearInterval(watchdog);
            finish();
          }
        }, 100);
        send();
      })
  );
  const tell = (event, at) =>
    new Promise((resolve) =>
      setTimeout(() => {
        say({ event });
        resolve();
      }, Math.max(0, at - performance.now()))
    );
  await Promise.all([tell('measuring', from), tell('measured', end), ...done]);
  latencies.sort((a, b) => a - b);
  const pct = (p) =>
    latencies.length ? latencies[Math.max(1, Math.ceil((p / 100) * latencies.length)) - 1] : null;
  say({
    messages: counted,
    seconds: args.seconds,
    rate_per_s: counted / args.seconds,
    p50_ms: pct(50),
    p99_ms: pct(99),
    bytes: text.length,
    errors,
    first_errors: firstErrors,
  });
}

main().then(
  () => process.stdout.write('', () => process.exit(0)),
  (error) => {
    process.stderr.write(`echo driver failed: ${error && error.stack ? error.stack : error}\n`);
    process.exit(1);
  }
);
