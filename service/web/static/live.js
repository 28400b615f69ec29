// A game live over one WebSocket (`GET /v1/games/{id}/socket`, docs/guide/live-socket.md):
// the game's events as they are written, each with its receipt; the seat's legal actions,
// pushed whenever it is to act; and its actions, sent and answered on the same connection, so
// a move costs one message each way instead of an HTTP request. Events are handed on in
// stream.js's shape (`{id, type, data}`), so a page treats both alike.
//
// The server answers an accepted hello with `welcome` before anything else: a socket is
// "live" from its welcome, and one that then brings nothing is merely quiet (nothing newer).
//
// The close code says whether the end is final: 1000 after the welcome is the end (the game
// is over and its last event came): `onEnd()`. Any other close is a drop (1001: the socket's
// time is up; 1011: the server failed to follow the game; 1006: the network): the connection
// reopens at once and says hello with `after` = the last version handed on: the events after
// it come next, none missing and none twice; then every action still unanswered is sent
// again unchanged (its command_id makes a second sending harmless).
//
// When the socket CANNOT be used, `onFail(last)` is called, once, and nothing more happens
// here; the page then follows the event stream and posts (stream.js, api.js). It cannot:
//   - when this browser has no WebSocket, or `new WebSocket` throws;
//   - when the first socket closes before it opens: the server refused the upgrade (429
//     too_many_streams, 503 streams_full, 404...), a proxy stripped `Upgrade`, or the page's
//     Content-Security-Policy forbade it (the browser reports each only as a close, 1006);
//   - when, having opened once, MAX_FAILURES sockets in a row fail: each closed without its
//     welcome (before it opened, or its hello refused), or was closed 1011 having brought no
//     event. Failed attempts are retried after RETRY_MS times the failures so far.

import { ApiError } from "./api.js";

const RETRY_MS = 2000; // between failed attempts, times the failures so far
const MAX_FAILURES = 3;
const NORMAL = 1000; // the close code for "done": the game is over (and the page's own close)
const FAILED = 1011; // the close code for "the server failed to follow the game"

/** The socket was given up with this action unanswered: send it another way (unchanged). */
export class SocketLost extends Error {}

/**
 * Follow the game at `path` (`/v1/games/{id}/socket`) from version `after`:
 * `onEvent({id, type, data})` for each event (data: the event's JSON, receipt included),
 * `onLegal({version, actions})` when the seat is to act, `onState("live" | "reconnecting")`
 * ("live" once a socket is welcomed), `onEnd()` once a finished game's last event came,
 * `onFail(last)` when the socket cannot be used (above). Returns `{send(body), stop()}`:
 * `send` takes the body `POST …/actions` takes and resolves to the `accepted` message, or
 * rejects with the ApiError POST would have given (or SocketLost).
 */
export function live(path, { after = 0, token = null, onEvent, onLegal, onState, onEnd, onFail }) {
  const url = new URL(path, location.href);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  let last = after; // the last version handed on
  let ws = null;
  let everOpened = false;
  let failures = 0;
  let stopped = false;
  let timer = null;
  const pending = new Map(); // command_id -> {body, resolve, reject}, in the order sent

  function transmit(body) {
    ws.send(JSON.stringify({ type: "action", ...body }));
  }

  function receive(message) {
    if (message.type === "event") {
      const event = message.event;
      if (event.version <= last) return; // never handed on twice
      last = event.version;
      onEvent({ id: String(event.version), type: event.type, data: JSON.stringify(event) });
    } else if (message.type === "legal_actions") {
      if (onLegal) onLegal({ version: message.version, actions: message.actions });
    } else if (message.type === "accepted" || message.type === "refused") {
      const waiting = pending.get(message.command_id);
      if (!waiting) return; // an answer already had (sent twice, across a drop)
      pending.delete(message.command_id);
      if (message.type === "accepted") waiting.resolve(message);
      else waiting.reject(new ApiError(message.status, message.error.code, message.error.message));
    }
  }

  function giveUp() {
    stopped = true;
    settleAll();
    if (onFail) onFail(last);
  }

  /** Every unanswered action is handed back: the caller sends it another way. */
  function settleAll() {
    for (const waiting of pending.values()) waiting.reject(new SocketLost("the live socket is closed"));
    pending.clear();
  }

  function open() {
    timer = null;
    let socket;
    try {
      socket = new WebSocket(url.href);
    } catch (_) {
      giveUp();
      return;
    }
    ws = socket;
    let welcomed = false; // the server accepted this socket's hello
    let brought = false; // an event came on it
    socket.onopen = () => {
      if (stopped) return;
      everOpened = true;
      const hello = { type: "hello", after: last };
      if (token) hello.token = token;
      socket.send(JSON.stringify(hello));
      for (const { body } of pending.values()) transmit(body); // answered after the welcome
    };
    socket.onmessage = (message) => {
      if (stopped) return;
      let parsed;
      try {
        parsed = JSON.parse(message.data);
      } catch (_) {
        return; // not JSON: not the service's
      }
      if (parsed.type === "welcome") {
        welcomed = true;
        if (onState) onState("live");
        return;
      }
      if (parsed.type === "event") brought = true;
      receive(parsed); // a refused hello names no command: passed by (its close is a failure)
    };
    socket.onclose = (closing) => {
      if (stopped || socket !== ws) return;
      ws = null;
      if (closing.code === NORMAL && welcomed) {
        stopped = true;
        settleAll();
        if (onEnd) onEnd();
        return;
      }
      if (!everOpened) {
        giveUp();
        return;
      }
      const failed = !welcomed || (closing.code === FAILED && !brought);
      failures = failed ? failures + 1 : 0;
      if (failures >= MAX_FAILURES) {
        giveUp();
        return;
      }
      if (onState) onState("reconnecting");
      timer = setTimeout(open, failed ? RETRY_MS * failures : 0); // a drop: at once
    };
  }

  function send(body) {
    if (stopped) return Promise.reject(new SocketLost("the live socket is closed"));
    return new Promise((resolve, reject) => {
      pending.set(body.command_id, { body, resolve, reject });
      if (ws && ws.readyState === WebSocket.OPEN) transmit(body); // else sent once it opens
    });
  }

  function stop() {
    stopped = true;
    clearTimeout(timer);
    if (ws) ws.close(NORMAL);
    ws = null;
    settleAll();
  }

  if (typeof WebSocket !== "function") {
    stopped = true;
    queueMicrotask(() => onFail && onFail(last));
  } else {
    open();
  }
  return { send, stop };
}
