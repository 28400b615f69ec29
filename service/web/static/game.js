// One game, live. A browser holding a seat's token for this game plays it from here (and may
// resign it). A game played against a clock shows each seat's clock, ticking for a seat to act.
// A seat with a public key signs every action with the key this browser keeps for it (or, if
// the browser has none, says so and posts nothing); every receipt the service sends is kept.
import {
  ApiError, api, clockKindWords, clockWords, commandId, departureOf, describeAction,
  describeEvent, gameTitle, h, outcomeWords, saveFile, seatName, showSvg, statusWords,
  storeToken, storedToken, tokenForGame,
} from "./api.js";
import { cellAt, clickable, names } from "./board.js";
import { actionMessage, heldKey, importKey, keyFile, signWith } from "./keys.js";
import { keepReceipts, keptReceipts, receiptLines } from "./receipts.js";
import { follow } from "./stream.js";

const $ = (id) => document.getElementById(id);
const gameId = decodeURIComponent(location.pathname.split("/")[2] || "");
const base = `/v1/games/${encodeURIComponent(gameId)}`;
const EVENTS_PAGE = 250; // pages of events: a long game is read in a few quick requests
const WAIT_SECONDS = 10;
const TICK_MS = 250; // how often the running clock is redrawn (its text changes once a second)

let token = tokenForGame(gameId);
let view = null;
let seats = [];
let shownEvents = 0; // the last version listed in the events
let legal = null; // {version, actions}
let tile = null; // the cell picked on the board, or null
let posting = false;
let stop = null;
const departures = new Map(); // seat -> how it left ("resigned", "timed out", "forfeited"), from the events
let clockKind = null; // the clock game_created records, if any
let confirming = false; // the "Really resign?" question is open
let seatKey = null; // the public key of the seat this browser plays, if it signs
let signer = null; // this browser's key for it ({public_key, private_key}), if it holds it
let streamed = 0; // the last version the stream brought

function say(text, kind = "") {
  $("message").className = kind;
  $("message").textContent = text;
}

// ----- loading: one refresh at a time; a refresh asked for meanwhile runs right after -----

let running = null;
let again = false;

function refresh() {
  if (running) {
    again = true;
    return running;
  }
  running = (async () => {
    do {
      again = false;
      try {
        await load();
      } catch (error) {
        say(error instanceof ApiError ? error.words : String(error), "error");
      }
    } while (again);
    running = null;
  })();
  return running;
}

async function load() {
  let current;
  try {
    current = await api(base, { token });
  } catch (error) {
    if (token && error instanceof ApiError && (error.status === 401 || error.status === 403)) {
      say(`The token this browser held for this game is refused (${error.message}): you are watching.`, "error");
      dropToken();
      current = await api(base);
    } else {
      throw error;
    }
  }
  view = current;
  seats = current.seats;
  const mine = seated() ? seats.find((s) => s.seat === current.viewer) : null;
  seatKey = (mine && mine.public_key) || null;
  signer = heldKey(seatKey);
  await loadEvents();
  const svg = await api(`${base}/board.svg?version=${current.version}`, { token });
  showBoard(svg);
  if (token && current.viewer !== null && current.status !== "over") {
    legal = await api(`${base}/legal-actions`, { token });
    if (legal.version !== current.version) again = true; // the game moved meanwhile
  } else {
    legal = null;
  }
  render();
  // The stream ends by itself after the last event; stopping it sooner would lose receipts.
  if (current.status === "over" && stop && streamed >= current.version) {
    stop();
    stop = null;
  }
}

async function loadEvents() {
  for (;;) {
    const page = await api(`${base}/events?after=${shownEvents}&limit=${EVENTS_PAGE}`, { token });
    const list = $("events");
    for (const event of page.events) {
      const gone = departureOf(event);
      if (gone) departures.set(gone.seat, gone.how);
      if (event.type === "game_created") {
        clockKind = (event.data && event.data.clock) || null;
        showTournament(event.data && event.data.tournament);
      }
      list.append(h("li", { dataset: { testid: "event", version: event.version }, value: event.version }, describeEvent(event, seats)));
      shownEvents = event.version;
    }
    keep(page.events.map((event) => event.receipt)); // the events read carry theirs too
    if (page.events.length) list.lastElementChild.scrollIntoView({ block: "nearest" });
    if (page.events.length < EVENTS_PAGE) return;
  }
}

/** A tournament's game links back to its tournament (`game_created` names its slot). */
function showTournament(slot) {
  if (!slot) return;
  const link = $("tournament-link");
  link.href = `/tournaments/${encodeURIComponent(slot.id)}`;
  link.textContent = `Its tournament (round ${slot.round}, table ${slot.table})`;
  link.hidden = false;
}

function dropToken() {
  token = null;
  try {
    localStorage.removeItem(`floe:game:${gameId}`);
  } catch (_) { /* nothing stored */ }
}

// ----- drawing -----

function showBoard(text) {
  const board = $("board");
  const svg = showSvg(board, text);
  const canPick = Boolean(svg && legal !== null && clickable(svg));
  board.classList.toggle("clickable", canPick);
  if (svg) svg.addEventListener("click", (event) => pickCell(svg, event));
}

function pickCell(svg, event) {
  if (!legal || !legal.actions.length) return;
  const xy = cellAt(svg, event);
  if (!xy) return;
  tile = xy;
  renderActions();
  const first = $("actions").querySelector("button");
  if (first) first.focus();
}

function render() {
  document.title = `Floe · ${gameTitle(view.game)} ${view.id}`;
  $("title").textContent = `${gameTitle(view.game)} · ${view.id}`;
  $("status").textContent = statusWords(view.status);
  $("status").dataset.status = view.status;
  $("version").textContent = String(view.version);
  $("to-act").textContent = view.to_act.length
    ? view.to_act.map((s) => seatName(seats, s)).join(", ")
    : view.status === "awaiting_random" ? "nobody (a draw is due)" : "nobody";
  $("you").textContent = view.viewer === null || view.viewer === undefined
    ? "You are watching."
    : `You play ${seatName(seats, view.viewer)}${hasLeft(view.viewer) ? ` (${leftHow(view.viewer)})` : ""}.`;
  $("outcome").textContent = view.outcome ? `Game over · ${outcomeWords(view.outcome, seats)}` : "";
  const playing = legal !== null;
  $("play").hidden = !playing;
  $("board-hint").hidden = !(playing && $("board").classList.contains("clickable"));
  if (playing) renderActions();
  renderResign();
  renderSigning();
  renderReceipts();
  renderSeats();
  renderOthers();
}

function seated() {
  return Boolean(token) && view !== null && view.viewer !== null && view.viewer !== undefined;
}

/** A keyed seat whose key this browser does not hold: it cannot post anything. */
function keyMissing() {
  return seatKey !== null && signer === null;
}

// ----- signing: the seat's own key, kept in this browser -----

function renderSigning() {
  const box = $("signing");
  box.hidden = !seated();
  if (box.hidden) return;
  const status = $("signing-status");
  if (seatKey === null) {
    status.dataset.state = "unsigned";
    status.className = "muted";
    status.textContent = "Your seat has no key: your moves are not signed, so they rest on your seat's token and the host's word.";
  } else if (signer) {
    status.dataset.state = "signing";
    status.className = "ok";
    status.textContent = `Your moves are signed with your own key, kept in this browser (public key ${seatKey.slice(0, 16)}…). Download it to play this seat from another browser.`;
  } else {
    status.dataset.state = "missing";
    status.className = "error";
    status.textContent = `${seatName(seats, view.viewer)} signs its moves with its own key (public key ${seatKey.slice(0, 16)}…), and this browser does not hold it: no move can be sent from here. Import the key (saved with “Download my key” in the browser that made it) to play.`;
  }
  $("download-key").hidden = !signer;
  $("import-box").hidden = !keyMissing();
}

function downloadKey() {
  if (signer) saveFile(`floe-key-${signer.public_key.slice(0, 16)}.json`, keyFile(signer));
}

async function importPasted() {
  if (!seatKey) return;
  try {
    signer = await importKey($("import-key-text").value, seatKey);
    $("import-key-text").value = "";
    say("Key imported: this browser now signs this seat's moves.", "ok");
  } catch (error) {
    say(error instanceof Error ? error.message : String(error), "error");
  }
  render();
}

// ----- receipts -----

function keep(receipts) {
  if (keepReceipts(gameId, receipts)) renderReceipts();
}

function renderReceipts() {
  const count = keptReceipts(gameId).length;
  const button = $("download-receipts");
  button.dataset.count = String(count);
  button.textContent = `Download receipts (${count})`;
  button.disabled = count === 0;
}

function downloadReceipts() {
  saveFile(`floe-receipts-${gameId}.jsonl`, receiptLines(gameId), "application/x-ndjson");
}

/** A streamed event: keep its receipt, then read the game again. */
function streamedEvent(message) {
  if (message.id !== null && /^\d+$/.test(message.id)) streamed = Math.max(streamed, Number(message.id));
  try {
    keep(JSON.parse(message.data).receipt);
  } catch (_) { /* not JSON: nothing to keep */ }
  refresh();
}

function hasLeft(seat) {
  return (view.left || []).includes(seat);
}

function leftHow(seat) {
  return departures.get(seat) || "left the game";
}

// ----- seats and clocks -----

/** Whole seconds until `deadline` (the last second the seat may act in), never below 0. */
function secondsLeft(deadline) {
  return Math.max(0, Math.ceil((Date.parse(deadline) - Date.now()) / 1000));
}

function renderSeats() {
  const clocks = view.clock || null;
  $("clock-kind").hidden = !clocks;
  $("clock-kind").textContent = clocks ? `Clock: ${clockKindWords(clockKind) || "on"}` : "";
  $("seats").replaceChildren(...seats.map(({ seat }) => {
    const acting = view.to_act.includes(seat);
    const gone = hasLeft(seat) ? leftHow(seat) : null;
    const parts = [h("span", { class: "seat-name" }, seatName(seats, seat))];
    const clock = clocks && clocks[String(seat)];
    if (clock) {
      // Only a seat to act has a clock running (none once the game is over).
      const deadline = acting && clock.deadline ? clock.deadline : null;
      const seconds = deadline ? secondsLeft(deadline) : clock.remaining_s;
      parts.push(h("b", {
        class: "clock",
        title: deadline ? `time left: to act by ${deadline.replace("T", " ").replace("Z", " UTC")}` : "time left",
        dataset: {
          testid: "clock", seat: String(seat), running: String(Boolean(deadline)),
          remaining: String(clock.remaining_s), seconds: String(seconds), ...(deadline ? { deadline } : {}),
        },
      }, clockWords(seconds)));
    }
    const note = gone || (acting ? "to act" : "");
    parts.push(h("span", { class: "seat-note", dataset: { testid: "seat-status" } }, note, seat === view.viewer ? " (you)" : ""));
    return h("li", { dataset: { testid: "seat", seat: String(seat), ...(gone ? { left: gone } : {}) } }, parts);
  }));
}

/** Redraw each running clock from its deadline and the time now. */
function tick() {
  for (const clock of document.querySelectorAll("[data-testid=clock][data-deadline]")) {
    const seconds = String(secondsLeft(clock.dataset.deadline));
    if (clock.dataset.seconds === seconds) continue;
    clock.dataset.seconds = seconds;
    clock.textContent = clockWords(Number(seconds));
  }
}

// ----- resigning: a button, then an inline "Really resign?" with confirm and cancel -----

function renderResign() {
  const open = seated() && view.status !== "over" && !hasLeft(view.viewer) && !keyMissing();
  if (!open) confirming = false;
  $("resign-box").hidden = !open;
  $("resign").hidden = confirming;
  $("resign-ask").hidden = !confirming;
  $("resign").disabled = posting;
  $("resign-confirm").disabled = posting;
}

function askResign() {
  confirming = true;
  renderResign();
  $("resign-confirm").focus();
}

function cancelResign() {
  confirming = false;
  renderResign();
  $("resign").focus();
}

function resign() {
  if (!confirming || posting) return;
  confirming = false;
  post({ type: "resign" }, view.version);
}

function renderActions() {
  const box = $("actions");
  box.dataset.version = String(legal.version);
  const mine = view.to_act.includes(view.viewer);
  const filter = $("action-filter").value.trim().toLowerCase();
  let actions = legal.actions;
  if (tile) actions = actions.filter((a) => names(a, tile));
  if (filter) actions = actions.filter((a) => `${describeAction(a)} ${JSON.stringify(a)}`.toLowerCase().includes(filter));
  $("tile-choice").hidden = !tile;
  $("tile-words").textContent = tile ? `Actions naming ${tile.join(",")}: ${actions.length}` : "";
  if (keyMissing()) {
    box.replaceChildren(h("p", { class: "error", dataset: { testid: "no-key" } }, "This seat signs its moves with a key this browser does not hold, so nothing is sent from here: import the key under “Keys and receipts”."));
    return;
  }
  if (!legal.actions.length) {
    const words = hasLeft(view.viewer)
      ? `You are out of this game (${leftHow(view.viewer)}).`
      : mine ? "No action is open to you now." : "Not your turn: wait for the others.";
    box.replaceChildren(h("p", { class: "muted" }, words));
    return;
  }
  const groups = new Map();
  for (const action of actions) {
    if (!groups.has(action.type)) groups.set(action.type, []);
    groups.get(action.type).push(action);
  }
  const parts = [h("p", { class: "muted" }, `${legal.actions.length} legal action${legal.actions.length === 1 ? "" : "s"} at version ${legal.version}${actions.length !== legal.actions.length ? `, ${actions.length} shown` : ""}.`)];
  for (const [type, list] of groups) {
    parts.push(h("h3", {}, `${type.replaceAll("_", " ")} (${list.length})`));
    parts.push(h("div", { class: "choices" }, list.map((action) => h("button", {
      type: "button",
      disabled: posting,
      dataset: { testid: "legal-action", action: JSON.stringify(action) },
      on: { click: () => post(action, legal.version) },
    }, describeAction(action)))));
  }
  if (!actions.length) parts.push(h("p", { class: "muted" }, "No action matches."));
  box.replaceChildren(...parts);
}

function renderOthers() {
  const raw = storedToken("others", gameId);
  if (!raw) return;
  let others = [];
  try {
    others = JSON.parse(raw);
  } catch (_) {
    return;
  }
  $("other-links").replaceChildren(...others.map(({ seat, token: secret }) => {
    const url = `${location.origin}/games/${encodeURIComponent(gameId)}#token=${encodeURIComponent(secret)}`;
    return h("li", {}, `${seatName(seats, seat)}: `, h("a", { href: url, rel: "noreferrer" }, url));
  }));
  $("others").hidden = !others.length;
}

// ----- playing -----

async function post(action, version) {
  if (posting) return;
  if (keyMissing()) {
    say("This seat signs its moves and this browser does not hold its key: nothing was sent.", "error");
    return;
  }
  posting = true;
  const resigning = action.type === "resign";
  for (const button of $("actions").querySelectorAll("button")) button.disabled = true;
  renderResign();
  say(resigning ? "Resigning…" : "Sending your move…");
  try {
    const body = { action, expected_version: version, command_id: commandId() };
    if (signer) body.signature = await signWith(signer, actionMessage(gameId, version, action));
    const answer = await api(`${base}/actions?wait=${WAIT_SECONDS}`, { method: "POST", token, json: body });
    keep(answer && answer.receipts);
    say("");
    tile = null;
  } catch (error) {
    if (error instanceof ApiError && error.status === 409) {
      say(resigning
        ? `The game moved on before your resignation arrived (${error.message}): refreshed; resign again if you still mean to.`
        : `The game moved on before your move arrived (${error.message}): refreshed, choose again.`, "error");
    } else if (error instanceof ApiError) {
      say(`Refused: ${error.words}`, "error");
    } else {
      say(String(error), "error");
    }
  } finally {
    posting = false;
  }
  await refresh();
}

// ----- start -----

async function start() {
  if (!gameId) {
    say("No game named in the address.", "error");
    return;
  }
  $("replay-link").href = `/games/${encodeURIComponent(gameId)}/replay`;
  $("action-filter").addEventListener("input", () => legal && renderActions());
  $("clear-tile").addEventListener("click", () => {
    tile = null;
    renderActions();
  });
  $("resign").addEventListener("click", askResign);
  $("resign-cancel").addEventListener("click", cancelResign);
  $("resign-confirm").addEventListener("click", resign);
  $("resign-ask").addEventListener("keydown", (event) => {
    if (event.key === "Escape") cancelResign();
  });
  $("download-key").addEventListener("click", downloadKey);
  $("import-key").addEventListener("click", importPasted);
  $("download-receipts").addEventListener("click", downloadReceipts);
  renderReceipts();
  setInterval(tick, TICK_MS);
  if (token) storeToken("game", gameId, token);
  await refresh();
  if (!view) return;
  if (view.status === "over") return;
  stop = follow(`${base}/events/stream`, {
    after: shownEvents,
    token,
    onEvent: streamedEvent,
    onEnd: () => refresh(),
  });
}

start();
