// One tournament, live. The page arrives rendered by the server; this follows the tournament's
// stream (the whole document at once and after every change) and redraws the status, the
// standings and the rounds the way tournament.html draws them. Names are people's input:
// they only ever become text nodes.
import { h, statusWords } from "./api.js";
import { follow } from "./stream.js";

const $ = (id) => document.getElementById(id);
const tournamentId = decodeURIComponent(location.pathname.split("/")[2] || "");
const base = `/v1/tournaments/${encodeURIComponent(tournamentId)}`;
const GAME_STATUS = { pending: "not started yet" };

let stop = null;

function say(text, kind = "") {
  $("message").className = kind;
  $("message").textContent = text;
}

// ----- drawing -----

/** A player by number: the name, and the kind of bot when it is one. */
function player(doc, number) {
  const info = doc.players[number];
  const name = h("span", { class: "player-name" }, info.name);
  return info.bot ? [name, " ", h("span", { class: "bot" }, `(${info.bot} bot)`)] : [name];
}

function joined(parts, separator) {
  return parts.flatMap((part, i) => (i ? [separator, part] : [part])).flat();
}

function render(doc) {
  const finished = doc.status === "finished";
  $("tournament").dataset.status = doc.status;
  $("status").dataset.status = doc.status;
  $("status").textContent = doc.status;
  $("rounds-made").textContent = `${doc.rounds.length} of ${doc.planned_rounds}`;
  $("export").hidden = !finished;
  $("standings").replaceChildren(...doc.standings.map((s, i) => h("tr", {
    dataset: { testid: "standing", player: s.player },
  }, h("td", {}, i + 1), h("th", { scope: "row" }, player(doc, s.player)), h("td", {}, s.points),
  h("td", {}, s.buchholz))));
  $("rounds").replaceChildren(...doc.rounds.map((r) => renderRound(doc, r)));
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
  const winners = g.outcome ? g.outcome.winners.map((seat) => doc.players[g.players[seat]].name) : [];
  return h("li", { dataset: { testid: "tournament-game", game: g.game_id, status: g.status } },
    h("div", { class: "row" }, h("b", {}, `Table ${g.table}`),
      h("span", { class: "seated" }, joined(g.players.map((p) => player(doc, p)), " vs "))),
    h("div", { class: "row" },
      h("span", { dataset: { testid: "game-status" } }, GAME_STATUS[g.status] || statusWords(g.status)),
      g.outcome && h("span", { class: "ok", dataset: { testid: "game-outcome" } },
        `won by ${winners.length ? winners.join(", ") : "nobody"}`),
      g.status !== "pending" && [
        h("a", { class: "button secondary", href: url, "aria-label": `Game of ${where}` }, "Game"),
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
  if (doc.status === "finished") {
    $("live").textContent = "";
    say("");
    if (stop) stop();
    stop = null;
  }
}

function state(now) {
  if (now === "live") {
    $("live").textContent = "following live";
    say("");
  } else {
    $("live").textContent = "";
    say("The live updates broke off: reconnecting…", "error");
  }
}

function start() {
  if (!$("tournament") || $("tournament").dataset.status === "finished") return; // nothing more will come
  stop = follow(`${base}/stream`, { onEvent: received, onState: state });
}

start();
