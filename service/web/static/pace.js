// Watching at a pace people can follow. Bots play a game faster than anyone can read it, so a
// spectator may choose to see it one version at a time, catching up with the game at a chosen
// rate (the game itself runs as fast as it does: only the drawing is paced). This module is the
// pure part: the paces on offer, the default one, the remembered choice, and the schedule
// (given what is drawn, the latest version and the pace, which version to draw next and when).
// game.js does the fetching and the drawing.

/** The paces on offer: `ms` between two versions drawn (0: live, null: paused). */
export const PACES = [
  { id: "live", words: "Live", ms: 0 },
  { id: "1s", words: "1 move/s", ms: 1000 },
  { id: "2s", words: "1 move per 2 s", ms: 2000 },
  { id: "paused", words: "Paused", ms: null },
];

const BY_ID = new Map(PACES.map((pace) => [pace.id, pace]));

/** A game without people in it (every seat a bot) is watched at 1 move/s unless chosen otherwise. */
export function allBots(seats) {
  return Boolean(seats && seats.length) && seats.every((seat) => Boolean(seat.bot));
}

export function defaultPace(seats) {
  return allBots(seats) ? "1s" : "live";
}

// The choice is remembered per kind of game: a pace chosen for bots' games is not forced on
// games with people in them, and the other way round.
const storageKey = (seats) => `floe:pace:${allBots(seats) ? "bots" : "people"}`;

/** The pace this browser last chose for such a game, else the default. */
export function rememberedPace(seats) {
  let kept = null;
  try {
    kept = localStorage.getItem(storageKey(seats));
  } catch (_) { /* storage refused: the default */ }
  return BY_ID.has(kept) ? kept : defaultPace(seats);
}

export function rememberPace(seats, id) {
  try {
    localStorage.setItem(storageKey(seats), id);
  } catch (_) { /* private mode: the choice lasts while the page stays open */ }
}

export function isLive(id) {
  return paceMs(id) === 0;
}

/** Milliseconds between two versions at pace `id` (0: live, null: paused). */
export function paceMs(id) {
  const pace = BY_ID.get(id);
  return pace ? pace.ms : 0;
}

/**
 * The next version to draw, and when (a time in ms, as `now` is), or null when there is
 * nothing to draw until something changes (caught up, or paused).
 *   shown: the version drawn now; latest: the game's latest version known;
 *   pace: a pace id; lastStep: when the last paced version was drawn; now: the time now.
 * Live draws the latest at once; a pace draws the version after the one shown, one pace
 * after the last step (at once if that time has passed).
 */
export function nextStep({ shown, latest, pace, lastStep, now }) {
  if (shown >= latest) return null;
  const ms = paceMs(pace);
  if (ms === null) return null;
  if (ms === 0) return { version: latest, at: now };
  return { version: shown + 1, at: Math.max(now, lastStep + ms) };
}

/** The version a paced page starts from: `#v=N` in the address when given (kept within the
 * game), else the latest. */
export function startVersion(hash, latest) {
  const asked = Number(new URLSearchParams(hash.replace(/^#/, "")).get("v"));
  return Number.isInteger(asked) && asked >= 1 ? Math.min(asked, latest) : latest;
}
