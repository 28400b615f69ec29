// Replay an uploaded export file: POST /v1/replays audits it and answers every version.
import { ApiError, api, describeEvent, outcomeWords, seatName, showSvg, statusWords } from "./api.js";
import { stepper } from "./stepper.js";

const $ = (id) => document.getElementById(id);
const MAX_BYTES = 2 * 1024 * 1024;
const WINDOW = 20; // boards asked for per request

let text = "";
let answer = null;
const boards = new Map(); // version -> svg
let steps = null;

function say(words, kind = "") {
  $("message").className = kind;
  $("message").textContent = words;
}

async function post(from) {
  return api(`/v1/replays?from=${from}&count=${WINDOW}`, {
    method: "POST", body: text, type: "application/x-ndjson",
  });
}

async function boardOf(version) {
  if (!boards.has(version)) {
    const from = Math.max(1, version - Math.floor(WINDOW / 2));
    const more = await post(from);
    for (const board of more.boards) boards.set(board.version, board.svg);
  }
  if (!boards.has(version)) { // left out for the answer's byte budget: ask from it
    const more = await post(version);
    for (const board of more.boards) boards.set(board.version, board.svg);
  }
  return boards.get(version);
}

async function show(version) {
  const step = answer.versions?.[version - 1]; // none for a tournament export
  if (!step) return;
  let svg;
  try {
    svg = await boardOf(version);
  } catch (error) {
    say(error instanceof ApiError ? `Cannot draw version ${version}: ${error.words}` : String(error), "error");
  }
  if (steps && steps.version() !== version) return;
  if (svg) showSvg($("board"), svg);
  $("version").textContent = String(version);
  $("status").textContent = statusWords(step.status);
  $("to-act").textContent = step.to_act.length ? step.to_act.map((s) => seatName(answer.seats, s)).join(", ") : "nobody";
  $("outcome").textContent = step.outcome ? `Game over · ${outcomeWords(step.outcome, answer.seats)}` : "";
  $("event").textContent = describeEvent(step.event, answer.seats);
  $("event-data").textContent = JSON.stringify(step.event.data, null, 1);
}

// The seats (or players) without a key: their moves rest on the host's word, and the audit
// says so beside every verdict (none: nothing to say).
function unsignedWords(who, noun) {
  if (who.length === 0) return [];
  const names = who.map((w) => (typeof w === "object" ? `${w.player} (${w.name})` : `${w}`));
  const plural = names.length === 1 ? `${noun} ${names[0]}` : `${noun}s ${names.join(", ")}`;
  return [`${plural} unsigned: ${names.length === 1 ? "its" : "their"} moves rest on the host's word`];
}

// A tournament export is judged as a set: its verdict and problems, no steps.
function showTournament() {
  const verdict = answer.verdict;
  $("verdict").textContent = verdict.status;
  $("verdict").className = verdict.status;
  const why = verdict.reason ? `: ${verdict.reason}` : "";
  const games = `${verdict.games.length} games, ${verdict.rounds} rounds`;
  const id = verdict.tournament_id ? ` · tournament ${verdict.tournament_id}` : "";
  $("verdict-detail").textContent = `${why} (${games}${id})`;
  $("banner").textContent = verdict.problems.concat(unsignedWords(verdict.unsigned_players || [], "player")).join(" · ");
  $("result").hidden = false;
  $("steps").hidden = true;
}

function showVerdict() {
  const verdict = answer.verdict;
  $("verdict").textContent = verdict.status;
  $("verdict").className = verdict.status;
  const where = verdict.version === null ? "" : ` at version ${verdict.version}`;
  const why = verdict.reason ? `: ${verdict.reason}` : "";
  const game = answer.game_id ? ` · game ${answer.game_id}` : "";
  $("verdict-detail").textContent = `${where}${why} (${verdict.events} events${game})`;
  $("banner").textContent = answer.banner.concat(unsignedWords(verdict.unsigned_seats || [], "seat")).join(" · ");
  $("result").hidden = false;
}

async function upload(file) {
  say("");
  if (file.size > MAX_BYTES) {
    say(`The file is ${file.size} bytes: at most ${MAX_BYTES} are accepted.`, "error");
    return;
  }
  text = await file.text();
  boards.clear();
  say("Checking the file…");
  try {
    answer = await post(1);
  } catch (error) {
    say(error instanceof ApiError ? `Refused: ${error.words}` : String(error), "error");
    return;
  }
  say("");
  if (answer.kind === "tournament") {
    showTournament();
    return;
  }
  for (const board of answer.boards) boards.set(board.version, board.svg);
  showVerdict();
  $("steps").hidden = answer.last === 0;
  if (!answer.last) return;
  $("last").textContent = String(answer.last);
  if (steps) steps.setLast(answer.last);
  else steps = stepper($("stepper"), { last: answer.last, show });
  await steps.go(1);
}

$("file").addEventListener("change", (event) => {
  const [file] = event.target.files;
  if (file) upload(file);
});
