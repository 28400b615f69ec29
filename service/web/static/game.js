// One game, live. A browser holding a seat's token for this game plays it from here, by
// tapping the board or from the list of its legal actions (and may resign it). A game played
// against a clock shows each seat's clock, ticking for a seat to act.
// The page follows the game over a WebSocket (live.js) when it can, moves going out on the
// same socket; when it cannot, over the event stream (stream.js), moves posted.
// A seat with a public key signs every action with the key this browser keeps for it (or, if
// the browser has none, says so and posts nothing); every receipt the service sends is kept.
import {
  ApiError, api, clockKindWords, clockWords, commandId, departureOf, describeAction,
  describeEvent, gameTitle, h, outcomeWords, saveFile, seatName, showSvg, statusWords,
  storeToken, storedToken, tokenForGame,
} from "./api.js";
import {
  boardZoom, highlight, marks, namesSpot, placeWords, spotAt,
} from "./board.js";
import { actionMessage, heldKey, importKey, keyFile, signWith } from "./keys.js";
import { keepReceipts, keptReceipts, receiptLines } from "./receipts.js";
import { SocketLost, live } from "./live.js";
import { follow } from "./stream.js";
import { PACES, isLive, nextStep, rememberPace, rememberedPace, startVersion } from "./pace.js";

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
let picked = []; // the spots tapped on the board so far (each a list of places), or none
let zoom = null; // the board's zoom control (board.js)
let posting = false;
let stop = null;
const departures = new Map(); // seat -> how it left ("resigned", "timed out", "forfeited"), from the events
let clockKind = null; // the clock game_created records, if any
let confirming = false; // the "Really resign?" question is open
let seatKey = null; // the public key of the seat this browser plays, if it signs
let signer = null; // this browser's key for it ({public_key, private_key}), if it holds it
let streamed = 0; // the last version the stream (or the socket) brought
let socket = null; // live.js's connection, while the page follows the game over a socket
let pushed = null; // the legal actions the socket pushed last ({version, actions})

function say(text, kind = "") {
  $("message").className = kind;
  $("message").textContent = text;
  $("message").title = "";
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
        if (error instanceof ApiError && error.status === 404 && !view) {
          gone();
          break;
        }
        say(error instanceof ApiError ? error.words : String(error), "error");
        $("message").title = error instanceof ApiError ? error.reference : "";
      }
    } while (again);
    running = null;
  })();
  return running;
}

// ----- pace: a spectator may follow a fast game (bots') one version at a time (pace.js) -----
// Only the drawing is paced: the page reads the game as it was at the version it has reached.

let pace = null; // a pace id from pace.js, chosen at the first load; a seat's page is live
let drawn = null; // paced: the version the schedule has reached; null: draw the latest
let latest = 0; // the game's latest version known (read, or brought by the stream)
let gameOver = false; // the game itself is over (what is drawn may be older)
let lastStep = 0; // when the schedule last moved on (performance.now())
let stepTimer = null;
let onScreen = null; // the version drawn on the page now

function pacedNow() {
  return !token && pace !== null && !isLive(pace);
}

/** The version to draw, paced: where the schedule is (first: `#v=N`, else the latest). */
function pacedVersion(now) {
  if (drawn === null) {
    drawn = startVersion(location.hash, now);
    lastStep = performance.now(); // the next version comes one pace after this one
  }
  drawn = Math.min(drawn, now);
  return drawn;
}

/**
 * Whether a load reading version `at` was overtaken by a change of pace while it read (paused,
 * say): it then draws nothing, and the page is read again at the version now due.
 */
function stale(at) {
  if (!pacedNow() || at === drawn) return false;
  again = true;
  return true;
}

/** Set a timer for the next version to draw, if there is one and none is set. */
function schedule() {
  if (stepTimer !== null || !pacedNow() || drawn === null) return;
  const next = nextStep({ shown: drawn, latest, pace, lastStep, now: performance.now() });
  if (!next) return;
  stepTimer = setTimeout(() => {
    stepTimer = null;
    drawn = next.version;
    refresh(); // the pace counts from when this version is drawn (load sets lastStep)
  }, Math.max(0, next.at - performance.now()));
}

/** Choose a pace (`remember`: for this kind of game, in this browser). */
function setPace(id, remember) {
  if (remember) rememberPace(seats, id);
  pace = id;
  clearTimeout(stepTimer);
  stepTimer = null;
  if (isLive(id)) {
    drawn = null;
    refresh();
    return;
  }
  // Paced from the version on the screen: a version being read for the old pace is dropped.
  if (onScreen !== null) drawn = onScreen;
  lastStep = performance.now();
  renderPace();
  schedule();
}

function renderPace() {
  const box = $("pace-box");
  box.hidden = Boolean(token) || !view;
  if (box.hidden) return;
  const select = $("pace");
  if (!select.options.length) {
    select.replaceChildren(...PACES.map(({ id, words }) => h("option", { value: id }, words)));
  }
  select.value = pace;
  const behind = latest - view.version;
  box.dataset.latest = String(latest);
  $("catch-up").disabled = behind <= 0;
  $("pace-note").textContent = behind > 0
    ? `Showing version ${view.version}; the game is at ${latest}${gameOver ? " (over)" : ""}.`
    : isLive(pace) ? "Every move as it is made." : "Caught up: new moves come at this pace.";
}

/** The API knows no game by this id: say so, with the way back, and stop following. */
function gone() {
  if (stop) stop();
  stop = null;
  showLive("ended");
  $("message").className = "error";
  $("message").dataset.testid = "not-found";
  $("message").replaceChildren(`No game ${gameId} here. `, h("a", { href: "/" }, "Back to the lobby"));
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
  seats = current.seats;
  latest = Math.max(latest, current.version);
  gameOver = current.status === "over";
  if (pace === null) pace = token ? "live" : rememberedPace(seats);
  // Paced, the page draws the game as it was at the version the schedule has reached.
  const at = pacedNow() ? pacedVersion(current.version) : current.version;
  // Everything is read first and drawn after, at once: a change of pace meanwhile (paused,
  // say) drops what was read, so the board and the events listed never part.
  const atVersion = at === current.version ? current : await api(`${base}/state?version=${at}`, { token });
  const svg = await api(`${base}/board.svg?version=${at}`, { token });
  const events = await readEvents(at);
  if (stale(at)) return;
  view = atVersion;
  const mine = seated() ? seats.find((s) => s.seat === current.viewer) : null;
  seatKey = (mine && mine.public_key) || null;
  signer = heldKey(seatKey);
  listEvents(events);
  showBoard(svg);
  if (token && current.viewer !== null && current.status !== "over") {
    // The socket pushes the seat's legal actions after each event it is to act on.
    legal = pushed && pushed.version === current.version ? pushed : await api(`${base}/legal-actions`, { token });
    if (legal.version !== current.version) again = true; // the game moved meanwhile
  } else {
    legal = null;
  }
  render();
  onScreen = view.version;
  if (pacedNow()) lastStep = performance.now(); // drawn now: the next one a pace from here
  renderPace();
  schedule();
  // The stream ends by itself after the last event; stopping it sooner would lose receipts.
  if (current.status === "over" && stop && streamed >= current.version) {
    stop();
    stop = null;
    showLive("ended");
  }
}

/** The events after those listed, up to version `upTo` (the version to draw). */
async function readEvents(upTo) {
  const events = [];
  let after = shownEvents;
  while (after < upTo) {
    const limit = Math.min(EVENTS_PAGE, upTo - after);
    const page = await api(`${base}/events?after=${after}&limit=${limit}`, { token });
    events.push(...page.events);
    if (page.events.length) after = page.events[page.events.length - 1].version;
    if (page.events.length < limit) break;
  }
  return events;
}

/** Add `events` (read after those listed) to the list, and keep their receipts. */
function listEvents(events) {
  const list = $("events");
  for (const event of events) {
    if (event.version <= shownEvents) continue; // never listed twice
    const gone = departureOf(event);
    if (gone) departures.set(gone.seat, gone.how);
    if (event.type === "game_created") {
      clockKind = (event.data && event.data.clock) || null;
      showTournament(event.data && event.data.tournament);
    }
    list.append(h("li", { dataset: { testid: "event", version: event.version }, value: event.version }, describeEvent(event, seats)));
    shownEvents = event.version;
  }
  keep(events.map((event) => event.receipt)); // the events read carry theirs too
  if (events.length) list.scrollTop = list.scrollHeight; // the list's own box, never the page
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

let boardText = null; // the picture drawn now, as the API sent it

/**
 * Draw the board, unless the picture is the one drawn already: a refresh that changes nothing
 * keeps the board as it is (what is selected, and where a person panned to), and a new picture
 * keeps the pan too.
 */
function showBoard(text) {
  const box = $("board");
  if (text === boardText && box.querySelector("svg")) return;
  const [left, top] = [box.scrollLeft, box.scrollTop];
  const svg = showSvg(box, text);
  boardText = svg ? text : null;
  if (!svg) return;
  zoom.apply();
  [box.scrollLeft, box.scrollTop] = [left, top];
  svg.addEventListener("click", (event) => tapBoard(svg, event));
}

// ----- tapping the board (the rule is at the top of board.js) -----

/** The legal actions naming every spot tapped so far (all of them with none tapped). */
function narrowed(spots = picked) {
  if (!legal) return [];
  return legal.actions.filter((action) => spots.every((spot) => namesSpot(action, spot)));
}

function tapBoard(svg, event) {
  if (!legal || posting || keyMissing()) return;
  const spot = spotAt(svg, event);
  if (!spot.length) return;
  if (!legal.actions.length) {
    $("board-note").textContent = "No move is open to you now.";
    return;
  }
  let matching = narrowed([...picked, spot]);
  if (!matching.length && picked.length) {
    picked = []; // nothing names both: start over from this spot
    matching = narrowed([spot]);
  }
  if (!matching.length) {
    $("board-note").textContent = `Nothing can be done at ${placeWords(spot[0].place)} now.`;
    return;
  }
  if (matching.length === 1) {
    picked = [];
    post(matching[0], legal.version);
    return;
  }
  picked = [...picked, spot];
  renderActions();
  drawHighlights();
}

function dropSelection() {
  picked = [];
  if (legal) renderActions();
  drawHighlights();
}

/** Words for the selection: "Ship 7 selected: 3 actions". */
function selectionWords(count) {
  const names = picked.map((spot) => spot.map(({ place }) => placeWords(place)).join(" / "));
  return `${names.join(", then ")} selected: ${count} action${count === 1 ? "" : "s"}`;
}

/** One mark per place (a picture may mark a place twice: a cell, and what stands on it). */
function once(found) {
  return [...new Map(found.map((mark) => [mark.text, mark])).values()];
}

/**
 * Outline the board: the tapped places, and every other place the remaining actions name;
 * with nothing tapped on the seat's turn, lightly every place some legal action names.
 */
function drawHighlights() {
  const svg = $("board").querySelector("svg");
  if (!svg) return;
  $("board").dataset.picked = String(picked.length);
  const all = marks(svg);
  const canTap = Boolean(legal && legal.actions.length && !keyMissing()) && all.length > 0;
  $("board").classList.toggle("clickable", canTap);
  if (!canTap) {
    highlight(svg, {});
    return;
  }
  const chosen = new Set(picked.flat().map(({ text }) => text));
  const actions = narrowed();
  const named = once(all.filter((mark) => !chosen.has(mark.text) && actions.some((a) => namesSpot(a, [mark]))));
  if (!picked.length) {
    highlight(svg, { hint: named.map((mark) => mark.element) });
    return;
  }
  highlight(svg, {
    picked: once(all.filter((mark) => chosen.has(mark.text))).map((mark) => mark.element),
    target: named.map((mark) => mark.element),
  });
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
  $("rules-link").href = `/rules/${encodeURIComponent(view.game)}`;
  $("rules-link").textContent = `Rules of ${gameTitle(view.game)}`;
  $("rules-link").hidden = false;
  const playing = legal !== null;
  if (picked.length && !narrowed().length) picked = []; // the game moved: the selection is gone
  $("play").hidden = !playing;
  if (playing) renderActions();
  drawHighlights();
  $("board-hint").hidden = !(playing && $("board").classList.contains("clickable"));
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

/** A streamed event: keep its receipt, then read the game again (paced: in its turn). */
function streamedEvent(message) {
  if (message.id !== null && /^\d+$/.test(message.id)) streamed = Math.max(streamed, Number(message.id));
  try {
    keep(JSON.parse(message.data).receipt);
  } catch (_) { /* not JSON: nothing to keep */ }
  latest = Math.max(latest, streamed);
  if (!pacedNow()) {
    refresh();
    return;
  }
  renderPace(); // paced: the schedule draws it in its turn
  schedule();
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
  let actions = narrowed();
  const selected = actions.length;
  if (filter) actions = actions.filter((a) => `${describeAction(a)} ${JSON.stringify(a)}`.toLowerCase().includes(filter));
  $("tile-choice").hidden = !picked.length;
  $("tile-words").textContent = picked.length ? selectionWords(selected) : "";
  // Under the board, so the board never moves between two taps.
  $("board-note").textContent = picked.length ? `${selectionWords(selected)}: tap where to go, or choose from the list.` : "";
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
    keep(await send(body));
    say("");
    picked = [];
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

/**
 * Send an action: on the socket while the page follows the game on one, else posted. An
 * action the socket was given up with is posted, unchanged: if it was written already, its
 * command_id gets the same answer and writes nothing. Resolves to the receipts to keep (the
 * socket's come with each event instead). Rejects with the same ApiError either way, so a
 * refusal reads the same.
 */
async function send(body) {
  if (socket) {
    try {
      await socket.send(body);
      return [];
    } catch (error) {
      if (!(error instanceof SocketLost)) throw error;
    }
  }
  const answer = await api(`${base}/actions?wait=${WAIT_SECONDS}`, { method: "POST", token, json: body });
  return answer && answer.receipts;
}

// ----- following: a socket when it can, else the event stream -----
// live.js says exactly when a socket cannot be used (no WebSocket, the upgrade refused or
// closed before opening, or failing again and again to reopen); the page then follows the
// stream from the last version it has and posts its moves.

/** The transport in use, and its state, beside the facts: `data-transport` is `socket` or `sse`. */
function showLive(state, transport = null) {
  const box = $("live");
  if (transport) box.dataset.transport = transport;
  box.dataset.state = state;
  const way = box.dataset.transport === "socket" ? "a socket" : "a stream";
  box.textContent = state === "live" ? `live over ${way}` : state === "reconnecting" ? "reconnecting…" : "";
}

function followSocket() {
  socket = live(`${base}/socket`, {
    after: latest,
    token,
    onEvent: streamedEvent,
    onLegal: (offered) => { pushed = offered; },
    onState: (state) => showLive(state, "socket"),
    onEnd: () => {
      stop = null;
      showLive("ended");
      refresh();
    },
    onFail: (last) => {
      socket = null;
      followStream(Math.min(latest, last)); // from what the socket brought: no receipt skipped
    },
  });
  stop = socket.stop;
}

function followStream(after = latest) {
  showLive("connecting", "sse");
  stop = follow(`${base}/events/stream`, {
    after,
    token,
    onEvent: streamedEvent,
    onState: showLive,
    onEnd: () => {
      stop = null;
      showLive("ended");
      refresh();
    },
  });
}

// ----- start -----

async function start() {
  if (!gameId) {
    say("No game named in the address.", "error");
    return;
  }
  $("replay-link").href = `/games/${encodeURIComponent(gameId)}/replay`;
  $("action-filter").addEventListener("input", () => legal && renderActions());
  $("clear-tile").addEventListener("click", dropSelection);
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && picked.length) dropSelection();
  });
  zoom = boardZoom($("board"), $("board-zoom"));
  window.addEventListener("resize", () => zoom.apply());
  $("resign").addEventListener("click", askResign);
  $("resign-cancel").addEventListener("click", cancelResign);
  $("resign-confirm").addEventListener("click", resign);
  $("resign-ask").addEventListener("keydown", (event) => {
    if (event.key === "Escape") cancelResign();
  });
  $("download-key").addEventListener("click", downloadKey);
  $("import-key").addEventListener("click", importPasted);
  $("download-receipts").addEventListener("click", downloadReceipts);
  $("pace").addEventListener("change", () => setPace($("pace").value, true));
  $("catch-up").addEventListener("click", () => setPace("live", false)); // this page only
  renderReceipts();
  setInterval(tick, TICK_MS);
  if (token) storeToken("game", gameId, token);
  await refresh();
  if (!view) return;
  if (gameOver) return;
  followSocket();
}

start();
