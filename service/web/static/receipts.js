// The service's receipts for a game's events, kept in this browser. A receipt is the
// service's signature over an event's version and mark (an HMAC of its hash under the still
// secret seed): a player who keeps them can later show that an export rewrites what was
// played (`floe replay verify --receipts FILE`). Every action's answer carries the receipts
// of the events it wrote, and every streamed event its own; the page keeps each one it sees.

const STORE = (gameId) => `floe:receipts:${gameId}`;
const HEX64 = /^[0-9a-f]{64}$/;
const HEX128 = /^[0-9a-f]{128}$/;

function isReceipt(receipt) {
  return Boolean(receipt) && Number.isInteger(receipt.version) && receipt.version > 0
    && HEX64.test(receipt.mark || "") && HEX128.test(receipt.signature || "");
}

/** The receipts kept for `gameId`, sorted by version. */
export function keptReceipts(gameId) {
  let kept = [];
  try {
    kept = JSON.parse(localStorage.getItem(STORE(gameId)) || "[]");
  } catch (_) {
    kept = [];
  }
  return (Array.isArray(kept) ? kept.filter(isReceipt) : []).sort((a, b) => a.version - b.version);
}

/**
 * Keep `receipts` (any that are not receipts are ignored; absent or empty is fine: a service
 * without receipts sends none). The first receipt for a version is the one kept. Returns how
 * many were new.
 */
export function keepReceipts(gameId, receipts) {
  const fresh = (Array.isArray(receipts) ? receipts : [receipts]).filter(isReceipt);
  if (!fresh.length) return 0;
  const kept = keptReceipts(gameId);
  const versions = new Set(kept.map((r) => r.version));
  let added = 0;
  for (const { version, mark, signature } of fresh) {
    if (versions.has(version)) continue;
    versions.add(version);
    kept.push({ version, mark, signature });
    added += 1;
  }
  if (added) {
    try {
      localStorage.setItem(STORE(gameId), JSON.stringify(kept.sort((a, b) => a.version - b.version)));
    } catch (_) { /* not kept across reloads */ }
  }
  return added;
}

/** The receipts as `floe replay verify --receipts` reads them: JSON lines, by version. */
export function receiptLines(gameId) {
  return keptReceipts(gameId)
    .map(({ version, mark, signature }) => `${JSON.stringify({ game_id: gameId, version, mark, signature })}\n`)
    .join("");
}
