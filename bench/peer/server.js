'use strict';
/**
 * A boardgame.io server for the peer game, as its docs deploy one: `Server()` from
 * boardgame.io/server, socket.io transport and the Lobby API on one port.
 *
 *   node server.js --store memory|flatfile --port N [--dir DIR]
 *
 * `memory` is boardgame.io's default in-memory store; `flatfile` its FlatFile store
 * (node-persist, one file per key under DIR, written without fsync). When it is ready it
 * prints one line, `listening <port> <store>`, on stdout: the caller waits for that line
 * rather than sleeping. It binds 127.0.0.1 only (see `listenOnLoopback`).
 */
const fs = require('fs');
const os = require('os');
const path = require('path');
const { Server, FlatFile } = require('boardgame.io/server');
const { Bump } = require('./game');

function parseArgs(argv) {
  const args = { store: 'memory', port: 8000, dir: '' };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (flag === '--store') args.store = value;
    else if (flag === '--port') args.port = Number(value);
    else if (flag === '--dir') args.dir = value;
    else throw new Error(`unknown argument ${flag}`);
  }
  if (!['memory', 'flatfile'].includes(args.store)) {
    throw new Error(`--store must be memory or flatfile, not ${args.store}`);
  }
  return args;
}

/** The store: undefined lets Server() pick its default, the in-memory one. */
function makeStore(args) {
  if (args.store === 'memory') return undefined;
  const dir = args.dir || fs.mkdtempSync(path.join(os.tmpdir(), 'bgio-flatfile-'));
  return new FlatFile({ dir, logging: false });
}

/**
 * Server.run() listens on every interface and takes no host. koa-socket-2 has replaced
 * app.listen with a pass-through to the http server, so the host can be added here
 * without touching anything else boardgame.io sets up.
 */
function listenOnLoopback(app) {
  const listen = app.listen;
  app.listen = (port, callback) => listen.call(app, port, '127.0.0.1', callback);
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const server = Server({ games: [Bump], db: makeStore(args), origins: [] });
  listenOnLoopback(server.app);
  await server.run(args.port);
  process.stdout.write(`listening ${args.port} ${args.store}\n`);
  const stop = () => process.exit(0);
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((error) => {
  process.stderr.write(`server failed: ${error && error.stack ? error.stack : error}\n`);
  process.exit(1);
});
