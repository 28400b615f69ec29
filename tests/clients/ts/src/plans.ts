// What both generated clients play: one game of each kind, actions chosen by a seeded
// generator (deterministic), weighted so that every game ends in a few hundred moves.

export type GameName = "arktia" | "iceberg" | "ice-breakers";

export interface Plan {
  game: GameName;
  players: number;
  /** relative weight of each action type (absent: 1) */
  weights: Record<string, number>;
  /** whether the game has random draws (made by the worker) */
  draws: boolean;
}

export const GAMES: Plan[] = [
  { game: "arktia", players: 2, weights: { retire: 0.05 }, draws: false },
  { game: "iceberg", players: 2, weights: { roll: 10, flip: 10 }, draws: true },
  {
    game: "ice-breakers",
    players: 2,
    weights: { move_ship: 8, clear: 5, give: 5, play_power: 4, boost: 2, cash_ab2: 2 },
    draws: true,
  },
];

export function check(condition: boolean, what: string): asserts condition {
  if (!condition) throw new Error(`check failed: ${what}`);
}

/** A small seeded generator (mulberry32), so a run is the same every time. */
export function chooser(seed: string) {
  let state = [...seed].reduce((hash, char) => (hash * 31 + char.charCodeAt(0)) >>> 0, 7);
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    one<T>(items: readonly T[]): T {
      const item = items[Math.floor(next() * items.length)];
      if (item === undefined) throw new Error("nothing to choose from");
      return item;
    },
    weighted<T extends { type: string }>(items: readonly T[], weights: Record<string, number>): T {
      const of = (item: T): number => weights[item.type] ?? 1;
      let left = next() * items.reduce((sum, item) => sum + of(item), 0);
      for (const item of items) {
        left -= of(item);
        if (left <= 0) return item;
      }
      const last = items[items.length - 1];
      if (last === undefined) throw new Error("nothing to choose from");
      return last;
    },
  };
}
