// One tournament, live. The page arrives rendered by the server; this follows the tournament's
// stream (the whole document at once and after every change) and redraws the status, the
// facts, the standings (place, points, a column per tie-break and the line saying what orders
// them), the decisions (each in words), the crosstable and the rounds (a corrected game says
// so) the way tournament.html draws them. Names are people's input: they only ever become
// text nodes.
//
// Opened with a player's token (`/tournaments/<id>#token=<token>`: the fragment never reaches
// a server), the page keeps the token in this browser, asks GET .../me who it is, and shows
// "Your games": the game to play now (a link that opens the game page as that seat, the token
// in its own fragment), the wait for the next round, and the results so far. Every document
// the stream sends says whether the player's next game exists: a new round seating them.
import { ApiError, api, h, statusWords, storeToken, storedToken } from "./api.js";
import { follow } from "./stream.js";

const $ = (id) => document.getElementById(id);
const tournamentId = decodeURIComponent(location.pathname.split("/")[2] || "");
const base = `/v1/tournaments/${encodeURIComponent(tournamentId)}`;
const GAME_STATUS = { pending: "not started yet" };
const TIEBREAKS = {
  buchholz: "Buchholz",
  buchholz_cut1: "Buchholz cut 1",
  median_buchholz: "Median Buchholz",
  sonneborn_berger: "Sonneborn-Berger",
  direct_encounter: "Direct encounter",
  wins: "Wins",
};
const OVER = ["finished", "cancelled"];

let stop = null;
let token = null; // a player's token for this tournament, if this browser holds one
let me = null; // {player, name} once GET .../me answered for the token
let latest = null; // the last document drawn

function say(text, kind = "") {
  $("message").className = kind;
  $("message").textContent = text;
}

// ----- drawing -----

/** A player by number: the name, the kind of bot when it is one, and whether withdrawn. */
function player(doc, number) {
  const info = doc.players[number];
  const parts = [h("span", { class: "player-name" }, info.name)];
  if (info.bot) parts.push(" ", h("span", { class: "bot" }, `(${info.bot} bot)`));
  if (info.withdrawn) parts.push(" ", h("span", { class: "withdrawn" }, "(withdrawn)"));
  return parts;
}

/** Rules version 1 orders equal points by Buchholz, then name: its one column is Buchholz. */
function firstRules(doc) {
  return doc.rules_version === "1";
}

function columns(doc) {
  return firstRules(doc) ? ["buchholz"] : doc.tiebreaks;
}

function tiebreak(name) {
  return TIEBREAKS[name] || name.replaceAll("_", " ");
}

/** What orders equal points, in words (as tournament.html says it). */
function tiebreakRule(doc) {
  const rule = "A win is worth 1 point (shared by joint winners), a bye 1.";
  if (firstRules(doc)) {
    return `${rule} Equal points go to the higher Buchholz (the sum of each opponent's points), then to the name: this tournament keeps the first rules (version 1).`;
  }
  if (doc.tiebreaks.length) {
    return `${rule} Equal points are ordered by ${doc.tiebreaks.map(tiebreak).join(", then ")} (more is better); players equal on all of them share a place. Names never decide.`;
  }
  return `${rule} Players equal on points share a place. Names never decide.`;
}

/** `seat 1 wins (Bo)`, `seats 0, 1 win (Ada, Bo)` or `nobody wins`: winning seats at a table. */
function seats(doc, winners, seated) {
  if (!winners.length) return "nobody wins";
  const names = winners.map((seat) => doc.players[seated[seat]].name).join(", ");
  const many = winners.length > 1;
  return `seat${many ? "s" : ""} ${winners.join(", ")} win${many ? "" : "s"} (${names})`;
}

/** What a decision did, in words: whom it withdrew or entered, which game it corrected. */
function what(doc, d) {
  if (d.decision === "withdraw") return `${doc.players[d.player].name} (player ${d.player})`;
  if (d.decision === "enter") return `${d.name}${d.bot ? ` (${d.bot} bot)` : ""} as player ${d.player}`;
  if (d.decision === "correct") {
    const seated = doc.rounds[d.round - 1].games[d.table - 1].players;
    return `round ${d.round}, table ${d.table}: ${seats(doc, d.winners, seated)}`;
  }
  return "";
}

function playersCount(doc) {
  const count = doc.players.length;
  const withdrawn = doc.players.filter((p) => p.withdrawn).length;
  return `${count}${doc.max_players > count ? ` of at most ${doc.max_players}` : ""}`
    + `${withdrawn ? `, ${withdrawn} withdrawn` : ""}`;
}

function joined(parts, separator) {
  return parts.flatMap((part, i) => (i ? [separator, part] : [part])).flat();
}

function when(at) {
  return (at || "").replace("T", " ").replace("Z", " UTC");
}

function starts(start) {
  if (start === "manual") return "when the organizer starts them";
  if (start === "auto") return "when the round before ends";
  return `${start.after_s} s after the round before ends`;
}

function render(doc) {
  latest = doc;
  const finished = doc.status === "finished";
  $("tournament").dataset.status = doc.status;
  $("status").dataset.status = doc.status;
  $("status").textContent = doc.status;
  $("paused").hidden = !doc.paused;
  $("round-start").textContent = starts(doc.round_start);
  $("next-round").hidden = !doc.next_round_at;
  $("next-round-at").textContent = when(doc.next_round_at);
  $("rounds-made").textContent = `${doc.rounds.length} of ${doc.planned_rounds}`;
  $("players-count").textContent = playersCount(doc);
  $("export").hidden = !finished;
  renderStandings(doc);
  $("rounds").replaceChildren(...doc.rounds.map((r) => renderRound(doc, r)));
  $("decisions-card").hidden = !doc.decisions.length;
  $("decisions").replaceChildren(...doc.decisions.map((d) => {
    const words = what(doc, d);
    return h("li", { dataset: { testid: "decision", decision: d.decision } },
      h("b", {}, `${d.seq}. ${d.decision}`), words ? ` ${words} ` : " ",
      h("span", { class: "muted" }, `after round ${d.rounds_paired}, ${when(d.at)}`), `: ${d.reason}`);
  }));
  renderCrosstable(doc);
  renderMe(doc);
}

function renderStandings(doc) {
  const shown = columns(doc);
  $("standings-head").replaceChildren(h("tr", {},
    ["Place", "Player", "Points"].map((name) => h("th", { scope: "col" }, name)),
    shown.map((name) => h("th", { scope: "col", dataset: { tiebreak: name } }, tiebreak(name)))));
  $("standings").replaceChildren(...doc.standings.map((s) => {
    const dataset = { testid: "standing", player: s.player };
    if (doc.players[s.player].withdrawn) dataset.withdrawn = "true";
    return h("tr", { dataset },
      h("td", { dataset: { testid: "place" } }, s.place),
      h("th", { scope: "row" }, player(doc, s.player)), h("td", {}, s.points),
      shown.map((name) => h("td", { dataset: { tiebreak: name } },
        firstRules(doc) ? s.buchholz : s.tiebreaks[name] ?? "")));
  }));
  $("tiebreak-rule").textContent = tiebreakRule(doc);
}

/** A crosstable cell: `won vs Bo (seat 0)`, `bye`, `—` for a round the player was not in. */
function cross(doc, entry) {
  if (entry.result === "bye") return "bye";
  if (entry.result === "absent") return "—";
  const names = entry.opponents.map((p) => doc.players[p].name).join(", ");
  return `${entry.result} vs ${names} (seat ${entry.seat})`;
}

function renderCrosstable(doc) {
  const head = h("tr", {}, h("th", { scope: "col" }, "Player"),
    doc.rounds.map((r) => h("th", { scope: "col" }, `Round ${r.round}`)),
    h("th", { scope: "col" }, "Points"));
  const rows = doc.crosstable.map((row) => h("tr", {
    dataset: { testid: "cross-row", player: row.player },
  }, h("th", { scope: "row" }, player(doc, row.player)),
  row.rounds.map((entry) => h("td", {
    dataset: { testid: "cross", round: entry.round, result: entry.result },
  }, cross(doc, entry))),
  h("td", {}, row.points)));
  $("crosstable").replaceChildren(h("thead", {}, head), h("tbody", {}, rows));
}

// ----- the player's own part (a token in this browser) -----

/** The game page of `gameId`, opened as this player's seat: their token in its fragment. */
function seatLink(gameId) {
  return `/games/${encodeURIComponent(gameId)}#token=${encodeURIComponent(token)}`;
}

/**
 * What the player does now, from the document alone (as GET .../me says it): their game in
 * the latest round until it is over, or a bye while the round is played; else null (they
 * wait for a round not paired yet, or the tournament is over).
 */
function now(doc, number) {
  const last = doc.rounds[doc.rounds.length - 1];
  if (!last) return null;
  const game = last.games.find((g) => g.players.includes(number));
  if (game && !game.outcome) return { round: last.round, game };
  if (last.byes.includes(number) && last.games.some((g) => !g.outcome)) return { round: last.round, bye: true };
  return null;
}

function renderMe(doc) {
  if (!me) return;
  const number = me.player;
  $("me").hidden = false;
  $("me-who").textContent = `You are ${doc.players[number].name} (player ${number}).`;
  const part = now(doc, number);
  let words;
  if (part && part.game) {
    const { game } = part;
    const opponents = game.players.filter((p) => p !== number).map((p) => doc.players[p].name);
    words = [h("a", {
      class: "button", href: seatLink(game.game_id),
      dataset: { testid: "my-game", game: game.game_id, round: part.round },
    }, `Your game: round ${part.round}, table ${game.table}`),
    ` against ${opponents.join(", ")}; you play seat ${game.players.indexOf(number)}.`];
  } else if (part) {
    words = [`You have a bye in round ${part.round} (1 point).`];
  } else if (OVER.includes(doc.status)) {
    words = [`The tournament is ${doc.status}.`];
  } else if (doc.players[number].withdrawn) {
    words = ["The organizer withdrew you: no new game is paired for you."];
  } else if (doc.paused) {
    words = ["Your next game is not paired yet: the tournament is paused."];
  } else if (doc.next_round_at) {
    words = [`Your next game is paired at ${when(doc.next_round_at)}.`];
  } else if (doc.round_start === "manual") {
    words = ["Your next game is paired when the organizer starts the next round."];
  } else {
    words = ["Your next game is paired when every game of this round is over."];
  }
  $("me-now").replaceChildren(...words);
  const results = [];
  for (const r of doc.rounds) {
    if (r.byes.includes(number)) {
      results.push(h("li", { dataset: { testid: "my-result", round: r.round } }, `Round ${r.round}: bye (1 point)`));
      continue;
    }
    const game = r.games.find((g) => g.players.includes(number));
    if (!game || !game.outcome) continue;
    const seat = game.players.indexOf(number);
    const counted = game.correction ? game.correction.winners : game.outcome.winners;
    const won = counted.includes(seat);
    const result = !won ? "lost" : counted.length > 1 ? "shared" : "won";
    results.push(h("li", { dataset: { testid: "my-result", round: r.round } },
      `Round ${r.round}: ${result} `, h("a", { href: seatLink(game.game_id) }, `(table ${game.table})`)));
  }
  $("me-results").replaceChildren(...results);
}

/** The player's token from a `#token=...` link (stored, then removed from the address). */
function tournamentToken() {
  const fragment = new URLSearchParams(location.hash.slice(1));
  const given = fragment.get("token");
  if (given) {
    storeToken("tournament", tournamentId, given);
    fragment.delete("token");
    const rest = fragment.toString();
    history.replaceState(null, "", location.pathname + location.search + (rest ? `#${rest}` : ""));
  }
  return storedToken("tournament", tournamentId);
}

async function whoAmI() {
  token = tournamentToken();
  if (!token) return;
  try {
    me = await api(`${base}/me`, { token });
    render(latest || await api(base));
  } catch (error) {
    me = null;
    if (error instanceof ApiError && (error.status === 401 || error.status === 403)) {
      try {
        localStorage.removeItem(`floe:tournament:${tournamentId}`);
      } catch (_) { /* nothing stored */ }
      token = null;
      say(`The token this browser held for this tournament is refused (${error.message}): ask the organizer for a new one.`, "error");
    } else {
      say(error instanceof ApiError ? error.words : String(error), "error");
    }
  }
}

function renderRound(doc, r) {
  const title = `round-${r.round}-title`;
  const byes = r.byes.length
    ? ["Bye (1 point): ", ...joined(r.byes.map((p) => player(doc, p)), ", ")]
    : ["No byes."];
  return h("section", {
    class: "card round", dataset: { testid: "round", round: r.round }, "aria-labelledby": title,
  },
  h("h2", { id: title }, `Round ${r.round}`),
  h("ul", { class: "plain" }, r.games.map((g) => renderGame(doc, r, g))),
  h("p", { class: "muted", dataset: { testid: "byes" } }, ...byes));
}

function renderGame(doc, r, g) {
  const where = `round ${r.round}, table ${g.table}`;
  const url = `/games/${encodeURIComponent(g.game_id)}`;
  // A game of the player's opens as their seat (the token in the link's fragment).
  const play = me && g.players.includes(me.player) ? seatLink(g.game_id) : url;
  const winners = g.outcome ? g.outcome.winners.map((seat) => doc.players[g.players[seat]].name) : [];
  return h("li", { dataset: { testid: "tournament-game", game: g.game_id, status: g.status } },
    h("div", { class: "row" }, h("b", {}, `Table ${g.table}`),
      h("span", { class: "seated" }, joined(g.players.map((p) => player(doc, p)), " vs "))),
    h("div", { class: "row" },
      h("span", { dataset: { testid: "game-status" } }, GAME_STATUS[g.status] || statusWords(g.status)),
      g.outcome && h("span", { class: "ok", dataset: { testid: "game-outcome" } },
        `won by ${winners.length ? winners.join(", ") : "nobody"}`),
      g.correction && h("span", {
        class: "corrected", dataset: { testid: "correction", decision: g.correction.decision },
      }, `corrected by decision ${g.correction.decision}: ${seats(doc, g.correction.winners, g.players)}`),
      g.status !== "pending" && [
        h("a", { class: "button secondary", href: play, "aria-label": `Game of ${where}` }, "Game"),
        h("a", { href: `${url}/replay`, "aria-label": `Replay of ${where}` }, "Replay"),
      ]));
}

// ----- following -----

function received(message) {
  if (message.type !== "tournament") return;
  let doc;
  try {
    doc = JSON.parse(message.data);
  } catch (_) {
    return;
  }
  if (doc.id !== tournamentId) return;
  render(doc);
  $("tournament").dataset.change = message.id || "";
  if (settled(doc)) {
    $("live").textContent = "";
    streamWords("");
    if (stop) stop();
    stop = null;
  }
}

let broken = false; // the message says the stream broke off (and only then may it clear it)

function streamWords(text) {
  if (text) say(text, "error");
  else if (broken) say("");
  broken = Boolean(text);
}

function state(now) {
  if (now === "live") {
    $("live").textContent = "following live";
    streamWords("");
  } else {
    $("live").textContent = "";
    streamWords("The live updates broke off: reconnecting…");
  }
}

/** Finished, or cancelled with every game over: nothing more will come. */
function settled(doc) {
  if (doc.status === "finished") return true;
  return doc.status === "cancelled" && doc.rounds.every((r) => r.games.every((g) => g.status === "over"));
}

function start() {
  if (!$("tournament")) return;
  whoAmI();
  if ($("tournament").dataset.status === "finished") return; // nothing more will come
  stop = follow(`${base}/stream`, { onEvent: received, onState: state });
}

start();
