// Every version of one game, as this viewer may see it: state, board and the event behind it.
import {
  ApiError, api, describeEvent, gameTitle, h, outcomeWords, seatName, showSvg, statusWords,
  tokenForGame,
} from "./api.js";
import { fromHash, stepper } from "./stepper.js";

const $ = (id) => document.getElementById(id);
const gameId = decodeURIComponent(location.pathname.split("/")[2] || "");
const base = `/v1/games/${encodeURIComponent(gameId)}`;
const HEAD_MS = 5000;

const token = tokenForGame(gameId);
let seats = [];
let steps = null;

function say(text, kind = "") {
  $("message").className = kind;
  $("message").textContent = text;
}

async function show(version) {
  try {
    const [state, svg, made] = await Promise.all([
      api(`${base}/state?version=${version}`, { token }),
      api(`${base}/board.svg?version=${version}`, { token }),
      api(`${base}/events?after=${version - 1}&limit=1`, { token }),
    ]);
    if (steps && steps.version() !== version) return; // a later step is on its way
    showSvg($("board"), svg);
    $("version").textContent = String(version);
    $("status").textContent = statusWords(state.status);
    $("to-act").textContent = state.to_act.length ? state.to_act.map((s) => seatName(seats, s)).join(", ") : "nobody";
    $("outcome").textContent = state.outcome ? `Game over · ${outcomeWords(state.outcome, seats)}` : "";
    const event = made.events[0];
    $("event").textContent = event ? describeEvent(event, seats) : "";
    $("event-data").textContent = event ? JSON.stringify(event.data, null, 1) : "";
    say("");
  } catch (error) {
    say(error instanceof ApiError ? `Cannot show version ${version}: ${error.words}` : String(error), "error");
  }
}

async function head() {
  try {
    return await api(base, { token });
  } catch (error) {
    if (token && error instanceof ApiError && (error.status === 401 || error.status === 403)) {
      return api(base);
    }
    throw error;
  }
}

async function start() {
  $("game-link").href = `/games/${encodeURIComponent(gameId)}`;
  let view;
  try {
    view = await head();
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) {
      $("message").className = "error";
      $("message").dataset.testid = "not-found";
      $("message").replaceChildren(`No game ${gameId} here. `, h("a", { href: "/" }, "Back to the lobby"));
    } else {
      say(error instanceof ApiError ? error.words : String(error), "error");
    }
    return;
  }
  seats = view.seats;
  document.title = `Floe · replay of ${gameTitle(view.game)} ${view.id}`;
  $("title").textContent = `Replay · ${gameTitle(view.game)} · ${view.id}`;
  $("rules-link").href = `/rules/${encodeURIComponent(view.game)}`;
  $("rules-link").textContent = `Rules of ${gameTitle(view.game)}`;
  $("rules-link").hidden = false;
  $("last").textContent = String(view.version);
  steps = stepper($("stepper"), { last: view.version, show });
  const wanted = fromHash();
  await steps.go(wanted === null ? view.version : wanted);
  if (view.status !== "over") {
    // a live game grows: keep the last version current
    const timer = setInterval(async () => {
      try {
        const now = await head();
        steps.setLast(now.version);
        $("last").textContent = String(now.version);
        if (now.status === "over") clearInterval(timer);
      } catch (_) { /* try again at the next tick */ }
    }, HEAD_MS);
  }
}

start();
