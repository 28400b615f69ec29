// The lobby: open tables to join, a form to open one, the games in play, the tournaments.
// Opening or joining, a person may sign their moves: the page makes an Ed25519 key, keeps it
// in this browser and gives the seat its public key (the game page then signs every move
// with it). Tournaments are listed for people to find and follow; the organizer makes them
// through the API.
import {
  ApiError, BOTS, GAMES, adoptTableToken, api, gameTitle, h, statusWords, storeToken, storedToken,
} from "./api.js";
import { dropKey, makeKey } from "./keys.js";

const $ = (id) => document.getElementById(id);
const message = $("message");
const MY_TABLES = "floe:my-tables";
const POLL_MS = 1000;
const LIST_MS = 5000;
const GAMES_PAGE = 20;
// How many pages of games the list shows: "More games" adds one; each refresh rereads them.
let gamesPages = 1;
const TOURNAMENTS_PAGE = 10;
// How many pages of tournaments the list shows: "More tournaments" adds one, as for games.
let tournamentsPages = 1;

function say(text, kind = "") {
  message.className = kind;
  message.textContent = text;
}

function myTables() {
  try {
    return JSON.parse(localStorage.getItem(MY_TABLES) || "[]");
  } catch (_) {
    return [];
  }
}

function remember(tableId) {
  const ids = [tableId, ...myTables().filter((id) => id !== tableId)].slice(0, 10);
  try {
    localStorage.setItem(MY_TABLES, JSON.stringify(ids));
  } catch (_) { /* not kept across reloads */ }
}

function forget(tableId) {
  try {
    localStorage.setItem(MY_TABLES, JSON.stringify(myTables().filter((id) => id !== tableId)));
  } catch (_) { /* nothing kept */ }
}

// ----- the table form -----

const SEAT_KINDS = [
  ["person", "a person"],
  ...BOTS.map((bot) => [`bot:${bot}`, `a ${bot} bot`]),
  ["open", "an open seat"],
];

function seatRow(kind, name) {
  const index = $("seats").children.length;
  const select = h("select", { "aria-label": `seat ${index}: who`, name: "kind" },
    SEAT_KINDS.map(([value, words]) => h("option", { value, selected: value === kind }, words)));
  const input = h("input", {
    "aria-label": `seat ${index}: name`, name: "name", maxlength: 40, value: name,
    placeholder: "name",
  });
  const sync = () => {
    input.disabled = select.value === "open";
    if (select.value.startsWith("bot:") && !input.value) input.value = `${select.value.slice(4)} bot`;
  };
  select.addEventListener("change", sync);
  sync();
  return h("div", { class: "seat-row" }, h("span", { class: "muted" }, `Seat ${index}`), select, input);
}

function renderOptions() {
  const game = GAMES[$("new-game").value];
  $("options").replaceChildren(...game.options.map((option) => {
    const id = `option-${option.name}`;
    const input = option.kind === "boolean"
      ? h("input", { type: "checkbox", id, name: option.name })
      : h("input", { type: "number", id, name: option.name, min: option.min, step: 1, inputmode: "numeric", placeholder: "default" });
    return h("div", { class: "row" }, h("label", { for: id }, option.name.replaceAll("_", " ")), input,
      h("span", { class: "muted" }, option.hint));
  }));
}

function seatCountFits() {
  const [low, high] = GAMES[$("new-game").value].seats;
  const n = $("seats").children.length;
  $("add-seat").disabled = n >= high;
  $("remove-seat").disabled = n <= low;
}

/** A new key for this browser's seat when `box` (a "Sign my moves" checkbox) is ticked. */
async function keyIfAsked(box) {
  if (!box.checked) return null;
  try {
    return await makeKey();
  } catch (error) {
    throw new Error(`This browser cannot make or keep a signing key (${error.message || error}): untick “Sign my moves” to play unsigned.`);
  }
}

/** The table's body; `publicKey` goes to the first person's seat, the one this browser gets. */
function formBody(publicKey) {
  const game = $("new-game").value;
  let keyed = false;
  const seats = [...$("seats").children].map((row) => {
    const kind = row.querySelector("select").value;
    const name = row.querySelector("input").value.trim();
    if (kind === "open") return { open: true };
    if (kind.startsWith("bot:")) return { name, bot: kind.slice(4) };
    if (publicKey && !keyed) {
      keyed = true;
      return { name, public_key: publicKey };
    }
    return { name };
  });
  const options = {};
  for (const option of GAMES[game].options) {
    const input = $(`option-${option.name}`);
    if (option.kind === "boolean") {
      if (input.checked) options[option.name] = true;
    } else if (input.value !== "") {
      options[option.name] = Number(input.value);
    }
  }
  return { game, seats, options };
}

async function openTable(event) {
  event.preventDefault();
  const button = $("open-table");
  button.disabled = true;
  let key = null;
  try {
    const person = [...$("seats").children].some((row) => row.querySelector("select").value === "person");
    if (person) key = await keyIfAsked($("sign-moves"));
    const opened = await api("/v1/tables", { method: "POST", json: formBody(key && key.public_key) });
    key = null; // the seat has it now
    storeToken("host", opened.id, opened.host_token);
    const [mine, ...others] = opened.tokens || [];
    if (mine) storeToken("table", opened.id, mine.token);
    if (others.length) storeToken("others", opened.id, JSON.stringify(others));
    remember(opened.id);
    say(`Table opened for ${gameTitle(opened.game)}.`, "ok");
    follow(opened.id, opened);
  } catch (error) {
    if (key) dropKey(key.public_key);
    say(error instanceof ApiError ? `Cannot open the table: ${error.words}` : error.message || String(error), "error");
  } finally {
    button.disabled = false;
    refreshTables();
  }
}

// ----- following a table this browser sits at, until its game starts -----

let following = null;

function follow(tableId, table) {
  following = tableId;
  showMyTable(table);
  if (table.game_id) {
    enter(table);
    return;
  }
  const poll = async () => {
    if (following !== tableId) return;
    try {
      const now = await api(`/v1/tables/${tableId}`);
      showMyTable(now);
      if (now.game_id) {
        enter(now);
        return;
      }
      if (now.status !== "open") {
        say(`The table is ${now.status}.`, "error");
        forget(tableId);
        return;
      }
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) {
        say("The table is gone (expired).", "error");
        forget(tableId);
        return;
      }
    }
    setTimeout(poll, POLL_MS);
  };
  setTimeout(poll, POLL_MS);
}

/** The table's game has started: this browser's seat token is now the game's; go play. */
function enter(table) {
  adoptTableToken(table.id, table.game_id);
  const others = storedToken("others", table.id);
  if (others && !storedToken("others", table.game_id)) storeToken("others", table.game_id, others);
  forget(table.id);
  location.assign(`/games/${encodeURIComponent(table.game_id)}`);
}

function seatWords(seat) {
  if (seat.open) return `seat ${seat.seat}: open`;
  return `seat ${seat.seat}: ${seat.name}${seat.bot ? ` (${seat.bot} bot)` : ""}`;
}

function showMyTable(table) {
  const host = storedToken("host", table.id);
  const mine = storedToken("table", table.id);
  const body = [
    h("p", {}, `${gameTitle(table.game)} · table ${table.id} · `, h("b", {}, table.status),
      table.status === "open" ? " · waiting for every open seat to be taken" : ""),
    h("ul", {}, table.seats.map((seat) => h("li", {}, seatWords(seat)))),
  ];
  if (!mine) body.push(h("p", { class: "muted" }, "No seat here is yours: you will watch the game."));
  if (host && table.status === "open") {
    body.push(h("button", {
      type: "button", class: "secondary",
      on: { click: () => cancel(table.id, host) },
    }, "Cancel the table"));
  }
  $("my-table-body").replaceChildren(...body);
  $("my-table").hidden = false;
}

async function cancel(tableId, host) {
  try {
    await api(`/v1/tables/${tableId}`, { method: "DELETE", token: host });
    following = null;
    forget(tableId);
    $("my-table").hidden = true;
    say("Table cancelled.", "ok");
  } catch (error) {
    say(`Cannot cancel: ${error.words || error}`, "error");
  }
  refreshTables();
}

// ----- open tables -----

async function join(table, button) {
  const name = $("join-name").value.trim();
  if (!name) {
    say("Type your name first, then join.", "error");
    $("join-name").focus();
    return;
  }
  button.disabled = true;
  let key = null;
  try {
    key = await keyIfAsked($("sign-join"));
    const body = key ? { name, public_key: key.public_key } : { name };
    const joined = await api(`/v1/tables/${table.id}/join`, { method: "POST", json: body });
    key = null; // the seat has it now
    storeToken("table", table.id, joined.token);
    remember(table.id);
    say(`You sit at seat ${joined.seat}.`, "ok");
    follow(table.id, joined.table);
  } catch (error) {
    if (key) dropKey(key.public_key);
    const why = error instanceof ApiError && error.status === 409
      ? `Too late: ${error.words}` : `Cannot join: ${error.words || error.message || error}`;
    say(why, "error");
    button.disabled = false;
    refreshTables();
  }
}

async function refreshTables() {
  let listed;
  try {
    listed = await api("/v1/tables?status=open");
  } catch (error) {
    $("tables").replaceChildren(h("li", { class: "error" }, `Cannot list tables: ${error.words || error}`));
    return;
  }
  const rows = listed.tables.map((table) => {
    const open = table.seats.filter((s) => s.open).length;
    const button = h("button", {
      type: "button", dataset: { testid: "join", table: table.id },
      "aria-label": `Join the ${gameTitle(table.game)} table ${table.id}`,
    }, "Join");
    button.addEventListener("click", () => join(table, button));
    return h("li", { dataset: { testid: "table", table: table.id } },
      h("div", { class: "row" }, h("b", {}, gameTitle(table.game)),
        h("span", { class: "muted" }, `${open} open seat${open === 1 ? "" : "s"}`), button),
      h("div", { class: "muted" }, table.seats.map(seatWords).join(" · ")));
  });
  $("tables").replaceChildren(...(rows.length ? rows : [h("li", { class: "muted" }, "No open table. Open one!")]));
}

// ----- games -----

/** The first `pages` pages of `GET /v1/games`, following the cursors; and whether more exist. */
async function listGames(pages) {
  const games = [];
  let cursor = null;
  for (let page = 0; page < pages; page += 1) {
    const query = new URLSearchParams({ limit: GAMES_PAGE });
    if (cursor) query.set("cursor", cursor);
    const listed = await api(`/v1/games?${query}`);
    games.push(...listed.games);
    cursor = listed.cursor;
    if (!cursor) break;
  }
  // A game archived while the pages were read may come twice (ids are stable): show it once.
  const seen = new Set();
  return { games: games.filter((game) => !seen.has(game.id) && seen.add(game.id)), more: cursor !== null };
}

async function refreshGames() {
  let listed;
  try {
    listed = await listGames(gamesPages);
  } catch (error) {
    $("games").replaceChildren(h("li", { class: "error" }, `Cannot list games: ${error.words || error}`));
    return;
  }
  const rows = listed.games.map((game) => {
    const mine = storedToken("game", game.id);
    const url = `/games/${encodeURIComponent(game.id)}`;
    return h("li", { dataset: { game: game.id, testid: "listed-game" } },
      h("div", { class: "row" }, h("b", {}, gameTitle(game.game)),
        h("span", {}, statusWords(game.status)), h("span", { class: "muted" }, `v${game.version}`),
        h("a", { href: url, class: "button secondary" }, mine && game.status !== "over" ? "Play" : game.status === "over" ? "See" : "Watch"),
        h("a", { href: `${url}/replay` }, "Replay")),
      h("div", { class: "muted" }, `${game.id} · ${game.players.join(", ")} · ${game.ended_at ? `ended ${game.ended_at}` : game.created_at}`));
  });
  $("games").replaceChildren(...(rows.length ? rows : [h("li", { class: "muted" }, "No games yet.")]));
  $("more-games").hidden = !listed.more;
}

// ----- tournaments -----

const TOURNAMENT_STATUS = { open: "waiting for its first round", running: "in play" };
const FORMATS = { swiss: "Swiss", round_robin: "round robin" };

/** The first `pages` pages of `GET /v1/tournaments` (newest first); and whether more exist. */
async function listTournaments(pages) {
  const tournaments = [];
  let total = 0;
  for (let page = 0; page < pages; page += 1) {
    const query = new URLSearchParams({ limit: TOURNAMENTS_PAGE, offset: page * TOURNAMENTS_PAGE });
    const listed = await api(`/v1/tournaments?${query}`);
    tournaments.push(...listed.tournaments);
    total = listed.total;
    if ((page + 1) * TOURNAMENTS_PAGE >= total) break;
  }
  // One created while the pages were read shifts the later pages by one: show each once.
  const seen = new Set();
  const unique = tournaments.filter((t) => !seen.has(t.id) && seen.add(t.id));
  return { tournaments: unique, more: pages * TOURNAMENTS_PAGE < total };
}

/** "Arktia · Swiss tournament": a tournament has no name of its own, so its game and format. */
function tournamentTitle(tournament) {
  return `${gameTitle(tournament.game)} · ${FORMATS[tournament.format] || tournament.format} tournament`;
}

function tournamentStatus(tournament) {
  const words = TOURNAMENT_STATUS[tournament.status] || tournament.status;
  return tournament.paused ? `${words} (paused)` : words;
}

function tournamentRow(tournament) {
  const url = `/tournaments/${encodeURIComponent(tournament.id)}`;
  const done = tournament.status === "finished" || tournament.status === "cancelled";
  return h("li", { dataset: { testid: "tournament", tournament: tournament.id } },
    h("div", { class: "row" }, h("b", {}, tournamentTitle(tournament)),
      h("span", { dataset: { testid: "tournament-status" } }, tournamentStatus(tournament)),
      h("span", { class: "muted" }, `round ${tournament.rounds_made} of ${tournament.planned_rounds}`),
      h("a", { href: url, class: "button secondary", "aria-label": `${done ? "See" : "Follow"} the ${tournamentTitle(tournament)} ${tournament.id}` },
        done ? "See" : "Follow")),
    h("div", { class: "muted" }, `${tournament.id} · ${tournament.players} players · ${tournament.created_at}`));
}

async function refreshTournaments() {
  let listed;
  try {
    listed = await listTournaments(tournamentsPages);
  } catch (error) {
    $("tournaments").replaceChildren(h("li", { class: "error" }, `Cannot list tournaments: ${error.words || error}`));
    return;
  }
  const rows = listed.tournaments.map(tournamentRow);
  $("tournaments").replaceChildren(...(rows.length ? rows : [h("li", { class: "muted" }, "No tournaments yet.")]));
  $("more-tournaments").hidden = !listed.more;
}

// ----- start -----

function start() {
  const select = $("new-game");
  select.replaceChildren(...Object.entries(GAMES).map(([name, game]) => h("option", { value: name }, game.title)));
  const seats = $("seats");
  seats.append(seatRow("person", ""));
  seats.append(seatRow("open", ""));
  select.addEventListener("change", () => {
    const [low, high] = GAMES[select.value].seats;
    while (seats.children.length > high) seats.lastChild.remove();
    while (seats.children.length < low) seats.append(seatRow("open", ""));
    renderOptions();
    seatCountFits();
  });
  $("add-seat").addEventListener("click", () => {
    seats.append(seatRow("open", ""));
    seatCountFits();
  });
  $("remove-seat").addEventListener("click", () => {
    seats.lastChild.remove();
    seatCountFits();
  });
  $("new-table").addEventListener("submit", openTable);
  $("refresh-tables").addEventListener("click", () => {
    refreshTables();
    refreshGames();
    refreshTournaments();
  });
  $("more-games").addEventListener("click", () => {
    gamesPages += 1;
    refreshGames();
  });
  $("more-tournaments").addEventListener("click", () => {
    tournamentsPages += 1;
    refreshTournaments();
  });
  renderOptions();
  seatCountFits();
  refreshTables();
  refreshGames();
  refreshTournaments();
  setInterval(() => {
    if (document.visibilityState === "visible") {
      refreshTables();
      refreshGames();
      refreshTournaments();
    }
  }, LIST_MS);
  resumeMyTables();
}

/** Tables this browser opened or joined earlier: show the first still open, or its game. */
async function resumeMyTables() {
  for (const id of myTables()) {
    try {
      const table = await api(`/v1/tables/${id}`);
      if (table.status === "open" || table.game_id) {
        showMyTable(table);
        if (table.game_id) {
          adoptTableToken(id, table.game_id);
          forget(id);
          say("Your table's game has started.", "ok");
          $("my-table-body").append(h("p", {}, h("a", { href: `/games/${encodeURIComponent(table.game_id)}`, class: "button" }, "Go to your game")));
        } else {
          follow(id, table);
        }
        return;
      }
      forget(id);
    } catch (_) {
      forget(id);
    }
  }
}

start();
