// A game live over one WebSocket (`GET /v1/games/{id}/socket`, docs/guide/live-socket.md):
// the game's events as they are written, each with its receipt; the seat's legal actions,
// pushed whenever it is to act; and its actions, sent and answered on the same connection, so
// a move costs one message each way instead of an HTTP request. Events are handed on in
// stream.js's shape (`{id, type, data}`), so a page treats both alike.
//
// After a drop the connection reopens and says hello with `after` = the last version handed
// on: the events after it come next, none missing and none twice; then every action still
// unanswered is sent again unchanged (its command_id makes a second sending harmless).
//
// When the socket CANNOT be used, `onFail(last)` is called, once, and nothing more happens
// here; the page then follows the event stream and posts (stream.js, api.js). It cannot:
//   - when this browser has no WebSocket, or `new WebSocket` throws;
//   - when the first socket closes before it opens: the server refused the upgrade (429
//     too_many_streams, 503 streams_full, 404...), a proxy stripped `Upgrade`, or the page's
//     Content-Security-Policy forbade it (the browser reports each only as a close, 1006);
//   - when, having opened once, MAX_FAILURES sockets in a row fail: each closed before it
//     opened, had its hello refused, or closed within STEADY_MS of opening having brought
//     nothing at all.
// A socket closed 1000 once the game is over (its `game_over` came) is the end: `onEnd()`.
// Any other close, 1000 included (the server's `FLOE_SOCKET_MAX_SECONDS`), is a drop.

import { ApiError } from "./api.js";

const RETRY_MS = 2000; // between failed attempts, times the failures so far
const MAX_FAILURES = 3;
const STEADY_MS = 10000;
const NORMAL = 1000; // the WebSocket close code for "done"

/** The socket was given up with this action unanswered: send it another way (unchanged). */
export class SocketLost extends Error {}

/**
 * Follow the game at `path` (`/v1/games/{id}/socket`) from version `after`:
 * `onEvent({id, type, data})` for each event (data: the event's JSON, receipt included),
 * `onLegal({version, actions})` when the seat is to act, `onState("live" | "reconnecting")`,
 * `onEnd()` once a finished game's last event came, `onFail(last)` when the socket cannot be
 * used (above). Returns `{send(body), stop()}`: `send` takes the body `POST …/actions` takes
 * and resolves to the `accepted` message, or rejects with the ApiError POST would have given
 * (or SocketLost).
 */
export function live(path, { after = 0, token = null, onEvent, onLegal, onState, onEnd, onFail }) {
  const url = new URL(path, location.href);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  let last = after; // the last version handed on
  let over = false; // a `game_over` came: a close 1000 now is the end
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
      if (event.type === "game_over") over = true;
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

  /** The hello was refused (the one refusal naming no command): the server closes next. */
  function helloRefused(message) {
    return message.type === "refused" && message.command_id === null;
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
    let openedAt = null;
    let heard = false;
    let refused = false;
    socket.onopen = () => {
      if (stopped) return;
      openedAt = performance.now();
      everOpened = true;
      const hello = { type: "hello", after: last };
      if (token) hello.token = token;
      socket.send(JSON.stringify(hello));
      for (const { body } of pending.values()) transmit(body);
      if (onState) onState("live");
    };
    socket.onmessage = (message) => {
      if (stopped) return;
      let parsed;
      try {
        parsed = JSON.parse(message.data);
      } catch (_) {
        return; // not JSON: not the service's
      }
      heard = true;
      if (helloRefused(parsed)) refused = true;
      else receive(parsed);
    };
    socket.onclose = (closing) => {
      if (stopped || socket !== ws) return;
      ws = null;
      if (closing.code === NORMAL && over) {
        stopped = true;
        settleAll();
        if (onEnd) onEnd();
        return;
      }
      if (!everOpened) {
        giveUp();
        return;
      }
      const failed = openedAt === null || refused || (!heard && performance.now() - openedAt < STEADY_MS);
      failures = failed ? failures + 1 : 0;
      if (failures >= MAX_FAILURES) {
        giveUp();
        return;
      }
      if (onState) onState("reconnecting");
      timer = setTimeout(open, RETRY_MS * failures); // a steady socket's drop: at once
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
