// What every page shares: calling the public API, keeping tokens, building elements, words.
// The pages call nothing but /v1 (as any client could), with the viewer's own token.

/** The hosted games, as the API names them, with their seat counts and options. */
export const GAMES = {
  arktia: {
    title: "Arktia", seats: [2, 4],
    options: [
      { name: "turn_limit", kind: "integer", min: 1, hint: "turns before the game ends (300)" },
      { name: "neutrals_3p", kind: "boolean", hint: "neutral pieces with 3 players" },
    ],
  },
  iceberg: {
    title: "Iceberg", seats: [2, 4],
    options: [
      { name: "idle_turn_limit", kind: "integer", min: 0, hint: "idle turns before a draw (100; 0: off)" },
    ],
  },
  "ice-breakers": {
    title: "Ice Breakers to the Rescue", seats: [2, 4],
    options: [{ name: "intro", kind: "boolean", hint: "the introductory game" }],
  },
};
export const BOTS = ["random", "greedy", "mcts"];

/**
 * An API error. `words` is what a person reads: the server's message as a sentence (the API
 * writes its refusals for people). The status and stable code are for programs and bug
 * reports: `reference` gives them, for a tooltip (a `title`) rather than the sentence.
 */
export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
  get words() {
    const text = String(this.message || "").trim() || "Refused";
    const sentence = text[0].toUpperCase() + text.slice(1);
    return /[.!?)]$/.test(sentence) ? sentence : `${sentence}.`;
  }
  get reference() {
    return `HTTP ${this.status} · ${this.code}`;
  }
}

/**
 * Call the API. Resolves to the parsed JSON (or text for SVG and NDJSON); rejects with an
 * ApiError carrying the answer's status, code and message.
 */
export async function api(path, { method = "GET", token = null, json, body, type } = {}) {
  const headers = {};
  if (token) headers.Authorization = `Bearer ${token}`;
  let payload = body;
  if (json !== undefined) {
    headers["Content-Type"] = "application/json";
    payload = JSON.stringify(json);
  } else if (type) {
    headers["Content-Type"] = type;
  }
  let response;
  try {
    response = await fetch(path, { method, headers, body: payload, cache: "no-store" });
  } catch (error) {
    throw new ApiError(0, "network", `Floe does not answer (${error.message})`);
  }
  const kind = (response.headers.get("Content-Type") || "").split(";")[0];
  if (!response.ok) {
    let code = "http_error";
    let message = response.statusText || "refused";
    if (kind === "application/json") {
      try {
        const parsed = await response.json();
        code = parsed.error.code;
        message = parsed.error.message;
      } catch (_) { /* keep the status line */ }
    }
    throw new ApiError(response.status, code, message);
  }
  if (response.status === 204) return null;
  if (kind === "application/json") return response.json();
  return response.text();
}

// ----- tokens: localStorage, keyed by game id (or table id before the game exists) -----

const KEY = (kind, id) => `floe:${kind}:${id}`;

export function storedToken(kind, id) {
  try {
    return localStorage.getItem(KEY(kind, id));
  } catch (_) {
    return null;
  }
}

export function storeToken(kind, id, token) {
  try {
    localStorage.setItem(KEY(kind, id), token);
  } catch (_) { /* private mode: the page still works while it stays open */ }
}

/** A table's seat token becomes the game's: keep it under the game id once known. */
export function adoptTableToken(tableId, gameId) {
  const token = storedToken("table", tableId);
  if (token && gameId && !storedToken("game", gameId)) storeToken("game", gameId, token);
  return token;
}

/**
 * The game's token from a `#token=...` link (the fragment never reaches a server): stored,
 * then removed from the address bar. Returns the token this browser holds for the game.
 */
export function tokenForGame(gameId) {
  const fragment = new URLSearchParams(location.hash.slice(1));
  const given = fragment.get("token");
  if (given) {
    storeToken("game", gameId, given);
    fragment.delete("token");
    const rest = fragment.toString();
    history.replaceState(null, "", location.pathname + location.search + (rest ? `#${rest}` : ""));
  }
  return storedToken("game", gameId);
}

/** A fresh command id (crypto.randomUUID needs a secure context; fall back to random bytes). */
export function commandId() {
  if (crypto.randomUUID) return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

// ----- elements -----

/** `h("li", {class: "x", dataset: {testid: "event"}}, "text", child)` */
export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (name === "dataset") Object.assign(node.dataset, value);
    else if (name === "on") for (const [event, fn] of Object.entries(value)) node.addEventListener(event, fn);
    else if (name === "text") node.textContent = value;
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** Save `text` as the file `name` (a download: nothing leaves the browser). */
export function saveFile(name, text, type = "application/json") {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = h("a", { href: url, download: name, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60000); // long after the download has read it
}

/** Replace `container`'s content with the SVG document `text` (parsed, never run). */
export function showSvg(container, text) {
  const parsed = new DOMParser().parseFromString(text, "image/svg+xml");
  const root = parsed.documentElement;
  if (root.nodeName !== "svg") {
    container.textContent = "The board cannot be drawn.";
    return null;
  }
  for (const script of root.querySelectorAll("script, foreignObject")) script.remove();
  const svg = document.importNode(root, true);
  container.replaceChildren(svg);
  return svg;
}

// ----- words -----

export function gameTitle(game) {
  return (GAMES[game] && GAMES[game].title) || game;
}

export function seatName(seats, seat) {
  if (typeof seat !== "number") return String(seat);
  const info = seats && seats.find((s) => s.seat === seat);
  return info ? `${info.name} (seat ${seat}${info.bot ? `, ${info.bot} bot` : ""})` : `seat ${seat}`;
}

const LONG_LIST = 8; // a list longer than this (a 36-card shuffle) shows its first few items
const SHOWN_ITEMS = 5;

/**
 * A value in an action or event, compactly: [1, 2] as 1,2; objects as key value; a long
 * list as its first few items and its length ("c07,c12,c01,c30,c22 … (36)").
 */
export function compact(value) {
  if (Array.isArray(value)) {
    const long = value.length > LONG_LIST;
    const shown = long ? value.slice(0, SHOWN_ITEMS) : value;
    const more = long ? ` … (${value.length})` : "";
    return shown.every((v) => typeof v !== "object" || v === null)
      ? `${shown.join(",")}${more}`
      : `[${shown.map(compact).join("; ")}${more}]`;
  }
  if (value && typeof value === "object") {
    return Object.entries(value).map(([k, v]) => `${k} ${compact(v)}`).join(" ");
  }
  return String(value);
}

/** An action as a short line: its type, then its fields. */
export function describeAction(action) {
  const rest = Object.entries(action).filter(([k]) => k !== "type");
  return rest.length ? `${action.type.replaceAll("_", " ")}: ${rest.map(([k, v]) => `${k} ${compact(v)}`).join(", ")}` : action.type.replaceAll("_", " ");
}

/**
 * The seat a `resign`, `timeout` or forfeit `decision` event takes out of the game, and how
 * (`resigned`, `timed out`, `forfeited`); null for any other event.
 */
export function departureOf(event) {
  const data = event.data || {};
  let seat = null;
  let how = null;
  if (event.type === "resign") [seat, how] = [event.actor, "resigned"];
  else if (event.type === "timeout") [seat, how] = [data.seat, "timed out"];
  else if (event.type === "decision" && data.decision === "forfeit") [seat, how] = [data.seat, "forfeited"];
  return typeof seat === "number" ? { seat, how } : null;
}

/** `Ada (seat 0) wins`, `Ada (seat 0) and Bo (seat 1) win`, `nobody wins`. */
function winnersWords(winners, seats) {
  const names = (winners || []).map((w) => seatName(seats, w));
  if (!names.length) return "nobody wins";
  if (names.length === 1) return `${names[0]} wins`;
  return `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]} win`;
}

/**
 * A resignation, a timeout or an organizer's decision as a sentence (`Bo (seat 1) timed
 * out`, `the organizer forfeited Cy (seat 2): did not show up`); null for other events.
 */
export function departureWords(event, seats) {
  const data = event.data || {};
  if (event.type === "resign") return `${seatName(seats, event.actor)} resigned`;
  if (event.type === "timeout") return `${seatName(seats, data.seat)} timed out`;
  if (event.type !== "decision") return null;
  if (data.decision === "forfeit") return `the organizer forfeited ${seatName(seats, data.seat)}: ${data.reason}`;
  return `the organizer decided the result: ${winnersWords(data.winners, seats)} (${data.reason})`;
}

/** An event as a line: version, who, what, when (a departure: version, the sentence, when). */
export function describeEvent(event, seats) {
  const when = event.at ? ` · ${event.at.replace("T", " ").replace("Z", " UTC")}` : "";
  const sentence = departureWords(event, seats);
  if (sentence !== null) return `v${event.version} · ${sentence}${when}`;
  const who = event.actor === "system" ? "system" : seatName(seats, event.actor);
  let what = event.type.replaceAll("_", " ");
  const data = event.data || {};
  if (data.action) what = describeAction(data.action);
  else if (event.type === "random") what = `random ${data.kind || ""} ${data.label || ""}${data.outcome === null || data.outcome === undefined ? " (hidden)" : `: ${compact(data.outcome)}`}`;
  else if (event.type === "game_over" && data.outcome) what = `game over: ${outcomeWords(data.outcome, seats)}`;
  return `v${event.version} · ${who} · ${what}${when}`;
}

export function outcomeWords(outcome, seats) {
  if (!outcome) return "";
  const winners = (outcome.winners || []).map((w) => seatName(seats, w));
  const scores = outcome.scores
    ? Object.entries(outcome.scores).map(([s, p]) => `${seatName(seats, Number(s))} ${p}`).join(", ")
    : "";
  return `winners: ${winners.length ? winners.join(", ") : "nobody"}${scores ? ` · scores: ${scores}` : ""}`;
}

/** Seconds as a clock shows them: `0:30`, `12:05`, `1:00:00`. */
export function clockWords(seconds) {
  const total = Math.max(0, Math.floor(seconds));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const secs = String(total % 60).padStart(2, "0");
  return hours ? `${hours}:${String(minutes).padStart(2, "0")}:${secs}` : `${minutes}:${secs}`;
}

/** A clock as `game_created` records it, in words: `0:30 per move`, `5:00 + 10 s a move`. */
export function clockKindWords(clock) {
  if (!clock) return "";
  if (clock.kind === "per_move") return `${clockWords(clock.move_s)} per move`;
  if (clock.kind === "fischer") return `${clockWords(clock.initial_s)} + ${clock.increment_s} s a move (Fischer)`;
  return String(clock.kind);
}

export const STATUS_WORDS = { active: "in play", awaiting_random: "waiting for a draw", over: "over" };

export function statusWords(status) {
  return STATUS_WORDS[status] || String(status).replaceAll("_", " ");
}
