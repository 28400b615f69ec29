// A game live over one WebSocket (`GET /v1/games/{id}/socket`, docs/guide/live-socket.md):
// the game's events as they are written, each with its receipt; the seat's legal actions,
// pushed whenever it is to act; and its actions, sent and answered on the same connection, so
// a move costs one message each way instead of an HTTP request. Events are handed on in
// stream.js's shape (`{id, type, data}`), so a page treats both alike.
//
// The server answers an accepted hello with `welcome` before anything else: a socket is
// "live" from its welcome, and one that then brings nothing is merely quiet (nothing newer).
// A socket with no welcome WELCOME_MS after it was made (a server or proxy that took the
// upgrade, or is still taking it, and never answers) is closed here: a failed attempt.
//
// The close code says whether the end is final, but only the server's word can be trusted,
// and a proxy or load balancer may close a socket 1000 mid-game. The server closes 1000 only
// after a finished game's last events (`game_over`, then `seed_revealed`, written together),
// or on a socket opened after them; so 1000 is final once a `game_over` has been handed on,
// on this socket or an earlier one: `onEnd()`. Any other close is a drop (a 1000 before the
// game_over: a proxy's; 1001: the socket's time is up; 1011: the server failed to follow the
// game; 1006: the network): the connection reopens at once and says hello with `after` = the
// last version handed on: the events after it come next, none missing and none twice; then
// every action still unanswered is sent again unchanged (its command_id makes a second
// sending harmless).
//
// When the socket CANNOT be used, `onFail(last)` is called, once, and nothing more happens
// here; the page then follows the event stream and posts (stream.js, api.js). It cannot:
//   - when this browser has no WebSocket, or `new WebSocket` throws;
//   - when the first socket closes (or is closed for want of its welcome) before it opens:
//     the server refused the upgrade (429 too_many_streams, 503 streams_full, 404...), a
//     proxy stripped `Upgrade`, or the page's Content-Security-Policy forbade it (the
//     browser reports each only as a close, 1006);
//   - when, having opened once, MAX_FAILURES sockets in a row fail: each closed without its
//     welcome (before it opened, its hello refused, or no welcome in WELCOME_MS), or was
//     closed 1011 or (before the game_over) 1000 having brought no event within LIVED_MS of
//     its welcome, so a proxy that closes every socket at once cannot keep the page
//     reopening (one that closes sockets after a while, on a quiet game, is no failure).
//     Failed attempts are retried after RETRY_MS times the failures so far; any other drop
//     resets the count and reopens at once.

import { ApiError } from "./api.js";

const RETRY_MS = 2000; // between failed attempts, times the failures so far
const MAX_FAILURES = 3;
// A welcome is one token look-up and one read of the game away (a store that does not answer
// is refused 503, then closed), so this long is a peer that will never answer, not a slow one:
// it matches the server's own 10 s for the hello, and leaves room for a slow phone link.
const WELCOME_MS = 10000;
// A socket welcomed this long ago is no failure, whatever closes it: it was in use.
const LIVED_MS = 30000;
const NORMAL = 1000; // "done": final once the game is over (and the page's own close)
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
  let over = false; // a game_over was handed on: the server's 1000 is final from now on
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
    let welcomedAt = 0;
    let brought = false; // an event came on it
    // From the socket's making, so an upgrade that never completes is bounded too. Not
    // waited out by its close: a peer that never answers never answers the close either.
    const noWelcome = setTimeout(() => {
      if (stopped || socket !== ws) return;
      socket.onopen = socket.onmessage = socket.onclose = null;
      socket.close(NORMAL);
      ended(null, false, false);
    }, WELCOME_MS);
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
        welcomedAt = Date.now();
        clearTimeout(noWelcome);
        if (onState) onState("live");
        return;
      }
      if (parsed.type === "event") brought = true;
      receive(parsed); // a refused hello names no command: passed by (its close is a failure)
    };
    socket.onclose = (closing) => {
      clearTimeout(noWelcome);
      if (stopped || socket !== ws) return;
      ended(closing.code, welcomed, brought || Date.now() - welcomedAt >= LIVED_MS);
    };
  }

  /** The current socket is done (closed with `code`, or given up for want of its welcome:
   *  null): the end, a drop reopened at once, a failure retried later, or the fallback.
   *  `brought`: an event came on it, or it lived LIVED_MS after its welcome. */
  function ended(code, welcomed, brought) {
    ws = null;
    if (code === NORMAL && over) {
      stopped = true;
      settleAll();
      if (onEnd) onEnd();
      return;
    }
    if (!everOpened) {
      giveUp();
      return;
    }
    const failed = !welcomed || (!brought && (code === FAILED || code === NORMAL));
    failures = failed ? failures + 1 : 0;
    if (failures >= MAX_FAILURES) {
      giveUp();
      return;
    }
    if (onState) onState("reconnecting");
    timer = setTimeout(open, failed ? RETRY_MS * failures : 0); // a drop: at once
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
